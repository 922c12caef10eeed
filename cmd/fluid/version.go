package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/report"
)

func newVersion() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print fluid's version, VCS revision and Go version",
		Long: `version prints the module version of this fluid binary (a tag for
"go install github.com/fluidlb/fluid/cmd/fluid@VERSION", "(devel)" for a build
from a clone), the VCS revision and commit time it was built from (with
"+dirty" when the tree had uncommitted changes) and the Go version. A build
that carries neither (GOFLAGS=-buildvcs=false, a source archive) prints the
version recorded in the module's source, marked "recorded". Every --json
report carries the same version in its "fluid" field.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeVersion(cmd.OutOrStdout(), report.Build(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON")
	return cmd
}

func writeVersion(w io.Writer, b report.BuildInfo, asJSON bool) error {
	if asJSON {
		return writeJSON(w, b)
	}
	or := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	mod := ""
	if b.Modified {
		mod = " (uncommitted changes)"
	}
	rec := ""
	if b.Recorded {
		rec = " (recorded in the module; this build has no VCS stamp)"
	}
	_, err := fmt.Fprintf(w, "fluid %s%s\nmodule    %s\nrevision  %s%s\ncommitted %s\ngo        %s\n",
		b.String(), rec, b.Module, or(b.Revision), mod, or(b.Time), or(b.GoVersion))
	return err
}
