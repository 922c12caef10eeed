package sweep

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/fluidlb/fluid/outcome"
)

// RunOptions control Run.
type RunOptions struct {
	// Shard selects the tasks to run (the zero value: Unsharded).
	Shard Shard
	// RetryFailed reruns tasks that failed before; otherwise they count as
	// finished.
	RetryFailed bool
	// Exec runs one task: it returns the command's JSON result (nil if
	// there is none) and the error if the task failed. It must not panic.
	Exec func(t *Task) (json.RawMessage, error)
	// Run: Workers is the number of tasks run at once (0 or 1: one at a
	// time, since a task is a command that uses every core itself; more
	// need an Exec safe for concurrent use). Progress is told before each
	// task of the tasks done so far in this run, the tasks this run has to
	// do, and the task's point as its note (never concurrently). A
	// cancelled Context ends the run after the tasks in progress
	// (Summary.Interrupted).
	outcome.Run
}

// Summary is what a run did. Its Status is Completed when every task of
// the shard was run (whatever their states: a failed task is recorded, not
// a failed run), Interrupted when the Context ended the run early;
// Evaluations counts the tasks run (Ran), Elapsed is the wall time.
type Summary struct {
	outcome.Outcome
	Shard Shard
	// Tasks are the shard's tasks; Before those found finished (by any
	// shard, in any earlier run) and skipped.
	Tasks, Before int
	// Ran, OK and Failed count the tasks run now.
	Ran, OK, Failed int
	// Counts are the shard's tasks by state after the run.
	Counts Counts
}

// Run runs the shard's unfinished tasks in grid order, appending a record
// for each to the shard's file in dir as soon as it ends. Finished tasks
// are recognised by ID in every shard file of dir, so a sweep can resume
// under another sharding. The manifest must be in place (Start).
func (s *Sweep) Run(dir string, o RunOptions) (*Summary, error) {
	sh := o.Shard
	if sh == (Shard{}) {
		sh = Unsharded
	}
	if !sh.Valid() {
		return nil, fmt.Errorf("sweep: invalid shard %v", sh)
	}
	if o.Exec == nil {
		return nil, fmt.Errorf("sweep: no Exec")
	}
	start := time.Now()
	w, err := openShard(dir, sh)
	if err != nil {
		return nil, err
	}
	defer w.close()
	res, err := s.Load(dir)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Outcome: outcome.Outcome{Status: outcome.Completed}, Shard: sh}
	r := &runner{o: &o, w: w, res: res, sum: sum, todo: s.pending(res, sh, o.RetryFailed, sum)}
	next := make(chan *Task)
	for range min(max(1, o.Workers), len(r.todo)) {
		r.wg.Add(1)
		go r.work(next)
	}
	r.feed(next)
	close(next)
	r.wg.Wait()
	if r.writeErr != nil {
		return sum, r.writeErr
	}
	sum.Counts = res.Count(sh)
	sum.Evaluations, sum.Elapsed = sum.Ran, time.Since(start)
	return sum, nil
}

// pending returns the shard's tasks still to run, in grid order, counting
// the shard's tasks and those finished before in sum.
func (s *Sweep) pending(res *Results, sh Shard, retryFailed bool, sum *Summary) []*Task {
	var todo []*Task
	for i := range s.Tasks {
		t := &s.Tasks[i]
		if !sh.Has(t.Index) {
			continue
		}
		sum.Tasks++
		if r := res.Records[t.ID]; r != nil && (r.State == OK || !retryFailed) {
			sum.Before++
			continue
		}
		todo = append(todo, t)
	}
	return todo
}

// runner is one Run's workers: they run the tasks, and append the records
// under mu, one at a time.
type runner struct {
	o    *RunOptions
	w    *shardWriter
	res  *Results
	sum  *Summary
	todo []*Task

	wg       sync.WaitGroup
	mu       sync.Mutex
	done     int   // tasks ended, under mu
	writeErr error // the first failed write, under mu
}

// work runs the tasks it receives until next is closed.
func (r *runner) work(next <-chan *Task) {
	defer r.wg.Done()
	for t := range next {
		r.mu.Lock()
		if r.o.Progress != nil {
			r.o.Progress(int64(r.done), int64(len(r.todo)), t.Point.String())
		}
		r.mu.Unlock()
		rec := runTask(t, r.o.Exec)
		r.mu.Lock()
		err := r.writeErr
		if err == nil {
			err = r.w.write(rec)
		}
		r.mu.Unlock()
		if err == nil {
			err = r.w.sync() // outside the lock: syncs overlap
		}
		r.mu.Lock()
		if err != nil && r.writeErr == nil {
			r.writeErr = fmt.Errorf("sweep: writing %s: %w", r.w.path, err)
		}
		if err == nil {
			r.res.Records[t.ID] = rec
			r.sum.Ran++
			if rec.State == OK {
				r.sum.OK++
			} else {
				r.sum.Failed++
			}
		}
		r.done++
		r.mu.Unlock()
	}
}

// feed hands the tasks to the workers until a write fails or the run is
// stopped (Status Interrupted).
func (r *runner) feed(next chan<- *Task) {
	for _, t := range r.todo {
		r.mu.Lock()
		failed := r.writeErr != nil
		r.mu.Unlock()
		if failed {
			return
		}
		if r.o.Stopped() {
			r.sum.Status = outcome.Interrupted
			return
		}
		select {
		case next <- t:
		case <-r.o.Ctx().Done():
			r.sum.Status = outcome.Interrupted
			return
		}
	}
}

// runTask runs one task and makes its record.
func runTask(t *Task, exec func(*Task) (json.RawMessage, error)) *Record {
	t0 := time.Now()
	out, err := execSafely(t, exec)
	r := &Record{ID: t.ID, Point: t.Point, Args: t.Args, Seed: t.Seed, State: OK,
		Seconds: time.Since(t0).Seconds(), Result: out}
	if err != nil {
		r.State, r.Error = Failed, err.Error()
	}
	if len(out) > 0 && !json.Valid(out) {
		r.Result = nil
		if err == nil {
			r.State, r.Error = Failed, "the command's output is not JSON"
		}
	}
	return r
}

// execSafely runs exec, turning a panic (a bug in the command) into the
// task's failure, so that one bad point does not end the sweep.
func execSafely(t *Task, exec func(*Task) (json.RawMessage, error)) (out json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("internal error (a bug in fluid): %v", p)
		}
	}()
	return exec(t)
}
