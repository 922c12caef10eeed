package fuzzing

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
)

func TestFloats(t *testing.T) {
	raw := []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f} // NaN
	if v := Floats(raw, 0); len(v) != 1 || !math.IsNaN(v[0]) {
		t.Errorf("mode 0: %v", v)
	}
	if v := Floats([]byte{1, 3}, 1); len(v) != 2 || v[0] != 0.25 || v[1] != 0.75 {
		t.Errorf("mode 1: %v", v)
	}
	if v := Floats([]byte{0, 1}, 2); len(v) != 2 || v[0] != 1.0/3 || v[1] != 2.0/3 {
		t.Errorf("mode 2: %v", v)
	}
	if v := Floats(make([]byte, 200), 2); len(v) != 64 {
		t.Errorf("mode 2: %d entries, want at most 64", len(v))
	}
	if Floats(raw, 3) != nil {
		t.Error("mode 3 is nil")
	}
}

type model struct{ Load float64 }

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestNamesField(t *testing.T) {
	for _, c := range []struct {
		err  error
		fail bool
	}{
		{param.Errorf("Load", "bad"), false},
		{param.Errorf("Servers", "bad"), true},
		{errors.New("plain"), true},
	} {
		t.Run(fmt.Sprint(c.err), func(t *testing.T) {
			for _, v := range []any{model{}, &model{}} {
				r := &recorder{TB: t}
				NamesField(r, c.err, v)
				if r.failed != c.fail {
					t.Errorf("%v on %T: failed %v, want %v", c.err, v, r.failed, c.fail)
				}
			}
		})
	}
}
