package signature

import (
	"encoding/json"
	"math/big"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

type base struct {
	ID      int       `json:"id" desc:"unique id"`
	Created time.Time `json:"created"`
}

type Inner struct {
	Depth int `json:"depth"`
}

type node struct {
	Name     string  `json:"name"`
	Children []node  `json:"children,omitempty"`
	Parent   *node   `json:"parent"`
	Next     []*node `json:"-"`
}

// Types that contain themselves without a struct between.
type (
	tree    map[string]tree
	loop    []loop
	selfPtr *selfPtr
)

type tallies struct {
	Counts map[string]int    `json:"counts"`
	ByTeam map[string][]node `json:"by_team,omitempty"`
}

type textOnly struct{ v string }

func (t textOnly) MarshalText() ([]byte, error) { return []byte(t.v), nil }

type ptrText struct{ v string }

func (t *ptrText) MarshalText() ([]byte, error) { return []byte(t.v), nil }

type ptrJSON struct{}

func (*ptrJSON) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type ambiguous1 struct{ X int }
type ambiguous2 struct{ X int }

func TestTypeOf(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[string](), ":string"},
		{reflect.TypeFor[bool](), ":bool"},
		{reflect.TypeFor[int](), ":int"},
		{reflect.TypeFor[uint8](), ":int"},
		{reflect.TypeFor[int64](), ":int"},
		{reflect.TypeFor[float32](), ":float"},
		{reflect.TypeFor[json.Number](), ":float"},
		{reflect.TypeFor[time.Time](), ":string"},
		{reflect.TypeFor[*time.Time](), ":string?"},
		{reflect.TypeFor[time.Duration](), ":int"},
		{reflect.TypeFor[[]byte](), ":string"},
		{reflect.TypeFor[[]int](), "[:int]"},
		{reflect.TypeFor[[3]string](), "[:string]"},
		{reflect.TypeFor[[][]float64](), "[[:float]]"},
		{reflect.TypeFor[map[string]int](), "{:string :int}"},
		{reflect.TypeFor[map[string]*float64](), "{:string :float?}"},
		{reflect.TypeFor[map[string][]string](), "{:string [:string]}"},
		{reflect.TypeFor[map[string]Inner](), "{:string {depth :int}}"},
		{reflect.TypeFor[map[string]map[string]bool](), "{:string {:string :bool}}"},
		{reflect.TypeFor[map[lisp.Keyword]int](), "{:string :int}"},
		{reflect.TypeFor[map[string]any](), ":map"},
		{reflect.TypeFor[map[string]lisp.Value](), ":map"},
		{reflect.TypeFor[map[string]json.RawMessage](), ":map"},
		{reflect.TypeFor[map[int]string](), ":map"},
		{reflect.TypeFor[map[int]any](), ":map"},
		{reflect.TypeFor[tree](), "{:string :map}"},
		{reflect.TypeFor[loop](), "[[:any]]"},
		{reflect.TypeFor[selfPtr](), ":any?"},
		{reflect.TypeFor[tallies](), "{counts {:string :int}, by_team {:string [{name :string, children [:map]?, parent :map?}]}?}"},
		{reflect.TypeFor[any](), ":any"},
		{reflect.TypeFor[error](), ":any"},
		{reflect.TypeFor[*int](), ":int?"},
		{reflect.TypeFor[**int](), ":int?"},
		{reflect.TypeFor[lisp.Keyword](), ":keyword"},
		{reflect.TypeFor[*lisp.Map](), ":map?"},
		{reflect.TypeFor[*lisp.Vector](), "[:any]?"},
		{reflect.TypeFor[lisp.Value](), ":any"},
		{reflect.TypeFor[lisp.Instant](), ":any"},
		{reflect.TypeFor[netip.Addr](), ":string"},
		{reflect.TypeFor[textOnly](), ":string"},
		{reflect.TypeFor[*ptrText](), ":string?"},
		{reflect.TypeFor[*ptrJSON](), ":any?"},
		{reflect.TypeFor[*big.Int](), ":any?"},
		{reflect.TypeFor[struct{}](), "{}"},
		{reflect.TypeFor[base](), "{id :int, created :string}"},
		{reflect.TypeFor[struct {
			base
			Name  string `json:"name"`
			Email string `json:"email,omitempty"`
			Nick  *string
			Skip  int `json:"-"`
			//lint:ignore SA5008 encoding/json names this field "-", which is what the case tests
			Dash    int `json:"-,"`
			private int
			Count   int    `json:",string"`
			When    string `json:"when,omitzero"`
			*Inner
		}](), `{id :int, created :string, name :string, email :string?, Nick :string?, "-" :int, Count :string, when :string?, depth :int}`},
		{reflect.TypeFor[struct {
			ambiguous1
			ambiguous2
			Y int
		}](), "{Y :int}"},
		{reflect.TypeFor[struct {
			ambiguous1
			X string `json:"X"`
		}](), "{X :string}"},
		{reflect.TypeFor[struct {
			ambiguous1
			A ambiguous2 `json:"X"`
		}](), "{X {X :int}}"},
		{reflect.TypeFor[struct {
			ambiguous1
			Tagged struct{} `json:"X"`
		}](), "{X {}}"},
		{reflect.TypeFor[node](), "{name :string, children [:map]?, parent :map?}"},
		{reflect.TypeFor[[]node](), "[{name :string, children [:map]?, parent :map?}]"},
		{nil, ":any"},
	}
	for _, tc := range tests {
		got, err := TypeOf(tc.typ)
		if err != nil {
			t.Errorf("TypeOf(%v): %v", tc.typ, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("TypeOf(%v) = %s, want %s", tc.typ, got, tc.want)
		}
	}
	ty, err := TypeOf(reflect.TypeFor[base]())
	if err != nil || ty.Fields[0].Description != "unique id" {
		t.Errorf("TypeOf(base) = %#v, %v", ty, err)
	}
}

func TestTypeOfErrors(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[chan int](), "signature: no signature type for the Go type chan int"},
		{reflect.TypeFor[func()](), "signature: no signature type for the Go type func()"},
		{reflect.TypeFor[complex128](), "signature: no signature type for the Go type complex128"},
		{reflect.TypeFor[struct {
			A struct {
				B []chan int `json:"b"`
			} `json:"a"`
		}](), "signature: no signature type for the Go type chan int (at a.b[])"},
		{reflect.TypeFor[*struct{ F func() }](), "signature: no signature type for the Go type func() (at F)"},
	}
	for _, tc := range tests {
		_, err := TypeOf(tc.typ)
		if err == nil || err.Error() != tc.want {
			t.Errorf("TypeOf(%v) error = %v, want %s", tc.typ, err, tc.want)
		}
	}
}
