// Package conformance runs PTC-Lisp test vectors: a program, an optional
// context, and the value or error kind it must produce, one JSON object per
// line (the format of the shared conformance suite). Values are compared
// with Clojure's = semantics (integers and floats differ), floats with many
// decimals with a small relative tolerance.
//
// Deviations reads the table of deliberate deviations (docs/deviations.md)
// so that tests can require that exactly the listed vectors fail.
package conformance
