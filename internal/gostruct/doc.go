// Package gostruct lists the fields of a Go struct type as encoding/json
// sees them, for lisp.FromGo (a struct becomes a map) and for the
// signatures package signature derives from Go types: one rule for both.
package gostruct
