package validate

import (
	"context"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// The quick catalogue: every check passes, and every check would fail
// against a broken theory value (1.25·x + 0.05, or the opposite tipping
// outcome) judged on the same simulation. Long: its simulations take
// minutes of CPU (more than the rest of the module's tests together), so
// it runs with FLUID_COVERAGE=1, as .ci/run does with the coverage tests.
func TestQuickCatalogue(t *testing.T) {
	if os.Getenv("FLUID_COVERAGE") == "" {
		t.Skip("the quick catalogue runs with FLUID_COVERAGE=1 (minutes of simulation)")
	}
	rep, err := Run(&Settings{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range rep.Checks {
		fmt.Fprintf(&b, "%-18s %-45s N=%-5d theory %10.5g sim %10.5g ± %-9.3g allow %-8.3g %v\n",
			c.Case, c.Quantity, c.N, c.Theory, c.Sim.Mean, c.Sim.CI95, c.Allow, c.Pass)
		if !c.Pass {
			t.Errorf("%s: %s: theory %v, simulation %+v (allowance %v)", c.Case, c.Quantity, c.Theory, c.Sim, c.Allow)
		}
		if c.brokenPass {
			t.Errorf("%s: %s: would pass with a broken theory value", c.Case, c.Quantity)
		}
	}
	t.Logf("%d checks in %.1f s\n%s", len(rep.Checks), rep.Elapsed.Seconds(), b.String())
	// Issue 8: at N = 10 the refined mean field is closer to simulation
	// than the plain one (2.6141).
	for _, c := range rep.Checks {
		if c.Case == "jsq2-refined" && c.N == 10 {
			if math.Abs(c.Sim.Mean-c.Theory) >= math.Abs(c.Sim.Mean-2.6141) {
				t.Errorf("N = 10: simulation %.4f, refined %.4f, mean field 2.6141", c.Sim.Mean, c.Theory)
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range rep.Checks {
		seen[c.Case] = true
	}
	for _, c := range Catalogue() {
		if c.Quick && !seen[c.Name] {
			t.Errorf("quick case %s produced no check", c.Name)
		}
	}
}

// The breaking hook (RunBroken) end to end: the exact product-form case passes, and fails
// once its theory values are broken.
func TestBreakHook(t *testing.T) {
	f := regexp.MustCompile("^jiq-product-form$")
	ok, err := Run(&Settings{Quick: true, Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := RunBroken(&Settings{Quick: true, Filter: f}, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if ok.Failed != 0 || bad.Failed != len(bad.Checks) || len(bad.Checks) == 0 {
		t.Errorf("intact: %d of %d failed; broken: %d of %d failed", ok.Failed, len(ok.Checks), bad.Failed, len(bad.Checks))
	}
}

func TestVerdict(t *testing.T) {
	// 8 samples, 95% half-width 1: the 99.9% half-width is 1·t(0.9995, 7)/t(0.975, 7) = 5.408/2.365.
	e := sim.Estimate{Mean: 10, CI95: 1, Samples: 8}
	half, pass := Verdict(e, 12, 0)
	// The quantiles are given to five digits: 1e-3 on their ratio.
	approx.Check(t, "99.9% half-width", half, 5.4079/2.3646, 1e-3, 0)
	if !pass {
		t.Errorf("theory 12 within %v of 10 failed", half)
	}
	if _, pass := Verdict(e, 12.3, 0); pass {
		t.Error("theory outside the interval passed")
	}
	if _, pass := Verdict(e, 12.3, 0.1); !pass {
		t.Error("the allowance was not added")
	}
	if _, pass := Verdict(sim.Estimate{Mean: 1, Samples: 1}, 1, 0); !pass {
		t.Error("a single exact sample did not pass")
	}
	if _, err := Run(&Settings{Filter: regexp.MustCompile("nothing-matches")}); err == nil {
		t.Error("an empty selection ran")
	}
}

// A cancelled Context: after the first case, the report holds that
// case's checks and says it was interrupted; while the finite-N edge runs
// (its theory and simulations poll the context 2,687 times when not
// cancelled: measured once), a cancellation at the 20th poll abandons
// the case within a few polls (12 measured; at most 100 allowed) and no
// check is reported. The test counts polls, not seconds: it holds
// however loaded the machine.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	set := &Settings{Quick: true, Filter: regexp.MustCompile("^jiq-(theorem1|product-form|queueing)$")}
	set.Context = ctx
	set.Progress = func(done, total int64, name string) {
		if done == 1 {
			if total != 3 || name != "jiq-theorem1" {
				t.Errorf("progress %d of %d (%s)", done, total, name)
			}
			cancel()
		}
	}
	rep, err := Run(set)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != outcome.Interrupted || rep.Done != 1 || rep.Cases != 3 || len(rep.Checks) == 0 {
		t.Fatalf("status %v, %d of %d cases done, %d checks", rep.Status, rep.Done, rep.Cases, len(rep.Checks))
	}
	for _, c := range rep.Checks {
		if c.Case != "jiq-theorem1" {
			t.Errorf("check of case %s after the cancellation", c.Case)
		}
	}

	polled := &pollCountdown{Context: context.Background(), left: 20}
	set = &Settings{Quick: true, Filter: regexp.MustCompile("^finite-n-edge$")}
	set.Context = polled
	rep, err = Run(set)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != outcome.Interrupted || rep.Done != 0 || len(rep.Checks) != 0 {
		t.Errorf("status %v, %d done, %d checks", rep.Status, rep.Done, len(rep.Checks))
	}
	if n := polled.after.Load(); n > 100 {
		t.Errorf("%d polls after the cancellation, want at most 100: the case goes on after it is cancelled", n)
	}
}

// pollCountdown is a context that is done from its left-th poll of Done
// on; after counts the polls from then on.
type pollCountdown struct {
	context.Context
	mu    sync.Mutex
	left  int
	after atomic.Int64
	done  chan struct{}
}

func (c *pollCountdown) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
	}
	if c.left--; c.left < 0 {
		if c.left == -1 {
			close(c.done)
		}
		c.after.Add(1)
		return c.done
	}
	return nil
}

func (c *pollCountdown) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left < 0 {
		return context.Canceled
	}
	return nil
}
