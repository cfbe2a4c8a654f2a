package lisp

import (
	"math/big"
	"slices"
	"strings"
	"sync"
)

// Symbol is a symbol as data: 'foo, 'ns/foo, (symbol "foo"). It is never
// resolved (a program's own names are resolved when it is compiled); it
// prints as its name, is = to the symbol of the same namespace and name,
// and ToGo and JSON make it a string.
type Symbol struct {
	Ns, Name string
}

// String returns the printed form: name or ns/name.
func (s Symbol) String() string {
	if s.Ns == "" {
		return s.Name
	}
	return s.Ns + "/" + s.Name
}

// Class is the class of a value, as type and class return it and as a
// class name written in a program (String, java.lang.Long,
// clojure.lang.IPersistentMap) reads: it prints as Clojure prints the
// class (java.lang.Long), is = to the same class, and is what instance?
// tests against.
type Class struct {
	Name string // the fully qualified name, java.lang.Long
}

// String returns the printed form, the class's name.
func (c Class) String() string { return c.Name }

// classDef is one class of the table: its full name, the short names a
// program may also write for it (Clojure imports java.lang; Keyword and
// Symbol are accepted bare too, as models write them), and the classes
// and interfaces its instances are also instances of (java.lang.Object is
// implied).
type classDef struct {
	name  string
	short []string
	is    []string
}

// Interfaces shared by several classes of the table.
var (
	ifaceColl   = []string{"clojure.lang.IPersistentCollection", "clojure.lang.Seqable", "java.lang.Iterable", "java.util.Collection", "clojure.lang.IHashEq", "clojure.lang.IObj", "clojure.lang.IMeta"}
	ifaceFn     = []string{"clojure.lang.IFn", "java.lang.Runnable", "java.util.concurrent.Callable"}
	ifaceSeq    = []string{"clojure.lang.ISeq", "clojure.lang.Sequential", "java.util.List"}
	ifaceMap    = []string{"clojure.lang.APersistentMap", "clojure.lang.IPersistentMap", "clojure.lang.Associative", "clojure.lang.ILookup", "clojure.lang.Counted", "java.util.Map", "clojure.lang.IKVReduce", "clojure.lang.IHashEq", "clojure.lang.IObj", "clojure.lang.IMeta", "clojure.lang.IPersistentCollection", "clojure.lang.Seqable", "java.lang.Iterable"}
	ifaceSet    = []string{"clojure.lang.APersistentSet", "clojure.lang.IPersistentSet", "clojure.lang.Counted", "java.util.Set"}
	ifaceList   = []string{"clojure.lang.IPersistentList", "clojure.lang.IPersistentStack", "clojure.lang.Counted", "clojure.lang.ASeq"}
	ifaceSorted = []string{"clojure.lang.Sorted", "clojure.lang.Reversible"}
)

