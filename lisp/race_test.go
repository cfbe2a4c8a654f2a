//go:build race

package lisp_test

import "time"

// timeMargin is how much longer than its limit a run may take before a
// test calls it late. It is generous: the race detector slows evaluation
// several times, a busy machine may not schedule the run for seconds, and
// the tests assert the kind of ending; the margin only catches a run that
// does not stop at all.
const timeMargin = 60 * time.Second
