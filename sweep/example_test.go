package sweep_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/fluidlb/fluid/sweep"
)

func ExampleParseList() {
	for _, s := range []string{"0.80..0.95:0.05", "2..10:4", "10..100000*10", "0.8..0.95:0.04"} {
		vals, err := sweep.ParseList("load", sweep.Float, s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(vals)
	}
	// Output:
	// [0.8 0.85 0.9 0.95]
	// [2 6 10]
	// [10 100 1000 10000 100000]
	// invalid --load "0.8..0.95:0.04": range "0.8..0.95:0.04": step 0.04 does not land on 0.95 (3.75 steps from 0.8)
}

// A grid expands into tasks in grid order; each has an id derived from its
// point and, for commands taking --seed, a seed derived from the sweep's.
func ExampleNew() {
	loads, _ := sweep.ParseList("load", sweep.Float, "0.5,0.9")
	policies, _ := sweep.ParseList("policy", sweep.Word, "random,jsqd:2")
	seed := uint64(1)
	s, err := sweep.New(sweep.Grid{Command: "sim", Dims: []sweep.Dim{
		{Name: "load", Kind: sweep.Float, Values: loads},
		{Name: "policy", Kind: sweep.Word, Values: policies},
	}}, &seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Describe())
	for _, t := range s.Tasks {
		fmt.Println(t.Index, t.Point, t.Args[:3], sweep.Unsharded.Has(t.Index), sweep.Shard{Index: 1, Count: 2}.Has(t.Index))
	}
	// Output:
	// fluid sim over 2 load × 2 policy: 4 tasks, seed 1
	// 0 load=0.5 policy=random [sim --load=0.5 --policy=random] true false
	// 1 load=0.5 policy=jsqd:2 [sim --load=0.5 --policy=jsqd:2] true true
	// 2 load=0.9 policy=random [sim --load=0.9 --policy=random] true false
	// 3 load=0.9 policy=jsqd:2 [sim --load=0.9 --policy=jsqd:2] true true
}

// Run a sweep in two shards into a directory, then merge it into a table.
func ExampleSweep_Run() {
	dir, _ := os.MkdirTemp("", "sweep")
	defer os.RemoveAll(dir)
	loads, _ := sweep.ParseList("load", sweep.Float, "0.25..1:0.25")
	s, _ := sweep.New(sweep.Grid{Command: "square", Dims: []sweep.Dim{{Name: "load", Kind: sweep.Float, Values: loads}}}, nil)
	exec := func(t *sweep.Task) (json.RawMessage, error) {
		l, _ := t.Point.Get("load")
		if l.Float() >= 1 {
			return nil, fmt.Errorf("invalid --load: want < 1")
		}
		return json.RawMessage(fmt.Sprintf(`{"square": %v, "seconds": 0.01}`, l.Float()*l.Float())), nil
	}
	if err := s.Start(dir); err != nil {
		fmt.Println(err)
		return
	}
	for i := range 2 {
		sum, _ := s.Run(dir, sweep.RunOptions{Shard: sweep.Shard{Index: i, Count: 2}, Exec: exec})
		fmt.Printf("shard %v: ran %d, %d failed\n", sum.Shard, sum.Ran, sum.Failed)
	}
	res, _ := s.Load(dir)
	table, _ := res.Table(sweep.TableOptions{})
	_ = table.Write(os.Stdout, sweep.CSV)
	// Output:
	// shard 0/2: ran 2, 0 failed
	// shard 1/2: ran 2, 1 failed
	// load,square,task_status,task_error
	// 0.25,0.0625,ok,
	// 0.5,0.25,ok,
	// 0.75,0.5625,ok,
	// 1,,failed,invalid --load: want < 1
}
