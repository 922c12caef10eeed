// Package parallel runs independent, indexed pieces of work on a pool of
// goroutines. Results go to caller-owned slots by index, so the outcome
// does not depend on the number of workers or on scheduling.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// For calls f(i) for i = 0..n−1 on up to workers goroutines (0 or less:
// GOMAXPROCS). Indices are handed out in the order given (nil: 0..n−1;
// otherwise a permutation, e.g. the costliest first for better packing).
// Every call runs; the error returned is that of the lowest index that
// failed. A call that panics does not take the process down from its
// goroutine: once every call has ended, For panics in the caller's
// goroutine with a *workerPanic holding the value and the worker's stack.
func For(n, workers int, order []int, f func(i int) error) error {
	if n == 0 {
		return nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	panics := make([]*workerPanic, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = call(f, i, &panics[i])
			}
		}()
	}
	for k := range n {
		i := k
		if order != nil {
			i = order[k]
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			// A panic in a worker is a bug: raise it in the caller's
			// goroutine (where a recover can catch it), with the worker's
			// stack.
			panic(p)
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// workerPanic is a panic raised by f in a worker goroutine.
type workerPanic struct {
	value any
	stack []byte
}

func (p *workerPanic) String() string {
	return fmt.Sprintf("%v\n[worker goroutine]\n%s", p.value, p.stack)
}

// call runs f(i), catching a panic into *p.
func call(f func(int) error, i int, p **workerPanic) (err error) {
	defer func() {
		if v := recover(); v != nil {
			*p = &workerPanic{value: v, stack: debug.Stack()}
		}
	}()
	return f(i)
}
