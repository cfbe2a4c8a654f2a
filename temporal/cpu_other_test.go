//go:build !unix

package temporal

import "time"

// processCPU is not measured on this system.
func processCPU() (cpu time.Duration, maxRSS int64, ok bool) { return 0, 0, false }
