package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fluidlb/fluid/quantity"
)

// hostileCase is one command line a new user might type, with the exit
// status it must end in (several where another part of fluid decides
// between a refusal and an answer) and what its message must name.
type hostileCase struct {
	args  []string
	exits []int  // allowed exit statuses
	names string // the message holds this (alternatives split by |), or matches the regexp after re:
	long  bool   // runs for seconds: not with -short
}

func exits(codes ...int) []int { return codes }

// hostileCases are the cases of the robustness review (the named
// ones first, per command), each a class that a mechanism closes: the
// invariant guard (silent-wrong answers), the flag declarations (flags
// without effect, ranges), the cost admission (crashes, hangs) and the
// exit-code contract (messages that name the flag).
func hostileCases(t *testing.T) []hostileCase {
	dir := t.TempDir()
	csvBOM := filepath.Join(dir, "bom.csv")
	csvHeader := filepath.Join(dir, "header.csv")
	png := filepath.Join(dir, "x.png")
	file := filepath.Join(dir, "file")
	for path, text := range map[string]string{
		csvBOM: "\ufeffload,blocking\n0.5,0.1\n0.6,0.2\n", csvHeader: "load,blocking\n", file: "x",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	table := []string{"plot", "table", csvBOM, "--x", "load", "--z", "blocking", "-o", png}
	return []hostileCase{
		// 1. Silent-wrong answers: the guard refuses (exit 1), or the
		// numerics give the answer.
		{args: []string{"jiq", "--exchange", "1e-300", "--json"}, exits: exits(0)},
		{args: []string{"jiq", "--exchange", "1e-20", "--json"}, exits: exits(0)},
		{args: []string{"edge", "-k", "5", "--load", "1e-17", "--json"}, exits: exits(1, 2), names: "sojourn|--load"},
		{args: []string{"edge", "-k", "5", "--load", "1e-300", "--json"}, exits: exits(1, 2), names: "sojourn|--load"},
		{args: []string{"map", "--load", "1e-20", "--json"}, exits: exits(1, 2), names: "sojourn|--load"},
		{args: []string{"map", "--load", "1e-17"}, exits: exits(1, 2), names: "sojourn|--load"},

		// 2. Flags without effect, and ranges.
		{args: []string{"edge", "-k", "5", "--reps", "-7"}, exits: exits(2), names: "--reps has no effect"},
		{args: []string{"edge", "-k", "5", "--seed", "5"}, exits: exits(2), names: "--seed has no effect"},
		{args: []string{"edge", "-k", "5", "--horizon", "10"}, exits: exits(2), names: "--horizon has no effect"},
		{args: []string{"edge", "-k", "5", "--theory", "noisy-map"}, exits: exits(2), names: "--theory has no effect"},
		{args: []string{"edge", "-k", "5", "--servers", "100", "--theory", "chain"}, exits: exits(2), names: "invalid --theory: \"chain\", want escape or noisy-map"},
		{args: []string{"edge", "-k", "5", "--servers", "100", "--theory", "escape", "--seed", "5"}, exits: exits(2), names: "--seed has no effect"},
		{args: []string{"edge", "-k", "5", "--servers", "100", "--simulate", "--reps", "-7"}, exits: exits(2), names: "--reps: -7, want an integer in 2..10000"},
		{args: []string{"edge", "-k", "5", "--servers", "100", "--reps", "16"}, exits: exits(2), names: "--reps has no effect"},
		{args: []string{"edge", "-k", "5", "--floor", "0"}, exits: exits(2), names: "--floor: 0, want a number in (0"},
		{args: []string{"edge", "-k", "5", "--max-period", "0"}, exits: exits(2), names: "--max-period: 0, want a number in (0"},
		{args: []string{"edge", "-k", "5", "--floor", "100"}, exits: exits(2), names: "invalid --floor"},
		{args: []string{"edge", "--workers", "-1"}, exits: exits(2), names: "--workers"},
		{args: []string{"edge", "--servers="}, exits: exits(2), names: "--servers: an empty value"},
		{args: []string{"meanfield", "--iterations", "-5"}, exits: exits(2), names: "--iterations has no effect"},
		{args: []string{"meanfield", "--policy", "board-jsqd:2", "--period", "100", "--iterations", "-5"}, exits: exits(2), names: "--iterations: -5, want an integer in 1..100000"},
		{args: []string{"meanfield", "--period", "100"}, exits: exits(2), names: "--period has no effect"},
		{args: []string{"meanfield", "--policy", "board-jsqd:2", "--period", "100", "--servers", "10"}, exits: exits(2), names: "--servers has no effect"},
		{args: []string{"map", "--iterations", "0"}, exits: exits(2), names: "--iterations: 0, want an integer in 1.."},
		{args: []string{"map", "--tol", "0"}, exits: exits(2), names: "--tol"},
		{args: []string{"map", "--tol", "1e-300"}, exits: exits(2), names: "--tol"},
		{args: []string{"map", "--start="}, exits: exits(2), names: "--start: an empty value"},
		{args: []string{"jiq", "--imax", "50"}, exits: exits(2), names: "--imax has no effect"},
		{args: []string{"jiq", "--tail-tol", "1e-9"}, exits: exits(2), names: "--tail-tol has no effect"},
		{args: []string{"jiq", "--until", "5"}, exits: exits(2), names: "--until has no effect"},
		{args: []string{"jiq", "--trajectory", "--verify"}, exits: exits(2), names: "--verify has no effect"},
		{args: []string{"jiq", "--trajectory", "--rtol", "0"}, exits: exits(2), names: "--rtol: 0, want a number in [1e-15, 0.1]"},
		{args: []string{"jiq", "--trajectory", "--rtol", "1e-300"}, exits: exits(2), names: "--rtol: 1e-300, want a number in [1e-15, 0.1]"},
		{args: []string{"jackson", "--exchange", "1"}, exits: exits(2), names: "--exchange"},
		{args: []string{"jackson", "--servers", "0"}, exits: exits(2), names: "--servers"},
		{args: []string{"validate", "--filter="}, exits: exits(2), names: "--filter: an empty value"},
		{args: []string{"validate", "--seed", "0"}, exits: exits(2), names: "--seed"},
		{args: []string{"plot", "exchange", "--format", "svg", "-o", png}, exits: exits(2), names: "--format has no effect"},
		{args: append(slices.Clone(table), "--quick"), exits: exits(2), names: "--quick has no effect"},
		{args: append(slices.Clone(table), "--data", dir), exits: exits(2), names: "--data has no effect"},
		{args: append(slices.Clone(table), "--seed", "3"), exits: exits(2), names: "--seed has no effect"},
		{args: append(slices.Clone(table), "--where", "load=0.5", "--where", "load=0.6"), exits: exits(2), names: "--where: column load is given twice"},
		{args: []string{"plot", "edge", "--x", "load", "-o", png}, exits: exits(2), names: "--x has no effect"},
		{args: []string{"sweep", "jiq", "--load", "0.5", "--out", dir, "--shard="}, exits: exits(2), names: "--shard: an empty value"},

		// 3. Cost admitted before work.
		{args: []string{"jiq", "--scenario", "queueing", "--load", "0.5", "--imax", "30000", "--json"}, exits: exits(0)},
		{args: []string{"jiq", "--trajectory", "--every", "1e-18"}, exits: exits(2), names: "--every"},
		{args: []string{"jiq", "--trajectory", "--every", "1e-300", "--json"}, exits: exits(2), names: "--every"},
		{args: []string{"jiq", "--trajectory", "--until", "1e9"}, exits: exits(2), names: "--until: 1e+09, want a number in (0, 100000]"},
		{args: []string{"jiq", "--trajectory", "--scenario", "queueing", "--load", "0.99", "--imax", "100000", "--until", "100000", "--every", "1000"}, exits: exits(2), names: "--until: 100000 with imax 100000 would integrate"},
		{args: []string{"jiq", "--trajectory", "--json", "--scenario", "queueing", "--load", "0.5", "--imax", "100000", "--every", "0.1"}, exits: exits(2), names: "--every"},
		{args: []string{"jackson", "--servers", "5000000,6000000", "--alpha", strings.TrimSuffix(strings.Repeat("0.001,", 1000), ",")}, exits: exits(2), names: "--servers"},
		// The extremes of the stale board at once (T = 1e9, k = 1,000,
		// λ = 0.999999): refused before any period is iterated, naming
		// the flag whose bound they break; the best-of-d map (whose k is
		// 1: the board alone) and the live mean field by the same bounds.
		{args: []string{"map", "-k", "1000", "--load", "0.999999", "--period", "1e9"}, exits: exits(2), names: "--period: T = 1e+09"},
		{args: []string{"map", "--policy", "board-jsqd:2", "-k", "1000", "--load", "0.999999", "--period", "1e9", "--json"}, exits: exits(2), names: "--period: T = 1e+09"},
		{args: []string{"map", "-k", "1000", "--load", "0.999999", "--period", "400"}, exits: exits(2), names: "--iterations: 3000 map evaluations at k = 1000"},
		{args: []string{"map", "-k", "1000", "--period", "400", "--servers", "100"}, exits: exits(2), names: "--iterations|--servers|--period"},
		{args: []string{"meanfield", "--policy", "board-jsqd:2", "--load", "0.999999", "--period", "1e9"}, exits: exits(2), names: "--period: T = 1e+09"},
		{args: []string{"meanfield", "--policy", "board-jsq", "--load", "0.999999", "--period", "1000"}, exits: exits(2), names: "--period: T = 1000"},
		{args: []string{"edge", "-k", "1000", "--load", "0.999999"}, exits: exits(2), names: "--max-period"},
		// Near λ = 1 the balanced board drifts up for ~1/(1 − λ)² periods:
		// within a budget of a few periods the map does not settle, and
		// says so with exit status 1 (not a fixed point's mean).
		{args: []string{"map", "--policy", "board-jsqd:2", "--load", "0.999999", "--period", "400", "--iterations", "12", "--json"}, exits: exits(1), names: "the map did not settle within 12 periods"},
		{args: []string{"map", "--load", "0.999999", "--period", "400", "--iterations", "12"}, exits: exits(1), names: "the map did not settle within 12 periods"},
		{args: []string{"meanfield", "--policy", "board-jsqd:2", "--load", "0.999999", "--period", "100", "--iterations", "5", "--json"}, exits: exits(1), names: "the period map did not settle within 5 periods"},
		{args: []string{"meanfield", "--policy", "jsqd:2", "--load", "0.999999", "--json"}, exits: exits(0)},

		// 5. Errors that say what to change.
		{args: []string{"sweep", "bogus", "--out", dir}, exits: exits(2), names: `cannot sweep "bogus"`},
		{args: []string{"sweep", "jiq", "--verify", "true", "--out", dir}, exits: exits(2), names: "--verify=true,false"},
		{args: []string{"completion", "tcsh"}, exits: exits(2), names: `"tcsh"`},
		{args: []string{"help", "foo"}, exits: exits(2), names: `"foo"`},
		{args: []string{"plot", "exchange", "-o", dir, "--quick"}, exits: exits(2), names: "re:-o: .* is a directory"},
		{args: []string{"plot", "exchange", "-o", filepath.Join(dir, "none", "x.png"), "--quick"}, exits: exits(2), names: "re:-o: the folder .* does not exist"},
		{args: []string{"plot", "exchange", "-o", png, "--quick", "--data", file}, exits: exits(2), names: "re:--data: .* is a file"},
		{args: []string{"plot", "table", csvHeader, "--x", "load", "--z", "blocking", "-o", png}, exits: exits(2), names: "no rows"},
		{args: []string{"sweep", "jiq", "--load", "0.5", "--out", file}, exits: exits(2), names: "--out: .* is a file|is a file"},
		{args: []string{"sweep", "jiq", "--load", "0.5", "--out", filepath.Join(dir, "none", "sweep")}, exits: exits(2), names: "re:--out: the folder .* does not exist"},
		{args: []string{"sweep", "merge", dir, "-o", dir}, exits: exits(2), names: "re:-o: .* is a directory"},
		{args: table, exits: exits(0)},
		{args: []string{"version", "--json"}, exits: exits(0)},
	}
}

// flagNamed is how the hostile review recognised a message that names
// what to change: a flag, or a quoted word.
var flagNamed = regexp.MustCompile(`(--[a-z][a-z-]*|-k\b|-o\b|"[^"]+")`)

// TestHostile runs every hostile case in-process (runMain: a panic is
// exit status 70) and holds it to the exit-code contract: the status is
// one allowed, a usage error names the flag, stdout is empty or valid
// output, and JSON on stdout is valid and passes the invariant guard when
// the command succeeded.
func TestHostile(t *testing.T) {
	noArrayEnv(t)
	for _, c := range hostileCases(t) {
		t.Run(strings.Join(shortArgs(c.args), " "), func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("long")
			}
			var out, errb bytes.Buffer
			code := runMain(c.args, &out, &errb)
			if !slices.Contains(c.exits, code) {
				t.Fatalf("exit status %d, want one of %v; stderr: %.300s", code, c.exits, errb.String())
			}
			msg := errb.String()
			if c.names != "" && !messageHas(msg, c.names) {
				t.Errorf("message %.300q does not hold %q", msg, c.names)
			}
			if code == 2 && !flagNamed.MatchString(msg) {
				t.Errorf("usage error %.200q names no flag", msg)
			}
			checkStdout(t, c.args, code, out.Bytes())
		})
	}
}

