// Package coerce reads the values of llm.Request.Options the same way in
// every provider adapter: a number of any Go numeric type (or a
// json.Number, or the float64 encoding/json makes of every number), an
// integer, a stop list. The adapters keep their own checks of range and
// their own error messages; only the reading of a Go value is shared.
//
// It imports only the standard library.
package coerce
