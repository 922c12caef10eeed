// Command fluid computes, from theory, how large server farms behave under
// load-balancing policies. See doc.go and the README.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// exitInternal is the exit status of a bug (a panic): EX_SOFTWARE.
const exitInternal = 70

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain runs the command line and returns the exit status: 0, 1 for a
// failed computation, 2 for a usage error, 128 + signal for an
// interruption, and 70 for a panic, which is a bug in fluid: it is
// reported as an internal error with its stack, never as a usage error.
func runMain(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "fluid: internal error (a bug; please report it with the command line): %v\n%s", p, debug.Stack())
			code = exitInternal
		}
	}()
	if err := runCommand(args, stdout, stderr); err != nil {
		reportError(stderr, err)
		return exitCode(err)
	}
	return 0
}

// runCommand is run; tests replace it to check the panic handling.
var runCommand = run

// reportError prints an error the way the command line shows it.
func reportError(w io.Writer, err error) {
	fmt.Fprintf(w, "fluid: %v\n", err)
	if u, ok := asUsage(err); ok && u.cmd != "" {
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", u.cmd)
	}
}
