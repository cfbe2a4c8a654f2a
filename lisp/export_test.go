package lisp

import (
	"sort"
	"strings"
)

// Internal bugs must crash tests rather than turn into InternalError results.
func init() { internalPanicsCrash = true }

// Shorthands the external tests build values with.
var (
	VectorOf = vectorOf
	ListOf   = listOf
	Hash     = hash // the hash of map keys and set elements
)

// BuiltinNames is every name of the builtins table, sorted, for the tests
// that check that the documentation (Docs) covers them.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		if !strings.HasPrefix(n, " ") { // lazy-seq's runtime function
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
