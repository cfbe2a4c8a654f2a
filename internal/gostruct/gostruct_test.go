package gostruct_test

import (
	"reflect"
	"testing"

	"github.com/ptc-go/ptc/internal/gostruct"
)

type base struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type other struct {
	ID   int `json:"id"` // as deep and as tagged as base's: ambiguous
	Name string
}

type row struct {
	base
	*other
	Note   string `json:"note,omitempty"`
	Count  int    `json:"count,string"`
	Hidden string `json:"-"`
	Plain  bool
	secret int
}

// Fields follows encoding/json: tag names, "-" skipped, unexported fields
// skipped, embedded fields promoted, ambiguous names dropped.
func TestFields(t *testing.T) {
	got := gostruct.Fields(reflect.TypeOf(row{secret: 1})) // secret: unexported, left out
	want := []gostruct.Field{
		{Name: "name", Index: []int{0, 1}},
		{Name: "Name", Index: []int{1, 1}},
		{Name: "note", Index: []int{2}, OmitEmpty: true},
		{Name: "count", Index: []int{3}, AsString: true},
		{Name: "Plain", Index: []int{5}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Fields = %+v, want %+v", got, want)
	}
}
