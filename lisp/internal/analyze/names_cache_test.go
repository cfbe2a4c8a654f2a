package analyze

import "testing"

// TestBuiltinAnswerCache checks the memory of names found to be plain
// builtins (builtinAnswer.plain): a def of the name, a :refer, or a local
// of the name changes what the next use means, as it did before the
// answer was remembered.
func TestBuiltinAnswerCache(t *testing.T) {
	checkDumps(t, []dumpCase{
		// Used as a builtin, then defined: from the def on, the user's value.
		{"def after use", `(inc 1) (inc 2) (def inc 5) (+ inc 1)`,
			"(do (inc 1) (inc 2) (def inc 5) (+ $inc 1))"},
		{"local after use", `(count [1]) (let [count 2] count) (count [2])`,
			"(do (count [1]) (let [count@0 2] count@0) (count [2]))"},
		{"head then value", `(map inc [1]) (inc (first [inc]))`,
			"(do (map inc [1]) (inc (first [inc])))"},
	})
}