// checkStdout: a usage error writes nothing on stdout; --json writes
// nothing or one valid document, which passes the guard when the command
// succeeded.
func checkStdout(t *testing.T, args []string, code int, out []byte) {
	t.Helper()
	if code == 2 && len(out) > 0 {
		t.Errorf("usage error, but stdout holds %.200q", out)
	}
	if !slices.Contains(args, "--json") || len(bytes.TrimSpace(out)) == 0 {
		return
	}
	if !json.Valid(out) {
		t.Fatalf("--json: stdout is not valid JSON: %.300q", out)
	}
	if code == 0 {
		if err := quantity.CheckJSON(out); err != nil {
			t.Errorf("exit status 0 with a result that fails the guard: %v", err)
		}
	}
}

// TestSweepLockHeld: a shard another process runs (its file locked) is a
// usage error naming --out, not a failure.
func TestSweepLockHeld(t *testing.T) {
	noArrayEnv(t)
	dir := t.TempDir()
	if _, _, err := fluid(t, "sweep", "jiq", "--load", "0.5,0.6", "--out", dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "shard-00-of-01.jsonl"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// flock locks belong to the open file: a second open in this process
	// conflicts as another process would.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runMain([]string{"sweep", "jiq", "--load", "0.5,0.6", "--out", dir, "--retry-failed"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--out") {
		t.Errorf("exit status %d, stderr %q: want 2 naming --out", code, errb.String())
	}
}

