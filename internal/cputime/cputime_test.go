package cputime

import (
	"runtime"
	"testing"
	"time"
)

// Busy work advances the CPU time by about as much as it takes (a clock
// that does not move, or counts sleeping, fails).
func TestProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("not measured here")
	}
	c0 := Process()
	time.Sleep(50 * time.Millisecond)
	if d := Process() - c0; d > 40*time.Millisecond {
		t.Errorf("sleeping 50 ms used %v of CPU", d)
	}
	c0, t0 := Process(), time.Now()
	x := 1.0
	for time.Since(t0) < 100*time.Millisecond {
		for range 1000 {
			x = x*1.0000001 + 1e-9
		}
	}
	if d := Process() - c0; d < 50*time.Millisecond {
		t.Errorf("100 ms of work used only %v of CPU (x = %v)", d, x)
	}
}

// Pair adds each computation's times to its own slot.
func TestPair(t *testing.T) {
	var p Pair
	for range 2 {
		p.Run(func() { time.Sleep(20 * time.Millisecond) }, func() {})
	}
	if p.Runs != 2 || p.Wall[0] < 40*time.Millisecond || p.Wall[1] > 20*time.Millisecond || p.CPU[0] > 30*time.Millisecond {
		t.Errorf("%+v", p)
	}
}
