package lisp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// TestTransducerAndRegexLimits checks that transducers and the Java-style
// regex iteration stay within the limits: every element consumed counts a
// step, what they build is charged, and a cancelled run stops promptly.
func TestTransducerAndRegexLimits(t *testing.T) {
	// Each case ends by a deterministic limit (steps or memory), never by
	// time: the timeouts are far beyond what a busy machine needs.
	quick := lisp.Limits{Timeout: 5 * time.Minute, MaxSteps: 200_000}
	mem := func(n int64) lisp.Limits { return lisp.Limits{Timeout: 5 * time.Minute, MaxMemory: n} }
	big := `ctx/text`
	ids := make([]int, 1_000_000)
	for i := range ids {
		ids[i] = i
	}
	// Host data is not charged: what the program builds from it is.
	ctx := mustFromGo(t, map[string]any{"ids": ids, "text": strings.Repeat("ab", 3_000_000)}) // 6 MB
	for _, tc := range []struct {
		name, src string
		limits    lisp.Limits
		want      lisp.Kind
	}{
		{"filter that never passes", `(into [] (comp (filter neg?) (take 1)) (iterate inc 0))`, quick, lisp.StepLimitExceeded},
		{"transduce that never stops", `(transduce (comp (filter neg?) (take 1)) + (range))`, quick, lisp.StepLimitExceeded},
		{"lazy sequence of a filter that never passes", `(first (sequence (filter neg?) (range)))`, quick, lisp.StepLimitExceeded},
		{"cat of an infinite inner sequence", `(into [] (comp cat (filter neg?) (take 1)) [(range)])`, quick, lisp.StepLimitExceeded},
		{"user transducer that never stops", `(into [] (comp (fn [rf] (fn ([] (rf)) ([a] (rf a)) ([a x] (rf a x)))) (filter neg?) (take 1)) (range))`,
			quick, lisp.StepLimitExceeded},
		{"into builds a big vector", `(count (into [] (map inc) ctx/ids))`, mem(2 << 20), lisp.MemoryExceeded},
		{"into builds a big set", `(count (into #{} (map inc) ctx/ids))`, mem(2 << 20), lisp.MemoryExceeded},
		{"mapcat explosion", `(count (into [] (mapcat (fn [_] ctx/ids)) ctx/ids))`, mem(2 << 20), lisp.MemoryExceeded},
		{"partition-all of everything", `(count (into [] (comp (partition-all 1000000000) (take 1)) ctx/ids))`, mem(2 << 20), lisp.MemoryExceeded},
		{"partition-by of everything", `(count (into [] (comp (partition-by nil?) (take 1)) ctx/ids))`, mem(2 << 20), lisp.MemoryExceeded},
		{"distinct remembers what it saw", `(count (into [] (comp (distinct) (filter neg?)) ctx/ids))`, mem(2 << 20), lisp.MemoryExceeded},
		{"empty matches of a big string", `(count (re-seq #"x*" ` + big + `))`, mem(4 << 20), lisp.MemoryExceeded},
		{"empty matches of a big string, split", `(count (clojure.string/split ` + big + ` #"x*"))`, mem(4 << 20), lisp.MemoryExceeded},
		{"empty matches of a big string, replace", `(count (clojure.string/replace ` + big + ` #"x*" "-"))`, mem(2 << 20), lisp.MemoryExceeded},
		{"empty matches of a big string, step limit", `(count (re-seq #"x*" ` + big + `))`, lisp.Limits{Timeout: 5 * time.Minute, MaxSteps: 200_000, MaxMemory: -1}, lisp.StepLimitExceeded},
		{"boundaries of a huge string, step limit", `(count (re-seq #"\b" (clojure.string/replace ` + big + ` "b" " ")))`, lisp.Limits{Timeout: 5 * time.Minute, MaxSteps: 200_000, MaxMemory: -1}, lisp.StepLimitExceeded},
		{"matches of a huge string are charged", `(count (re-seq #"a" ` + big + `))`, mem(4 << 20), lisp.MemoryExceeded},
		{"split of a huge string is charged", `(count (clojure.string/split ` + big + ` #"b"))`, mem(4 << 20), lisp.MemoryExceeded},
		{"split at a string is charged", `(count (clojure.string/split ` + big + ` "b"))`, mem(4 << 20), lisp.MemoryExceeded},
		{"replace with a function is charged", `(count (clojure.string/replace ` + big + ` #"a" (fn [m] "xyz")))`, mem(2 << 20), lisp.MemoryExceeded},
		{"replace with a longer string is charged", `(count (clojure.string/replace ` + big + ` "a" "xyz"))`, mem(2 << 20), lisp.MemoryExceeded},
		{"replace with groups is charged", `(count (clojure.string/replace ` + big + ` #"(a)(b)" "$1$2$1$2"))`, mem(2 << 20), lisp.MemoryExceeded},
		{"upper-case is charged", `(count (clojure.string/upper-case ` + big + `))`, mem(4 << 20), lisp.MemoryExceeded},
		{"reverse is charged", `(count (clojure.string/reverse ` + big + `))`, mem(2 << 20), lisp.MemoryExceeded},
		{"split-lines is charged", `(count (clojure.string/split-lines (clojure.string/replace ` + big + ` "b" "\n")))`, mem(16 << 20), lisp.MemoryExceeded},
		{"format precision", `(format "%.1000000000f" 1.0)`, lisp.Limits{}, lisp.MemoryExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lisp.Run(context.Background(), tc.src, lisp.Options{Input: ctx, Limits: tc.limits})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}

// TestTransducerAndRegexCancellation checks that cancelling a run stops a
// transducer over an infinite sequence and a regex over a large input.
func TestTransducerAndRegexCancellation(t *testing.T) {
	for _, src := range []string{
		`(into [] (comp (filter neg?) (take 1)) (iterate inc 0))`,
		`(count (re-seq #"x*" (apply str (repeat 3000000 "ab"))))`,
		`(count (clojure.string/split (apply str (repeat 3000000 "ab")) #"x*"))`,
	} {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(30 * time.Millisecond)
			cancel()
		}()
		start := time.Now()
		_, err := lisp.Run(ctx, src, lisp.Options{Limits: lisp.Limits{Timeout: time.Minute, MaxSteps: -1, MaxMemory: -1}})
		if !errors.Is(err, lisp.Cancelled) {
			t.Errorf("%.50s: got %v, want cancelled", src, err)
		}
		if d := time.Since(start); d > 30*time.Millisecond+timeMargin {
			t.Errorf("%.50s: stopped after %v", src, d)
		}
		cancel()
	}
}

// TestRegexLargeInputs checks Java's iteration over empty matches on inputs
// large enough to be read through the cancellable reader, against the
// same searches on small inputs.
func TestRegexLargeInputs(t *testing.T) {
	ctx := mustFromGo(t, map[string]any{
		"baaa": strings.Repeat("baaa", 100_000), "words": strings.Repeat("ab cd ", 100_000),
		"baaab": strings.Repeat("baaab", 100_000), "aaab": strings.Repeat("aaab", 100_000),
		"lines": strings.Repeat("ab\n", 100_000)})
	for src, want := range map[string]string{
		`(count (re-seq #"a*" ctx/baaa))`:                     "200001",
		`(take 5 (re-seq #"a*" ctx/baaa))`:                    `["" "aaa" "" "aaa" ""]`,
		`(count (re-seq #"\b\w*" ctx/words))`:                 "400000",
		`(count (clojure.string/split ctx/baaab #"a*"))`:      "300000",
		`(count (clojure.string/replace ctx/aaab #"a*" "x"))`: "300001",
		`(count (re-seq #"\d+" ctx/words))`:                   "0",
		`(count (re-seq #"(?m)^ab$" ctx/lines))`:              "100000",
		`(count (clojure.string/split ctx/words #" "))`:       "200000",
		`(last (clojure.string/split ctx/baaab #"a*" -1))`:    `""`,
	} {
		res, err := lisp.Run(context.Background(), src, lisp.Options{Input: ctx, Limits: lisp.Limits{Timeout: generous}})
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != want {
			t.Errorf("%s = %s, want %s", src, got, want)
		}
	}
}
