package agent

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
)

// The agent's memory (its defs and stored map entries) is charged for what
// it adds to what the mission holds anyway. A name bound to the context or
// to part of it, to a tool's result or to another memory value costs its
// name: it is the same value, and keeping it costs the host nothing. What
// the programs built is charged at its printed size, and structure shared
// between names is charged once. A turn that pushes the memory over
// MaxAgentMemory is an error turn whose definitions are rolled back; only a
// second such turn in a row ends the mission.

// hostNodeBudget bounds the walk that finds the collections of the context
// and the tool results. Past it, what is left is charged like program data:
// a mission's memory is then charged too much, never too little.
const hostNodeBudget = 4 << 20

// measureCap bounds, as a multiple of the limit, how far a memory over its
// limit is measured, to tell the model how much each name holds.
const measureCap = 64

// memoryOverrun is a turn's memory over its limit: the size, and each
// name's share, largest first.
type memoryOverrun struct {
	size   int
	names  []memoryShare
	capped bool // measured only up to measureCap times the limit
}

type memoryShare struct {
	name string
	size int
}

// checkMemory measures the memory after a turn. defined are the names the
// turn defined; tr is the turn, whose tool results count as host data. It
// returns nil when the memory fits its limit.
func (m *mission) checkMemory(tr *Turn, defined []string) *memoryOverrun {
	for _, name := range defined {
		delete(m.memSizes, name)
	}
	limit := m.a.cfg.MaxAgentMemory
	// The printed size, cached per name, is the quick test: when it fits,
	// so does what the memory adds.
	if m.memoryBytes() <= limit {
		return nil
	}
	over := m.addedMemory(tr, measureCap*limit)
	if over.size <= limit {
		return nil
	}
	return over
}

// memoryBytes is the printed size of the memory, each var's cached by name
// (vars change only when a turn defines them), but for vars that hold
// atoms, volatiles or transients, which change without a def and are
// measured again after every turn.
func (m *mission) memoryBytes() int {
	if m.memory == nil {
		return 0
	}
	if m.memSizes == nil {
		m.memSizes = map[string]int{}
	}
	total := 0
	limit := m.a.cfg.MaxAgentMemory
	for _, name := range m.memory.Names() {
		n, ok := m.memSizes[name]
		if !ok {
			v, _ := m.memory.Get(name)
			size, cells := valueSizeCells(v, limit+1)
			n = len(name) + size
			if !cells {
				m.memSizes[name] = n
			}
		}
		total += n
	}
	return total
}

// addedMemory measures what the memory adds to the context and the tool
// results: their collections cost nothing, and a collection two names
// share is charged to the first. The walk stops past limit in all.
func (m *mission) addedMemory(tr *Turn, limit int) *memoryOverrun {
	host := m.hostNodes(tr)
	seen := map[any]bool{}
	over := &memoryOverrun{}
	for _, name := range m.memory.Names() {
		v, _ := m.memory.Get(name)
		n := len(name) + sharedSize(v, limit+1-over.size, host, seen)
		over.size += n
		over.names = append(over.names, memoryShare{name, n})
		if over.size > limit {
			over.capped = true
			break
		}
	}
	slices.SortStableFunc(over.names, func(a, b memoryShare) int { return cmp.Compare(b.size, a.size) })
	return over
}

// hostNodes returns the collections of the mission's context and of the
// tool results of its turns (tr included), by identity.
func (m *mission) hostNodes(tr *Turn) map[any]bool {
	host := map[any]bool{}
	budget := hostNodeBudget
	collect(m.context, host, &budget)
	for i := range m.trace {
		for _, c := range m.trace[i].ToolCalls {
			collect(c.Result, host, &budget)
		}
	}
	if tr != nil {
		for _, c := range tr.ToolCalls {
			collect(c.Result, host, &budget)
		}
	}
	return host
}

// collect adds the collections of v to set, within budget nodes.
func collect(v lisp.Value, set map[any]bool, budget *int) {
	if *budget <= 0 {
		return
	}
	switch x := v.(type) {
	case *lisp.Vector, *lisp.Map, *lisp.Set:
		if set[x] {
			return
		}
		set[x] = true
		*budget--
	default:
		return
	}
	switch x := v.(type) {
	case *lisp.Vector:
		for _, e := range x.Items() {
			collect(e, set, budget)
		}
	case *lisp.Map:
		for k, e := range x.All() {
			collect(k, set, budget)
			collect(e, set, budget)
		}
	case *lisp.Set:
		for e := range x.All() {
			collect(e, set, budget)
		}
	}
}

