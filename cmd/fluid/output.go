package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/fluidlb/fluid/report"
	"github.com/fluidlb/fluid/table"
)

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func complexOf(c complex128) report.Complex { return report.Complex{Re: real(c), Im: imag(c)} }

// fmtComplex prints a complex number, dropping an imaginary part below
// the printed precision.
func fmtComplex(c report.Complex) string {
	if math.Abs(c.Im) < 5e-4 {
		return fmt.Sprintf("%.3f", c.Re)
	}
	return fmt.Sprintf("%.3f%+.3fi", c.Re, c.Im)
}

func ptr[T any](v T) *T { return &v }

// g prints a number with six significant digits.
func g(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// writeCSVReport writes a report as CSV: its JSON flattened the way a
// sweep's table is (table.Of), one row per element of the array
// rowsKey.
func writeCSVReport(w io.Writer, rep any, rowsKey string) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	t, err := table.Of(b, rowsKey)
	if err != nil {
		return err
	}
	return t.Write(w, "csv")
}

// exclusiveOutputs rejects --json with --csv.
func exclusiveOutputs(json, csv bool) error {
	if json && csv {
		return usagef("--csv and --json are exclusive")
	}
	return nil
}
