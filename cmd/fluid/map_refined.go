package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
)

// mapRefined computes the refined (1/N) mean of the fixed point the map
// settled on (board p) at o.servers servers: N/k per part for partitioned
// dispatchers.
func mapRefined(m *staleboard.Model, att *staleboard.AttractorResult, o *mapOptions) (*report.MapRefined, error) {
	if att.Status != outcome.FixedPoint {
		return nil, param.Errorf("Servers", "the map settled on %s, not a fixed point: the refined mean corrects a balanced fixed point (try another --period or --start)", att.Status.Name())
	}
	n := o.servers
	if m.Tally == staleboard.Partitioned {
		if o.servers%m.K != 0 {
			return nil, param.Errorf("Servers", "%d servers over %d partitioned dispatchers: want a multiple of k (each part is the k = 1 map at N/k servers)", o.servers, m.K)
		}
		n = o.servers / m.K
	}
	r, err := staleboard.Refined(m, &staleboard.RefinedSettings{Start: att.Boards[0], Servers: n})
	if err != nil {
		return nil, err
	}
	return &report.MapRefined{
		Servers: o.servers, PartServers: n, Sojourn: r.Sojourn, SojournRefined: r.SojournN,
		SojournCoef: r.SojournCoef, StepError: r.StepError, BoardMean: r.BoardMean, BoardMeanRefined: r.BoardMeanN,
		BorderGap: r.BorderGap, BorderSpread: r.BorderSpread / math.Sqrt(float64(n)), Method: "refined_1_over_n",
	}, nil
}

// writeMapRefined writes the refined mean's lines.
func writeMapRefined(w io.Writer, rf *report.MapRefined) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	part := ""
	if rf.PartServers != rf.Servers {
		part = fmt.Sprintf(" (%d per part)", rf.PartServers)
	}
	fmt.Fprintf(tw, "\nAt N = %d servers%s (refined 1/N mean of the fixed point):\n", rf.Servers, part)
	fmt.Fprintf(tw, "mean time in system\t%.5g (N = ∞: %.5g; to first order in 1/n, %.5g + %.4g/n at n = %d: %.5g)\n", rf.SojournRefined, rf.Sojourn, rf.Sojourn, rf.SojournCoef, rf.PartServers, rf.Sojourn+rf.SojournCoef/float64(rf.PartServers))
	fmt.Fprintf(tw, "mean board at a refresh\t%.5g (N = ∞: %.5g)\n", rf.BoardMeanRefined, rf.BoardMean)
	fmt.Fprintf(tw, "cut at T\tnearest pass boundary %.3g away; its spread (sd) %.3g at n = %d\n", rf.BorderGap, rf.BorderSpread, rf.PartServers)
	tw.Flush()
}
