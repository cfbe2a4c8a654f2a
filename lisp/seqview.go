package lisp

// Sequence functions return seq views.
//
// In Clojure, map, filter, rest, take, sort, keys … return seqs, and conj
// onto a seq puts the new element in front: (conj (rest [1 2 3]) 0) is
// (0 2 3). Here those functions build vectors (docs/deviations.md row 33),
// which keeps reading, printing and JSON as they were; what would silently
// differ is growing one: a depth-first search that pushes with
// (into (rest stack) next) or an LRU list kept with
// (conj (remove #{k} order) k) would append where Clojure prepends and walk
// in another order. So the results of those functions are marked as seq
// views (Vector.IsSeqView): conj and into prepend onto them, making a Cons
// as Clojure does, and vector?, seq?, associative?, indexed?, reversible?,
// empty and type answer as for a seq.

// seqResultBuiltins are the builtins whose result, when it is a vector
// (not a list, a queue or a map entry), is a seq in Clojure.
var seqResultBuiltins = []string{
	"map", "filter", "remove", "keep", "keep-indexed", "map-indexed", "mapcat",
	"concat", "rest", "next", "nnext", "nfirst", "nthrest", "nthnext",
	"take", "drop", "take-while", "drop-while", "take-last", "drop-last",
	"butlast", "take-nth", "sort", "sort-by", "distinct", "dedupe",
	"keys", "vals", "interleave", "interpose", "partition", "partition-all", "partitionv", "partitionv-all",
	"partition-by", "flatten", "range", "repeat", "repeatedly", "seq",
	"re-seq", "reductions", "tree-seq", "rseq", "subseq", "rsubseq",
	"sequence", "pmap", "pcalls",
}

// seqGroupBuiltins return groups of elements (a vector of them here),
// each of which is a seq in Clojure too: (partition 2 xs), (split-at 1 xs).
var seqGroupBuiltins = []string{"partition", "partition-all", "partition-by", "split-at", "split-with"}

// registerSeqViews marks the results of seqResultBuiltins, and the groups
// seqGroupBuiltins return, under every name each is registered as (its
// aliases too). It runs last, so every builtin
// that compiled code captures is the marking one.
func registerSeqViews(t *builtinTable) {
	// Every name each marked builtin is registered under: its own, if it
	// is there, and its aliases still there (a walk of the table, which
	// finds the same, was a sixth of the package's initialisation).
	names := make(map[*Builtin][]string, len(seqResultBuiltins)+len(seqGroupBuiltins))
	for _, list := range [][]string{seqGroupBuiltins, seqResultBuiltins} {
		for _, name := range list {
			if b, ok := t.names[name].(*Builtin); ok {
				names[b] = nil
			}
		}
	}
	if t.walkAll {
		for n, v := range t.names {
			if b, ok := v.(*Builtin); ok {
				if ns, marked := names[b]; marked {
					names[b] = append(ns, n)
				}
			}
		}
	} else {
		for b := range names {
			if t.names[b.Name] == Value(b) {
				names[b] = []string{b.Name}
			}
		}
		for _, a := range t.aliases {
			if ns, marked := names[a.b]; marked && t.names[a.name] == Value(a.b) {
				names[a.b] = append(ns, a.name)
			}
		}
	}
	for _, name := range seqGroupBuiltins {
		markSeqResult(t, names, name, func(v *Vector) *Vector {
			items := make([]Value, v.Len())
			for i, g := range v.items {
				if x, ok := g.(*Vector); ok {
					g = x.asSeqView()
				}
				items[i] = g
			}
			return v.withItems(items)
		})
	}
	for _, name := range seqResultBuiltins {
		markSeqResult(t, names, name, (*Vector).asSeqView)
	}
}

// markSeqResult replaces the builtin name, under every name it is
// registered as (names), by one whose vector results mark makes over.
func markSeqResult(t *builtinTable, names map[*Builtin][]string, name string, mark func(*Vector) *Vector) {
	old, ok := t.names[name].(*Builtin)
	if !ok {
		panic("lisp: seq view of the unregistered builtin " + name)
	}
	marked := *old
	inner := old.fn
	marked.fn = func(th *thread, a []Value) (Value, error) {
		v, err := inner(th, a)
		if x, ok := v.(*Vector); ok && err == nil {
			return mark(x), nil
		}
		return v, err
	}
	for _, n := range names[old] {
		t.names[n] = &marked
		t.noteAlias(n, &marked)
	}
	names[&marked] = names[old]
}
