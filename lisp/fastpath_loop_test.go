package lisp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// regLoopPrograms have the shape regLoop runs (see planRegLoop), and
// neighbours that fall back: each must behave exactly as the general path,
// steps, limits and errors included, wherever the loop starts relative to
// the thread's checkpoints and however long it runs.
var regLoopPrograms = []string{
	`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`,
	`(loop [i 0 acc 0] (if (>= i 3000) acc (recur (inc i) (- acc i))))`,
	`(loop [i 5000] (if (pos? i) (recur (dec i)) i))`,
	`(loop [i 5000] (if (zero? i) i (recur (dec i))))`,
	`(loop [i -3000] (if (neg? i) (recur (+ i 1)) i))`,
	`(loop [i 0 j 2500] (if (< i j) (recur (inc i) j) [i j]))`,
	`(loop [i 0 j 2500] (if (not= i j) (recur (inc i) (- j 1)) [i j]))`,
	`(loop [i 0 j 7] (if (<= i 2000) (recur (+ i j) j) i))`,
	`(loop [i 0 acc 1] (if (< i 2000) (recur (inc i) (* acc 1)) acc))`,
	`(loop [i 0 acc 1] (if (< i 70) (recur (inc i) (* acc 2)) acc))`,
	`(loop [i 0 a 0 b 1] (if (< i 1500) (recur (inc i) b (+ a b)) [a b]))`,
	`(loop [i 0 a 0 b 0 c 0] (if (= i 3000) [a b c] (recur (inc i) (+ a 1) (- b 1) c)))`,
	`(loop [i 0] (if (even? i) (recur (+ i 2)) i))`,
	`(loop [i 1] (if (odd? i) (recur (+ i 2)) i))`,
	`(loop [i 0] (if (== i 2048) i (recur (inc i))))`,
	// Overflow after some checkpoints: the steps counted up to the error.
	`(loop [i 0 acc 9223372036854770000] (if (< i 5000) (recur (inc i) (+ acc i)) acc))`,
	`(loop [i 0 acc -9223372036854770000] (if (< i 5000) (recur (inc i) (- acc i)) acc))`,
	`(loop [i 9223372036854775000] (if (> i 0) (recur (inc i)) i))`,
	`(loop [i -9223372036854775000] (if (< i 0) (recur (dec i)) i))`,
	`(loop [i 0 acc 1] (if (< i 100) (recur (inc i) (* acc 3)) acc))`,
	// The other branch recurs too, or reads the variables.
	`(loop [i 0 acc 0] (if (< i 2000) (recur (inc i) (+ acc i)) (if (< acc 3000000) (recur 0 acc) [i acc])))`,
	`(loop [i 0 acc 0] (if (< i 1500) (recur (inc i) (+ acc 2)) (str i "/" acc)))`,
	`(loop [i 0 acc 0] (if (< i 1500) (recur (inc i) (+ acc 2)) (fn [] [i acc])))`,
	// A loop in a function called many times, and nested loops.
	`(defn f [n] (loop [i 0 s 0] (if (< i n) (recur (inc i) (+ s i)) s))) (map f [0 1 10 1000 3000])`,
	`(loop [i 0 acc 0] (if (< i 50) (recur (inc i) (+ acc (loop [j 0 s 0] (if (< j 100) (recur (inc j) (+ s j)) s)))) acc))`,
	`(dotimes [k 3] (loop [i 0] (if (< i 900) (recur (inc i)) i))) (loop [i 0] (if (< i 900) (recur (inc i)) i))`,
	// Neighbours that are not regLoops.
	`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i i)) acc))`,
	`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc (* i 2))) acc))`,
	`(let [n 1000] (loop [i 0] (if (< i n) (recur (inc i)) i)))`,
	`(loop [i 0 x nil] (if (< i 1000) (recur (inc i) x) i))`,
}

func TestRegLoopBehavesAsGeneralPath(t *testing.T) {
	// Work before the loop moves it against the thread's checkpoints.
	for _, pre := range []string{"", "(reduce + (range 300)) ", "(reduce + (range 1000)) ", "(count (filter odd? (range 1023))) "} {
		for _, src := range regLoopPrograms {
			for _, limits := range []Limits{{}, {MaxSteps: 2000}, {MaxSteps: 3100}, {MaxLoopIterations: 1023},
				{MaxLoopIterations: 1024}, {MaxLoopIterations: 2047}, {MaxLoopIterations: 1}} {
				sameBothWays(t, pre+src, limits)
			}
		}
	}
}

