package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on w when w is a terminal, and nothing
// otherwise (pipes, files, tests).
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(w io.Writer, total int, what string) *progress {
	return newBar(w, total, what, progressbar.OptionShowCount())
}

// newWorkProgress is a bar for work counted in units of its own (plot's
// figures): the percentage and the times, no count.
func newWorkProgress(w io.Writer, total int, what string) *progress {
	return newBar(w, total, what, progressbar.OptionThrottle(100*time.Millisecond))
}

func newBar(w io.Writer, total int, what string, opts ...progressbar.Option) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total, append([]progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionClearOnFinish(),
	}, opts...)...)}
}

// set shows done of total (the total may have changed).
func (p *progress) set(done, total int) {
	if p.bar == nil {
		return
	}
	if total != p.bar.GetMax() {
		p.bar.ChangeMax(total)
	}
	_ = p.bar.Set(done)
}

func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
