package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// run executes the command line args, writing results to stdout and
// diagnostics to stderr. Errors from mistakes in args are *usageError.
func run(args []string, stdout, stderr io.Writer) error {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err != nil {
		var u *usageError
		if errors.As(err, &u) && u.cmd == "" && cmd != nil {
			u.cmd = cmd.CommandPath()
		}
	}
	return err
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "fluid",
		Short: "Large-server-farm load balancing, computed from theory",
		Long: `fluid computes how large server farms behave under load-balancing policies
directly from their N → ∞ limits (fluid ODEs, fixed points, product forms),
and checks them against finite-N simulation.

Time is measured in mean service times; loads are arrival rates per server.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          noArgs,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err: err, cmd: c.CommandPath()}
	})
	cmds := []*cobra.Command{newEdge(), newMap(), newTrapdoor(), newJIQ(), newJackson(), newSim(), newValidate(), newPlot(), newMeanfield()}
	root.AddCommand(cmds...)
	useListGrammar(root)
	root.AddCommand(newSweep(cmds), newVersion())
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "help shows the help of a command: fluid help edge is fluid edge --help.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return &usageError{err: fmt.Errorf("unknown help topic %q", strings.Join(args, " ")), cmd: c.CommandPath()}
			}
			return cmd.Help()
		},
	})
	return root
}

// noArgs rejects positional arguments as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	what := "unexpected argument"
	if !cmd.HasParent() {
		what = "unknown command"
	}
	return &usageError{err: fmt.Errorf("%s %q", what, args[0]), cmd: cmd.CommandPath()}
}
