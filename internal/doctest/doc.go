// Package doctest reads the examples the project's Markdown documents show
// (fenced blocks, "$ " transcripts with their output, commands in code
// spans) so that tests run them and compare what they print with what the
// documents promise.
//
// It is internal: a helper for the tests of cmd/ptc and the examples, not
// API. It splits shell words for the small subset docs use and refuses the
// rest (ErrUnsupported), and compares shown output with Match, where a "…"
// line stands for lines left out and masks (MaskDurations, MaskNumbers)
// take out the figures that change from run to run.
package doctest
