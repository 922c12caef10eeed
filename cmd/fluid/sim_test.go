package main

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/report"
)

func TestSimJSON(t *testing.T) {
	out, _, err := fluid(t, "sim", "--servers", "100", "--load", "0.9", "--alpha", "0.7,0.3", "--policy", "jiq-blocking",
		"--jobs", "100000", "--reps", "4", "--seed", "3", "--json")
	if err != nil && exitCode(err) != 1 {
		t.Fatal(err)
	}
	var rep report.Sim
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	exact, err := jackson.Solve(&jackson.JIQ{Servers: 100, Load: 0.9, Alpha: []float64{0.7, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	// The exact finite-N blocking lies in the interval (1.5 half-widths:
	// see package sim's agrees).
	if rep.Dispatchers != 2 || rep.Reps != 4 || rep.JobsMeasured != 400000 || rep.Blocking == nil || rep.Blocking.Samples < 16 ||
		math.Abs(rep.Blocking.Mean-exact.Blocking) > 1.5*rep.Blocking.CI95 || rep.Mean != rep.Sojourn.Mean || rep.Tipped != nil ||
		rep.Method != "replicated_batch_means" || rep.Batches != rep.Sojourn.Samples || rep.EffectiveJobs <= 0 || rep.EffectiveJobs > 400000 {
		t.Errorf("%+v (exact blocking %.5f)", rep, exact.Blocking)
	}
	// Board runs report the board and whether they tipped.
	out, _, err = fluid(t, "sim", "--servers", "50", "--dispatchers", "5", "--policy", "tally", "--period", "50",
		"--jobs", "20000", "--reps", "2", "--json", "--series")
	if err != nil && exitCode(err) != 1 {
		t.Fatal(err)
	}
	rep = report.Sim{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.BoardMean == nil || rep.Tipped == nil || len(rep.Series) != 2 || len(rep.Series[0]) < 5 {
		t.Errorf("board run: %+v", rep)
	}
}

func TestSimText(t *testing.T) {
	out, _, err := fluid(t, "sim", "--servers", "10", "--load", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mean time in system", "batch means", "seed 1", "Steady state to 0.02 at 95%", "warm-up found in the data (MSER-5)", "Precision reached"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}

func TestSimBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--servers", "0"}, "--servers"},
		{[]string{"sim", "--load", "1"}, "--load"},
		{[]string{"sim", "--load", "-0.5"}, "--load"},
		{[]string{"sim", "--policy", "best"}, "--policy"},
		{[]string{"sim", "--policy", "partitioned", "--servers", "3", "--dispatchers", "5", "--period", "10"}, "--dispatchers"},
		{[]string{"sim", "--policy", "board-jsq"}, "--period"},
		{[]string{"sim", "--period", "-2"}, "--period"},
		{[]string{"sim", "--alpha", "0.5,0.6"}, "--alpha"},
		{[]string{"sim", "--sizes", "h2"}, "--sizes"},
		{[]string{"sim", "--discipline", "lifo"}, "--discipline"},
		{[]string{"sim", "--start", "hot"}, "--start"},
		{[]string{"sim", "--jobs", "-1"}, "--jobs"},
		{[]string{"sim", "--transient"}, "--transient"},
		{[]string{"sim", "--jobs", "1000", "--budget", "5000"}, "--budget"},
		{[]string{"sim", "--budget", "0"}, "--budget"},
		{[]string{"sim", "--rel-precision", "0"}, "--rel-precision"},
		{[]string{"sim", "--rel-precision", "1"}, "--rel-precision"},
		{[]string{"sim", "--warmup", "-1"}, "--warmup"},
		{[]string{"sim", "--reps", "0"}, "--reps"},
		{[]string{"sim", "--exchange", "1"}, "--exchange"},
		{[]string{"sim", "--policy", "jiq-queueing", "--alpha", "0.5,0.5", "--beta", "1"}, "--beta"},
		{[]string{"sim", "--level", "1"}, "--level"},
		{[]string{"sim", "--level", "0"}, "--level"},
		{[]string{"sim", "--level", "95"}, "--level"},
		{[]string{"sim", "--rel-precision", "-0.01"}, "--rel-precision"},
	} {
		_, _, err := fluid(t, c.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %q", c.args, err, exitCode(err), c.want)
		}
	}
}

// simJSON runs fluid sim --json and decodes the report both as a report.Sim
// and as a map (to tell null fields from missing ones).
func simJSON(t *testing.T, args ...string) (*report.Sim, map[string]any) {
	t.Helper()
	out, _, err := fluid(t, append(append([]string{"sim"}, args...), "--json")...)
	if err != nil && !strings.Contains(err.Error(), "(status budget_reached)") {
		t.Fatal(args, err)
	}
	var rep report.Sim
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err, out)
	}
	return &rep, raw
}

// isNull reports whether the JSON object has key with the value null.
func isNull(raw map[string]any, key string) bool {
	v, ok := raw[key]
	return ok && v == nil
}

// The mean slowdown is null (with a note) where it is infinite, FCFS with
// exponential sizes, and finite under PS and with deterministic sizes;
// the text says why instead of printing a number.
func TestSimSlowdown(t *testing.T) {
	small := []string{"--servers", "10", "--load", "0.7", "--jobs", "20000", "--reps", "4"}
	rep, raw := simJSON(t, small...)
	if rep.Slowdown != nil || !isNull(raw, "slowdown") || rep.SlowdownNote == nil || !strings.Contains(*rep.SlowdownNote, "infinite") ||
		!(rep.SlowdownOver10.Mean > 0) || rep.MeanWait == nil || rep.ProbWait == nil {
		t.Errorf("FCFS exp: slowdown %+v, note %v, P(T > 10 S) %+v, wait %+v", rep.Slowdown, rep.SlowdownNote, rep.SlowdownOver10, rep.MeanWait)
	}
	for _, extra := range [][]string{{"--discipline", "ps"}, {"--sizes", "det"}, {"--sizes", "pareto:2.5"}, {"--policy", "jiq-blocking"}} {
		rep, raw := simJSON(t, append(small, extra...)...)
		if rep.Slowdown == nil || !(rep.Slowdown.Mean >= 1-1e-9) || rep.SlowdownNote != nil || raw["slowdown_note"] != nil {
			t.Errorf("%v: slowdown %+v, note %v", extra, rep.Slowdown, rep.SlowdownNote)
		}
	}
	out, _, err := fluid(t, append([]string{"sim"}, small...)...)
	if err != nil && exitCode(err) != 1 {
		t.Fatal(err)
	}
	if regexp.MustCompile(`time in system / size +[0-9]`).MatchString(out) || !strings.Contains(out, "∞ with exp sizes under FCFS") ||
		!strings.Contains(out, "P(time in system > 10 × size)") {
		t.Errorf("FCFS exp text:\n%s", out)
	}
}

// Under PS the FCFS wait is null; the delay E[T − S] and the probability
// of finding the server busy have their own fields (M/G/1-PS under random
// dispatch: λ/(1−λ) and λ). Under FCFS they equal the wait fields.
func TestSimPSFields(t *testing.T) {
	const load = 0.5
	args := []string{"--servers", "10", "--load", "0.5", "--discipline", "ps", "--jobs", "40000", "--reps", "4", "--seed", "2"}
	rep, raw := simJSON(t, args...)
	if rep.MeanWait != nil || rep.ProbWait != nil || !isNull(raw, "mean_wait") || !isNull(raw, "prob_wait") {
		t.Errorf("PS: mean_wait %v, prob_wait %v; want null", raw["mean_wait"], raw["prob_wait"])
	}
	d, b := rep.MeanDelay, rep.BusyAtArrival
	if math.Abs(d.Mean-load/(1-load)) > 1.5*d.CI95+0.02 || math.Abs(b.Mean-load) > 1.5*b.CI95+0.02 {
		t.Errorf("PS: mean_delay %+v (theory %v), busy_at_arrival %+v (theory %v)", d, load/(1-load), b, load)
	}
	out, _, err := fluid(t, append([]string{"sim"}, args...)...)
	if err != nil && exitCode(err) != 1 {
		t.Fatal(err)
	}
	if strings.Contains(out, "mean wait") || strings.Contains(out, "P(wait > 0)") ||
		!strings.Contains(out, "mean delay (time in system − size)") || !strings.Contains(out, "P(server busy at arrival)") {
		t.Errorf("PS text:\n%s", out)
	}
	rep, _ = simJSON(t, "--servers", "10", "--load", "0.5", "--jobs", "5000", "--reps", "4")
	if rep.MeanWait == nil || *rep.MeanWait != rep.MeanDelay || *rep.ProbWait != rep.BusyAtArrival {
		t.Errorf("FCFS: mean_wait %+v, mean_delay %+v", rep.MeanWait, rep.MeanDelay)
	}
}

// --level widens a transient's half_width by the Student t ratio, widens
// a steady-state one, and keeps ci95.
func TestSimLevel(t *testing.T) {
	args := []string{"--servers", "10", "--load", "0.7", "--jobs", "5000", "--reps", "6", "--transient"}
	a, _ := simJSON(t, args...)
	b, _ := simJSON(t, append(args, "--level", "0.99")...)
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 5}
	ratio := st.Quantile(0.995) / st.Quantile(0.975)
	if a.Level != 0.95 || b.Level != 0.99 || b.Sojourn.Level != 0.99 || b.CI95 != a.CI95 || b.Mean != a.Mean ||
		a.HalfWidth != a.CI95 || math.Abs(b.HalfWidth/a.HalfWidth-ratio) > 1e-9 || b.Sojourn.HalfWidth != b.HalfWidth || a.Method != "transient" {
		t.Errorf("95%%: %+v; 99%%: %+v; want the ratio %v", a.Sojourn, b.Sojourn, ratio)
	}
	out, _, err := fluid(t, append([]string{"sim", "--level", "0.99"}, args...)...)
	if err != nil || !strings.Contains(out, "99% intervals: Student t over 6 replication means of the transient") {
		t.Errorf("%v\n%s", err, out)
	}
	steady := []string{"--servers", "10", "--load", "0.5"}
	c, _ := simJSON(t, steady...)
	d, _ := simJSON(t, append(steady, "--level", "0.99")...)
	if d.Level != 0.99 || !(d.HalfWidth > c.HalfWidth) || c.HalfWidth != c.CI95 {
		t.Errorf("steady state: 95%% %+v, 99%% %+v", c.Sojourn, d.Sojourn)
	}
}

// Without --jobs the run goes on until --rel-precision, with the same
// result on one worker and on four; --budget stops it short (exit 1).
func TestSimSequential(t *testing.T) {
	args := []string{"--servers", "10", "--load", "0.7"}
	a, _ := simJSON(t, append(args, "--workers", "1")...)
	b, _ := simJSON(t, append(args, "--workers", "4")...)
	if !a.PrecisionReached || a.Status != "precision_reached" || a.HalfWidth > 0.02/1.02*a.Mean || a.RelPrecision != 0.02 ||
		a.Budget == nil || *a.Budget != 1_000_000_000 || a.Jobs != 0 || a.Warmup <= 0 || a.Analyses < 1 || a.NeededJobs != 0 || a.RelaxationTime == nil {
		t.Errorf("target: %+v", a)
	}
	if b.Sojourn != a.Sojourn || b.Events != a.Events || b.SlowdownOver10 != a.SlowdownOver10 {
		t.Errorf("workers 1: %+v; workers 4: %+v", a.Sojourn, b.Sojourn)
	}
	out, _, err := fluid(t, "sim", "--servers", "10", "--load", "0.7", "--rel-precision", "0.0001", "--budget", "100000", "--json")
	var c report.Sim
	if jerr := json.Unmarshal([]byte(out), &c); jerr != nil || exitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), "(status budget_reached)") {
		t.Fatalf("budget: %v, exit %d (%v)\n%s", jerr, exitCode(err), err, out)
	}
	if c.PrecisionReached || c.Status != "budget_reached" || c.NeededJobs <= c.JobsMeasured {
		t.Errorf("budget: %+v", c)
	}
	out, _, err = fluid(t, "sim", "--servers", "10", "--load", "0.7", "--rel-precision", "0.0001", "--budget", "100000")
	if exitCode(err) != 1 || !strings.Contains(out, "NOT reached") {
		t.Errorf("%v\n%s", err, out)
	}
}

