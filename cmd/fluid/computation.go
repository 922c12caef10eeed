package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/quantity"
	"github.com/fluidlb/fluid/report"
)

// A computation is how every command runs its work, the same way: a watch
// on SIGINT and SIGTERM that cancels the work's context, a progress bar on
// stderr (shown on a terminal only) fed by the work's outcome.Progress,
// and one rule for what the way it ended means for the command's exit
// (ended).
type computation struct {
	stderr io.Writer
	label  string // the bar's label
	// least is the smallest total that shows a bar: short work shows none.
	least int64
	// work: the bar counts units of the work's own (plot's figures): it
	// shows the percentage and the times, no count.
	work bool
	w    *watch // nil: no signal handling (the work cannot be cancelled)
	mu   sync.Mutex
	bar  *progress
}

// startComputation starts watching for signals; at one it prints
// "fluid: SIGNAL: " + onSignal and cancels the context of run. label names
// the progress bar. With onSignal "" it watches nothing: for work that
// cannot stop early, which a signal then ends at once.
func startComputation(stderr io.Writer, label, onSignal string) *computation {
	c := &computation{stderr: stderr, label: label}
	if onSignal != "" {
		c.w = watchInterrupts(stderr, onSignal)
	}
	return c
}

// run is the outcome.Run the work takes: the watch's context, workers
// goroutines (0: every core), and the progress bar.
func (c *computation) run(workers int) outcome.Run {
	r := outcome.Run{Workers: workers, Progress: c.progress}
	if c.w != nil {
		r.Context = c.w.ctx
	}
	return r
}

// progress shows done of total on the bar (created at the first call
// whose total reaches least); with a note, the note is the bar's label.
// It is safe for concurrent use.
func (c *computation) progress(done, total int64, note string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bar == nil {
		if total < c.least || total <= 0 {
			return
		}
		if c.work {
			c.bar = newWorkProgress(c.stderr, int(total), c.label)
		} else {
			c.bar = newProgress(c.stderr, int(total), c.label)
		}
	}
	if note != "" && c.bar.bar != nil {
		c.bar.bar.Describe(shorten(note, 40))
	}
	c.bar.set(int(done), int(total))
}

// done finishes the progress bar, so that what follows on stderr starts
// on a clean line.
func (c *computation) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bar != nil {
		c.bar.done()
		c.bar = nil
	}
}

// stop finishes the bar and releases the signal handler.
func (c *computation) stop() {
	c.done()
	if c.w != nil {
		c.w.stop()
	}
}

// halted is the error of work a signal stopped, once what it finished is
// printed (what says what that was): exit status 128 + the signal.
func (c *computation) halted(format string, a ...any) error {
	return &stopped{c.w.caught(), fmt.Sprintf(format, a...)}
}

// ended is the rule every command follows once its report is written: nil
// when the work delivered its answer (a status for which OK holds), a
// halted error when a signal interrupted it (finished says what was kept),
// and otherwise ended's error.
func (c *computation) ended(s outcome.Status, failed, finished string) error {
	if s == outcome.Interrupted {
		return c.halted("%s", finished)
	}
	return ended(s, failed)
}

// ended is the exit of work whose report is written: nil when it delivered
// its answer, and otherwise an error saying what the report holds instead
// (failed), with the status — exit status 1, never 0 with a number shown
// as a limit.
func ended(s outcome.Status, failed string) error {
	if s.OK() {
		return nil
	}
	return fmt.Errorf("%s (status %s)", failed, s.Name())
}

// reportStatus is a status as the reports state convergence: its name,
// except that an attractor found (a fixed point or a cycle) is converged —
// the report's attractor field says which.
func reportStatus(s outcome.Status) string {
	if s == outcome.FixedPoint || s == outcome.Cycle {
		return outcome.Converged.Name()
	}
	return s.Name()
}

