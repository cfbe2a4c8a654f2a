package lisp

// Internal bugs must crash tests rather than turn into InternalError results.
func init() { internalPanicsCrash = true }

// Shorthands the external tests build values with.
var (
	VectorOf = vectorOf
	ListOf   = listOf
)
