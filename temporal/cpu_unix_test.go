//go:build unix

package temporal

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used, and
// its peak resident set size in bytes (Linux reports kilobytes, macOS
// bytes); ok is false where the system does not say.
func processCPU() (cpu time.Duration, maxRSS int64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, false
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	maxRSS = int64(ru.Maxrss) * rssUnit
	return cpu, maxRSS, true
}