func joinLists(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// classDefs is the one table of classes: what type and class answer for
// each kind of value (classOf picks the row), the names a program can
// write for a class, and what instance? accepts. A new kind of value
// (atoms, exceptions) adds its row here and its case to classOf.
var classDefs = append(baseClassDefs, exceptionClassDefs()...)

var baseClassDefs = []classDef{
	{name: "java.lang.Object", short: []string{"Object"}},
	{name: "java.lang.Number", short: []string{"Number"}, is: []string{"java.io.Serializable"}},
	{name: "java.lang.Long", short: []string{"Long"}, is: []string{"java.lang.Number", "java.lang.Comparable", "java.io.Serializable"}},
	{name: "java.lang.Double", short: []string{"Double"}, is: []string{"java.lang.Number", "java.lang.Comparable", "java.io.Serializable"}},
	// Classes no value of PTC-Lisp belongs to, written in programs all the
	// same: integers are Longs, floats Doubles, characters Strings.
	{name: "java.lang.Integer", short: []string{"Integer"}, is: []string{"java.lang.Number", "java.lang.Comparable"}},
	{name: "java.lang.Float", short: []string{"Float"}, is: []string{"java.lang.Number", "java.lang.Comparable"}},
	{name: "java.lang.Character", short: []string{"Character"}, is: []string{"java.lang.Comparable"}},
	{name: "java.math.BigDecimal", is: []string{"java.lang.Number", "java.lang.Comparable"}},
	{name: "clojure.lang.BigInt", is: []string{"java.lang.Number"}},
	{name: "clojure.lang.Ratio", is: []string{"java.lang.Number"}},
	{name: "java.lang.String", short: []string{"String"}, is: []string{"java.lang.CharSequence", "java.lang.Comparable", "java.io.Serializable"}},
	{name: "java.lang.Boolean", short: []string{"Boolean"}, is: []string{"java.lang.Comparable", "java.io.Serializable"}},
	{name: "clojure.lang.Keyword", short: []string{"Keyword"}, is: joinLists(ifaceFn, []string{"java.lang.Comparable", "clojure.lang.Named", "clojure.lang.IHashEq"})},
	{name: "clojure.lang.Symbol", short: []string{"Symbol"}, is: joinLists(ifaceFn, []string{"java.lang.Comparable", "clojure.lang.Named", "clojure.lang.IHashEq", "clojure.lang.IObj", "clojure.lang.IMeta"})},
	{name: "clojure.lang.PersistentVector", is: joinLists(ifaceColl, ifaceFn, []string{
		"clojure.lang.APersistentVector", "clojure.lang.IPersistentVector", "clojure.lang.IPersistentStack", "clojure.lang.Sequential",
		"clojure.lang.Associative", "clojure.lang.ILookup", "clojure.lang.Indexed", "clojure.lang.Reversible", "clojure.lang.Counted",
		"java.util.List", "java.util.RandomAccess", "java.lang.Comparable", "clojure.lang.IEditableCollection", "clojure.lang.IReduce", "clojure.lang.IKVReduce"})},
	{name: "clojure.lang.PersistentList", is: joinLists(ifaceColl, ifaceSeq, ifaceList, []string{"clojure.lang.IReduce"})},
	{name: "clojure.lang.PersistentList$EmptyList", is: joinLists(ifaceColl, ifaceSeq, ifaceList)},
	{name: "clojure.lang.PersistentArrayMap", is: joinLists(ifaceMap, ifaceFn, []string{"clojure.lang.IEditableCollection"})},
	{name: "clojure.lang.PersistentHashMap", is: joinLists(ifaceMap, ifaceFn, []string{"clojure.lang.IEditableCollection"})},
	{name: "clojure.lang.PersistentTreeMap", is: joinLists(ifaceMap, ifaceFn, ifaceSorted)},
	{name: "clojure.lang.PersistentHashSet", is: joinLists(ifaceColl, ifaceFn, ifaceSet, []string{"clojure.lang.IEditableCollection"})},
	{name: "clojure.lang.PersistentTreeSet", is: joinLists(ifaceColl, ifaceFn, ifaceSet, ifaceSorted)},
	{name: "clojure.lang.MapEntry", is: joinLists(ifaceColl, ifaceFn, []string{
		"clojure.lang.AMapEntry", "java.util.Map$Entry", "clojure.lang.IMapEntry", "clojure.lang.APersistentVector", "clojure.lang.IPersistentVector",
		"clojure.lang.IPersistentStack", "clojure.lang.Sequential", "clojure.lang.Associative", "clojure.lang.ILookup", "clojure.lang.Indexed",
		"clojure.lang.Reversible", "clojure.lang.Counted", "java.util.List", "java.util.RandomAccess", "java.lang.Comparable"})},
	{name: "clojure.lang.PersistentQueue", is: []string{"clojure.lang.IPersistentList", "clojure.lang.IPersistentStack", "clojure.lang.IPersistentCollection",
		"clojure.lang.Seqable", "clojure.lang.Sequential", "clojure.lang.Counted", "java.util.Collection", "java.lang.Iterable", "clojure.lang.IHashEq",
		"clojure.lang.IObj", "clojure.lang.IMeta"}},
	{name: "clojure.lang.LazySeq", is: joinLists(ifaceColl, ifaceSeq, []string{"clojure.lang.IPending"})},
	{name: "clojure.lang.Cons", is: joinLists(ifaceColl, ifaceSeq, []string{"clojure.lang.ASeq"})},
	{name: "clojure.lang.AFunction", is: joinLists(ifaceFn, []string{"clojure.lang.AFn", "clojure.lang.Fn", "java.util.Comparator", "clojure.lang.IObj", "clojure.lang.IMeta"})},
	{name: "clojure.lang.MultiFn", is: joinLists(ifaceFn, []string{"clojure.lang.AFn"})},
	{name: "clojure.lang.Var", is: joinLists(ifaceFn, []string{"clojure.lang.ARef", "clojure.lang.IRef", "clojure.lang.IDeref", "clojure.lang.IMeta"})},
	{name: "clojure.lang.Reduced", is: []string{"clojure.lang.IDeref"}},
	{name: "java.util.regex.Pattern", is: []string{"java.io.Serializable"}},
	{name: "java.util.Date", is: []string{"java.lang.Comparable", "java.io.Serializable", "java.lang.Cloneable"}},
	{name: "java.time.LocalDateTime", short: []string{"LocalDateTime"}, is: []string{"java.lang.Comparable", "java.io.Serializable", "java.time.chrono.ChronoLocalDateTime", "java.time.temporal.Temporal"}},
	{name: "java.time.ZonedDateTime", short: []string{"ZonedDateTime"}, is: []string{"java.lang.Comparable", "java.io.Serializable", "java.time.chrono.ChronoZonedDateTime", "java.time.temporal.Temporal"}},
	{name: "java.time.OffsetDateTime", short: []string{"OffsetDateTime"}, is: []string{"java.lang.Comparable", "java.io.Serializable", "java.time.temporal.Temporal"}},
	{name: "java.time.LocalDate", short: []string{"LocalDate"}, is: []string{"java.lang.Comparable", "java.io.Serializable", "java.time.chrono.ChronoLocalDate", "java.time.temporal.Temporal"}},
	{name: "java.lang.Class", short: []string{"Class"}},
	// Mutable state (state.go).
	{name: "clojure.lang.Atom", is: []string{"clojure.lang.ARef", "clojure.lang.IRef", "clojure.lang.IAtom", "clojure.lang.IAtom2",
		"clojure.lang.IDeref", "clojure.lang.IReference", "clojure.lang.IMeta"}},
	{name: "clojure.lang.Volatile", is: []string{"clojure.lang.IDeref"}},
	{name: "clojure.lang.Agent", is: []string{"clojure.lang.ARef", "clojure.lang.IRef", "clojure.lang.IDeref", "clojure.lang.IReference", "clojure.lang.IMeta"}},
	{name: "clojure.lang.Ref", is: []string{"clojure.lang.ARef", "clojure.lang.IRef", "clojure.lang.IDeref", "clojure.lang.IReference",
		"clojure.lang.IMeta", "java.lang.Comparable"}},
	// Delays, futures and promises (refs.go).
	{name: "clojure.lang.Delay", is: []string{"clojure.lang.IDeref", "clojure.lang.IPending"}},
	{name: "clojure.core$future_call$reify", is: []string{"clojure.lang.IDeref", "clojure.lang.IBlockingDeref", "clojure.lang.IPending", "java.util.concurrent.Future"}},
	{name: "clojure.core$promise$reify", is: []string{"clojure.lang.IDeref", "clojure.lang.IBlockingDeref", "clojure.lang.IPending"}},
	// The java.util collections (javacoll.go).
	{name: "java.util.ArrayList", short: []string{"ArrayList"}, is: utilIfaces("java.util.List", "java.util.RandomAccess", "java.util.AbstractList")},
	{name: "java.util.LinkedList", short: []string{"LinkedList"}, is: utilIfaces("java.util.List", "java.util.Deque", "java.util.Queue", "java.util.AbstractList")},
	{name: "java.util.ArrayDeque", short: []string{"ArrayDeque"}, is: utilIfaces("java.util.Deque", "java.util.Queue")},
	{name: "java.util.Stack", short: []string{"Stack"}, is: utilIfaces("java.util.List", "java.util.RandomAccess", "java.util.AbstractList", "java.util.Vector")},
	{name: "java.util.HashMap", short: []string{"HashMap"}, is: []string{"java.util.Map", "java.util.AbstractMap", "java.io.Serializable", "java.lang.Cloneable"}},
	{name: "java.util.LinkedHashMap", short: []string{"LinkedHashMap"}, is: []string{"java.util.Map", "java.util.HashMap", "java.util.AbstractMap", "java.io.Serializable", "java.lang.Cloneable"}},
	{name: "java.util.TreeMap", short: []string{"TreeMap"}, is: []string{"java.util.Map", "java.util.SortedMap", "java.util.NavigableMap", "java.util.AbstractMap", "java.io.Serializable", "java.lang.Cloneable"}},
	{name: "java.util.concurrent.ConcurrentHashMap", short: []string{"ConcurrentHashMap"}, is: []string{"java.util.Map", "java.util.concurrent.ConcurrentMap", "java.util.AbstractMap", "java.io.Serializable"}},
	{name: "java.util.HashSet", short: []string{"HashSet"}, is: utilIfaces("java.util.Set", "java.util.AbstractSet")},
	{name: "java.util.LinkedHashSet", short: []string{"LinkedHashSet"}, is: utilIfaces("java.util.Set", "java.util.HashSet", "java.util.AbstractSet")},
	{name: "java.util.TreeSet", short: []string{"TreeSet"}, is: utilIfaces("java.util.Set", "java.util.SortedSet", "java.util.NavigableSet", "java.util.AbstractSet")},
	{name: "java.util.PriorityQueue", short: []string{"PriorityQueue"}, is: utilIfaces("java.util.Queue", "java.util.AbstractQueue")},
	{name: "java.lang.StringBuilder", short: []string{"StringBuilder"}, is: []string{"java.lang.CharSequence", "java.lang.Appendable", "java.lang.Comparable", "java.io.Serializable"}},
	{name: "java.lang.StringBuffer", short: []string{"StringBuffer"}, is: []string{"java.lang.CharSequence", "java.lang.Appendable", "java.lang.Comparable", "java.io.Serializable"}},
	{name: "clojure.lang.PersistentVector$TransientVector", is: joinLists(ifaceFn, ifaceTransient, []string{"clojure.lang.ITransientVector", "clojure.lang.ITransientAssociative", "clojure.lang.Indexed"})},
	{name: "clojure.lang.PersistentArrayMap$TransientArrayMap", is: joinLists(ifaceFn, ifaceTransient, []string{"clojure.lang.ITransientMap", "clojure.lang.ITransientAssociative"})},
	{name: "clojure.lang.PersistentHashMap$TransientHashMap", is: joinLists(ifaceFn, ifaceTransient, []string{"clojure.lang.ITransientMap", "clojure.lang.ITransientAssociative"})},
	{name: "clojure.lang.PersistentHashSet$TransientHashSet", is: joinLists(ifaceFn, ifaceTransient, []string{"clojure.lang.ITransientSet"})},
}

// ifaceTransient is what every transient collection implements.
var ifaceTransient = []string{"clojure.lang.ITransientCollection", "clojure.lang.Counted", "clojure.lang.ILookup"}

// exceptionClassDefs are the classes of the exceptions (exceptions.go),
// each a kind of its parent, then java.io.Serializable: the same tree a
// catch clause matches in, so (instance? Exception e) and (type e) agree
// with catch.
func exceptionClassDefs() []classDef {
	var defs []classDef
	seen := map[*javaClass]bool{}
	for _, c := range exceptionClasses {
		if seen[c] || c.name == "java.lang.Object" {
			continue
		}
		seen[c] = true
		var is []string
		for p := c.parent; p != nil; p = p.parent {
			is = append(is, p.name)
		}
		// Short names as catch takes them: java.lang's are Clojure's
		// imports, the others (ExceptionInfo) what models write unimported.
		d := classDef{name: c.name, short: []string{c.simpleName()}, is: append(is, "java.io.Serializable")}
		defs = append(defs, d)
	}
	slices.SortFunc(defs, func(a, b classDef) int { return strings.Compare(a.name, b.name) })
	return defs
}

// classInfo is a row of classDefs made ready for lookups: the set of every
// class its instances belong to, itself and Object included.
type classInfo struct {
	class Class
	all   map[string]bool
	// supers are the classes and interfaces of all but the class itself
	// and java.lang.Object, in the table's order.
	supers []string
}

// classIndex indexes classDefs by full name, built on first use (a few
// hundred maps that a process that never asks a class question would pay
// for at start-up), never written after.
var classIndex = sync.OnceValue(func() map[string]*classInfo {
	idx := map[string]*classInfo{}
	for _, d := range classDefs {
		ci := &classInfo{class: Class{Name: d.name}, all: map[string]bool{d.name: true, "java.lang.Object": true}}
		for _, s := range d.is {
			if !ci.all[s] {
				ci.supers = append(ci.supers, s)
			}
			ci.all[s] = true
		}
		idx[d.name] = ci
	}
	return idx
})

// classFullNames holds the full name of every class and interface of the
// table (built on first use, never written after).
var classFullNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, c := range classNames() {
		out[c.Name] = true
	}
	return out
})

