package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/quantity"
	"github.com/fluidlb/fluid/report"
	"github.com/fluidlb/fluid/sweep"
	"github.com/fluidlb/fluid/table"
)

const sweepLong = `sweep runs a fluid command over a grid of its flags: every flag takes a list,
and the Cartesian product of the lists is the grid. Each grid point is a task,
run in-process exactly as "fluid COMMAND --json" with that point's flags; its
result goes to DIR as one JSON line. Re-running the same sweep skips finished
tasks (--retry-failed reruns failed ones); shards split the tasks between
processes, job-array tasks or pods, writing one file each.

Lists and ranges (the grammar of every list flag of fluid):
  0.8,0.9,0.95        a list
  3..10               3, 4, …, 10
  0.80..0.95:0.05     0.80, 0.85, 0.90, 0.95 (the step must land on the end)
  10..100000*10       10, 100, …, 100000 (geometric, while ≤ the end)
Integers are decimal; NaN and Inf are refused; a flag takes at most 10,000
values and a sweep at most 100,000 tasks. Flags holding words (--policy,
--start, --sizes, …) take comma lists of words. Flags whose one value is
itself a comma list (--alpha, --beta) separate values with ';':
--alpha '0.7,0.3;0.6,0.4' is two values. Every flag given is a grid column,
also with one value.

A grid file (--grid FILE, YAML) adds dimensions and explicit points, for grids
that are not products:
  grid:                       # flag → list, as on the command line
    load: 0.5..0.9:0.1
  points:                     # explicit points, each crossed with the grid
    - {alpha: [0.7, 0.3], beta: [0.7, 0.3]}
    - {alpha: [0.6, 0.4], beta: [0.6, 0.4]}

Tasks have ids derived from the command and the point. Commands that take
--seed get a seed per task derived from the sweep's --seed and the task id,
so a result depends neither on sharding nor on order.

Sharding: --shard I/N runs the tasks whose grid index is I modulo N. Without
it the shard comes from a Slurm job array (SLURM_ARRAY_TASK_ID,
SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX and
JOB_COMPLETIONS); otherwise the whole sweep runs. Shards write
DIR/shard-II-of-NN.jsonl; any sharding resumes any other.

Tasks run one at a time (--parallel N: N at once); each is a fresh command.

Exit status: 0 when every task of the shard succeeded, 1 if some failed
(recorded with their messages), 2 for a mistake in the command line, 130
when interrupted (Ctrl-C stops after the task in progress; again to stop at
once).`

// sweepOwnFlags are the flags of "fluid sweep COMMAND" that are not the
// command's.
var sweepOwnFlags = []string{"out", "grid", "shard", "parallel", "retry-failed", "dry-run"}

func newSweep(cmds []*cobra.Command) *cobra.Command {
	var names []string
	c := &cobra.Command{
		Use:   "sweep COMMAND [flags with lists] --out DIR",
		Short: "Run a command over a grid of its flags: sharded, resumable, merged into tables",
		Long:  sweepLong,
		Example: `  fluid sweep jiq --load 0.5..0.95:0.025 --exchange 0..6:0.25 --out runs/jiq
  fluid sweep edge -k 2..10 --load 0.8..0.95:0.05 --out runs/edge --shard 0/4
  fluid sweep sim --servers 10,100 --policy random,jsqd:2 --jobs 100000 --out runs/sim
  fluid sweep merge runs/jiq -o jiq.csv
  fluid sweep status runs/jiq
  fluid plot table jiq.csv --x exchange --y load --z blocking -o jiq.png`,
		Args: cobra.ArbitraryArgs,
		// "fluid sweep bogus --out s" is an unknown command, not an
		// unknown flag --out.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return &usageError{err: fmt.Errorf("cannot sweep %q: want one of %s (commands with --json), or merge or status", args[0], joinNames(names)), cmd: cmd.CommandPath()}
		},
	}
	for _, t := range cmds {
		if t.Flags().Lookup("json") == nil {
			continue
		}
		names = append(names, t.Name())
		c.AddCommand(newSweepCommand(t))
	}
	c.AddCommand(newSweepMerge(), newSweepStatus())
	return c
}

type sweepOptions struct {
	out, grid, shard string
	parallel         int
	retry, dryRun    bool
	seed             uint64
}

// sweepParam is a flag of the swept command, as a grid dimension.
type sweepParam struct {
	name string
	kind lists.Kind
}