// The runs that printed confident intervals around a wrong
// number: a replication far shorter than the relaxation time of a
// server's queue, and a load at which no run reaches steady state, are
// refused before any work (exit 2), naming the flag; a run that finds no
// steady state prints no steady-state number.
func TestSimNoSteadyStateNoNumber(t *testing.T) {
	for _, c := range []struct {
		args       []string
		flag, says string
	}{
		{[]string{"--servers", "100000", "--jobs", "10000", "--reps", "2"}, "--jobs", "relaxation times"},
		{[]string{"--load", "0.999999999999"}, "--load", "no run reaches steady state"},
		{[]string{"--servers", "100000"}, "--budget", "relaxation times"},
	} {
		start := time.Now()
		_, _, err := fluid(t, append([]string{"sim"}, c.args...)...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), c.flag) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %s and saying %q", c.args, err, exitCode(err), c.flag, c.says)
		}
		if elapsed := time.Since(start); elapsed > time.Second {
			t.Errorf("%v: refused after %v, not before the run", c.args, elapsed)
		}
	}
	// jsqd:2 is not planned per server (the planner pools the farm), so a
	// short run goes ahead: from a hot start it finds no steady state.
	out, _, err := fluid(t, "sim", "--servers", "100", "--policy", "jsqd:2", "--start", "balanced:50", "--jobs", "60000", "--reps", "2")
	if exitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), "(status not_steady)") || !strings.Contains(out, "No steady state was found") ||
		regexp.MustCompile(`mean time in system +[0-9]`).MatchString(out) {
		t.Errorf("%v\n%s", err, out)
	}
}

