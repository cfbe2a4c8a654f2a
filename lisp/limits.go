//go:build !ptc_nolimits

package lisp

// accounting enables step counting and memory charging; see nolimits.go.
const accounting = true
