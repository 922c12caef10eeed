package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/queues"
	"github.com/fluidlb/fluid/report"
)

// meanfieldJSON runs fluid meanfield with --json and decodes its report;
// wantExit is the exit status expected.
func meanfieldJSON(t *testing.T, wantExit int, args ...string) *report.Meanfield {
	t.Helper()
	out, _, err := fluid(t, append([]string{"meanfield", "--json"}, args...)...)
	if exitCode(err) != wantExit {
		t.Fatalf("%v: %v (exit %d), want exit %d", args, err, exitCode(err), wantExit)
	}
	var rep report.Meanfield
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return &rep
}

func TestMeanfieldCommand(t *testing.T) {
	t.Run("live", func(t *testing.T) {
		rep := meanfieldJSON(t, 0, "--policy", "jsqd:2", "--discipline", "ps", "--sizes", "h2:30")
		// Insensitivity: the exponential JSQ(2) mean time 2.614057 at λ = 0.9
		// (Σ 0.9^(2^i − 1)/0.9), to the 1e-6 printed.
		if rep.Sojourn == nil || rep.Abscissa == nil || *rep.Abscissa >= 0 || rep.BoardMean != nil {
			t.Fatalf("%+v", rep)
		}
		approx.Check(t, "sojourn", *rep.Sojourn, 2.614057, 1e-6, 0)
	})
	t.Run("refined", func(t *testing.T) {
		rep := meanfieldJSON(t, 0, "--servers", "10,100")
		if len(rep.Refined) != 2 || !(rep.Refined[0].Sojourn > rep.Refined[1].Sojourn && rep.Refined[1].Sojourn > *rep.Sojourn) {
			t.Errorf("refined %+v", rep.Refined)
		}
	})
	t.Run("board", func(t *testing.T) {
		out, _, err := fluid(t, "meanfield", "--policy", "board-jsqd:2", "--period", "10")
		if err != nil || !strings.Contains(out, "fixed point") || !strings.Contains(out, "mean board") {
			t.Errorf("%v\n%s", err, out)
		}
	})
	t.Run("board not settled", func(t *testing.T) {
		// Least loaded on a board at T = 6 wanders without settling: exit
		// 1, and the report holds the average of the last 100 periods with
		// their range, not the last iterate.
		rep := meanfieldJSON(t, 1, "--policy", "board-jsq", "--period", "6")
		if rep.Attractor == nil || *rep.Attractor != "not_settled" || rep.Cycle != nil || rep.Averaged == nil || *rep.Averaged != 100 {
			t.Fatalf("attractor %v, cycle %v, averaged %v", rep.Attractor, rep.Cycle, rep.Averaged)
		}
		approx.Within(t, "sojourn", *rep.Sojourn, *rep.Min, *rep.Max)
		approx.Within(t, "spread", *rep.Spread, 1e-6, 1)
	})
	t.Run("round robin", func(t *testing.T) {
		// E_N/M/1 at N = 100, λ = 0.9: 5.2268 (the spectral root σ of
		// σ = A*(1 − σ), E[T] = 1/(1 − σ)), to the 4 digits quoted.
		rep := meanfieldJSON(t, 0, "--policy", "rr", "--servers", "1,100")
		if len(rep.Rows) != 2 || rep.Sojourn != nil || rep.Method == "" {
			t.Fatalf("%+v", rep)
		}
		approx.Check(t, "N = 1 (M/M/1)", rep.Rows[0].Sojourn, 10, 1e-9, 0)
		approx.Check(t, "N = 100", rep.Rows[1].Sojourn, 5.2268, 5e-5, 0)
		if rep.Rows[1].Approximate || rep.Rows[1].Method == "" {
			t.Errorf("row %+v", rep.Rows[1])
		}
	})
	t.Run("rows' truncation at the top level", func(t *testing.T) {
		// PS round robin truncates a chain: the top level reports the
		// worst row's states and lost mass, not zeros beside them.
		rep := meanfieldJSON(t, 0, "--policy", "rr", "--discipline", "ps", "--sizes", "h2:4", "--servers", "10")
		if len(rep.Rows) != 1 || rep.Rows[0].States == 0 || rep.States != rep.Rows[0].States || rep.Lost != rep.Rows[0].Lost {
			t.Errorf("top level states %d lost %g, rows %+v", rep.States, rep.Lost, rep.Rows)
		}
	})
	t.Run("least loaded, approximate", func(t *testing.T) {
		rep := meanfieldJSON(t, 0, "--policy", "jsq", "--servers", "100", "--sizes", "h2:30")
		if len(rep.Rows) != 1 || !rep.Rows[0].Approximate || !strings.Contains(rep.Rows[0].Note, "5% low at SCV 30") {
			t.Errorf("%+v", rep.Rows)
		}
	})
	t.Run("csv", func(t *testing.T) {
		out, _, err := fluid(t, "meanfield", "--policy", "random", "--servers", "10,100", "--discipline", "ps", "--csv")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err != nil || len(lines) != 3 || !strings.Contains(lines[0], "sojourn") || !strings.Contains(lines[0], "method") {
			t.Errorf("%v\n%s", err, out)
		}
	})
	t.Run("correlation", func(t *testing.T) {
		rep := meanfieldJSON(t, 0, "--correlation-age", "0,500")
		if len(rep.Correlations) != 2 || rep.Policy != "random" {
			t.Fatalf("%+v", rep)
		}
		// ρ(0) = 1; the M/M/1 count at λ = 0.9 has mean 9.
		approx.Check(t, "ρ(0)", rep.Correlations[0].Correlation, 1, 1e-9, 0)
		approx.Check(t, "mean count", *rep.MeanQueue, 9, 1e-6, 0)
	})
	t.Run("crossing", func(t *testing.T) {
		// Least loaded on a board against round robin (N = 100) with
		// exponential sizes: the crossing is bracketed, and there the two
		// mean times agree to the bracket's resolution (XTol 1e-3 of T,
		// the curve's slope about 1 per unit T: 1e-2 relative).
		rep := meanfieldJSON(t, 0, "--crossing", "board-jsq,rr", "--servers", "100")
		if rep.Status != outcome.EdgeFound.Name() || rep.Period == nil || len(rep.Bracket) != 2 || len(rep.Points) < 10 {
			t.Fatalf("%+v", rep)
		}
		approx.Within(t, "T*", *rep.Period, rep.Bracket[0], rep.Bracket[1])
		approx.Check(t, "the two mean times at T*", *rep.Sojourn, *rep.VersusSojourn, 0, 1e-2)
		approx.Check(t, "round robin", *rep.VersusSojourn, 5.2268, 5e-5, 0)
	})
}

func TestMeanfieldRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"meanfield", "--policy", "jsq"}, "--servers"},
		{[]string{"meanfield", "--policy", "jsqd:0"}, "--policy"},
		{[]string{"meanfield", "--policy", "tally"}, "--policy"},
		{[]string{"meanfield", "--load", "1"}, "--load"},
		{[]string{"meanfield", "--sizes", "h2:1"}, "--sizes"},
		{[]string{"meanfield", "--discipline", "lifo"}, "--discipline"},
		{[]string{"meanfield", "--policy", "board-jsq"}, "--period"},
		{[]string{"meanfield", "--period", "5"}, "--period"},
		{[]string{"meanfield", "--sizes", "h2:4", "--servers", "10"}, "--sizes"},
		{[]string{"meanfield", "--sizes", "pareto:2.5"}, "--sizes"},
		{[]string{"meanfield", "--iterations", "0", "--policy", "board-jsq", "--period", "5"}, "--iterations"},
		// The cost of a board is estimated and refused above the budget,
		// with the estimate and the flag that raises it.
		{[]string{"meanfield", "--policy", "board-jsqd:2", "--period", "2000", "--discipline", "ps", "--sizes", "h2:4"}, "--max-work"},
		{[]string{"meanfield", "--policy", "board-jsqd:2", "--period", "2000", "--discipline", "ps", "--sizes", "h2:4"}, "state updates"},
		{[]string{"meanfield", "--policy", "jsq", "--servers", "1000"}, "--servers"},
		{[]string{"meanfield", "--policy", "least-work", "--servers", "1000", "--sizes", "h2:4"}, "--servers"},
		{[]string{"meanfield", "--policy", "rr", "--servers", "100", "--sizes", "pareto:2.5"}, "--sizes"},
		{[]string{"meanfield", "--policy", "rr", "--servers", "100", "--period", "5"}, "--period"},
		{[]string{"meanfield", "--policy", "board-jsqd:2", "--period", "5", "--servers", "100"}, "--servers"},
		{[]string{"meanfield", "--correlation-age", "500", "--policy", "rr"}, "--policy"},
		{[]string{"meanfield", "--correlation-age", "500", "--servers", "100"}, "--servers"},
		{[]string{"meanfield", "--correlation-age", "-1"}, "--correlation-age"},
		{[]string{"meanfield", "--crossing", "board-jsqd:2"}, "--crossing"},
		{[]string{"meanfield", "--crossing", "random,rr", "--servers", "100"}, "--crossing"},
		{[]string{"meanfield", "--crossing", "board-jsq,rr"}, "--servers"},
		{[]string{"meanfield", "--crossing", "board-jsq,board-jsqd:2", "--servers", "100"}, "--servers"},
		{[]string{"meanfield", "--crossing", "board-jsq,tally"}, "--crossing"},
		{[]string{"meanfield", "--crossing", "board-jsq,random", "--range", "5,1"}, "--range"},
		{[]string{"meanfield", "--range", "1,5"}, "--range"},
		{[]string{"meanfield", "--crossing", "board-jsq,random", "--correlation-age", "5"}, "exclusive"},
		{[]string{"meanfield", "--staleness", "--sizes", "h2:4"}, "--sizes"},
	} {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			_, _, err := fluid(t, c.args...)
			if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v (exit %d), want a usage error naming %q", err, exitCode(err), c.want)
			}
		})
	}
}

// The staleness tables as text: one row per size law, each cell's theory
// value (✓ inside the study's cell) beside the study's range.
func TestStalenessText(t *testing.T) {
	var results []*queues.StalenessResult
	for i, c := range queues.StalenessStudy[:6] {
		cr := &queues.CrossingResult{Outcome: outcome.Outcome{Status: outcome.EdgeFound}, X: c.Lo * 1.1}
		if i == 5 {
			cr.X = c.Hi * 1.05
		}
		results = append(results, &queues.StalenessResult{StalenessCell: c, Crossing: cr})
	}
	var b strings.Builder
	writeStalenessText(&b, results)
	out := b.String()
	for _, want := range []string{"exp ", "h2:4 ", "22 ✓", "20–50", "5.25  ", "5 of 6 crossings inside"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "\n") != 9 { // the title (2), a blank line, the header, two rows, a blank line, the note (2)
		t.Errorf("%d lines:\n%s", strings.Count(out, "\n"), out)
	}
}
