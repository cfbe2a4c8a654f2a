//go:build race

package lisp_test

import "time"

// timeMargin is how much longer than its limit a run may take before a
// test calls it late: the race detector slows evaluation several times.
const timeMargin = 6 * time.Second
