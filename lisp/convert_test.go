package lisp_test

import (
	"encoding/json"
	"errors"
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/syntax"
)

type Inner struct {
	Zip string `json:"zip"`
}

type Person struct {
	Name    string            `json:"name"`
	Age     int               `json:"age,omitempty"`
	Tags    []string          `json:"tags"`
	Skip    string            `json:"-"`
	Ptr     *int              `json:"ptr"`
	Inner                     // embedded: fields promoted
	Extra   map[string]any    `json:"extra,omitempty"`
	Scores  map[int]float64   `json:"scores,omitempty"`
	Meta    json.RawMessage   `json:"meta,omitempty"`
	Addr    netip.Addr        `json:"addr"`
	Labels  map[string]string `json:"labels"`
	private int
}

func TestFromGo(t *testing.T) {
	seven := 7
	p := Person{Name: "Ann", Tags: []string{"a"}, Ptr: &seven, Inner: Inner{Zip: "123"},
		Scores: map[int]float64{2: 1.5}, Meta: json.RawMessage(`{"k":[1,2.5,null]}`),
		Addr: netip.MustParseAddr("10.0.0.1"), private: 1}
	v, err := lisp.FromGo(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"addr" "10.0.0.1", "labels" nil, "meta" {"k" [1 2.5 nil]}, "name" "Ann", "ptr" 7, "scores" {2 1.5}, "tags" ["a"], "zip" "123"}`
	if got := lisp.Print(v, lisp.PrintOptions{}); got != want {
		t.Errorf("struct\n got  %s\n want %s", got, want)
	}
	tests := []struct {
		in   any
		want string
	}{
		{nil, "nil"},
		{int8(-3), "-3"},
		{uint32(7), "7"},
		{float32(1.5), "1.5"},
		{json.Number("12"), "12"},
		{json.Number("1.25"), "1.25"},
		{[3]bool{true}, "[true false false]"},
		{[]byte("hi"), `"aGk="`},
		{map[string]any{"b": []any{1, "x"}, "a": nil}, `{"a" nil, "b" [1 "x"]}`},
		{map[lisp.Keyword]int{"k": 1}, "{:k 1}"},
		{time.Date(2024, 5, 6, 7, 8, 9, 5, time.UTC), `"2024-05-06T07:08:09.000000005Z"`},
		{(*Person)(nil), "nil"},
		{[]int(nil), "nil"},
		{lisp.VectorOf(int64(1)), "[1]"},
	}
	for _, tc := range tests {
		v, err := lisp.FromGo(tc.in)
		if err != nil {
			t.Errorf("FromGo(%#v): %v", tc.in, err)
			continue
		}
		if got := lisp.Print(v, lisp.PrintOptions{}); got != tc.want {
			t.Errorf("FromGo(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestFromGoErrors(t *testing.T) {
	type Node struct {
		Next *Node `json:"next"`
	}
	cyc := &Node{}
	cyc.Next = cyc
	m := map[string]any{}
	m["self"] = m
	for _, in := range []any{make(chan int), func() {}, complex(1, 2), uint64(math.MaxUint64), cyc, m} {
		if _, err := lisp.FromGo(in); err == nil {
			t.Errorf("FromGo(%T) should fail", in)
		}
	}
}

func TestToGoAndJSON(t *testing.T) {
	v := mustRun(t, `{:a [1 2.5 nil "s" :kw #{3 1}] "b" {:c true} 7 "seven" :f inc}`)
	got, err := lisp.ToGo(v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"7":"seven","a":[1,2.5,null,"s","kw",[1,3]],"b":{"c":true},"f":"#fn[inc]"}`
	if string(b) != want {
		t.Errorf("ToGo then json.Marshal\n got  %s\n want %s", b, want)
	}
	// ToJSON keeps the canonical key order (numbers, keywords, strings).
	j, err := lisp.ToJSON(v, nil)
	if want := `{"7":"seven","a":[1,2.5,null,"s","kw",[1,3]],"f":"#fn[inc]","b":{"c":true}}`; err != nil || string(j) != want {
		t.Errorf("ToJSON\n got  %s (%v)\n want %s", j, err, want)
	}
	if j, _ := lisp.ToJSON(mustRun(t, `[##Inf ##NaN -0.0 1e300]`), nil); string(j) != `[null,null,-0,1e+300]` {
		t.Errorf("non-finite floats: %s", j)
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"b": 1, "a": [true, null, 2.50, -0, 1e3, 12345678901234567890]}`,
			`{"a" [true nil 2.5 0 1000.0 1.2345678901234567E19], "b" 1}`},
		{`[{"k": "v"}, {"k": "w"}]`, `[{"k" "v"} {"k" "w"}]`},
		{`"λ\u00e9\n"`, `"λé\n"`},
		{`{"dup": 1, "dup": 2}`, `{"dup" 2}`},
		{`{}`, `{}`},
		{`[]`, `[]`},
	}
	for _, tc := range tests {
		v, err := lisp.Read(tc.in, lisp.ReadOptions{Format: lisp.ReadJSON})
		if err != nil {
			t.Errorf("ParseJSON(%s): %v", tc.in, err)
			continue
		}
		if got := lisp.Print(v, lisp.PrintOptions{}); got != tc.want {
			t.Errorf("ParseJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a" 1}`, `1 2`, `nul`} {
		if _, err := lisp.Read(bad, lisp.ReadOptions{Format: lisp.ReadJSON}); err == nil {
			t.Errorf("ParseJSON(%q) should fail", bad)
		}
	}
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if _, err := lisp.Read(deep, lisp.ReadOptions{Format: lisp.ReadJSON}); err == nil {
		t.Error("20,000 nested arrays should be refused")
	}
}

func TestReadData(t *testing.T) {
	v, err := lisp.Read(`{:a [1 2] "b" #{:x} :c (3 4) :d ##-Inf :e \z}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(v, lisp.PrintOptions{}); got != `{:a [1 2], :c (3 4), :d ##-Inf, :e "z", "b" #{:x}}` {
		t.Errorf("got %s", got)
	}
	for _, bad := range []string{`(+ 1 2`, `foo`, `1 2`, ``, `{:a inc}`} {
		_, err := lisp.Read(bad, lisp.ReadOptions{Format: lisp.ReadEDN})
		var le *lisp.Error
		if !errors.As(err, &le) || le.Kind != lisp.ParseError {
			t.Errorf("ReadData(%q) = %v, want a parse error", bad, err)
		}
	}
	// A value that is not data is reported at its line and column.
	_, err = lisp.Read("{:a 1\n :é [x]}", lisp.ReadOptions{Format: lisp.ReadEDN})
	var le *lisp.Error
	if !errors.As(err, &le) || le.Pos != (syntax.Pos{Offset: 12, Line: 2, Col: 6}) {
		t.Errorf("ReadData: error %v at %+v, want 2:6 (offset 12)", err, le.Pos)
	}
}

func TestParseJSONDuplicateKeysLastWins(t *testing.T) {
	v, err := lisp.Read(`{"a": 1, "b": 0, "a": 2}`, lisp.ReadOptions{Format: lisp.ReadJSON})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(v, lisp.PrintOptions{}); got != `{"a" 2, "b" 0}` {
		t.Errorf("got %s, want the last duplicate, as encoding/json", got)
	}
}

// JSON strings decode to what encoding/json's would (invalid UTF-8
// included), without its HTML escaping.
func FuzzToJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&</a>", "tab\tnl\ncr\r\x00\x1f\x7f", "\xff\xfe bad", "\u2028\u2029", "é😀", `back\slash`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ours, err := lisp.ToJSON(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		theirs, _ := json.Marshal(s)
		var a, b string
		if err := json.Unmarshal(ours, &a); err != nil {
			t.Fatalf("%q encodes as invalid JSON %s: %v", s, ours, err)
		}
		_ = json.Unmarshal(theirs, &b)
		if a != b {
			t.Fatalf("%q: ours decodes to %q, encoding/json's to %q", s, a, b)
		}
		if strings.ContainsAny(s, "<>&") && !strings.ContainsAny(string(ours), "<>&") {
			t.Fatalf("%q: HTML-escaped: %s", s, ours)
		}
	})
}

// TestNewMapOddArguments: NewMap refuses a key without a value with a
// panic that names it (the documented programming error), never a map
// that silently drops it.
func TestNewMapOddArguments(t *testing.T) {
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "odd number of arguments (3)") || !strings.Contains(s, ":c") {
			t.Fatalf("recovered %v", r)
		}
	}()
	//lint:ignore SA5012 a key without its value is what this test passes
	lisp.NewMap(lisp.Keyword("a"), int64(1), lisp.Keyword("c"))
	t.Fatal("NewMap with 3 arguments returned")
}
