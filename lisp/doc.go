// Package lisp is the PTC-Lisp interpreter: a small, safe dialect of
// Clojure in which an LLM writes programs that call the host's tools and
// transform their data.
//
// # Running programs
//
// Run compiles and runs a program in one step; Compile returns a Program
// that can be run many times, concurrently:
//
//	res, err := lisp.Run(ctx, `(->> ctx/orders (filter (where :amount > 100)) (sum-by :amount))`,
//		lisp.Options{Input: data})
//
// A program is one or more forms; its value is the value of the last one.
// Run always returns a *Result (with the println output produced before an
// error); err is non-nil when the program failed, and is then an *Error.
// A program can also stop early with (return v) or (fail v): Result.Status
// tells which, and a fail is an outcome, not a Go error.
//
// A Cache (its zero value is ready) keeps compiled programs by their
// text, bounded and safe for concurrent use, for hosts that see the same
// programs again.
//
// Funcs (NewFuncs) add Go functions to the language, which programs call
// as builtins, (slug title): Funcs.Compile checks the calls' arity when
// it compiles, and the calls run under the run's limits.
//
// # Pipeline
//
// Source text goes through three stages, one package each:
//
//	syntax   reads text into forms with positions (package lisp/syntax)
//	analyze  checks special forms, destructuring and scopes, and lowers them
//	         into a small tree with resolved local slots (package lisp/internal/analyze)
//	lisp     compiles that tree once into Go closures and evaluates them
//
// Compilation resolves builtins and checks their arity before anything runs.
// Names that are neither local, builtin nor defined by the program are
// looked up in the run's namespace before evaluation starts, so a typo is
// reported with suggestions instead of after half the program's tool calls.
//
// # Values
//
// Values are plain Go values where possible (nil, bool, int64, *big.Int
// for integers past 64 bits, float64, string) plus *Decimal (BigDecimals,
// 1.50M: exact, bounded to 100,000 digits), Keyword, *Vector (vectors and, with IsList, lists), *Map,
// *Set, Symbol, Class, functions and a few others; see Value. Collections are immutable and share structure: assoc on a
// 10,000-entry map copies a few small nodes, and conj onto a vector built in
// a loop appends in place. A vector's assoc copies it, except where the
// compiler proves the old vector unseen: a table a reduce's function or a
// loop's recur updates, read only before (transient.go), is updated in
// place. Maps and sets iterate in one canonical order
// (compareKeys) at every size, so equal values print alike. Maps that share
// their keys (the rows of a JSON array, FromGo slices of maps or structs)
// are stored as records: one shared shape of keys and each row's values,
// with field reads cached per key and shape; they behave as any other map.
//
// Atoms, volatiles and transients are the mutable values, of one type,
// Cell (state.go): swap! is atomic under pmap (a compare-and-swap loop
// that calls the function again when another branch won), a cell is equal
// only to itself, a def'd cell is carried to the runs that get the
// namespace, and a run that fails with an error puts back what it wrote
// into older cells, so that runs stay transactional. Java arrays,
// StringBuilders and the java.util collections (ArrayList, HashMap ...)
// are cells too (arrays.go, builder.go, javacoll.go): aset, .append, .add
// and .put change them in place, a run first copying what it did not
// make, so a failed run puts them back as well; a PriorityQueue keeps
// Java's heap and never calls its comparator under its lock
// (javacoll_pq.go), nor does a TreeMap or TreeSet made with one
// (javacoll_cmp.go). Refs are cells that change only in a transaction:
// dosync runs its body optimistically and commits the refs it touched
// together, running it again when another branch changed one (stm.go).
// Agents are cells whose actions run as they are sent, one at a time
// (agents.go). A
// regex matcher (re-matcher, matcher.go) and a
// DecimalFormat (builtins_decfmt.go) are atoms holding their state. A
// transient vector is changed in place the same way, under its cell's
// lock (state_vector.go), so assoc! on it is not a copy.
// java.time's months, Periods, Durations, YearMonths, LocalTimes and zones
// are their names and ISO texts (builtins_javatime.go, builtins_yearmonth.go,
// builtins_localtime.go, builtins_zoned.go), as the days of the week are; a
// ZonedDateTime or OffsetDateTime is an Instant that carries its zone; a BigDecimal is an exact Decimal (decimal.go) and a
// BigInteger an integer (builtins_bignum.go). Regexes run on Go's linear-time engine, or, for
// lookaround and backreferences, on the step-counting backtracking matcher
// of lisp/internal/backtrack. clojure.zip's locations are vectors that
// carry their tree's functions (builtins_zip.go).
//
// Compilation also fuses pipelines: a chain of map, filter, remove and keep
// over a vector, feeding count, sum-by, into, reduce, group-by and the
// like, runs as one pass without intermediate vectors (docs/performance.md).
//
// Host data enters through FromGo (any Go value: maps, slices, structs via
// their json tags, numbers, time.Time) or Read (JSON), and leaves through ToGo
// or ToJSON. Convert a large context once and pass the *Map to every run:
// runs never copy or modify it. Stores that keep values as text (traces,
// durable engines) write them with Print (Exact) and read them back with
// Read, the inverse of the printer, bounded for text from elsewhere.
//
// # Namespaces, context, history and tools
//
// def, defn and (memory/put k v) bind vars in the user namespace. A run
// starts from Options.Namespace and returns the updated namespace in
// Result.Namespace, so an agent carries state from turn to turn; a run that
// fails with an error leaves the namespace as it was. ctx/name reads the
// context (a keyword lookup that also finds string keys), *1 *2 *3 read
// Options.History, and (tool/name args), (ctx/name args) or
// (call "name" args) call a host tool through Options.Tools. A
// ToolCaller with a method Untimed(name string) bool marks tools bounded by
// limits of their own (an agent, an LLM call): the run's Timeout clock
// stands still while the program waits on them. Program.Dependencies
// tells whether a program needs the vars or history of earlier runs.
//
// # Limits
//
// Programs are untrusted. Options.Limits bounds wall-clock time (and the
// caller's context cancels a run), evaluation steps, call depth, loop
// iterations, println output, tool calls, the data a program builds and
// the goroutines of pmap and pcalls; each breach is an *Error of its own
// Kind. Every goroutine a run starts shares its limits and ends with it
// (a tool call that ignores its context is abandoned). Program text is
// limited to maxSourceBytes. Walks of values (printing,
// equality, hashing, conversion) are bounded by work, since values can
// share structure. A long's overflow is an error, never a wrap-around (the
// promoting +' *' ... give a *big.Int, bounded to 2^20 bits); a BigDecimal's
// is exact, and a quotient that does not terminate is an ArithmeticException
// unless with-precision rounds it.
// Nothing a program does can panic the host: an internal failure is
// reported as an InternalError.
//
// # Errors
//
// Every error a program causes is an *Error with a Kind (usable with
// errors.Is, e.g. errors.Is(err, lisp.TypeError)), a one-line message an
// LLM can act on, and a position; Snippet and Detailed render the source
// line with a caret. A program catches its own errors with try/catch, as
// in Clojure (exceptions.go): JavaClass names the class a catch clause
// sees, and an ex-info thrown and not caught is an error of kind Thrown
// with its data in Data. The limits, a cancellation, return and fail are
// never caught.
package lisp
