package main

import (
	"errors"
	"fmt"

	"github.com/fluidlb/fluid/internal/param"
)

// usageError marks a mistake in the command line (exit status 2), as
// opposed to a failure of the computation (exit status 1).
type usageError struct {
	err error
	cmd string // command path, for the usage hint
}

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

func usagef(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

func asUsage(err error) (*usageError, bool) {
	var u *usageError
	ok := errors.As(err, &u)
	return u, ok
}

// exitCoder is an error that carries its own exit status (an interrupted
// sweep: 130).
type exitCoder interface{ ExitCode() int }

// exitCode maps an error from run to the process exit status: 2 for usage
// errors, an exitCoder's own status, 1 for everything else.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if _, ok := asUsage(err); ok {
		return 2
	}
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}

// paramFlags maps the struct fields that library errors name
// (param.Error.Param) to the flags that set them. Only the command line
// knows flag names.
var paramFlags = map[string]string{
	"Alpha":          "--alpha",
	"Beta":           "--beta",
	"CorrelationAge": "--correlation-age",
	"D":              "--policy",
	"Discipline":     "--discipline",
	"Dispatchers":    "--dispatchers",
	"Exchange":       "--exchange",
	"Floor":          "--floor",
	"Horizon":        "--horizon",
	"IMax":           "--imax",
	"Jobs":           "--jobs",
	"K":              "-k",
	"Level":          "--level",
	"Load":           "--load",
	"MaxIter":        "--iterations",
	"MaxPeriod":      "--max-period",
	"MaxQueue":       "--max-queue",
	"MaxReps":        "--max-reps",
	"OnBalanced":     "--on-balanced",
	"Period":         "--period",
	"Policy":         "--policy",
	"Push":           "--push",
	"RelPrecision":   "--rel-precision",
	"RelTol":         "--rtol",
	"Reps":           "--reps",
	"Scenario":       "--scenario",
	"Series":         "--series",
	"Servers":        "--servers",
	"Sizes":          "--sizes",
	"Start":          "--start",
	"TailTol":        "--tail-tol",
	"Tally":          "--tally",
	"Tol":            "--tol",
	"Until":          "--until",
	"Warmup":         "--warmup",
	"Workers":        "--workers",
}

// paramUsage turns an invalid-parameter error from a solver into a usage
// error naming the flag; other errors pass through unchanged.
func paramUsage(err error) error {
	var pe *param.Error
	if errors.As(err, &pe) {
		name := pe.Param
		if f, ok := paramFlags[name]; ok {
			name = f
		}
		return &usageError{err: fmt.Errorf("invalid %s: %s", name, pe.Msg)}
	}
	return err
}
