package staleboard

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// The root path locates the edge of k = 5, λ = 0.9 in at most 100 map
// evaluations (the search took about 635), at the published 2.8993.
func TestEdgeRootEvaluations(t *testing.T) {
	r, err := Edge(&System{K: 5, Load: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != EdgeRoot {
		t.Fatalf("located by %q (%s), want the root", r.Method, r.Fallback)
	}
	if r.Evaluations > 100 {
		t.Errorf("%d map evaluations, want at most 100", r.Evaluations)
	}
	if r.Status != outcome.EdgeFound {
		t.Errorf("status %v, want an edge", r.Status)
	}
	// The published 2.8993, to the bracket's RelTol 1e-4.
	approx.Check(t, "edge T*(1−λ)²", r.Scaled, 2.8993, 0, 1e-4)
	if r.Mechanism != fixedpoint.BorderCollision || r.Branch != 59 || r.Radius >= 0.97 {
		t.Errorf("ends on branch %d by %v, radius %.3f", r.Branch, r.Mechanism, r.Radius)
	}
	// The collision is solved for: inside the bracket, which is RelTol wide.
	if !(r.Lo < r.Collision && r.Collision < r.Hi) || r.Hi-r.Lo > 1e-4*r.Hi || r.Period != r.Hi {
		t.Errorf("collision %v, bracket [%v, %v], period %v", r.Collision, r.Lo, r.Hi, r.Period)
	}
	t.Logf("T* = %.6f, %d evaluations, %v", r.Period, r.Evaluations, r.Elapsed)
}

// The root and the search agree to the search's bracket, 1e-4, on the same
// branch, where the chain of branches has no gap.
func TestEdgeRootMatchesSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the search for five entries")
	}
	for _, m := range []System{{K: 4, Load: 0.8}, {K: 7, Load: 0.8}, {K: 3, Load: 0.9}, {K: 6, Load: 0.9}, {K: 10, Load: 0.9}} {
		t.Run(fmt.Sprintf("k=%d/λ=%v", m.K, m.Load), func(t *testing.T) {
			t.Parallel()
			root, err := Edge(&m, nil)
			if err != nil {
				t.Fatal(err)
			}
			search, err := Edge(&m, &EdgeSettings{Search: true})
			if err != nil {
				t.Fatal(err)
			}
			if root.Method != EdgeRoot || search.Method != EdgeSearch {
				t.Errorf("methods %q (%s), %q", root.Method, root.Fallback, search.Method)
			}
			// Both bracket T* to RelTol 1e-4.
			approx.Check(t, "root's T* over the search's", root.Period/search.Period, 1, 1e-4, 0)
			if root.Branch != search.Branch {
				t.Errorf("root on branch %d, search on branch %d", root.Branch, search.Branch)
			}
			if root.Evaluations*4 > search.Evaluations {
				t.Errorf("root %d evaluations, search %d", root.Evaluations, search.Evaluations)
			}
		})
	}
}

// A bubble below a gap is not reached: at k = 7, λ = 0.95 branch 256 is
// stable on [1791.42, 1794.79], below the end of branch 257 at 1795.40.
// The state followed down branch 257 tips there (Confirm: just below,
// iteration leaves the balanced state), where the search's long steps
// could land on branch 256 and report its end.
func TestEdgeRootGap(t *testing.T) {
	if testing.Short() {
		t.Skip("a λ = 0.95 edge with confirmation")
	}
	r, err := Edge(&System{K: 7, Load: 0.95}, &EdgeSettings{Confirm: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != EdgeRoot || r.Branch != 257 {
		t.Errorf("located by %q (%s) on branch %d; want the root, branch 257", r.Method, r.Fallback, r.Branch)
	}
	// 1795.40 is given to two decimals.
	approx.Check(t, "collision", r.Collision, 1795.40, 0.01, 0)
	// Between the two bubbles no balanced state remains.
	gap := 0.5 * (1794.79 + 1795.40)
	if c := r.Confirmation; c == nil || !c.AboveOK || !c.BelowTipped || c.Above <= r.Period || c.Above > 1.02*r.Period {
		t.Errorf("confirmation %+v", c)
	}
	x := r.board
	m := newMap(7, 0.95, gap)
	thr := 1.6*Mean(x) + 1
	for range 200 {
		res, err := m.Apply(x)
		if err != nil {
			t.Fatal(err)
		}
		if x = res.Next; res.BoardMean > thr {
			return
		}
	}
	t.Errorf("at T = %.2f, between the bubbles, iteration from the edge stays balanced", gap)
}

// Where the root path cannot end the branch at a border collision it
// falls back on the search: k = 3 at λ = 0.8 has no edge.
func TestEdgeRootFallback(t *testing.T) {
	r, err := Edge(&System{K: 3, Load: 0.8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != EdgeFallback || r.Fallback == "" || (r.Status == outcome.EdgeFound) {
		t.Errorf("method %q (%q), found %v at %.4f", r.Method, r.Fallback, (r.Status == outcome.EdgeFound), r.Scaled)
	}
	// And without an edge, the root path follows the balanced state to
	// the floor itself: k = 2.
	r, err = Edge(&System{K: 2, Load: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != EdgeRoot || (r.Status == outcome.EdgeFound) {
		t.Errorf("k = 2: method %q (%q), found %v at %.4f", r.Method, r.Fallback, (r.Status == outcome.EdgeFound), r.Scaled)
	}
	// Without an edge the scaled period is the floor, 0.05, to rounding.
	approx.Check(t, "k = 2: scaled period", r.Scaled, 0.05, 1e-9, 0)
}

// Cancelling the context stops the computation within a map evaluation:
// the context is checked at every one, and after it is done no more are
// made; the entry ends Interrupted.
func TestEdgeCancel(t *testing.T) {
	ctx := &countdown{Context: context.Background()}
	ctx.left.Store(40)
	r, err := Edge(&System{K: 5, Load: 0.9}, &EdgeSettings{Run: outcome.Run{Context: ctx}})
	if err != nil || r.Status != outcome.Interrupted || r.K != 5 {
		t.Fatalf("%v, %v; want an interrupted entry", r, err)
	}
	if n := ctx.checks.Load(); n != 41 {
		t.Errorf("the context was checked %d times, want 41: the computation goes on after it is done", n)
	}
}

// countdown is a context that is done after a number of checks of Err.
type countdown struct {
	context.Context
	left, checks atomic.Int64
}

func (c *countdown) Err() error {
	c.checks.Add(1)
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} {
	if c.left.Load() < 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return nil
}
