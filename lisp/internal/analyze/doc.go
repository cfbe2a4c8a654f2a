// Package analyze checks PTC-Lisp forms and lowers them into a small tree
// that the evaluator compiles.
//
// It knows every special form and macro of the language (let, fn, loop and
// recur, cond, case, the threading macros, for and doseq, where, return and
// fail, tool calls, ...), expands #() short functions and destructuring
// patterns, normalizes namespace aliases such as str/ and clojure.core/,
// resolves every local to a frame slot, computes what each closure
// captures, and checks that recur is in tail position.
//
// Symbols that are neither local nor builtin become Global references; the
// evaluator checks them against the user namespace before a program runs.
// Errors carry the kind names the language reports (invalid_form,
// invalid_arity, unbound_var, ...) and a position; Analyze reports several
// independent errors at once.
//
// The analyzer is independent of the runtime: Config tells it which names
// are builtins.
package analyze