// classNamed returns the class of the table with the full name name.
func classNamed(name string) (Class, bool) {
	if classFullNames()[name] {
		return Class{Name: name}, true
	}
	return Class{}, false
}

// classNames returns every name a program can write for a class: each
// class or interface of the table, by its full name and its short names.
func classNames() map[string]Class {
	out := make(map[string]Class, 512)
	eachClassName(func(name string, c Class) { out[name] = c })
	return out
}

// eachClassName calls f with every name a program can write for a class
// and its class; a name may come more than once, always with the same
// class (TestClassNamesAgree).
func eachClassName(f func(name string, c Class)) {
	for _, d := range classDefs {
		f(d.name, Class{Name: d.name})
		for _, s := range d.short {
			f(s, Class{Name: d.name})
		}
		for _, s := range d.is {
			f(s, Class{Name: s})
			if strings.HasPrefix(s, "java.lang.") { // imported in every Clojure namespace
				f(s[len("java.lang."):], Class{Name: s})
			}
		}
	}
	for _, s := range []string{"java.util.Map", "java.util.List", "java.util.Set", "java.util.Collection"} {
		f(s, Class{Name: s}) // written qualified: Map, List... are not imported in Clojure
	}
}

// classOf returns the class of v, as Clojure's class names it; ok is false
// for nil.
func classOf(v Value) (Class, bool) {
	name := ""
	switch v := v.(type) {
	case nil:
		return Class{}, false
	case bool:
		name = "java.lang.Boolean"
	case int64:
		name = "java.lang.Long"
	case *big.Int:
		name = "clojure.lang.BigInt"
	case *Decimal:
		name = "java.math.BigDecimal"
	case float64:
		name = "java.lang.Double"
	case string:
		name = "java.lang.String"
	case Keyword:
		name = "clojure.lang.Keyword"
	case Symbol:
		name = "clojure.lang.Symbol"
	case *Vector:
		switch {
		case v.IsQueue():
			name = "clojure.lang.PersistentQueue"
		case v.IsEntry():
			name = "clojure.lang.MapEntry"
		case v.IsSeqView():
			name = "clojure.lang.LazySeq"
		case !v.IsList():
			name = "clojure.lang.PersistentVector"
		case v.IsCons():
			name = "clojure.lang.Cons"
		case v.Len() == 0:
			name = "clojure.lang.PersistentList$EmptyList"
		default:
			name = "clojure.lang.PersistentList"
		}
	case *Map:
		if rt := v.recordType(); rt != nil {
			return rt.class, true
		}
		if v.sorted() != nil || v.isSortedMap() {
			name = "clojure.lang.PersistentTreeMap"
			break
		}
		// Clojure's array map holds up to 8 entries. Every map iterates in
		// sorted order here, but only sorted-map's are tree maps there: by
		// size, a map answers what Clojure's hash-map would.
		name = "clojure.lang.PersistentHashMap"
		if v.Len() <= 8 {
			name = "clojure.lang.PersistentArrayMap"
		}
	case *Set:
		name = "clojure.lang.PersistentHashSet"
		if v.by != nil {
			name = "clojure.lang.PersistentTreeSet"
		}
	case *Seq:
		name = "clojure.lang.LazySeq"
		if v.cell != nil && v.cell.cons {
			name = "clojure.lang.Cons" // (cons x s) onto a lazy sequence
		}
	case *Closure:
		return Class{Name: closureClassName(v)}, true
	case *Builtin:
		if v.multi != nil {
			return Class{Name: "clojure.lang.MultiFn"}, true
		}
		if v.xf != nil {
			return Class{Name: "clojure.core$" + mungeName(v.xf.stages[0].name) + "$fn"}, true
		}
		return Class{Name: builtinClassName(v.Name)}, true
	case *Var:
		name = "clojure.lang.Var"
	case *Regex:
		name = "java.util.regex.Pattern"
	case Instant:
		name = "java.util.Date"
		switch {
		case v.offsetDT:
			name = "java.time.OffsetDateTime"
		case v.zone != nil:
			name = "java.time.ZonedDateTime"
		case v.local:
			name = "java.time.LocalDateTime"
		}
	case Date:
		name = "java.time.LocalDate"
	case *reduced:
		name = "clojure.lang.Reduced"
	case Class:
		name = "java.lang.Class"
	case *Exception:
		if v == nil {
			return Class{}, false
		}
		name = v.class.name
	case *Cell:
		name = cellClassName(v)
	default:
		name = "java.lang.Object"
	}
	return Class{Name: name}, true
}

