package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// signalCase is a command line that runs for seconds (measured on 2
// cores: each takes at least 4 s to finish), to be stopped by a signal.
type signalCase struct {
	name string
	args []string
	// partial: with --json the report may hold finished work (status
	// interrupted); otherwise it is a refusal (status interrupted).
	text bool // the text form is checked too (ends in a whole line)
}

func signalCases(dir string) []signalCase {
	return []signalCase{
		{"jiq", []string{"jiq", "--scenario", "queueing", "--load", "0.5", "--imax", "1000"}, false},
		{"jiq-trajectory", []string{"jiq", "--trajectory", "--scenario", "queueing", "--load", "0.5", "--imax", "5000", "--until", "10000", "--every", "10"}, true},
		{"map", []string{"map", "-k", "40", "--period", "2000"}, false},
		{"meanfield", []string{"meanfield", "--policy", "board-jsqd:2", "--period", "400", "--sizes", "h2:10"}, false},
		{"jackson", []string{"jackson", "--servers", "1000000..10000000:100000"}, true},
		{"edge", []string{"edge", "-k", "2..10", "--load", "0.95"}, true},
		{"validate", []string{"validate", "--quick"}, true},
		{"sim", []string{"sim", "--servers", "100", "--policy", "jsqd:2", "--jobs", "200000", "--reps", "1000"}, true},
		// Stopped before its one replication finished: the JSON header
		// with status interrupted.
		{"sim-first", []string{"sim", "--servers", "100", "--jobs", "100000000", "--reps", "1"}, false},
		{"plot", []string{"plot", "edge", "-o", filepath.Join(dir, "edge.png")}, false},
		{"sweep", []string{"sweep", "sim", "--servers", "100", "--jobs", "300000", "--reps", "4", "--load", "0.5..0.9:0.01", "--out", filepath.Join(dir, "sweep")}, false},
	}
}

// TestSignals: every command stopped by SIGINT or SIGTERM exits 128 +
// the signal (130, 143) having written a valid report: with --json one
// JSON document whose status is interrupted (or, for plot and sweep,
// nothing on stdout and every file whole); in text, whole lines.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per command and signal, about 2 s each")
	}
	noArrayEnv(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, c := range signalCases(t.TempDir()) {
			forms := [][]string{append(c.args, "--json")}
			if c.name == "plot" || c.name == "sweep" {
				forms = [][]string{c.args}
			} else if c.text {
				forms = append(forms, c.args)
			}
			for _, args := range forms {
				t.Run(sig.String()+"/"+strings.Join(shortArgs(args), " "), func(t *testing.T) {
					stdout, stderr, code := runSignalled(t, args, sig)
					if code != 128+int(sig) {
						t.Fatalf("exit status %d, want %d; stderr: %.400s", code, 128+int(sig), stderr)
					}
					checkInterrupted(t, args, stdout)
					if !strings.Contains(stderr, "interrupted") {
						t.Errorf("stderr does not say it was interrupted: %.300s", stderr)
					}
				})
			}
		}
	}
}

// runSignalled runs fluid args in a process of its own, sends sig after
// a second (every case computes for longer), and returns what it wrote
// and its exit status. A process the signal killed before it started
// watching for signals (exit status −1 with SIGINT or SIGTERM: a loaded
// machine, the whole suite on 2 cores) is run again with a longer start.
func runSignalled(t *testing.T, args []string, sig syscall.Signal) (string, string, int) {
	t.Helper()
	for wait := time.Second; ; wait *= 2 {
		stdout, stderr, code := runSignalledAfter(t, args, sig, wait)
		if code != -1 || sig == syscall.SIGKILL || wait >= 8*time.Second {
			return stdout, stderr, code
		}
	}
}

func runSignalledAfter(t *testing.T, args []string, sig syscall.Signal, wait time.Duration) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FLUID_TEST_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// checkInterrupted: a JSON report is one valid document with status
// interrupted; text ends in a whole line.
func checkInterrupted(t *testing.T, args []string, stdout string) {
	t.Helper()
	json := false
	for _, a := range args {
		json = json || a == "--json"
	}
	if !json {
		if stdout != "" && !strings.HasSuffix(stdout, "\n") {
			t.Errorf("text output ends in a partial line: %q", tail(stdout))
		}
		return
	}
	var doc struct {
		Status      string `json:"status"`
		Interrupted bool   `json:"interrupted"` // validate's report
	}
	if err := jsonUnmarshal(stdout, &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v: %q", err, tail(stdout))
	}
	if doc.Status != "interrupted" && !doc.Interrupted {
		t.Errorf("status %q, want interrupted", doc.Status)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func tail(s string) string {
	if len(s) > 200 {
		return "…" + s[len(s)-200:]
	}
	return s
}
