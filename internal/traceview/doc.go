// Package traceview writes the self-contained HTML page that shows a
// ptc-trace document: the page of "ptc trace view", which ptc dev and the
// workbench serve for a saved run too. The page's template, style and
// script are embedded; the workbench's own page builds on the style and
// the helpers of the script (Lib, Style).
//
// It imports only the standard library.
package traceview