// closureClassName names the class of a closure the way Clojure's
// compiler names a function defined at the top level, user$name, with the
// name munged; an anonymous function is user$fn (Clojure adds counters,
// user$eval123$fn__124, that would make results differ from run to run).
func closureClassName(c *Closure) string {
	if c.proto == nil || c.proto.name == "" {
		return "user$fn"
	}
	return "user$" + mungeName(c.proto.name)
}

// builtinClassName names the class of a builtin as Clojure names the
// class of a var's function: clojure.core$inc, clojure.string$join.
func builtinClassName(name string) string {
	ns := "clojure.core"
	if i := strings.IndexByte(name, '/'); i > 0 && i < len(name)-1 {
		ns, name = name[:i], name[i+1:]
	}
	return ns + "$" + mungeName(name)
}

// abstractClasses are the names in the class table that are classes,
// besides those with rows: the rest of the names are interfaces.
var abstractClasses = map[string]bool{
	"clojure.lang.AFn": true, "clojure.lang.APersistentMap": true, "clojure.lang.APersistentSet": true,
	"clojure.lang.APersistentVector": true, "clojure.lang.ASeq": true, "clojure.lang.ARef": true,
}

// text is what str makes of a class, Java's toString: "class
// java.lang.Long", "interface java.util.Map".
func (c Class) text() string {
	if primitiveName(classDesc(c)) != "" {
		return c.Name // long, a primitive's class
	}
	if classIndex()[c.Name] != nil || strings.HasPrefix(c.Name, "[") || abstractClasses[c.Name] || strings.Contains(c.Name, "$") ||
		isRecordClass(c) {
		return "class " + c.Name
	}
	return "interface " + c.Name
}