// Issue 16: inputs that crashed, exhausted memory, hung or printed a wrong
// number with exit status 0 are usage errors (exit 2) naming the flag and
// its bound, returned before any simulation (fast).
func TestSimRefusedInputs(t *testing.T) {
	for _, c := range []struct {
		args       []string
		flag, says string
	}{
		{[]string{"--reps", "1000000000", "--jobs", "1"}, "--reps", "at most 100000"},
		{[]string{"--servers", "268435456", "--jobs", "1000", "--reps", "1"}, "--servers", "2 GiB"},
		{[]string{"--policy", "board-jsq", "--period", "1e-6"}, "--period", "1000 per arrival"},
		{[]string{"--correlation-age", "1e-12"}, "--correlation-age", "10 per arrival"},
		{[]string{"--policy", "jiq-queueing", "--exchange", "1e308"}, "--exchange", "1000 per arrival"},
		{[]string{"--policy", "jiq-blocking", "--exchange", "1e308"}, "--exchange", "1000 per arrival"},
		{[]string{"--exchange", "1e308"}, "--exchange", "only applies to the JIQ policies"},
		{[]string{"--policy", "jsqd:1000000000", "--replacement"}, "--policy", "1..1000"},
		{[]string{"--jobs", "1000000000000000"}, "--jobs", "2⁴⁰"},
		{[]string{"--jobs", "200000000000"}, "--jobs", "1e+12"},
		{[]string{"--jobs", "1e15"}, "--jobs", "not an integer"},
		{[]string{"--sizes", "pareto:2"}, "--sizes", "infinite"},
		{[]string{"--sizes", "pareto:1.5"}, "--sizes", "infinite"},
		{[]string{"--sizes", "pareto:1.0001"}, "--sizes", "infinite"},
		{[]string{"--sizes", "pareto:1.0001", "--discipline", "ps"}, "--sizes", "cannot be resolved"},
		{[]string{"--sizes", "h2:1e12"}, "--sizes", "2e+14 measured jobs"},
		{[]string{"--load", "1e308", "--policy", "jiq-blocking"}, "--load", "λ ≤ 6.25e+06"},
		{[]string{"--load", "1e-300"}, "--load", "2⁴⁰"},
		{[]string{"--dispatchers", "0"}, "--dispatchers", "at least 1"},
		{[]string{"-k", "0"}, "--dispatchers", "at least 1"},
		{[]string{"--replacement"}, "--replacement", "jsqd:D"},
		{[]string{"--policy", "rr", "--replacement"}, "--replacement", "jsqd:D"},
		{[]string{"--level", "0.9999999"}, "--level", "0.999999"},
		{[]string{"--servers", "1", "--start", "hot:2000000000"}, "--start", "GiB"},
		{[]string{"--policy", "tally", "-k", "10000", "--servers", "100000", "--period", "10", "--jobs", "1000"}, "--dispatchers", "GiB"},
		{[]string{"--policy", "board-jsq", "--period", "1e-3", "--series", "--json", "--jobs", "200000"}, "--series", "1e+07"},
	} {
		start := time.Now()
		_, _, err := fluid(t, append([]string{"sim"}, c.args...)...)
		elapsed := time.Since(start)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), c.flag) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %s and saying %q", c.args, err, exitCode(err), c.flag, c.says)
		}
		if elapsed > time.Second {
			t.Errorf("%v: refused after %v, not before the run", c.args, elapsed)
		}
	}
}

