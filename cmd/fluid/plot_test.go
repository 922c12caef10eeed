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
	stdout, stderr, err := fluid(t, "plot", "exchange", "-o", out, "--data", filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	// The progress bar goes to stderr, and only on a terminal; stdout has
	// one line per figure.
	if stderr != "" || strings.Count(stdout, "\n") != 1 {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
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

// The progress bar of plot says nothing off a terminal, whatever it is told.
func TestPlotProgressOffTerminal(t *testing.T) {
	var b strings.Builder
	p := newWorkProgress(&b, 10, "sizes")
	p.set(3, 10)
	p.set(5, 12)
	p.done()
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
}
