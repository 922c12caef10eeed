package solver

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/ode"
)

func TestStatusText(t *testing.T) {
	for s := NotTerminated; s <= TruncationLimit; s++ {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Status
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%v: %s → %v, %v", s, b, back, err)
		}
		if (s.Err() == nil) != (s == Converged) || (s.Err() != nil && !errors.Is(s.Err(), ErrNotConverged)) {
			t.Errorf("%v: Err %v", s, s.Err())
		}
	}
	if b, _ := json.Marshal(NotSettled); string(b) != `"not_settled"` {
		t.Errorf("NotSettled as JSON: %s", b)
	}
	if _, err := json.Marshal(Status(99)); err == nil {
		t.Error("unknown status marshalled")
	}
}

// Every status of the numerical packages has a translation, and only
// their success is Converged.
func TestTranslations(t *testing.T) {
	for s := fixedpoint.Converged; s <= fixedpoint.OutOfDomain; s++ {
		if got := FromFixedPoint(s); got == NotTerminated || got.OK() != (s == fixedpoint.Converged) {
			t.Errorf("fixedpoint %v → %v", s, got)
		}
	}
	for s := ode.Success; s <= ode.EventLoop; s++ {
		if got := FromODE(s); got == NotTerminated || got.OK() != (s.Err() == nil) {
			t.Errorf("ode %v → %v", s, got)
		}
	}
}

func TestFromSettle(t *testing.T) {
	bad := errors.New("bad setting")
	for _, c := range []struct {
		r    ode.SettleResult
		err  error
		want Status
		werr bool
	}{
		{ode.SettleResult{Settled: true, Status: ode.Success}, nil, Converged, false},
		{ode.SettleResult{Status: ode.Success}, nil, NotSettled, false},
		{ode.SettleResult{Status: ode.StepLimit}, ode.ErrStepLimit, StepLimit, false},
		{ode.SettleResult{}, bad, NotTerminated, true},
	} {
		got, err := FromSettle(c.r, c.err)
		if got != c.want || (err != nil) != c.werr {
			t.Errorf("%+v, %v: %v, %v", c.r, c.err, got, err)
		}
	}
}
