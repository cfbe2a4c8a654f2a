//go:build !race

package lisp

const raceEnabled = false
