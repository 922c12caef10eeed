// Package sweep runs a fluid command over a grid of its flags: grid
// expansion, deterministic tasks, a crash-safe store that resumes under any
// sharding, and the merge of the results into one tidy table (package
// table: CSV, JSON Lines or Parquet). The command line (fluid sweep, in
// cmd/fluid) only turns flags into a Grid, their values parsed in the list
// grammar of package lists, and runs each Task in-process as
// "fluid COMMAND --json".
//
// The models behind the commands a sweep runs are written out in
// docs/models.md.
//
// # Grids and tasks
//
// A Grid is explicit points (from a YAML grid file, ParseGridFile: grids
// that are not products, such as a list of (α, β) pairs) crossed with the
// Cartesian product of Dims, at most MaxTasks tasks whose command lines
// total at most MaxArgBytes. Grid order takes the points outermost, then
// the dimensions in order, the first varying slowest. Every task has an ID
// derived from the command and its point alone (TaskID: independent of
// flag order and of the grid around it), and, for commands that take
// --seed, a seed derived from the sweep's seed and the ID (TaskSeed), so
// that a point's result depends neither on sharding nor on order.
//
// # The store
//
// A sweep lives in a directory: sweep.json, the manifest (the whole grid,
// the seed, the task count), written once atomically by whichever process
// starts first and checked by every later one, so that a rerun with another
// grid into the same directory is refused (MismatchError); and one JSON
// Lines file per shard, shard-II-of-NN.jsonl, each line a Record: the task's
// id, point, command line, seed, state (ok or failed: whether the task
// ran, not how its computation ended, which is the status in the command's
// report), error message, wall time and the command's JSON result.
//
// A shard's file is written by one process only (an exclusive flock on the
// file), each record as one complete line in one append followed by fsync;
// on start a shard cuts a trailing partial line of its own file (a crash
// in the middle of a write), and readers ignore one. A killed run so loses
// at most the task in progress. Finished tasks are recognised by ID in
// every shard file of the directory, so that a sweep started in 4 shards
// can be finished unsharded, or the other way round; Load keeps one record
// per task (a success over a failure).
//
// # Sharding
//
// Shard I/N holds the tasks whose grid index is I modulo N. ShardFromEnv
// reads it from a Slurm job array (SLURM_ARRAY_TASK_ID and
// SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job
// (JOB_COMPLETION_INDEX and JOB_COMPLETIONS).
//
// # Tables
//
// Results.Table flattens the finished tasks in grid order, whatever the
// sharding: the grid's columns, then the scalar fields of each result in
// the order the command writes them (nested objects flattened with dots),
// then task_status and task_error. A result with a "rows" array gives one
// table row per element. Wall-time fields are left out unless asked for, so
// that the same sweep run unsharded, in 2 shards or in 4 merges to the same
// bytes; the table writes as CSV, JSON Lines or Parquet and reads back
// (package table).
package sweep
