package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// complexValue is a complex number in JSON.
type complexValue struct {
	Re float64 `json:"re"`
	Im float64 `json:"im"`
}

func complexOf(c complex128) complexValue { return complexValue{real(c), imag(c)} }

// fmtComplex prints a complex number, dropping an imaginary part below
// the printed precision.
func fmtComplex(c complexValue) string {
	if math.Abs(c.Im) < 5e-4 {
		return fmt.Sprintf("%.3f", c.Re)
	}
	return fmt.Sprintf("%.3f%+.3fi", c.Re, c.Im)
}

func ptr[T any](v T) *T { return &v }

// g prints a number with six significant digits.
func g(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
