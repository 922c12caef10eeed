package parallel

import (
	"errors"
	"fmt"
	"testing"
)

func TestFor(t *testing.T) {
	for _, w := range []int{1, 3, 0} {
		t.Run(fmt.Sprintf("%d workers", w), func(t *testing.T) {
			out := make([]int, 50)
			order := make([]int, 50)
			for i := range order {
				order[i] = 49 - i
			}
			if err := For(50, w, order, func(i int) error { out[i] = i * i; return nil }); err != nil {
				t.Fatal(err)
			}
			for i, v := range out {
				if v != i*i {
					t.Fatalf("workers %d: slot %d = %d", w, i, v)
				}
			}
		})
	}
	// The error of the lowest failing index, whatever ran first.
	e3, e7 := errors.New("3"), errors.New("7")
	err := For(10, 4, nil, func(i int) error {
		switch i {
		case 3:
			return e3
		case 7:
			return e7
		}
		return nil
	})
	if err != e3 {
		t.Errorf("error %v, want the one of index 3", err)
	}
	if For(0, 2, nil, func(int) error { t.Fatal("called"); return nil }) != nil {
		t.Error("empty run failed")
	}
}

// A panic in a worker reaches the caller's goroutine, after every other
// call has run.
func TestForPanic(t *testing.T) {
	ran := make([]bool, 8)
	defer func() {
		p := recover()
		wp, ok := p.(*workerPanic)
		if !ok || wp.value != "boom" || len(wp.stack) == 0 {
			t.Fatalf("recovered %v", p)
		}
		for i, r := range ran {
			if !r && i != 3 {
				t.Errorf("call %d did not run", i)
			}
		}
	}()
	_ = For(8, 3, nil, func(i int) error {
		if i == 3 {
			panic("boom")
		}
		ran[i] = true
		return nil
	})
	t.Fatal("no panic")
}
