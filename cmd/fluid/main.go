// Command fluid computes, from theory, how large server farms behave under
// load-balancing policies. See doc.go and the README.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		reportError(os.Stderr, err)
		os.Exit(exitCode(err))
	}
}

// reportError prints an error the way the command line shows it.
func reportError(w io.Writer, err error) {
	fmt.Fprintf(w, "fluid: %v\n", err)
	if u, ok := asUsage(err); ok && u.cmd != "" {
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", u.cmd)
	}
}
