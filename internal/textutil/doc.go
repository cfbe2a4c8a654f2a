// Package textutil holds the small text helpers that the module's packages
// share: counts in words (Plural, Thousands), cuts that never split a
// character (TruncateBytes, TruncateRunes, Clip, ClipBytes), folding onto
// one line (OneLine), the first line of a text (FirstLine) and a bounded
// edit distance for "did you mean" hints (EditDistance in bytes,
// EditDistanceRunes in characters).
//
// It imports only the standard library, so the core packages may use it.
package textutil
