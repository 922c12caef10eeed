package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// run executes the command line args, writing results to stdout and
// diagnostics to stderr. Errors from mistakes in args are *usageError.
func run(args []string, stdout, stderr io.Writer) error {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err != nil && cmd != nil {
		err = paramUsage(cmd, err)
	}
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
	root.PersistentPreRunE = refuseEmpty
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err: withExample(c, err), cmd: c.CommandPath()}
	})
	cmds := []*cobra.Command{newEdge(), newMap(), newTrapdoor(), newJIQ(), newJackson(), newSim(), newValidate(), newPlot(), newMeanfield()}
	root.AddCommand(cmds...)
	useListGrammar(root)
	root.AddCommand(newSweep(cmds), newVersion())
	strictCompletion(root)
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

// refuseEmpty refuses a flag given an empty value (--servers= or
// --shard=""): every flag that takes text has a default for when it is not
// given, and an empty value given on purpose is a mistake (a shell
// variable left unset), never a request for the default.
func refuseEmpty(cmd *cobra.Command, _ []string) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() == "bool" || strings.TrimSpace(f.Value.String()) != "" {
			return
		}
		if _, ok := f.Value.(pflag.SliceValue); ok {
			return // an empty slice is refused by its own parser
		}
		hint := "omit it for its default"
		if f.DefValue != "" {
			hint += " (" + f.DefValue + ")"
		}
		err = usagef("invalid %s: an empty value; %s", flagName(f), hint)
	})
	return err
}

// strictCompletion makes "fluid completion SHELL" refuse a shell it has
// no script for (completion tcsh printed the help with exit status 0).
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, s := range c.Commands() {
			shells = append(shells, s.Name())
		}
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return &usageError{err: fmt.Errorf("no completion script for %q: want one of %s", args[0], joinNames(shells)), cmd: cmd.CommandPath()}
		}
		c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	}
}

// flagInError finds the flag a pflag parse error names.
var flagInError = regexp.MustCompile(`for "(?:-[a-z], )?(--[a-z][a-z-]*)" flag`)

// withExample adds to a flag's parse error ("invalid argument "2.5" for
// "--servers" flag: not an integer") a valid value: the flag's default,
// which always is one.
func withExample(c *cobra.Command, err error) error {
	m := flagInError.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	f := c.Flags().Lookup(strings.TrimPrefix(m[1], "--"))
	if f == nil || f.DefValue == "" || f.DefValue == "[]" || f.Value.Type() == "bool" {
		return err
	}
	return fmt.Errorf("%w (e.g. %s %s)", err, flagTyped(f), f.DefValue)
}
