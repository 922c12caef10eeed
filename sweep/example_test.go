package sweep_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/sweep"
	"github.com/fluidlb/fluid/table"
)

// A grid expands into tasks in grid order; each has an id derived from its
// point and, for commands taking --seed, a seed derived from the sweep's.
func ExampleNew() {
	loads, _ := lists.Parse("load", lists.Float, "0.5,0.9")
	policies, _ := lists.Parse("policy", lists.Word, "random,jsqd:2")
	seed := uint64(1)
	s, err := sweep.New(sweep.Grid{Command: "sim", Dims: []sweep.Dim{
		{Name: "load", Kind: lists.Float, Values: loads},
		{Name: "policy", Kind: lists.Word, Values: policies},
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
	loads, _ := lists.Parse("load", lists.Float, "0.25..1:0.25")
	s, _ := sweep.New(sweep.Grid{Command: "square", Dims: []sweep.Dim{{Name: "load", Kind: lists.Float, Values: loads}}}, nil)
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
	tab, _ := res.Table(sweep.TableOptions{})
	_ = tab.Write(os.Stdout, table.CSV)
	// Output:
	// shard 0/2: ran 2, 0 failed
	// shard 1/2: ran 2, 1 failed
	// load,square,task_status,task_error
	// 0.25,0.0625,ok,
	// 0.5,0.25,ok,
	// 0.75,0.5625,ok,
	// 1,,failed,invalid --load: want < 1
}
