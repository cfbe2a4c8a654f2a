//go:build !race

package lisp_test

import "time"

// timeMargin is how much longer than its limit a run may take before a
// test calls it late: scheduling on a loaded machine.
const timeMargin = 1500 * time.Millisecond
