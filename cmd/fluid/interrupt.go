package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// watch cancels a context at the first SIGINT, SIGTERM or SIGHUP, so a long
// computation can stop and print what it finished; a second signal ends
// the process at once (the handler steps aside after the first).
type watch struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal
	done   chan struct{}
	mu     sync.Mutex
	sig    os.Signal
	owner  bool // this watch holds watching
}

// watching is held by the watch that owns the signals. A command run
// inside another one's watch (a sweep's task, run in this process) gets a
// watch that watches nothing: the outer command decides what a signal
// stops (for a sweep, the task in progress finishes, and must not end as
// failed).
var watching atomic.Bool

// watchInterrupts starts a watch; at a signal it prints
// "fluid: SIGNAL: " + doing + " (again to stop at once)". Within another
// watch it watches nothing.
func watchInterrupts(stderr io.Writer, doing string) *watch {
	w := &watch{sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	if w.owner = watching.CompareAndSwap(false, true); !w.owner {
		return w
	}
	signal.Notify(w.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-w.sigs:
			signal.Stop(w.sigs)
			w.mu.Lock()
			w.sig = sig
			w.mu.Unlock()
			fmt.Fprintf(stderr, "\nfluid: %v: %s (again to stop at once)\n", sig, doing)
			w.cancel()
		case <-w.done:
		}
	}()
	return w
}

// stop releases the signal handler.
func (w *watch) stop() {
	signal.Stop(w.sigs)
	close(w.done)
	w.cancel()
	if w.owner {
		watching.Store(false)
	}
}

// caught is the signal that arrived, or nil.
func (w *watch) caught() os.Signal {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sig
}

// stopped ends a command interrupted by a signal after it printed its
// finished results: exit status 128 + the signal (130 for Ctrl-C).
type stopped struct {
	sig  os.Signal
	what string
}

func (e *stopped) Error() string {
	return fmt.Sprintf("interrupted (%v): %s", e.sig, e.what)
}

func (e *stopped) ExitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}
