package lisp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// Result.Notes: a keyword called on a vector of maps is nil, as Clojure,
// and noted once per keyword, at most five times, from every path a
// keyword is called by (direct, through a value, in pmap branches).
func TestNotesKeywordOnRows(t *testing.T) {
	note := func(k string) string {
		return "(" + k + " rows) on a vector of maps is nil, as in Clojure; to read the field of each row write (map " + k + " rows)"
	}
	rows := `(def rows [{:name "a" :id 1} {:name "b" :id 2}])`
	tests := []struct {
		name, src string
		want      []string
	}{
		{"direct", rows + `(:name rows)`, []string{note(":name")}},
		{"with a default", rows + `(:name rows "?")`, []string{note(":name")}},
		{"a local", rows + `(let [r rows] (:name r))`, []string{note(":name")}},
		{"through a value", rows + `(let [f :name] (f rows))`, []string{note(":name")}},
		{"in map over rows of rows", rows + `(count (map #(:id %) [rows rows rows]))`, []string{note(":id")}},
		{"pmap branches", rows + `(vec (pmap (fn [k] (k rows)) [:a :b]))`, []string{note(":a"), note(":b")}},
		{"at most five", rows + `[(:a rows) (:b rows) (:c rows) (:d rows) (:e rows) (:f rows)]`,
			[]string{note(":a"), note(":b"), note(":c"), note(":d"), note(":e")}},
		{"a map", `(:name {:name 1})`, nil},
		{"a vector of numbers", `(:name [1 2])`, nil},
		{"an empty vector", `(:name [])`, nil},
		{"mapping the keyword", rows + `(mapv :name rows)`, nil},
		{"(fail) keeps the notes", rows + `(:name rows) (fail "x")`, []string{note(":name")}},
	}
	for _, tt := range tests {
		res, err := lisp.Run(context.Background(), tt.src, lisp.Options{})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		got := res.Notes
		if tt.name == "pmap branches" {
			slices.Sort(got)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: notes %q, want %q", tt.name, got, tt.want)
		}
	}
}
