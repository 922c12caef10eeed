package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "exchange.svg")
	stdout, _, err := fluid(t, "plot", "exchange", "-o", out, "--data", filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(b), "<?xml") || !strings.Contains(stdout, "exchange") {
		t.Errorf("%v: %d bytes, stdout %q", err, len(b), stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "exchange.json")); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot"}, "figure"},
		{[]string{"plot", "nope", "-o", "x.png"}, "unknown figure"},
		{[]string{"plot", "edge"}, "-o"},
		{[]string{"plot", "edge", "-o", "x.gif"}, "-o"},
		{[]string{"plot", "all", "-o", dir, "--format", "bmp"}, "--format"},
	} {
		_, _, err := fluid(t, c.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %q", c.args, err, exitCode(err), c.want)
		}
	}
}
