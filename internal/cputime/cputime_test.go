package cputime

import (
	"runtime"
	"testing"
	"time"
)

// work is a fixed amount of computation: a chain of 2·10⁷ dependent
// multiply-adds, tens of milliseconds of CPU on any current core however
// loaded the machine (CPU time counts the work, not the waits for a core).
func work() float64 {
	x := 1.0
	for range 20_000_000 {
		x = x*1.0000001 + 1e-9
	}
	return x
}

// Work advances the CPU time, sleeping much less: both are measured in
// CPU time, so the comparison holds on a loaded machine (a clock that does
// not move, or counts sleeping, fails). Nothing here bounds a wall time.
func TestProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("not measured here")
	}
	c0 := Process()
	time.Sleep(50 * time.Millisecond)
	slept := Process() - c0
	c0 = Process()
	x := work()
	worked := Process() - c0
	if worked <= 0 || slept >= worked/2 {
		t.Errorf("sleeping 50 ms used %v of CPU, the work %v (x = %v)", slept, worked, x)
	}
}

// Pair adds each computation's times to its own slot: the first sleeps
// (at least 2 × 20 ms of wall time, as time.Sleep guarantees), the second
// works (more CPU than the sleeps).
func TestPair(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("not measured here")
	}
	var p Pair
	var x float64
	for range 2 {
		p.Run(func() { time.Sleep(20 * time.Millisecond) }, func() { x += work() })
	}
	if p.Runs != 2 || p.Wall[0] < 40*time.Millisecond || p.CPU[1] <= p.CPU[0] {
		t.Errorf("%+v (x = %v)", p, x)
	}
}
