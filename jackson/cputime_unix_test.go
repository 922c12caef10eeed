//go:build unix

package jackson

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) used by the process so far: on a
// shared machine it measures the work done, where wall time also counts
// the waits for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
