//go:build race

package lisp

const raceEnabled = true