// No NaN or infinity in the text, JSON or CSV of a grid of extreme but
// valid runs (the text's "∞" for an infinite mean slowdown is a word, not
// a number).
func TestSimNoNonFiniteOutput(t *testing.T) {
	nonFinite := regexp.MustCompile(`NaN|[+-]Inf|\bInf\b`)
	for _, args := range [][]string{
		{"--servers", "1", "--load", "0.999", "--jobs", "2000", "--reps", "2"},
		{"--servers", "1", "--load", "1e-6", "--jobs", "100", "--reps", "2"},
		{"--servers", "5", "--jobs", "10", "--reps", "1"},
		{"--servers", "20", "--discipline", "ps", "--sizes", "h2:9", "--jobs", "1", "--reps", "2"},
		{"--servers", "20", "--discipline", "ps", "--sizes", "pareto:1.5", "--jobs", "5000", "--reps", "3"},
		{"--servers", "20", "--policy", "least-work", "--sizes", "pareto:2.01", "--jobs", "5000", "--reps", "3"},
		{"--servers", "10", "--policy", "jiq-blocking", "--load", "100", "--jobs", "1000", "--reps", "4"},
		{"--servers", "10", "--policy", "jiq-queueing", "--exchange", "900", "--alpha", "0.999,0.001", "--jobs", "1000", "--reps", "2"},
		{"--servers", "10", "--policy", "board-jsq", "--period", "2e-4", "--correlation-age", "0.012", "--jobs", "1000", "--reps", "2"},
		{"--servers", "10", "--policy", "tally", "-k", "10", "--period", "1e6", "--start", "hot:1000", "--jobs", "1000", "--reps", "2"},
		{"--servers", "10", "--jobs", "1000", "--reps", "3", "--level", "0.999999"},
		{"--servers", "10", "--jobs", "1000", "--reps", "2", "--level", "1e-9"},
		{"--servers", "5", "--jobs", "100", "--reps", "2", "--rel-precision", "1e-300"},
	} {
		for _, format := range [][]string{nil, {"--json"}, {"--csv"}} {
			a := append(append(append([]string{"sim"}, args...), "--transient"), format...)
			out, _, err := fluid(t, a...)
			if err != nil {
				t.Errorf("%v: %v", a, err)
				continue
			}
			if m := nonFinite.FindString(out); m != "" {
				t.Errorf("%v prints %q:\n%s", a, m, out)
			}
		}
	}
}

// finiteReport finds a non-finite number anywhere in a report, so that
// one never reaches the output.
func TestFiniteReport(t *testing.T) {
	rep := &report.Sim{Mean: 1, Series: [][]float64{{1, 2}, {3, math.NaN()}}}
	if err := finiteReport(rep); err == nil || !strings.Contains(err.Error(), "Series[1][1]") {
		t.Errorf("NaN in a series: %v", err)
	}
	rep = &report.Sim{Mean: 1}
	rep.BoardMean = &report.Estimate{CI95: math.Inf(1)}
	if err := finiteReport(rep); err == nil || !strings.Contains(err.Error(), "BoardMean.CI95") {
		t.Errorf("infinite half-width: %v", err)
	}
	if err := finiteReport(&report.Sim{Mean: 2}); err != nil {
		t.Error(err)
	}
}
