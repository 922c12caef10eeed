package main

import (
	"errors"
	"fmt"
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