// mungeName is Clojure's munge for the characters names use most.
func mungeName(name string) string {
	var sb strings.Builder
	for _, r := range name {
		switch r {
		case '-':
			sb.WriteString("_")
		case '?':
			sb.WriteString("_QMARK_")
		case '!':
			sb.WriteString("_BANG_")
		case '*':
			sb.WriteString("_STAR_")
		case '+':
			sb.WriteString("_PLUS_")
		case '>':
			sb.WriteString("_GT_")
		case '<':
			sb.WriteString("_LT_")
		case '=':
			sb.WriteString("_EQ_")
		case '/':
			sb.WriteString("_SLASH_")
		case '.':
			sb.WriteString("_DOT_")
		case '\'':
			sb.WriteString("_SINGLEQUOTE_")
		case '&':
			sb.WriteString("_AMPERSAND_")
		case '%':
			sb.WriteString("_PERCENT_")
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// instanceOf reports whether v is an instance of c: its class is c or
// implements it. Functions are instances of the function interfaces.
func instanceOf(c Class, v Value) bool {
	vc, ok := classOf(v)
	if !ok {
		return false // nil is an instance of nothing
	}
	if vc == c || c.Name == "java.lang.Object" {
		return true
	}
	if isRecordClass(vc) {
		return recordClassIsa(vc, c)
	}
	info := classIndex()[vc.Name]
	if info == nil {
		switch v.(type) {
		case *Closure, *Builtin: // user$f, clojure.core$inc
			info = classIndex()["clojure.lang.AFunction"]
		default:
			return false
		}
	}
	return info.all[c.Name]
}

func registerTypes(t *builtinTable) {
	// Straight into the table, without a map of the names first (a tenth
	// of the package's initialisation): a name met again has its class
	// already.
	eachClassName(func(name string, c Class) {
		if old, ok := t.names[name]; !ok || old != Value(c) {
			t.set(name, c)
		}
	})
	typeFn := func(_ *thread, a []Value) (Value, error) {
		c, ok := classOf(a[0])
		if !ok {
			return nil, nil
		}
		return c, nil
	}
	t.add("type", 1, 1, typeFn)
	t.add("class", 1, 1, typeFn)
	t.add("instance?", 2, 2, func(_ *thread, a []Value) (Value, error) {
		c, ok := a[0].(Class)
		if !ok {
			return nil, argError("instance?", 0, "a class such as String, Long or java.util.Map", a[0])
		}
		return instanceOf(c, a[1]), nil
	})
	t.add("class?", 1, 1, func(_ *thread, a []Value) (Value, error) { _, ok := a[0].(Class); return ok, nil })
	// The two methods of Class that programs call to show a type.
	t.add(".getName", 1, 1, func(_ *thread, a []Value) (Value, error) {
		c, ok := a[0].(Class)
		if !ok {
			return nil, argError(".getName", 0, "a class, e.g. (class x)", a[0])
		}
		return c.Name, nil
	})
	t.add(".getSimpleName", 1, 1, func(_ *thread, a []Value) (Value, error) {
		c, ok := a[0].(Class)
		if !ok {
			return nil, argError(".getSimpleName", 0, "a class, e.g. (class x)", a[0])
		}
		if strings.HasPrefix(c.Name, "[") {
			return javaSimpleName(c.Name), nil // long[], String[]
		}
		name := c.Name[strings.LastIndexByte(c.Name, '.')+1:]
		if i := strings.LastIndexByte(name, '$'); i >= 0 && strings.HasPrefix(c.Name, "clojure.lang.") {
			name = name[i+1:] // a nested class: PersistentList$EmptyList is EmptyList
		}
		return name, nil
	})

	t.add("gensym", 0, 1, func(th *thread, a []Value) (Value, error) { return th.gensym(a) })

	t.add("symbol", 1, 2, func(_ *thread, a []Value) (Value, error) {
		if len(a) == 2 {
			ns, ok := a[0].(string)
			if !ok && a[0] != nil {
				return nil, argError("symbol", 0, "a string or nil", a[0])
			}
			name, ok := a[1].(string)
			if !ok {
				return nil, argError("symbol", 1, "a string", a[1])
			}
			return Symbol{Ns: ns, Name: name}, nil
		}
		switch x := a[0].(type) {
		case Symbol:
			return x, nil
		case string:
			return parseSymbol(x), nil
		case Keyword:
			return parseSymbol(string(x)), nil
		case *Var:
			return Symbol{Name: x.Name}, nil
		}
		return nil, argError("symbol", 0, "a string, keyword or symbol", a[0])
	})
	t.add("symbol?", 1, 1, func(_ *thread, a []Value) (Value, error) { _, ok := a[0].(Symbol); return ok, nil })
	t.add("simple-symbol?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, ok := a[0].(Symbol)
		return ok && s.Ns == "", nil
	})
	t.add("qualified-symbol?", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, ok := a[0].(Symbol)
		return ok && s.Ns != "", nil
	})
	// ident? and friends: keywords and symbols.
	ident := func(name string, f func(ns string) bool) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			switch x := a[0].(type) {
			case Keyword:
				ns := ""
				if qualifiedKeyword(x) {
					ns = "ns"
				}
				return f(ns), nil
			case Symbol:
				return f(x.Ns), nil
			}
			return false, nil
		})
	}
	ident("ident?", func(string) bool { return true })
	ident("simple-ident?", func(ns string) bool { return ns == "" })
	ident("qualified-ident?", func(ns string) bool { return ns != "" })
}