// output is how a command writes its report: JSON, CSV (one row per
// element of the array rows, or one row) or text.
type output struct {
	json, csv bool
	rows      string
}

// emit writes rep in the chosen form, after the invariant guard
// (quantity.Check): a report that fails it is not an answer and leaves as
// an invalidResult (exit status 1) with the violations as the evidence;
// with --json stdout gets a report.Refusal with status invalid_result,
// otherwise nothing. Every command writes its report here, so no number
// reaches stdout without the guard. text writes the human form into a
// buffer: what reaches stdout is written at once, never a part.
func emit(w io.Writer, out output, rep any, text func(io.Writer) error) error {
	if err := quantity.Check(rep); err != nil {
		var qe *quantity.Error
		if !errors.As(err, &qe) {
			return err
		}
		inv := &invalidResult{qe}
		if out.json {
			ref := refusalOf(rep, outcome.InvalidResult, "the result failed its invariants, so it is not shown as an answer")
			for _, v := range qe.Violations {
				ref.Violations = append(ref.Violations, report.Violation{Path: v.Path, Invariant: v.Invariant, Values: v.Values})
			}
			return errors.Join(writeJSON(w, ref), inv)
		}
		return inv
	}
	switch {
	case out.json:
		return writeJSON(w, rep)
	case out.csv:
		return writeCSVReport(w, rep, out.rows)
	}
	var b bytes.Buffer
	if err := text(&b); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// refusalOf is the refusal of rep (whose header names the command).
func refusalOf(rep any, s outcome.Status, reason string) *report.Refusal {
	ref := &report.Refusal{Header: report.NewHeader(""), Status: s.Name(), Reason: reason}
	v := reflect.ValueOf(rep)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if h, ok := v.FieldByName("Header").Interface().(report.Header); ok {
			ref.Header = h
		}
	}
	return ref
}

// invalidResult is the error of a report that failed the invariant guard:
// exit status 1, like any computation that ran without delivering its
// answer.
type invalidResult struct{ err *quantity.Error }

func (e *invalidResult) Error() string {
	return e.err.Error() + " (status invalid_result; a bug: please report it with the command line)"
}

func (e *invalidResult) Unwrap() error { return e.err }

// interruptedBefore ends a command a signal stopped before any of its
// work finished: with --json, a report.Refusal with status interrupted
// (so stdout is valid JSON whenever it is not empty), then exit status
// 128 + the signal.
func (c *computation) interruptedBefore(w io.Writer, out output, command, what string) error {
	if out.json {
		ref := &report.Refusal{Header: report.NewHeader(command), Status: outcome.Interrupted.Name(), Reason: what}
		if err := writeJSON(w, ref); err != nil {
			return err
		}
	}
	return c.halted("%s", what)
}

// await runs work, a computation that cannot be cancelled, on a goroutine
// of its own, and returns true when it has finished, or false as soon as
// a signal has arrived: the caller then prints what had finished and
// exits (the work is abandoned with the process). A panic in the work is
// raised again here, where the command line reports it as a bug.
func (c *computation) await(work func()) bool {
	if c.w == nil {
		work()
		return true
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		work()
	}()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
		return true
	case <-c.w.ctx.Done():
		return false
	}
}

// each runs item(0), …, item(n−1) in order, like await on a goroutine of
// its own, and returns how many finished: n, or fewer as soon as a signal
// arrives (the item in progress is abandoned) or an item fails (its
// error). item(i) writes only its own results, which the caller may read
// for every i below the count returned.
func (c *computation) each(n int, item func(i int) error) (int, error) {
	var mu sync.Mutex
	done := 0
	var err error
	c.await(func() {
		for i := 0; i < n; i++ {
			if e := item(i); e != nil {
				mu.Lock()
				err = e
				mu.Unlock()
				return
			}
			mu.Lock()
			done++
			mu.Unlock()
		}
	})
	mu.Lock()
	defer mu.Unlock()
	return done, err
}
