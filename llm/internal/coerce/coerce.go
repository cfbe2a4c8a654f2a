package coerce

import (
	"encoding/json"
	"math"
)

// Number reads v as a float64: any Go numeric type, or a json.Number. It
// does not check that the number is finite (see Float).
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	if i, ok := integer(v); ok {
		return float64(i), true
	}
	switch n := v.(type) {
	case uint:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

// Float is Number for a finite number only.
func Float(v any) (float64, bool) {
	f, ok := Number(v)
	return f, ok && Finite(f)
}

// Finite reports whether f is neither NaN nor infinite.
func Finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Int reads v as an int64: any Go integer type that fits, a float (what
// encoding/json makes of a number) holding an integer of at most 2^53 in
// magnitude, or a json.Number holding an integer.
func Int(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int64(n), true
	case float32:
		return Int(float64(n))
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return integer(v)
}

// integer reads the Go integer types, those of uint and uint64 only when
// they fit an int64.
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		if n > math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	}
	return 0, false
}

// Strings reads a stop option: a string, a []string (copied) or a []any
// of strings.
func Strings(v any) ([]string, bool) {
	switch s := v.(type) {
	case string:
		return []string{s}, true
	case []string:
		return append([]string(nil), s...), true
	case []any:
		out := make([]string, len(s))
		for i, e := range s {
			str, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = str
		}
		return out, true
	}
	return nil, false
}
