package coerce

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		v             any
		number        float64
		isNumber, fin bool
		integer       int64
		isInt         bool
	}{
		{v: 0.25, number: 0.25, isNumber: true, fin: true},
		{v: float32(0.75), number: 0.75, isNumber: true, fin: true},
		{v: 64.0, number: 64, isNumber: true, fin: true, integer: 64, isInt: true},
		{v: float32(8), number: 8, isNumber: true, fin: true, integer: 8, isInt: true},
		{v: 1 << 54, number: 1 << 54, isNumber: true, fin: true, integer: 1 << 54, isInt: true},
		{v: float64(1 << 54), number: 1 << 54, isNumber: true, fin: true},
		{v: -3, number: -3, isNumber: true, fin: true, integer: -3, isInt: true},
		{v: int8(-1), number: -1, isNumber: true, fin: true, integer: -1, isInt: true},
		{v: int16(2), number: 2, isNumber: true, fin: true, integer: 2, isInt: true},
		{v: int32(3), number: 3, isNumber: true, fin: true, integer: 3, isInt: true},
		{v: int64(512), number: 512, isNumber: true, fin: true, integer: 512, isInt: true},
		{v: uint(4), number: 4, isNumber: true, fin: true, integer: 4, isInt: true},
		{v: uint8(5), number: 5, isNumber: true, fin: true, integer: 5, isInt: true},
		{v: uint16(6), number: 6, isNumber: true, fin: true, integer: 6, isInt: true},
		{v: uint32(7), number: 7, isNumber: true, fin: true, integer: 7, isInt: true},
		{v: uint64(math.MaxUint64), number: math.MaxUint64, isNumber: true, fin: true},
		{v: json.Number("12"), number: 12, isNumber: true, fin: true, integer: 12, isInt: true},
		{v: json.Number("12.5"), number: 12.5, isNumber: true, fin: true},
		{v: json.Number("x"), number: 0},
		{v: 1.5, number: 1.5, isNumber: true, fin: true},
		{v: math.Inf(1), number: math.Inf(1), isNumber: true},
		{v: "100"},
		{v: true},
		{v: nil},
	} {
		n, ok := Number(c.v)
		if ok != c.isNumber || (ok && n != c.number) {
			t.Errorf("Number(%T %v) = %v, %v; want %v, %v", c.v, c.v, n, ok, c.number, c.isNumber)
		}
		if f, ok := Float(c.v); ok != c.fin || (ok && f != c.number) {
			t.Errorf("Float(%T %v) = %v, %v; want %v, %v", c.v, c.v, f, ok, c.number, c.fin)
		}
		if i, ok := Int(c.v); ok != c.isInt || i != c.integer {
			t.Errorf("Int(%T %v) = %v, %v; want %v, %v", c.v, c.v, i, ok, c.integer, c.isInt)
		}
	}
}

func TestStrings(t *testing.T) {
	shared := []string{"a"}
	for _, c := range []struct {
		v    any
		want []string
		ok   bool
	}{
		{"END", []string{"END"}, true},
		{shared, []string{"a"}, true},
		{[]any{"a", "b"}, []string{"a", "b"}, true},
		{[]any{}, []string{}, true},
		{[]any{"a", 1}, nil, false},
		{3, nil, false},
		{nil, nil, false},
	} {
		got, ok := Strings(c.v)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Strings(%#v) = %#v, %v; want %#v, %v", c.v, got, ok, c.want, c.ok)
		}
	}
	// A []string is copied: the adapter keeps it past the caller's changes.
	got, _ := Strings(shared)
	shared[0] = "changed"
	if got[0] != "a" {
		t.Errorf("Strings shares the caller's slice")
	}
}
