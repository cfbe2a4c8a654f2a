package lisp

import (
	"slices"
	"sync"
)

// notes collects hints about results that are valid Clojure but usually a
// slip in a program over JSON data. The program runs as in Clojure; the
// host may pass the hints on (an agent shows them to the model). Today
// there is one: a keyword called on a vector of maps gives nil, where the
// program nearly always meant (map :k rows). The reference refused the
// call with that hint; accepting it as Clojure does (docs/deviations.md
// row 29) keeps the hint this way.
type notes struct {
	mu   sync.Mutex
	list []string
}

// maxNotes bounds the hints of a run: they repeat across rows and turns.
const maxNotes = 5

func (n *notes) add(text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.list) < maxNotes && !slices.Contains(n.list, text) {
		n.list = append(n.list, text)
	}
}

func (n *notes) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.list)
}

// noteKeywordCall records the hint when (:k x) read nothing because x is a
// vector whose first element is a map.
func (th *thread) noteKeywordCall(k Keyword, x Value) {
	v, ok := x.(*Vector)
	if !ok || v.Len() == 0 {
		return
	}
	if _, ok := v.At(0).(*Map); !ok {
		return
	}
	th.run.notes.add("(" + k.String() + " rows) on a vector of maps is nil, as in Clojure; to read the field of each row write (map " + k.String() + " rows)")
}
