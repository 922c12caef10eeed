package sweep

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Shard is one of Count parts of a sweep: the tasks whose grid index is
// Index modulo Count. The zero value is invalid; Unsharded is the whole
// sweep.
type Shard struct {
	Index, Count int
}

// Unsharded is the shard holding every task.
var Unsharded = Shard{0, 1}

// MaxShards bounds the number of shards.
const MaxShards = MaxTasks

// String prints the shard as I/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Has reports whether the task at grid index i belongs to the shard.
func (s Shard) Has(i int) bool { return i%s.Count == s.Index }

// Valid reports whether 0 ≤ Index < Count ≤ MaxShards.
func (s Shard) Valid() bool {
	return s.Count >= 1 && s.Count <= MaxShards && s.Index >= 0 && s.Index < s.Count
}

// FileName is the name of the shard's results file in a sweep directory,
// shard-II-of-NN.jsonl (zero-padded to the width of N, at least 2).
func (s Shard) FileName() string {
	w := max(2, len(strconv.Itoa(s.Count)))
	return fmt.Sprintf("shard-%0*d-of-%0*d.jsonl", w, s.Index, w, s.Count)
}

var shardFileRE = regexp.MustCompile(`^shard-([0-9]+)-of-([0-9]+)\.jsonl$`)

// shardOfFile parses a results file name (ok false if it is not one).
func shardOfFile(name string) (Shard, bool) {
	m := shardFileRE.FindStringSubmatch(name)
	if m == nil {
		return Shard{}, false
	}
	i, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	s := Shard{i, n}
	if err1 != nil || err2 != nil || !s.Valid() || s.FileName() != name {
		return Shard{}, false
	}
	return s, true
}

// ParseShard parses I/N (0 ≤ I < N).
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	sh := Shard{a, b}
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%q is not I/N (shard I of N, counted from 0: 0/4 … 3/4)", s)
	}
	if !sh.Valid() {
		return Shard{}, fmt.Errorf("%q: want 0 ≤ I < N ≤ %d", s, MaxShards)
	}
	return sh, nil
}

// ShardFromEnv finds the shard from the environment of a job array, with
// getenv (os.Getenv): Slurm's SLURM_ARRAY_TASK_ID and
// SLURM_ARRAY_TASK_COUNT (offset by SLURM_ARRAY_TASK_MIN, for arrays that
// do not start at 0), or a Kubernetes Indexed Job's JOB_COMPLETION_INDEX
// with the number of completions in JOB_COMPLETIONS. It returns
// Unsharded and "" when neither is set, and names the variables it used.
func ShardFromEnv(getenv func(string) string) (Shard, string, error) {
	atoi := func(name string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
		if err != nil {
			return 0, fmt.Errorf("sweep: %s=%q is not an integer", name, getenv(name))
		}
		return v, nil
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" {
		const src = "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"
		id, err := atoi("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return Shard{}, src, err
		}
		n, err := atoi("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, src, err
		}
		lo := 0
		if getenv("SLURM_ARRAY_TASK_MIN") != "" {
			if lo, err = atoi("SLURM_ARRAY_TASK_MIN"); err != nil {
				return Shard{}, src, err
			}
		}
		if getenv("SLURM_ARRAY_TASK_MAX") != "" {
			hi, err := atoi("SLURM_ARRAY_TASK_MAX")
			if err != nil {
				return Shard{}, src, err
			}
			if hi-lo+1 != n {
				return Shard{}, src, fmt.Errorf("sweep: the job array %d-%d has %d tasks, not a contiguous range; give --shard I/N", lo, hi, n)
			}
		}
		sh := Shard{id - lo, n}
		if !sh.Valid() {
			return Shard{}, src, fmt.Errorf("sweep: array task %d of %d (from %d) is not a shard; give --shard I/N", id, n, lo)
		}
		return sh, src, nil
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		const src = "JOB_COMPLETION_INDEX/JOB_COMPLETIONS"
		id, err := atoi("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, src, err
		}
		if getenv("JOB_COMPLETIONS") == "" {
			return Shard{}, src, fmt.Errorf("sweep: JOB_COMPLETION_INDEX is set but JOB_COMPLETIONS (the Job's completions) is not; set it, or give --shard I/N")
		}
		n, err := atoi("JOB_COMPLETIONS")
		if err != nil {
			return Shard{}, src, err
		}
		sh := Shard{id, n}
		if !sh.Valid() {
			return Shard{}, src, fmt.Errorf("sweep: completion index %d of %d is not a shard", id, n)
		}
		return sh, src, nil
	}
	return Unsharded, "", nil
}
