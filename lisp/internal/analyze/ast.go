package analyze

// Expr is a node of the analyzed program. Every node records the source
// offset of the form it came from, so that runtime errors can point at it.
type Expr interface {
	Offset() int32
	expr()
}

// At is embedded in every node: the byte offset in the source of the form
// it came from. Nodes keep only the offset (a line and column on every node
// would triple it); syntax.Lines turns it into a line and column when an
// error needs one.
type At struct{ Off int32 }

// Offset returns the byte offset of the form in the source.
func (a At) Offset() int32 { return a.Off }
func (At) expr()           {}

// Const is a scalar constant: nil, bool, int64, float64 or string.
type Const struct {
	At
	Value any
}

// Keyword is a keyword literal (name without the colon).
type Keyword struct {
	At
	// A keyword of the source is its syntax.Keyword, seen as a Keyword
	// (keywordOf): this field is where that one holds its end.
	_    int32
	Name string
}

// VectorLit is a vector literal; items are evaluated left to right. List
// marks a list literal: a quoted list '(1 2) or the empty list ().
type VectorLit struct {
	At
	Items []Expr
	List  bool
}

// SymbolLit is a quoted symbol, 'foo or 'ns/foo: data, never resolved.
type SymbolLit struct {
	At
	Ns, Name string
}

// MapLit is a map literal; entries are evaluated in source order. When a key
// repeats, the first entry wins (as in the reference implementation).
type MapLit struct {
	At
	Keys, Vals []Expr
}

// SetLit is a set literal.
type SetLit struct {
	At
	Items []Expr
}

// Local reads a slot of the current frame (a parameter or a let/loop binding).
type Local struct {
	At
	Slot int32 // beside the offset: no padding
	Name string
}

// Captured reads a value captured by the enclosing closure.
type Captured struct {
	At
	Index int32
	Name  string
}

// Self is the closure being executed: the name of a named fn, `(fn f [x] (f x))`.
type Self struct {
	At
	Name string
}

// Builtin refers to a builtin function or constant of the runtime by its
// canonical name (namespace aliases already normalized, e.g. "clojure.string/join").
type Builtin struct {
	At
	// A builtin named by a symbol of the source is that syntax.Symbol,
	// seen as a Builtin (builtinOf): these fields are where that one
	// holds its end and its namespace (none).
	_    int32
	_    string
	Name string
}

// Global reads a var of the user namespace (def/defn, from this program or an
// earlier one). Late bound: read when evaluated.
type Global struct {
	At
	Name string
}

// VarRef is `#'name` or `(var name)`: the var itself.
type VarRef struct {
	At
	Name string
}

// CtxRef reads the host context: ctx/name (also data/name).
type CtxRef struct {
	At
	Name string
}

// MemoryGet reads the user namespace by a computed key, nil when unbound:
// memory/name and (memory/get key).
type MemoryGet struct {
	At
	Key Expr
}

// MemoryPut defines a var with a computed name: (memory/put key value).
type MemoryPut struct {
	At
	Key, Value Expr
}

// HistoryRef is *1, *2 or *3: the value of an earlier turn.
type HistoryRef struct {
	At
	N int
}

// If is (if test then else); Else is a nil Const when absent.
type If struct {
	At
	Test, Then, Else Expr
}

// Do evaluates Body in order and yields the last value (nil when empty).
type Do struct {
	At
	Body []Expr
}

// And is short-circuit and; Or is short-circuit or.
type And struct {
	At
	Exprs []Expr
}

// Or yields the first truthy value, or the last value.
type Or struct {
	At
	Exprs []Expr
}

// Binding binds the value of Init to Pattern.
type Binding struct {
	Pattern Pattern
	Init    Expr
}

// Let evaluates its bindings in order, then Body.
type Let struct {
	At
	Bindings []Binding
	Body     Expr
}

// Loop is (loop [bindings] body); Recur in tail position jumps back, rebinding Slots.
type Loop struct {
	At
	Bindings []Binding
	Body     Expr
	// Targets are the patterns recur rebinds, one per binding.
	Targets []Pattern
}

// Recur re-enters the innermost loop or fn arity with new values.
type Recur struct {
	At
	Args []Expr
	// Loop is the target loop, or nil when the target is the enclosing fn arity.
	Loop *Loop
}

// Fn is a function literal (fn, defn, #()).
type Fn struct {
	At
	Name    string // optional; used for printing and Self
	Arities []*Arity
	// Captures lists, for each captured value, where the enclosing frame
	// holds it at the time the closure is created.
	Captures []Capture
}

// Capture says where a closure's captured value comes from in the enclosing
// function: one of its local slots, one of its own captures, or itself.
type Capture struct {
	Name string
	From CaptureFrom
	// Index is the local slot or the captured index in the enclosing function.
	Index int
}

// CaptureFrom says where a captured value lives in the enclosing function.
type CaptureFrom uint8

// Capture sources.
const (
	FromLocal CaptureFrom = iota
	FromCaptured
	FromSelf
)

// Arity is one arity of a function. Calling convention: argument i lands in
// frame slot i and the rest argument (a vector, or nil when empty) in slot
// len(Params); a parameter whose pattern is not a *BindSlot is then
// destructured from its slot.
type Arity struct {
	Params   []Pattern // fixed parameters
	Rest     Pattern   // variadic rest parameter, or nil
	NumSlots int       // frame size (parameters, let and loop slots)
	Body     Expr
}

