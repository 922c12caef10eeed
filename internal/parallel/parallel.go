// Package parallel runs independent, indexed pieces of work on a pool of
// goroutines. Results go to caller-owned slots by index, so the outcome
// does not depend on the number of workers or on scheduling.
package parallel

import (
	"runtime"
	"sync"
)

// For calls f(i) for i = 0..n−1 on up to workers goroutines (0 or less:
// GOMAXPROCS). Indices are handed out in the order given (nil: 0..n−1;
// otherwise a permutation, e.g. the costliest first for better packing).
// Every call runs; the error returned is that of the lowest index that
// failed.
func For(n, workers int, order []int, f func(i int) error) error {
	if n == 0 {
		return nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
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
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