// TestSweepStrayFiles: files and records a sweep does not read are named
// by status and merge, not dropped without a word; a record line that is
// not one says which file, line and why.
func TestSweepStrayFiles(t *testing.T) {
	noArrayEnv(t)
	dir := t.TempDir()
	if _, _, err := fluid(t, "sweep", "jiq", "--load", "0.5,0.6", "--out", dir); err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(dir, "shard-00-of-01.jsonl")
	appendTo := func(path, text string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(shard, `{"id":"not-in-grid","status":"ok"}`+"\n")
	appendTo(filepath.Join(dir, "shard-1-of-x.jsonl"), "{}\n")
	out, _, err := fluid(t, "sweep", "status", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 line with task ids not in the grid", "ignored shard-1-of-x.jsonl"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	_, stderr, err := fluid(t, "sweep", "merge", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ignored 1 line of", "shard-1-of-x.jsonl: not a shard file"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("merge does not say %q:\n%s", want, stderr)
		}
	}
	appendTo(shard, `{"a":"`+strings.Repeat("x", 1<<20)+`"}`+"\n")
	_, _, err = fluid(t, "sweep", "merge", dir)
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "shard-00-of-01.jsonl:4: not a task record (want a JSON object") {
		t.Errorf("merge of a line that is not a record: %v", err)
	}
}

// messageHas reports whether msg holds one of the |-separated texts of
// want, or matches the regexp after "re:".
func messageHas(msg, want string) bool {
	if re, ok := strings.CutPrefix(want, "re:"); ok {
		return regexp.MustCompile(re).MatchString(msg)
	}
	for _, w := range strings.Split(want, "|") {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