// sharedSize is valueSize without the collections of host, and without
// those seen before (which it adds to seen): each collection is walked at
// most once, so a value of shared structure costs its distinct parts.
func sharedSize(v lisp.Value, limit int, host, seen map[any]bool) int {
	size := 0
	var walk func(v lisp.Value, depth int)
	walk = func(v lisp.Value, depth int) {
		if size > limit || depth > 1000 {
			size = limit + 1
			return
		}
		switch x := v.(type) {
		case *lisp.Vector, *lisp.Map, *lisp.Set, *lisp.Cell:
			if host[x] || seen[x] {
				return // a cell seen before: no cycle through cells is walked twice
			}
			seen[x] = true
		}
		switch x := v.(type) {
		case *lisp.Cell:
			size += len(x.Kind()) + 3 // #atom[...]
			walk(x.Deref(), depth+1)
		case *lisp.Vector, *lisp.Map, *lisp.Set:
			sizeElems(x, &size, limit, depth, walk)
		default:
			size += valueSize(v, limit-size)
		}
	}
	walk(v, 0)
	return size
}

// sizeElems adds to *size what the collection x prints around and between
// its elements, and walks them with walk, stopping once *size is past
// limit: the part of a size walk that sharedSize and valueSizeCells share.
func sizeElems(x lisp.Value, size *int, limit, depth int, walk func(lisp.Value, int)) {
	switch x := x.(type) {
	case *lisp.Vector:
		*size += 2
		for _, e := range x.Items() {
			walk(e, depth+1)
			if *size++; *size > limit {
				return
			}
		}
	case *lisp.Map:
		*size += 2
		for k, e := range x.All() {
			walk(k, depth+1)
			walk(e, depth+1)
			if *size += 2; *size > limit {
				return
			}
		}
	case *lisp.Set:
		*size += 3
		for e := range x.All() {
			walk(e, depth+1)
			if *size++; *size > limit {
				return
			}
		}
	}
}

// valueSize estimates the printed size of v, stopping early past limit.
func valueSize(v lisp.Value, limit int) int {
	size, _ := valueSizeCells(v, limit)
	return size
}

// valueSizeCells is valueSize, and whether v holds a cell (an atom, a
// volatile, a transient), whose size changes. A cell counts what it holds
// once per path: one that holds itself is not walked again inside itself.
func valueSizeCells(v lisp.Value, limit int) (int, bool) {
	size := 0
	var inCells map[*lisp.Cell]bool
	var walk func(v lisp.Value, depth int)
	walk = func(v lisp.Value, depth int) {
		if size > limit || depth > 1000 {
			size = limit + 1
			return
		}
		switch x := v.(type) {
		case nil:
			size += 3
		case bool:
			size += 5
		case int64:
			size += intWidth(x)
		case float64:
			size += 10
		case string:
			size += len(x) + 2
		case lisp.Keyword:
			size += len(x) + 1
		case *lisp.Vector, *lisp.Map, *lisp.Set:
			sizeElems(x, &size, limit, depth, walk)
		case *lisp.Cell:
			size += len(x.Kind()) + 3 // #atom[...]
			if inCells == nil {
				inCells = map[*lisp.Cell]bool{}
			}
			if !inCells[x] {
				inCells[x] = true
				walk(x.Deref(), depth+1)
				delete(inCells, x)
			}
		default:
			size += len(lisp.Print(v, lisp.PrintOptions{}))
		}
	}
	walk(v, 0)
	return size, inCells != nil
}

// memoryErrorText is what the model is told of a turn whose definitions
// did not fit the memory: how much each name would hold, the limit, and
// what to do instead.
func (m *mission) memoryErrorText(over *memoryOverrun) string {
	var sb strings.Builder
	more := ""
	if over.capped {
		more = "more than "
	}
	fmt.Fprintf(&sb, "memory_limit_exceeded: this turn's definitions would make your memory %s%s, over its limit of %s, so none of them was kept.",
		more, textutil.Bytes(int64(over.size)), textutil.Bytes(int64(m.a.cfg.MaxAgentMemory)))
	var parts []string
	for i, s := range over.names {
		if i == 5 || s.size < 64 && i > 0 {
			break
		}
		size := textutil.Bytes(int64(s.size))
		if over.capped && i == 0 {
			size = "more than " + size
		}
		parts = append(parts, s.name+" "+size)
	}
	if len(parts) > 0 {
		sb.WriteString(" Largest: " + strings.Join(parts, ", ") + ".")
	}
	sb.WriteString(" Keep only what later turns need (counts, ids, a few rows), or read ctx/... again in each program:" +
		" a name for context data or a tool's result costs nothing, copies and new collections built from them do.")
	return sb.String()
}

// intWidth is the printed length of n.
func intWidth(n int64) int {
	w := 1
	if n < 0 {
		w++
		if n == -n { // the smallest int64
			return 20
		}
		n = -n
	}
	for n >= 10 {
		n /= 10
		w++
	}
	return w
}
