package lisp

// Internal bugs must crash tests rather than turn into InternalError results.
func init() { internalPanicsCrash = true }
