// Package fuzzing holds what the fuzz tests of several packages share:
// decoding vectors from fuzz bytes and checking that a validation error
// names a field of the model. Only tests import it.
package fuzzing

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
)

// Floats decodes a vector from fuzz bytes: mode 0 takes the raw float64
// bits (any value, NaN and Inf included), modes 1 and 2 take each byte as
// a weight (2: plus one, so positive) normalized to sum 1, mode 3 is nil.
// At most 64 entries.
func Floats(b []byte, mode uint8) []float64 {
	var v []float64
	switch mode % 4 {
	case 0:
		for i := 0; i+8 <= len(b) && len(v) < 64; i += 8 {
			v = append(v, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		}
	case 1, 2:
		var sum float64
		for _, c := range b[:min(len(b), 64)] {
			w := float64(c) + float64(mode%4-1)
			v = append(v, w)
			sum += w
		}
		for i := range v {
			v[i] /= sum
		}
	case 3:
		return nil
	}
	return v
}

// NamesField fails t unless err is a *param.Error naming a field of the
// struct v (a value or a pointer to one).
func NamesField(t testing.TB, err error, v any) {
	t.Helper()
	var pe *param.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *param.Error", err, err)
		return
	}
	typ := reflect.TypeOf(v)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if _, ok := typ.FieldByName(pe.Param); !ok {
		t.Fatalf("error %v names %q, not a field of %v", err, pe.Param, typ)
	}
}
