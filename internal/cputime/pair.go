package cputime

import "time"

// Pair accumulates the wall and CPU times of two computations run
// alternately, so that both see the same machine load: index 0 is the
// first, 1 the second.
type Pair struct {
	Wall, CPU [2]time.Duration
	Runs      int
}

// Run runs first and then second once, adding their times.
func (p *Pair) Run(first, second func()) {
	t0, c0 := time.Now(), Process()
	first()
	t1, c1 := time.Now(), Process()
	second()
	p.Wall[0] += t1.Sub(t0)
	p.Wall[1] += time.Since(t1)
	p.CPU[0] += c1 - c0
	p.CPU[1] += Process() - c1
	p.Runs++
}
