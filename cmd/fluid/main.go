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
		report(os.Stderr, err)
		os.Exit(exitCode(err))
	}
}

// report prints an error the way the command line shows it.
func report(w io.Writer, err error) {
	fmt.Fprintf(w, "fluid: %v\n", err)
	if u, ok := asUsage(err); ok && u.cmd != "" {
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", u.cmd)
	}
}
