// Package backtrack matches the regular expressions that Go's linear-time
// engine cannot: Java's lookahead (?= (?!, lookbehind (?<= (?<!, atomic
// groups (?>, possessive quantifiers (a*+) and backreferences (\1,
// \k<name>), which models write on their first try (a password check
// with lookaheads, camelCase split at a lookbehind, a doubled word with
// \1).
//
// It is a backtracking matcher, so a pattern can take time exponential in
// its input ((a+)+b on a long run of a's). Every search therefore reports
// its steps to a budget the caller supplies, which stops it; nesting of
// repeated groups is bounded too (ErrTooDeep). The lisp package uses it
// only for the patterns that need it: the others keep Go's regexp.
//
// Patterns are in Go's syntax (what lisp's translation of Java's syntax
// gives) plus the constructs above; character classes and escapes are
// read by regexp/syntax, so they mean here what they mean to Go's regexp.
// Matching follows Java's order of trying alternatives and repetitions
// (leftmost, greedy first), the order Go's regexp also reports.
package backtrack