// newSweepCommand is "fluid sweep NAME": the flags of fluid NAME, each
// taking a list.
func newSweepCommand(target *cobra.Command) *cobra.Command {
	name := target.Name()
	o := &sweepOptions{}
	seeded := target.Flags().Lookup("seed") != nil
	var params []sweepParam
	c := &cobra.Command{
		Use:   name + " [flags of fluid " + name + ", with lists] --out DIR",
		Short: "Sweep fluid " + name + " over a grid: " + target.Short,
		Long: `Runs "fluid ` + name + ` --json" at every point of the grid its flags' lists span
(see "fluid sweep --help" for the grammar, grid files, sharding and resuming).
The flags below are fluid ` + name + `'s, each taking a list.`,
		Args:                  sweepArgs,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSweep(cmd, name, params, seeded, o)
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVar(&o.out, "out", "", "directory of the sweep: manifest and one JSON Lines file per shard (required)")
	f.StringVar(&o.grid, "grid", "", "YAML grid file adding dimensions and explicit points")
	f.StringVar(&o.shard, "shard", "", "run shard I of N, I/N counted from 0 (default: from a Slurm array or Kubernetes Indexed Job, else all)")
	f.IntVar(&o.parallel, "parallel", 1, "tasks run at once in this process (commands such as sim also use several cores each)")
	f.BoolVar(&o.retry, "retry-failed", false, "rerun the tasks that failed before")
	f.BoolVar(&o.dryRun, "dry-run", false, "list the tasks (id and command line) and exit")
	if seeded {
		f.Uint64Var(&o.seed, "seed", 1, "sweep seed: each task's --seed derives from it and the task's id")
	}
	tf := target.Flags()
	sorted := tf.SortFlags
	tf.SortFlags = false
	tf.VisitAll(func(tfl *pflag.Flag) {
		if tfl.Name == "json" || f.Lookup(tfl.Name) != nil || tfl.Hidden {
			return
		}
		kind := flagKind(tfl)
		f.StringP(tfl.Name, tfl.Shorthand, "", fmt.Sprintf("%s [%s; default %s]", tfl.Usage, kindHint(kind), defaultText(tfl, kind)))
		if kind == lists.Bool {
			f.Lookup(tfl.Name).NoOptDefVal = "true"
		}
		params = append(params, sweepParam{tfl.Name, kind})
	})
	tf.SortFlags = sorted
	return c
}

// sweepArgs refuses positional arguments, saying how a boolean flag takes
// its list when the argument looks like one ("--verify true,false" reads
// --verify alone, then an argument).
func sweepArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		if _, err := lists.Parse("", lists.Bool, args[0]); err == nil {
			return &usageError{err: fmt.Errorf("unexpected argument %q: a boolean flag alone means true; its list follows an = sign (e.g. --verify=true,false)", args[0]), cmd: cmd.CommandPath()}
		}
	}
	return noArgs(cmd, args)
}

// defaultText is a flag's default as a sweep would write it.
func defaultText(f *pflag.Flag, kind lists.Kind) string {
	def := f.DefValue
	if kind.Vector() {
		def = strings.Trim(def, "[]")
		if v, err := lists.ParseValue(kind, def); err == nil {
			def = v.String()
		}
	}
	if def == "" {
		return "none"
	}
	return def
}

func runSweep(cmd *cobra.Command, name string, params []sweepParam, seeded bool, o *sweepOptions) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	s, err := sweepOf(cmd, name, params, seeded, o)
	if err != nil {
		return err
	}
	if o.dryRun {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n", s.Describe())
		for _, t := range s.Tasks {
			fmt.Fprintf(&b, "%6d  %s  fluid %s\n", t.Index, t.ID, strings.Join(t.Args, " "))
		}
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	if o.out == "" {
		return usagef("--out is required: the directory of the sweep's results (e.g. --out runs/%s)", name)
	}
	return sweepRun(stdout, stderr, s, o)
}