// The loops of regLoop's shape run on registers, the others do not.
func TestRegLoopPlanned(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`, true},
		{`(loop [i 0 acc 0] (if (>= i 10) acc (recur (inc i) (- acc i))))`, true},
		{`(loop [i 5] (if (zero? i) i (recur (dec i))))`, true},
		{`(loop [i 0 j 7] (if (<= i 20) (recur (+ i j) j) i))`, true},
		{`(loop [i 0 acc 1] (if (< i 20) (recur (inc i) (* acc 3)) acc))`, true},
		{`(loop [i 0 a 0 b 1] (if (< i 15) (recur (inc i) b (+ a b)) [a b]))`, true},
		{`(loop [i 0] (if (even? i) (recur (+ i 2)) i))`, true},
		{`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i i)) acc))`, false},
		{`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc (* i 2))) acc))`, false},
		{`(loop [i 0 x nil] (if (< i 1000) (recur (inc i) x) i))`, false},
		{`(loop [i 0] (if (< i 1000) (recur (inc i)) (recur (dec i))))`, true},
		{`(loop [i 0] (when (< i 1000) (recur (inc i))))`, true},
		{`(loop [i 0] (if (< (inc i) 1000) (recur (inc i)) i))`, false},
	} {
		forms, err := syntax.Read(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := analyze.Analyze(tc.src, forms, analyzeConfig)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := ap.Body.(*analyze.Loop)
		if !ok {
			t.Fatalf("%s: the body is a %T", tc.src, ap.Body)
		}
		c := &compiler{src: tc.src}
		got := false
		if spec := c.planLoop(e); spec != nil {
			ife, _ := e.Body.(*analyze.If)
			r, isThen := ife.Then.(*analyze.Recur)
			if !isThen {
				r, _ = ife.Else.(*analyze.Recur)
			}
			got = c.planRegLoop(e, spec, ife, r) != nil
		}
		if got != tc.want {
			t.Errorf("%s: planned %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestRegLoopSteps(t *testing.T) {
	if !accounting {
		t.Skip("steps are not counted in this build (ptc_nolimits)")
	}
	for _, n := range []int{0, 1, 1022, 1023, 1024, 1025, 5000} {
		src := fmt.Sprintf(`(loop [i 0 acc 0] (if (< i %d) (recur (inc i) (+ acc i)) acc))`, n)
		if got := sameBothWays(t, src, Limits{}); !strings.Contains(got, fmt.Sprintf("steps=%d ", n)) {
			t.Errorf("%d iterations: %s", n, got)
		}
	}
}

// FuzzRegLoop compares loops of regLoop's shape, and their neighbours,
// with the general path: values, steps, limits and errors.
func FuzzRegLoop(f *testing.F) {
	f.Add(int64(0), int64(1000), int64(0), uint8(0), uint8(0), uint8(7), int64(1), uint16(0), uint16(0))
	f.Add(int64(9223372036854775000), int64(0), int64(5), uint8(3), uint8(0), uint8(2), int64(-3), uint16(100), uint16(50))
	f.Add(int64(-5), int64(5), int64(1), uint8(6), uint8(5), uint8(4), int64(2), uint16(7), uint16(3000))
	f.Add(int64(1), int64(3), int64(1), uint8(0), uint8(0), uint8(9), int64(3), uint16(500), uint16(4999))
	tests := []string{"(< i B)", "(<= i B)", "(> i B)", "(>= i B)", "(= i B)", "(not= i B)", "(zero? i)",
		"(pos? i)", "(neg? i)", "(even? i)", "(odd? i)", "(< acc i)", "(== i 7)"}
	args := []string{"(inc i)", "(dec i)", "(+ i K)", "(- i K)", "(* i K)", "i", "K", "(+ acc i)", "(- acc K)",
		"(* acc K)", "(inc acc)", "acc", "(+ i i K)"}
	f.Fuzz(func(t *testing.T, i0, b, acc0 int64, test, arg1, arg2 uint8, k int64, loops, steps uint16) {
		body := fmt.Sprintf("(loop [i %d acc %d] (if %s (recur %s %s) [i acc]))", i0, acc0,
			tests[int(test)%len(tests)], args[int(arg1)%len(args)], args[int(arg2)%len(args)])
		// K and B as constants (a regLoop), and as let-bound locals (not one).
		constants := strings.NewReplacer("K", fmt.Sprint(k), "B", fmt.Sprint(b)).Replace(body)
		locals := fmt.Sprintf("(let [k %d b %d] %s)", k, b, strings.NewReplacer("K", "k", "B", "b").Replace(body))
		limits := Limits{MaxLoopIterations: int(loops%4000) + 1, MaxSteps: int64(steps%5000) + 1}
		for _, src := range []string{constants, locals} {
			sameBothWays(t, src, limits)
		}
	})
}
