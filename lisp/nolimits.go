//go:build ptc_nolimits

package lisp

// accounting is false in builds with the ptc_nolimits tag: step counting
// and memory charging compile to nothing. Such builds are not safe for
// untrusted programs; they exist only to measure what the accounting
// costs (go test -tags ptc_nolimits -bench W).
const accounting = false