// sweepRun runs this shard's tasks of s into o.out, resuming, and sums up.
func sweepRun(stdout, stderr io.Writer, s *sweep.Sweep, o *sweepOptions) error {
	shard, err := sweepShard(o.shard)
	if err != nil {
		return err
	}
	if err := outputDir("--out", o.out); err != nil {
		return err
	}
	if o.parallel < 1 || o.parallel > 1024 {
		return usagef("invalid --parallel: %d, want 1 to 1024", o.parallel)
	}
	if err := s.Start(o.out); err != nil {
		var me *sweep.MismatchError
		if errors.As(err, &me) {
			return usagef("invalid --out: %v", err)
		}
		return err
	}

	// Ctrl-C (or Slurm's SIGTERM) stops after the task in progress; a
	// second signal ends the process. A progress bar on a terminal: tasks
	// done, and the point started last.
	c := startComputation(stderr, "", "stopping the sweep after the task in progress")
	defer c.stop()
	sum, err := s.Run(o.out, sweep.RunOptions{
		Shard:       shard,
		RetryFailed: o.retry,
		Exec:        execTask,
		Run:         c.run(o.parallel),
	})
	c.done()
	if errors.Is(err, sweep.ErrLocked) {
		return usagef("invalid --out: %s (wait for it, or run another --shard)", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	if err != nil {
		return err
	}
	if err := writeSweepSummary(stdout, s, sum, o.out); err != nil {
		return err
	}
	if sum.Status == outcome.Interrupted {
		return c.halted("every finished task is kept; %d left in this shard, run the same command to resume", sum.Counts.Remaining)
	}
	if sum.Counts.Failed > 0 {
		return fmt.Errorf("%d of %d tasks of shard %v failed (see fluid sweep status %s; --retry-failed reruns them)",
			sum.Counts.Failed, sum.Counts.Tasks, sum.Shard, o.out)
	}
	return nil
}

// sweepOf is the sweep the command line describes: the grid of the
// flags given (and of --grid), its tasks, each writing JSON.
func sweepOf(cmd *cobra.Command, name string, params []sweepParam, seeded bool, o *sweepOptions) (*sweep.Sweep, error) {
	kinds := map[string]lists.Kind{}
	for _, p := range params {
		kinds[p.name] = p.kind
	}
	g := sweep.Grid{Command: name}
	if o.grid != "" {
		gf, err := readGridFile(o.grid, func(n string) (lists.Kind, bool) { k, ok := kinds[n]; return k, ok })
		if err != nil {
			return nil, err
		}
		if gf.Command != "" && gf.Command != name {
			return nil, usagef("invalid --grid: %s is a grid for fluid %s, not fluid %s", o.grid, gf.Command, name)
		}
		g.Points, g.Dims = gf.Points, gf.Dims
	}
	for _, p := range params {
		fl := cmd.Flags().Lookup(p.name)
		if !fl.Changed {
			continue
		}
		vals, err := lists.Parse(p.name, p.kind, fl.Value.String())
		if err != nil {
			return nil, listUsage(err)
		}
		g.Dims = append(g.Dims, sweep.Dim{Name: p.name, Kind: p.kind, Values: vals})
	}
	var seed *uint64
	if seeded {
		seed = &o.seed
	}
	s, err := sweep.New(g, seed)
	if err != nil {
		return nil, usagef("%s", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	s.Version = report.Build().String() // the version every report carries in its "fluid" field
	for i := range s.Tasks {
		s.Tasks[i].Args = append(s.Tasks[i].Args, "--json")
	}
	return s, nil
}

// writeSweepSummary says what the shard ran and where the sweep stands.
func writeSweepSummary(w io.Writer, s *sweep.Sweep, sum *sweep.Summary, out string) error {
	res, err := s.Load(out)
	if err != nil {
		return err
	}
	all := res.Count(sweep.Unsharded)
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s\n", s.Describe(), out)
	fmt.Fprintf(&b, "shard %v: %s; ran %d (%d ok, %d failed), %d finished before; %.1f s\n",
		sum.Shard, plural(sum.Tasks, "task"), sum.Ran, sum.OK, sum.Failed, sum.Before, sum.Elapsed.Seconds())
	fmt.Fprintf(&b, "sweep: %d ok, %d failed, %d remaining of %d", all.OK, all.Failed, all.Remaining, all.Tasks)
	if all.Remaining == 0 {
		fmt.Fprintf(&b, " — merge with: fluid sweep merge %s -o table.csv", out)
	}
	b.WriteString("\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// sweepShard is the shard from --shard, or else from the environment.
func sweepShard(flag string) (sweep.Shard, error) {
	if flag != "" {
		sh, err := sweep.ParseShard(flag)
		if err != nil {
			return sweep.Shard{}, usagef("invalid --shard: %v", err)
		}
		return sh, nil
	}
	sh, _, err := sweep.ShardFromEnv(os.Getenv)
	if err != nil {
		return sweep.Shard{}, usagef("%s", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	return sh, nil
}

// maxGridFile bounds the size of a grid file.
const maxGridFile = 16 << 20

func readGridFile(path string, kind func(string) (lists.Kind, bool)) (*sweep.GridFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("invalid --grid: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxGridFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxGridFile {
		return nil, usagef("invalid --grid: %s is larger than %d MiB", path, maxGridFile>>20)
	}
	gf, err := sweep.ParseGridFile(b, kind)
	if err != nil {
		return nil, usagef("invalid --grid %s: %v", path, err)
	}
	return gf, nil
}

// execTask runs a task in-process, as "fluid ARGS" would: its result is
// the JSON the command writes.
func execTask(t *sweep.Task) (res json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	var out, errb bytes.Buffer
	err = run(t.Args, &out, &errb)
	if b := bytes.TrimSpace(out.Bytes()); len(b) > 0 && b[0] == '{' && json.Valid(b) {
		res = b
	}
	if err != nil {
		return res, err
	}
	if res == nil {
		return nil, errors.New("the command wrote no JSON object")
	}
	// Every command's report passed the guard before it was written; a
	// result is held to it once more where it is stored.
	if err := quantity.CheckJSON(res); err != nil {
		return nil, err
	}
	return res, nil
}

// plural prints n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

type mergeOptions struct {
	out     string
	timings bool
}

func newSweepMerge() *cobra.Command {
	o := &mergeOptions{}
	c := &cobra.Command{
		Use:   "merge DIR [-o FILE]",
		Short: "Merge a sweep's results into one tidy table (CSV, JSON Lines or Parquet)",
		Long: `merge writes one table of the finished tasks in DIR, one row per task in grid order
whatever the sharding: the grid's columns (flag names; a vector flag such as
alpha also as alpha.1, alpha.2, …), then the scalar fields of the command's JSON
(nested objects flattened with dots: sojourn.mean, sojourn.ci95), then
task_status and, when a task failed, task_error. Arrays are left out (they stay
in DIR), and so are null fields and fields named like a grid column. A result
with a "rows" array (fluid edge, fluid jackson) gives one row per element.
Wall-time fields (seconds, events_per_second) are left out unless --timings, so
that a table depends only on the grid and the seeds.

The format follows the file name: .csv, .jsonl or .parquet; without -o, CSV on
standard output. A task that failed and later succeeded appears once, as
succeeded.`,
		Example: `  fluid sweep merge runs/jiq -o jiq.csv
  fluid sweep merge runs/sim -o sim.parquet`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("give the sweep's directory"), cmd: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], o)
		},
	}
	c.Flags().StringVarP(&o.out, "output", "o", "", "table file: .csv, .jsonl or .parquet (default: CSV on standard output)")
	c.Flags().BoolVar(&o.timings, "timings", false, "keep wall-time fields and add task_seconds")
	return c
}

func openSweep(dir string) (*sweep.Sweep, *sweep.Results, error) {
	s, err := sweep.Open(dir)
	if err != nil {
		if errors.Is(err, sweep.ErrNoSweep) {
			return nil, nil, usagef("%s", strings.TrimPrefix(err.Error(), "sweep: "))
		}
		return nil, nil, err
	}
	res, err := s.Load(dir)
	if err != nil {
		// A results file that is not the sweep's (a line that is not a
		// task record): the directory is unusable as it stands.
		return nil, nil, usagef("%s (move the file out of the sweep's directory)", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	return s, res, nil
}

// strayFiles are the files in dir that look like results (.jsonl) but
// are not among the shard files res read: the sweep reads none of them.
func strayFiles(dir string, res *sweep.Results) []string {
	read := map[string]bool{}
	for _, f := range res.Files {
		read[f.Name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	stray := []string{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") && !read[e.Name()] {
			stray = append(stray, e.Name())
		}
	}
	return stray
}

// warnIgnored tells stderr what merge leaves out: stray files and lines
// whose task is not in the grid.
func warnIgnored(stderr io.Writer, dir string, res *sweep.Results) {
	for _, name := range strayFiles(dir, res) {
		fmt.Fprintf(stderr, "fluid: ignored %s: not a shard file (shard-II-of-NN.jsonl)\n", filepath.Join(dir, name))
	}
	for _, f := range res.Files {
		if f.Unknown > 0 {
			fmt.Fprintf(stderr, "fluid: ignored %s of %s: task ids not in this sweep's grid\n", plural(f.Unknown, "line"), filepath.Join(dir, f.Name))
		}
	}
}

func runMerge(stdout, stderr io.Writer, dir string, o *mergeOptions) error {
	if o.out != "" {
		if err := outputFile("-o", o.out, "csv", "jsonl", "parquet"); err != nil {
			return err
		}
	}
	s, res, err := openSweep(dir)
	if err != nil {
		return err
	}
	warnIgnored(stderr, dir, res)
	t, err := res.Table(sweep.TableOptions{Timings: o.timings})
	if err != nil {
		return err
	}
	if o.out == "" {
		if err := t.Write(stdout, table.CSV); err != nil {
			return err
		}
	} else if err := t.WriteFile(o.out); err != nil {
		return err
	}
	c := res.Count(sweep.Unsharded)
	dest := o.out
	if dest == "" {
		dest = "standard output"
	}
	fmt.Fprintf(stderr, "%d rows from %d of %d tasks of %s (%d failed, %d not run) → %s\n",
		len(t.Rows), c.OK+c.Failed, c.Tasks, "fluid "+s.Grid.Command, c.Failed, c.Remaining, dest)
	return nil
}

type statusOptions struct{ json, csv bool }

func newSweepStatus() *cobra.Command {
	o := &statusOptions{}
	c := &cobra.Command{
		Use:   "status DIR",
		Short: "Show a sweep's progress: done, failed and remaining tasks, per shard",
		Long: `status reads DIR and shows the sweep's tasks done, failed and remaining, overall and
per shard of every sharding that wrote to DIR, then the files and the first
failures with their messages.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("give the sweep's directory"), cmd: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatus(cmd.OutOrStdout(), args[0], o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "write JSON (report.SweepStatus; schema in docs/schema/sweep-status.json)")
	c.Flags().BoolVar(&o.csv, "csv", false, "write the table as CSV (one row per shard; columns named as the JSON fields)")
	return c
}

func runStatus(w io.Writer, dir string, o *statusOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	s, res, err := openSweep(dir)
	if err != nil {
		return err
	}
	all := res.Count(sweep.Unsharded)
	st := &report.SweepStatus{Header: report.NewHeader("sweep status"), Sweep: s.Describe(), Tasks: all.Tasks, Done: all.OK, Failed: all.Failed, Remaining: all.Remaining,
		Shards: []report.ShardStatus{}, Files: []report.FileStatus{}, Failures: []report.Failure{}, Ignored: strayFiles(dir, res)}
	counts := map[int]bool{}
	for _, f := range res.Files {
		counts[f.Shard.Count] = true
		st.Files = append(st.Files, report.FileStatus{Name: f.Name, Lines: f.Lines, OK: f.OK, Failed: f.Failed, Partial: f.Partial, Unknown: f.Unknown})
	}
	if len(counts) == 0 {
		counts[1] = true
	}
	var ns []int
	for n := range counts {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	for _, n := range ns {
		for i := range n {
			sh := sweep.Shard{Index: i, Count: n}
			c := res.Count(sh)
			st.Shards = append(st.Shards, report.ShardStatus{Shard: sh.String(), Tasks: c.Tasks, Done: c.OK, Failed: c.Failed, Remaining: c.Remaining})
		}
	}
	for _, t := range s.Tasks {
		if r := res.Records[t.ID]; r != nil && r.State == sweep.Failed {
			st.Failures = append(st.Failures, report.Failure{ID: t.ID, Point: t.Point.String(), Error: r.Error})
		}
	}
	return emit(w, output{json: o.json, csv: o.csv, rows: "shards"}, st, func(w io.Writer) error { return writeStatusText(w, st) })
}

func writeStatusText(w io.Writer, st *report.SweepStatus) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", st.Sweep)
	fmt.Fprintf(&b, "done %d, failed %d, remaining %d of %d\n\n", st.Done, st.Failed, st.Remaining, st.Tasks)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shard\ttasks\tdone\tfailed\tremaining\t")
	for _, sh := range st.Shards {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", sh.Shard, sh.Tasks, sh.Done, sh.Failed, sh.Remaining)
	}
	tw.Flush()
	if len(st.Files) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "file\tlines\tok\tfailed\t")
		for _, f := range st.Files {
			var notes []string
			if f.Partial {
				notes = append(notes, "ends in a partial line (ignored until its shard runs again)")
			}
			if f.Unknown > 0 {
				notes = append(notes, fmt.Sprintf("%s with task ids not in the grid (ignored)", plural(f.Unknown, "line")))
			}
			note := strings.Join(notes, "; ")
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", f.Name, f.Lines, f.OK, f.Failed, note)
		}
		tw.Flush()
	}
	for _, name := range st.Ignored {
		fmt.Fprintf(&b, "\nignored %s: not a shard file (shard-II-of-NN.jsonl)\n", name)
	}
	if len(st.Failures) > 0 {
		fmt.Fprintf(&b, "\nfailed tasks:\n")
		for i, f := range st.Failures {
			if i == 10 {
				fmt.Fprintf(&b, "  … and %d more (--json lists them all)\n", len(st.Failures)-10)
				break
			}
			fmt.Fprintf(&b, "  %s  %s: %s\n", f.ID, f.Point, f.Error)
		}
	}
	// Tables with blank last cells leave padding at line ends: trim it.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}