// Def binds a var in the user namespace: (def name value), (defn ...).
type Def struct {
	At
	Name  string
	Value Expr
	Once  bool // defonce: keep an existing binding
}

// Raise fails with an error of the given kind; Value, when set, is printed
// after Msg (used by assert, and by case/condp without a default).
type Raise struct {
	At
	Kind  string
	Msg   string
	Value Expr
	// Display prints Value as str does, right after Msg (else as pr does,
	// after a space); Suffix follows it.
	Display bool
	Suffix  string
}

// Try is (try body... (catch Class name handler...)... (finally cleanup...)).
type Try struct {
	At
	Body    Expr
	Catches []Catch
	Finally Expr // nil when there is no finally
}

// Catch is a catch clause of a try.
type Catch struct {
	Off int32 // the clause's offset, for an error about its class
	// Class is the class as written: Exception, java.lang.ArithmeticException,
	// clojure.lang.ExceptionInfo, or :default (ClojureScript's catch-all).
	Class string
	Slot  int // where the exception is bound
	Body  Expr
}

// Throw is (throw value).
type Throw struct {
	At
	Value Expr
}

// Call is a function call; Fn may be any expression.
type Call struct {
	At
	Fn   Expr
	Args []Expr
}

// ToolCall calls a host tool: (tool/name args), (ctx/name args), (call "name" args).
// Name is the static tool name; NameExpr is set instead when the name is computed.
type ToolCall struct {
	At
	Name     string
	NameExpr Expr
	Args     []Expr
}

// Return ends the program successfully with Value: (return v).
type Return struct {
	At
	Value Expr
}

// Fail ends the program with a failure value: (fail v).
type Fail struct {
	At
	Value Expr
}

// Where builds a predicate: (where field op value).
type Where struct {
	At
	Path  []Expr // constant keys (Keyword or string Const) forming the field path
	Op    string // "", "=", "not=", ">", "<", ">=", "<=", "in", "includes"
	Value Expr   // nil when Op is ""
}

// Combine builds a predicate from predicates: all-of, any-of, none-of.
type Combine struct {
	At
	Kind  string // "all-of", "any-of", "none-of"
	Preds []Expr
}

// Case is (case expr const result ... default).
type Case struct {
	At
	Expr Expr
	// Tests[i] lists the constants that select Results[i].
	Tests   [][]Expr
	Results []Expr
	Default Expr // nil when there is no default (no match is an error)
}

// ForClause is one binding clause of `for`/`doseq` with its modifiers.
type ForClause struct {
	Pattern Pattern
	Coll    Expr
	// Mods run in order after each binding: :let bindings, :when and :while tests.
	Mods []ForMod
}

// ForMod is a :let, :when or :while modifier of a for/doseq clause.
type ForMod struct {
	Kind     string // "let", "when", "while"
	Bindings []Binding
	Test     Expr
}

// For is (for [clauses] body) when Collect, else (doseq [clauses] body...).
type For struct {
	At
	Clauses []ForClause
	Body    Expr
	Collect bool
}

// Dotimes is (dotimes [i n] body...).
type Dotimes struct {
	At
	Slot  int
	Count Expr
	Body  Expr
}

// LetFn binds mutually recursive local functions.
type LetFn struct {
	At
	Slots []int
	Fns   []*Fn
	Body  Expr
}

// Pattern is a binding target: a symbol, a vector pattern or a map pattern.
type Pattern interface{ pattern() }

// BindSlot binds the value to a frame slot.
type BindSlot struct {
	Name string
	Slot int
}

// BindVector destructures a sequential value.
type BindVector struct {
	At
	As    int32 // slot for :as, or -1
	Items []Pattern
	Rest  Pattern // after &, or nil
}

// MapKey is one key a map pattern reads.
type MapKey struct {
	// Key is the key to look up: a keyword (Keyword true) or a string.
	Key     string
	Keyword bool
	// Literal is set for any other literal key ({v 1}, {v nil}): Value
	// holds it (an int64, float64, bool or nil) and Key is unused.
	Literal bool
	// Symbol is set for the keys of :syms: Key is the symbol's text,
	// ns/name or name.
	Symbol  bool
	Value   any
	Pattern Pattern
	Default Expr // from :or, or nil
}

// BindMap destructures a map.
type BindMap struct {
	At
	As   int32 // slot for :as, or -1
	Keys []MapKey
}

func (*BindSlot) pattern()   {}
func (*BindVector) pattern() {}
func (*BindMap) pattern()    {}

// Program is an analyzed program. Its keyword nodes are those of the
// forms it was analyzed from (the same memory): it is valid as long as
// they are.
type Program struct {
	Body     Expr // top-level forms in an implicit do
	NumSlots int  // slots of the top-level frame
	// Globals lists the user-namespace names the program reads (not builtins,
	// not locals), with the offset of their first use.
	Globals []GlobalUse
	// Defs lists the names the program defines.
	Defs []string
}

// GlobalUse is a read of a user-namespace name.
type GlobalUse struct {
	Name string
	Off  int32 // byte offset of the read in the source
}
