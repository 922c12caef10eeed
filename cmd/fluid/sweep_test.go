package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.yaml.in/yaml/v3"

	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/report"
	"github.com/fluidlb/fluid/sweep"
	"github.com/fluidlb/fluid/table"
)

// TestMain lets a test run this package's binary as the fluid command
// (FLUID_TEST_MAIN=1), to signal a sweep from outside.
func TestMain(m *testing.M) {
	if os.Getenv("FLUID_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// noArrayEnv hides a job array's environment from the test's sweeps.
func noArrayEnv(t *testing.T) {
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "JOB_COMPLETION_INDEX", "JOB_COMPLETIONS"} {
		t.Setenv(v, "")
	}
}

// mergeCSV merges a sweep directory into CSV.
func mergeCSV(t *testing.T, dir string) string {
	t.Helper()
	out, _, err := fluid(t, "sweep", "merge", dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A sweep run unsharded, in 2 shards and in 4 merges to the same bytes:
// exact finite-N blocking (a table per point) and simulations (seeds
// derived per task).
func TestSweepShardsMergeIdentically(t *testing.T) {
	noArrayEnv(t)
	for _, grid := range [][]string{
		{"jackson", "--servers", "10,100", "--load", "0.5..0.9:0.2", "--alpha", "0.7,0.3;0.5,0.5"},
		{"sim", "--servers", "10,20", "--load", "0.5,0.8", "--policy", "random,jsqd:2", "--jobs", "30000", "--reps", "2", "--seed", "5"},
	} {
		var want string
		for _, n := range []string{"1", "2", "4"} {
			dir := t.TempDir()
			shards := map[string]int{"1": 1, "2": 2, "4": 4}[n]
			for i := range shards {
				args := append(append([]string{"sweep"}, grid...), "--out", dir, "--shard", sweep.Shard{Index: i, Count: shards}.String())
				if out, _, err := fluid(t, args...); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
			}
			got := mergeCSV(t, dir)
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("%s: %s shards merge to another table:\n%s\nunsharded:\n%s", grid[0], n, got, want)
			}
		}
		lines := strings.Split(strings.TrimSpace(want), "\n")
		switch grid[0] {
		case "jackson":
			// One row per task (its rows array has one N), grid first.
			if len(lines) != 13 || !strings.HasPrefix(lines[0], "servers,load,alpha,alpha.1,alpha.2,exchange,status,limit,blocking,busy,limit_diff,task_status") {
				t.Errorf("jackson table:\n%s", want)
			}
		case "sim":
			if len(lines) != 9 || !strings.HasPrefix(lines[0], "servers,load,policy,jobs,reps,config,seed,") || strings.Contains(lines[0], "seconds") {
				t.Errorf("sim table:\n%s", want)
			}
			// Each task has its own seed, so its own numbers.
			rows, err := csv.NewReader(strings.NewReader(want)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			seeds := map[string]bool{}
			for _, r := range rows[1:] {
				seeds[r[6]] = true
			}
			if len(seeds) != 8 {
				t.Errorf("seeds %v", seeds)
			}
		}
	}
	// Tasks run at once give the same table.
	par := t.TempDir()
	if _, _, err := fluid(t, "sweep", "jackson", "--servers", "10,100", "--load", "0.5..0.9:0.2", "--alpha", "0.7,0.3;0.5,0.5", "--parallel", "3", "--out", par); err != nil {
		t.Fatal(err)
	}
	seq := t.TempDir()
	if _, _, err := fluid(t, "sweep", "jackson", "--servers", "10,100", "--load", "0.5..0.9:0.2", "--alpha", "0.7,0.3;0.5,0.5", "--out", seq); err != nil {
		t.Fatal(err)
	}
	if mergeCSV(t, par) != mergeCSV(t, seq) {
		t.Error("--parallel 3 changes the table")
	}
	// Another sweep seed: other simulations.
	a, b := t.TempDir(), t.TempDir()
	for i, dir := range []string{a, b} {
		if _, _, err := fluid(t, "sweep", "sim", "--servers", "10", "--load", "0.5", "--jobs", "2000", "--reps", "2", "--seed", []string{"1", "2"}[i], "--out", dir); err != nil {
			t.Fatal(err)
		}
	}
	if mergeCSV(t, a) == mergeCSV(t, b) {
		t.Error("the sweep seed does not reach the simulation")
	}
}

// A failing task is recorded with its message; the others complete; the
// exit status is 1.
func TestSweepFailingTask(t *testing.T) {
	noArrayEnv(t)
	dir := t.TempDir()
	out, _, err := fluid(t, "sweep", "jiq", "--scenario", "queueing", "--load", "0.5,1.2,0.9", "--out", dir)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "1 of 3 tasks of shard 0/1 failed") {
		t.Fatalf("%v (exit %d)\n%s", err, exitCode(err), out)
	}
	var recs []sweep.Record
	f, err := os.Open(filepath.Join(dir, "shard-00-of-01.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r sweep.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 3 || recs[0].State != sweep.OK || recs[1].State != sweep.Failed || recs[2].State != sweep.OK {
		t.Fatalf("records %+v", recs)
	}
	if !strings.Contains(recs[1].Error, "invalid --load") || !strings.Contains(recs[1].Error, "λ < 1") || recs[1].Result != nil {
		t.Errorf("failed record %+v", recs[1])
	}
	if want := []string{"jiq", "--scenario=queueing", "--load=1.2", "--json"}; !reflect.DeepEqual(recs[1].Args, want) {
		t.Errorf("args %q", recs[1].Args)
	}
	csv := mergeCSV(t, dir)
	if !strings.Contains(csv, "queueing,1.2,") || !strings.Contains(csv, ",failed,invalid --load: λ = 1.2") {
		t.Errorf("merged:\n%s", csv)
	}
	st, _, err := fluid(t, "sweep", "status", dir)
	if err != nil || !strings.Contains(st, "done 2, failed 1, remaining 0 of 3") || !strings.Contains(st, "scenario=queueing load=1.2: invalid --load") {
		t.Errorf("status %v:\n%s", err, st)
	}
	// A rerun leaves the failure alone (still exit 1); --retry-failed
	// reruns it.
	out, _, err = fluid(t, "sweep", "jiq", "--scenario", "queueing", "--load", "0.5,1.2,0.9", "--out", dir, "--retry-failed")
	if exitCode(err) != 1 || !strings.Contains(out, "ran 1 (0 ok, 1 failed), 2 finished before") {
		t.Errorf("retry: %v\n%s", err, out)
	}
}

func TestSweepUsageErrors(t *testing.T) {
	noArrayEnv(t)
	dir := t.TempDir()
	if _, _, err := fluid(t, "sweep", "jiq", "--load", "0.5,0.6", "--out", dir); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(t.TempDir(), "grid.yaml")
	os.WriteFile(grid, []byte("grid:\n  loud: [1, 2]\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "jiq", "--load", "0.9..0.5", "--out", dir}, `invalid --load "0.9..0.5": range "0.9..0.5" runs backwards`},
		{[]string{"sweep", "jiq", "--load", "0.5,NaN", "--out", dir}, "invalid --load"},
		{[]string{"sweep", "jiq", "--load", "0.80..0.95:0.04", "--out", dir}, "does not land"},
		{[]string{"sweep", "jiq", "--load", "0.5,0.5", "--out", dir}, "--load: value 0.5 is given twice"},
		{[]string{"sweep", "jiq", "--load", "0..1:0.0001", "--out", dir}, "at most 10000 per flag"},
		{[]string{"sweep", "jackson", "--servers", "1..1001", "--load", "0.1..10:0.1", "--out", dir}, "more than 100000 tasks"},
		{[]string{"sweep", "jiq", "--imax", "1.5", "--out", dir}, "invalid --imax"},
		{[]string{"sweep", "jiq", "--verify=maybe", "--out", dir}, "invalid --verify"},
		{[]string{"sweep", "jiq", "--load", "0.5"}, "--out is required"},
		{[]string{"sweep", "jiq", "--load", "0.7", "--out", dir}, "holds another sweep"},
		{[]string{"sweep", "jiq", "--load", "0.5", "--out", dir, "--shard", "4/4"}, "invalid --shard"},
		{[]string{"sweep", "jiq", "--load", "0.5", "--out", dir, "--parallel", "0"}, "invalid --parallel"},
		{[]string{"sweep", "jiq", "--grid", grid, "--out", dir}, "unknown flag --loud"},
		{[]string{"sweep", "jiq", "--grid", filepath.Join(dir, "none.yaml"), "--out", dir}, "invalid --grid"},
		{[]string{"sweep", "jiq", "--nope", "1"}, "unknown flag: --nope"},
		{[]string{"sweep", "plot"}, `cannot sweep "plot"`},
		{[]string{"sweep", "merge"}, "give the sweep's directory"},
		{[]string{"sweep", "merge", t.TempDir()}, "holds no sweep"},
		{[]string{"sweep", "merge", dir, "-o", "t.xlsx"}, "invalid -o"},
		{[]string{"sweep", "status", filepath.Join(dir, "nothing")}, "holds no sweep"},
	} {
		_, _, err := fluid(t, c.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error mentioning %q", c.args, err, exitCode(err), c.want)
		}
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "9")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "4")
	if _, _, err := fluid(t, "sweep", "jiq", "--load", "0.5,0.6", "--out", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "is not a shard") {
		t.Errorf("bad array task: %v", err)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	out, _, err := fluid(t, "sweep", "jiq", "--load", "0.5,0.6", "--out", dir)
	if err != nil || !strings.Contains(out, "shard 1/4: 1 task; ran 0") {
		t.Errorf("shard from the environment: %v\n%s", err, out)
	}
}

// The grid file adds explicit points (a list of (α, β) pairs).
func TestSweepGridFile(t *testing.T) {
	noArrayEnv(t)
	grid := filepath.Join(t.TempDir(), "grid.yaml")
	os.WriteFile(grid, []byte(`command: jiq
points:
  - {alpha: [0.7, 0.3], beta: [0.7, 0.3]}
  - {alpha: [0.6, 0.4], beta: "0.5,0.5"}
`), 0o644)
	dir := t.TempDir()
	out, _, err := fluid(t, "sweep", "jiq", "--grid", grid, "--load", "0.5,0.9", "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	csv := mergeCSV(t, dir)
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "alpha,alpha.1,alpha.2,beta,beta.1,beta.2,load,") ||
		!strings.HasPrefix(lines[1], `"0.7,0.3",0.7,0.3,"0.7,0.3",0.7,0.3,0.5,blocking,0,`) {
		t.Errorf("%s", csv)
	}
	if _, _, err := fluid(t, "sweep", "sim", "--grid", grid, "--out", t.TempDir()); exitCode(err) != 2 || !strings.Contains(err.Error(), "a grid for fluid jiq") {
		t.Errorf("grid for another command: %v", err)
	}
}

// Parquet reads back with the library that wrote it, with column types:
// DOUBLE for numbers, INT64 for integers, strings for words.
func TestSweepParquet(t *testing.T) {
	noArrayEnv(t)
	dir := t.TempDir()
	if _, _, err := fluid(t, "sweep", "sim", "--servers", "10,20", "--load", "0.5,0.7", "--policy", "random,jsqd:2",
		"--jobs", "20000", "--reps", "2", "--out", dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sim.parquet")
	if _, _, err := fluid(t, "sweep", "merge", dir, "-o", path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]parquet.Kind{}
	var names []string
	for _, fl := range pf.Schema().Fields() {
		kinds[fl.Name()] = fl.Type().Kind()
		names = append(names, fl.Name())
	}
	for col, want := range map[string]parquet.Kind{
		"servers": parquet.Int64, "load": parquet.Double, "policy": parquet.ByteArray, "jobs": parquet.Int64,
		"sojourn.mean": parquet.Double, "sojourn.samples": parquet.Int64, "config": parquet.ByteArray,
		"seed": parquet.Int64, "task_status": parquet.ByteArray,
	} {
		if kinds[col] != want {
			t.Errorf("column %s: %v, want %v", col, kinds[col], want)
		}
	}
	if names[0] != "servers" || names[1] != "load" || names[2] != "policy" {
		t.Errorf("column order %v", names)
	}
	if pf.NumRows() != 8 {
		t.Errorf("%d rows", pf.NumRows())
	}
	// The rows read back equal the CSV's.
	back, err := table.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := back.Write(&b, table.CSV); err != nil {
		t.Fatal(err)
	}
	if b.String() != mergeCSV(t, dir) {
		t.Errorf("Parquet read back:\n%s\nCSV:\n%s", b.String(), mergeCSV(t, dir))
	}
}

// Kill a running sweep (SIGINT, then SIGKILL), rerun it: no task lost or
// run twice, and the table equals an uninterrupted run's.
func TestSweepKillAndResume(t *testing.T) {
	noArrayEnv(t)
	args := []string{"sweep", "sim", "--servers", "10..15", "--load", "0.5,0.6", "--jobs", "600000", "--reps", "1", "--shard", "0/1"}
	ref := t.TempDir()
	if _, _, err := fluid(t, append(args, "--out", ref)...); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "shard-00-of-01.jsonl")
	start := func() (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(os.Args[0], append(args, "--out", dir)...)
		cmd.Env = append(os.Environ(), "FLUID_TEST_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}
	lines := func() int {
		b, _ := os.ReadFile(file)
		return bytes.Count(b, []byte("\n"))
	}
	waitFor := func(n int) {
		deadline := time.Now().Add(60 * time.Second)
		for lines() < n {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %d lines (%d)", n, lines())
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	// SIGINT: the task in progress finishes, then exit 130.
	cmd, stderr := start()
	waitFor(3)
	at := lines()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v\n%s", err, stderr)
	}
	// At most the task in progress (and one that ended as the signal was
	// sent) is added.
	if n := lines(); n < at || n > at+2 || n == 12 || !strings.Contains(stderr.String(), "stopping the sweep after the task in progress") {
		t.Fatalf("SIGINT at %d lines: %d lines after, stderr %s", at, n, stderr)
	}
	// SIGKILL: at most the task in progress is lost; a torn last line (a
	// crash in the middle of a write) is cut on the next start.
	before := lines()
	cmd, _ = start()
	waitFor(before + 2)
	time.Sleep(20 * time.Millisecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if n := lines(); n >= 12 {
		t.Fatalf("the killed run finished (%d lines): make the tasks longer", n)
	}
	f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"e3b0c44298fc1c14","point":{"servers":1`)
	f.Close()
	// Resume.
	cmd, stderr = start()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr)
	}
	if got, want := mergeCSV(t, dir), mergeCSV(t, ref); got != want {
		t.Errorf("resumed table:\n%s\nuninterrupted:\n%s", got, want)
	}
	b, _ := os.ReadFile(file)
	seen := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var r sweep.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		seen[r.ID]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("task %s ran %d times", id, n)
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d tasks recorded, want 12", len(seen))
	}
}

// Every numeric slice flag reads the shared grammar.
func TestListFlags(t *testing.T) {
	root := newRoot()
	edge, _, err := root.Find([]string{"edge"})
	if err != nil {
		t.Fatal(err)
	}
	fl := edge.Flags().Lookup("load")
	if err := fl.Value.Set("0.80..0.95:0.05"); err != nil {
		t.Fatal(err)
	}
	if err := fl.Value.Set("0.99"); err != nil {
		t.Fatal(err)
	}
	if got := fl.Value.String(); got != "[0.800000,0.850000,0.900000,0.950000,0.990000]" {
		t.Errorf("--load %s", got)
	}
	if err := fl.Value.Set("0.9..0.8"); err == nil || !strings.Contains(err.Error(), "runs backwards") {
		t.Errorf("backwards: %v", err)
	}
	out, _, err := fluid(t, "meanfield", "--servers", "10..30:10", "--json")
	var rep report.Meanfield
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Refined) != 3 || rep.Refined[2].N != 30 {
		t.Errorf("meanfield --servers 10..30:10: %v %+v", err, rep.Refined)
	}
	// Scalar numbers too: decimal integers, no hexadecimal or NaN.
	out, _, err = fluid(t, "sim", "--servers", "010", "--load", "0.5", "--jobs", "2000", "--reps", "1", "--json")
	var sr report.Sim
	if err != nil || json.Unmarshal([]byte(out), &sr) != nil || sr.Servers != 10 {
		t.Errorf("--servers 010: %v, %d servers", err, sr.Servers)
	}
	for _, args := range [][]string{{"jiq", "--load", "0x1p-1"}, {"jiq", "--imax", "1.5"}, {"sim", "--seed", "-1"}, {"sim", "--seed", "0x10"}, {"jiq", "--exchange", "Inf"}} {
		if _, _, err := fluid(t, args...); exitCode(err) != 2 || !strings.Contains(err.Error(), args[1]) {
			t.Errorf("%v: %v", args, err)
		}
	}
	// Which flags a sweep treats as lists of values, vectors or words.
	jiq, _, _ := root.Find([]string{"jiq"})
	for name, want := range map[string]lists.Kind{"load": lists.Float, "imax": lists.Int, "alpha": lists.FloatVector, "scenario": lists.Word, "verify": lists.Bool} {
		if k := flagKind(jiq.Flags().Lookup(name)); k != want {
			t.Errorf("jiq --%s: %v, want %v", name, k, want)
		}
	}
	for cmd, flags := range map[string][]string{"edge": {"dispatchers", "load"}, "jackson": {"servers"}} {
		c, _, _ := root.Find([]string{cmd})
		for _, f := range flags {
			if k := flagKind(c.Flags().Lookup(f)); !k.Numeric() {
				t.Errorf("%s --%s: %v", cmd, f, k)
			}
		}
	}
	// A sweep's own flags never shadow a command's.
	for _, c := range root.Commands() {
		for _, own := range sweepOwnFlags {
			if c.Flags().Lookup(own) != nil && c.Name() != "sweep" {
				t.Errorf("fluid %s has a flag --%s, which fluid sweep takes for itself", c.Name(), own)
			}
		}
	}
}

// The Kubernetes Job runs a valid sweep and tells it the completions.
func TestK8sJob(t *testing.T) {
	noArrayEnv(t)
	b, err := os.ReadFile("../../deploy/k8s/sweep-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		Kind string
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Template       struct {
				Spec struct {
					Containers []struct {
						Command []string
						Args    []string
						Env     []struct{ Name, Value string }
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	c := job.Spec.Template.Spec.Containers[0]
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || len(c.Env) == 0 || c.Env[0].Name != "JOB_COMPLETIONS" ||
		c.Env[0].Value != strconv.Itoa(job.Spec.Completions) {
		t.Errorf("job %+v", job)
	}
	args := append(append([]string{}, c.Args...), "--dry-run")
	out, _, err := fluid(t, args...)
	if err != nil || !strings.Contains(out, "fluid edge over 9 dispatchers × 4 load: 36 tasks") {
		t.Errorf("%v: %v\n%s", args, err, out)
	}
}

// A phase diagram from a merged table: fluid sweep, merge, plot table.
func TestPlotTableCommand(t *testing.T) {
	noArrayEnv(t)
	dir, tmp := t.TempDir(), t.TempDir()
	if _, _, err := fluid(t, "sweep", "jiq", "--load", "0.5..0.9:0.1", "--exchange", "0..4:1", "--out", dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"t.csv", "t.jsonl", "t.parquet"} {
		table := filepath.Join(tmp, f)
		if _, _, err := fluid(t, "sweep", "merge", dir, "-o", table); err != nil {
			t.Fatal(err)
		}
		png := filepath.Join(tmp, f+".png")
		out, _, err := fluid(t, "plot", "table", table, "--x", "exchange", "--y", "load", "--z", "blocking", "-o", png)
		if err != nil || !strings.Contains(out, png) {
			t.Fatalf("%v\n%s", err, out)
		}
		if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("%s: %v", png, err)
		}
	}
	table := filepath.Join(tmp, "t.csv")
	if _, _, err := fluid(t, "plot", "table", table, "--x", "exchange", "--y", "load", "--z", "blocking", "--lines", "--where", "load=0.9", "-o", filepath.Join(tmp, "l.svg")); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", "table", table, "--x", "exchange", "-o", "x.png"}, "needs --x and --z"},
		{[]string{"plot", "table", table, "--x", "exchange", "--z", "nope", "-o", "x.png"}, `no column "nope"`},
		{[]string{"plot", "table", table, "--x", "exchange", "--z", "blocking", "-o", "x.png"}, "load varies too"},
		{[]string{"plot", "table", table, "--x", "exchange", "--z", "blocking", "--where", "load", "-o", "x.png"}, "invalid --where"},
		{[]string{"plot", "table", filepath.Join(tmp, "none.csv"), "--x", "a", "--z", "b", "-o", "x.png"}, "invalid table file"},
		{[]string{"plot", "table", table, "--x", "exchange", "--z", "blocking", "-o", "x.gif"}, "invalid -o"},
		{[]string{"plot", "table"}, "table FILE"},
		{[]string{"plot", "edge", "--x", "load", "-o", "x.png"}, "--x has no effect here: it is for plot table"},
	} {
		_, _, err := fluid(t, c.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error mentioning %q", c.args, err, exitCode(err), c.want)
		}
	}
}
