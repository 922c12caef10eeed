package report

// SweepStatus is the JSON output of `fluid sweep status`.
type SweepStatus struct {
	Header
	Sweep     string        `json:"sweep"` // description
	Tasks     int           `json:"tasks"`
	Done      int           `json:"done"`
	Failed    int           `json:"failed"`
	Remaining int           `json:"remaining"`
	Shards    []ShardStatus `json:"shards"` // per shard of each sharding seen
	Files     []FileStatus  `json:"files"`
	Failures  []Failure     `json:"failures"` // every failed task
	// Ignored lists the files in the directory that look like results
	// (.jsonl) but are not shard files (shard-II-of-NN.jsonl): neither
	// status nor merge reads them.
	Ignored []string `json:"ignored"`
}

// ShardStatus counts the tasks of one shard.
type ShardStatus struct {
	Shard     string `json:"shard"` // I/N
	Tasks     int    `json:"tasks"`
	Done      int    `json:"done"`
	Failed    int    `json:"failed"`
	Remaining int    `json:"remaining"`
}

// FileStatus describes one results file of the sweep.
type FileStatus struct {
	Name    string `json:"name"`
	Lines   int    `json:"lines"`
	OK      int    `json:"ok"`
	Failed  int    `json:"failed"`
	Partial bool   `json:"partial"` // ends in an incomplete line (ignored)
	Unknown int    `json:"unknown"` // lines whose task id is not in the grid (ignored)
}

// Failure is one failed task.
type Failure struct {
	ID    string `json:"id"`
	Point string `json:"point"`
	Error string `json:"error"`
}
