package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
)

// Ctrl-C during fluid sim: exit 130, and the report of the replications
// that finished, with status interrupted, on stdout.
func TestSimInterrupt(t *testing.T) {
	cmd := exec.Command(os.Args[0], "sim", "--servers", "100", "--policy", "jsqd:2", "--jobs", "200000", "--reps", "1000", "--json")
	cmd.Env = append(os.Environ(), "FLUID_TEST_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // a replication takes about 0.05 s
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Status string  `json:"status"`
		Reps   int     `json:"reps"`
		Mean   float64 `json:"mean"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not the report: %v\n%s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if rep.Status != "interrupted" || rep.Reps < 1 || rep.Reps >= 1000 || !(rep.Mean > 2 && rep.Mean < 3.5) {
		t.Errorf("status %q, %d replications, mean %v", rep.Status, rep.Reps, rep.Mean)
	}
	if !strings.Contains(stderr.String(), "finished replications follow") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// fluid edge --simulate: a signal during the simulations (the context
// cancelled) ends them with the rows simulated so far, which the command
// turns into exit 130 after printing the theory.
func TestEdgeSimulateStops(t *testing.T) {
	rep := &report.Edge{Rows: []report.EdgeRow{{Dispatchers: 5, Load: 0.9, Scaled: ptr(3.1356), Servers: ptr(100), Horizon: ptr(100)}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done, all, err := simulateEdges(rep, &edgeOptions{reps: 16, seed: 1, workers: 1}, outcome.Run{Context: ctx, Workers: 1})
	if err != nil || done != 0 || all != 1 || rep.Rows[0].Simulated != nil {
		t.Fatalf("stopped: %d of %d rows, %v, simulated %+v", done, all, err, rep.Rows[0].Simulated)
	}
}
