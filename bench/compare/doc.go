// Package compare times PTC-Lisp against other embeddable Go languages
// (expr, starlark, goja) and plain Go on the shared workloads W1 (the cost
// of one tiny program from source) and W5 (a 1,000-iteration integer
// loop), each run as an agent turn runs a program: from source text to
// result, every time.
//
// It is a module of its own so that the library does not depend on the
// languages it is compared with:
//
//	cd bench/compare && go test -bench . -count 10 | tee compare.txt
package compare
