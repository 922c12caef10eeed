package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/meanfield/staleboard"
)

type edgeOptions struct {
	ks      string
	loads   []float64
	floor   float64
	confirm bool
	workers int
	json    bool
}

func newEdge() *cobra.Command {
	o := &edgeOptions{}
	cmd := &cobra.Command{
		Use:   "edge",
		Short: "Tipping edge of the stale load board with k dispatchers",
		Long: `edge computes, from the refresh-period map, the tipping edge T*:
the shortest refresh period down to which the balanced state of k dispatchers
sharing a stale load board (each adding its own sends) can be followed from long
periods. Below it the dispatchers herd; above it a herd coexists with the balanced
state. It reports T*(1−λ)² beside the reference line 0.9(k − 2), the bracket, the
branch (pass in progress at T*) that ends there and how it ends (a border
collision of the piecewise-smooth map, or an eigenvalue crossing), and the leading
eigenvalue of the last stable fixed point.

-k and --load take lists and ranges (-k 2..10 --load 0.8,0.9,0.95); entries run
in parallel on all cores and print in order.`,
		Example: `  fluid edge
  fluid edge -k 5 --load 0.9 --confirm
  fluid edge -k 2..10 --load 0.8,0.9,0.95 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEdge(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.ks, "dispatchers", "k", "2..10", "numbers of dispatchers k: a list and/or ranges")
	f.Float64SliceVar(&o.loads, "load", []float64{0.9}, "loads λ per server, 0 < λ < 1 (a list)")
	f.Float64Var(&o.floor, "floor", 0.05, "lowest T(1−λ)² searched")
	f.BoolVar(&o.confirm, "confirm", false, "confirm each edge by direct iteration just above and below it")
	f.IntVar(&o.workers, "workers", 0, "parallel workers (0: all cores)")
	f.BoolVar(&o.json, "json", false, "write JSON (see edgeReport in doc.go)")
	return cmd
}

// edgeReport is the JSON output of `fluid edge`.
type edgeReport struct {
	Rows    []edgeRow `json:"rows"`
	Seconds float64   `json:"seconds"` // wall time of the whole table
}

// edgeRow is one (k, λ) entry. Fields about the edge are null when there
// is none down to the floor.
type edgeRow struct {
	K          int            `json:"k"`
	Load       float64        `json:"load"`
	Status     string         `json:"status"`    // "edge" or "no edge down to the floor"
	Period     *float64       `json:"period"`    // T*
	Scaled     *float64       `json:"scaled"`    // T*(1−λ)²
	Bracket    []float64      `json:"bracket"`   // [lo, hi] in T: balanced at hi, not reachable at lo
	Collision  *float64       `json:"collision"` // T where t_{V+1} − T extrapolates to 0
	Branch     *int           `json:"branch"`    // V, the pass in progress at T* on the ending branch
	Mechanism  string         `json:"mechanism"` // "border collision", "eigenvalue crossing", …
	Leading    complexValue   `json:"leading"`   // leading eigenvalue at the last stable fixed point
	Radius     float64        `json:"radius"`    // its modulus
	BoardMean  float64        `json:"board_mean"`
	Sojourn    float64        `json:"sojourn"` // mean time in system at the last balanced fixed point
	Line       float64        `json:"line"`    // the reference line 0.9(k − 2)
	Ratio      *float64       `json:"ratio"`   // scaled / line
	Floor      float64        `json:"floor"`   // lowest T(1−λ)² searched
	Confirm    *confirmReport `json:"confirmation,omitempty"`
	Evals      int            `json:"evaluations"` // map evaluations
	RowSeconds float64        `json:"seconds"`
}

// confirmReport is the dynamic confirmation (--confirm).
type confirmReport struct {
	Above        float64 `json:"above"`       // period just above T*
	AboveDecay   float64 `json:"above_decay"` // perturbation after 100 periods / at start
	AboveOK      bool    `json:"above_ok"`
	Below        float64 `json:"below"` // 0.99·T*
	BelowTipped  bool    `json:"below_tipped"`
	BelowPeriods int     `json:"below_periods"` // refresh periods until the board mean doubled
	BelowSojourn float64 `json:"below_sojourn"` // the herd's mean time in system there
}

func runEdge(stdout, stderr io.Writer, o *edgeOptions) error {
	ks, err := parseIntList("dispatchers", o.ks)
	if err != nil {
		return err
	}
	var models []staleboard.Model
	for _, l := range o.loads {
		for _, k := range ks {
			models = append(models, staleboard.Model{K: k, Load: l})
		}
	}
	start := time.Now()
	bar := newProgress(stderr, len(models), "edges")
	var mu sync.Mutex
	set := &staleboard.EdgeSettings{Floor: o.floor, Confirm: o.confirm, Workers: o.workers, Progress: func(p staleboard.EdgeProgress) {
		if p.Done != nil {
			mu.Lock()
			bar.add(1)
			mu.Unlock()
		}
	}}
	results, err := staleboard.EdgeTable(models, set)
	bar.done()
	if err != nil {
		return paramUsage(err)
	}
	rep := &edgeReport{Seconds: time.Since(start).Seconds()}
	for _, r := range results {
		rep.Rows = append(rep.Rows, newEdgeRow(r, o.floor))
	}
	if o.json {
		return writeJSON(stdout, rep)
	}
	return rep.writeTable(stdout)
}

func newEdgeRow(r *staleboard.EdgeResult, floor float64) edgeRow {
	row := edgeRow{
		K: r.K, Load: r.Load, Line: r.Line, Floor: floor,
		Mechanism: r.Mechanism.String(),
		Leading:   complexOf(r.Leading),
		Radius:    r.Radius, BoardMean: r.BoardMean, Sojourn: r.Sojourn,
		Evals: r.Evaluations, RowSeconds: r.Seconds,
	}
	if !r.Found {
		row.Status = "no edge down to the floor"
		return row
	}
	row.Status = "edge"
	row.Period, row.Scaled = ptr(r.Period), ptr(r.Scaled)
	row.Bracket = []float64{r.Lo, r.Hi}
	row.Branch = ptr(r.Branch)
	if !math.IsNaN(r.Collision) {
		row.Collision = ptr(r.Collision)
	}
	if r.Line > 0 {
		row.Ratio = ptr(r.Scaled / r.Line)
	}
	if c := r.Confirmation; c != nil {
		row.Confirm = &confirmReport{c.Above, c.AboveDecay, c.AboveOK, c.Below, c.BelowTipped, c.BelowIterations, c.BelowSojourn}
	}
	return row
}

func (r *edgeReport) writeTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Tipping edge of the stale load board, k dispatchers each adding its own sends (N → ∞, refresh-period map)\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "k\tλ\tT*\tT*(1−λ)²\t0.9(k−2)\tratio\tbranch\tends by\tleading eig.\tsojourn\tseconds\t")
	confirmed := false
	for _, row := range r.Rows {
		if row.Scaled == nil {
			fmt.Fprintf(tw, "%d\t%s\t—\tnone ≥ %s\t%s\t\t\t\t%s\t%.3g\t%.1f\t\n", row.K, g(row.Load), g(row.Floor), g(row.Line), fmtComplex(row.Leading), row.Sojourn, row.RowSeconds)
			continue
		}
		ratio := ""
		if row.Ratio != nil {
			ratio = fmt.Sprintf("%.3f", *row.Ratio)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%.4f\t%s\t%s\t%d\t%s\t%s\t%.3g\t%.1f\t\n", row.K, g(row.Load), *row.Period, *row.Scaled, g(row.Line), ratio, *row.Branch, row.Mechanism, fmtComplex(row.Leading), row.Sojourn, row.RowSeconds)
		confirmed = confirmed || row.Confirm != nil
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nT* is bracketed to 1e-4 relative; branch = pass in progress at T* on the last balanced fixed point;\n")
	fmt.Fprintf(&b, "sojourn = mean time in system there (service times). %d entries in %.1f s.\n", len(r.Rows), r.Seconds)
	if confirmed {
		b.WriteString("\nDirect iteration:\n")
		for _, row := range r.Rows {
			c := row.Confirm
			if c == nil {
				continue
			}
			above := "perturbation decays"
			if !c.AboveOK {
				above = "PERTURBATION DOES NOT DECAY"
			}
			below := fmt.Sprintf("tips into the herd after %d periods (mean time %.4g)", c.BelowPeriods, c.BelowSojourn)
			if !c.BelowTipped {
				below = "DOES NOT TIP"
			}
			fmt.Fprintf(&b, "  k=%d λ=%s: at T=%.2f %s (×%.2g in 100 periods); at T=%.2f %s\n", row.K, g(row.Load), c.Above, above, c.AboveDecay, c.Below, below)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
