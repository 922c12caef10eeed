// Package cputime reads the CPU time the process has used, for benchmarks
// that report work beside wall time: on a shared machine the wall time
// also counts the waits for a core, the CPU time only the work.
package cputime