// parseSymbol splits "ns/name" as Clojure's (symbol s) does: at the first
// slash, unless the string is "/" itself or has nothing after the slash.
func parseSymbol(s string) Symbol {
	if i := strings.IndexByte(s, '/'); i > 0 && i < len(s)-1 {
		return Symbol{Ns: s[:i], Name: s[i+1:]}
	}
	return Symbol{Name: s}
}

// cellClassName is the class of an atom, a volatile or a transient, which
// for a transient depends on the collection it holds, as in Clojure; of an
// array, Java's name of the array class ([J, [Ljava.lang.String;); of a
// StringBuilder, java.lang.StringBuilder.
func cellClassName(c *Cell) string {
	switch c.kind {
	case arrayCell:
		return arrayClassName(c.load().val.(*arrayData).elem)
	case utilCell:
		return utilClassInfo[c.load().val.(*utilData).class].name
	case builderCell:
		if c.load().val.(*builderData).buffer {
			return "java.lang.StringBuffer"
		}
		return "java.lang.StringBuilder"
	case volatileCell:
		return "clojure.lang.Volatile"
	case refCell:
		return "clojure.lang.Ref"
	case agentCell:
		return "clojure.lang.Agent"
	case delayCell:
		return "clojure.lang.Delay"
	case futureCell:
		return "clojure.core$future_call$reify" // Clojure adds a counter: reify__8477
	case promiseCell:
		return "clojure.core$promise$reify"
	case transientCell:
		switch coll := c.load().val.(type) { // its type only: no copy of a vector written in place
		case *Map:
			if coll.Len() <= 8 {
				return "clojure.lang.PersistentArrayMap$TransientArrayMap"
			}
			return "clojure.lang.PersistentHashMap$TransientHashMap"
		case *Set:
			return "clojure.lang.PersistentHashSet$TransientHashSet"
		}
		return "clojure.lang.PersistentVector$TransientVector"
	}
	return "clojure.lang.Atom"
}

// utilIfaces is what a java.util collection class is besides the classes
// named: a Collection, Iterable, Serializable and Cloneable.
func utilIfaces(names ...string) []string {
	return append(names, "java.util.Collection", "java.lang.Iterable", "java.util.AbstractCollection", "java.io.Serializable", "java.lang.Cloneable")
}
