package lisp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// outcome is everything a run shows: value, status, output, steps, error.
func outcome(src string, limits Limits) string {
	res, err := Run(context.Background(), src, Options{Limits: patient(limits)})
	var sb strings.Builder
	if res != nil {
		fmt.Fprintf(&sb, "steps=%d value=%s status=%v output=%q", res.Steps, printString(res.Value), res.Status, res.Output)
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			fmt.Fprintf(&sb, " error=%s|%s|%v", e.Kind, e.Message, e.Pos)
		} else {
			fmt.Fprintf(&sb, " error=%v", err)
		}
	}
	return sb.String()
}

// parallelForm finds the forms that run branches on goroutines.
var parallelForm = regexp.MustCompile(`\((pmap|pcalls|future)[\s)]`)

// withoutSteps is an outcome without its step count.
func withoutSteps(outcome string) string {
	return regexp.MustCompile(`^steps=\d+ `).ReplaceAllString(outcome, "")
}

// withoutFastPaths runs f with the fast paths off (as before they existed).
func withoutFastPaths(f func()) {
	noFastPaths = true
	defer func() { noFastPaths = false }()
	f()
}

// sameBothWays checks that src behaves exactly alike with and without the
// fast paths, and returns the outcome.
// patient gives limits a generous timeout unless they set one: a test
// that compares runs must not depend on how busy the machine is (the
// step and memory limits decide).
func patient(l Limits) Limits {
	if l.Timeout == 0 {
		l.Timeout = 5 * time.Minute
	}
	return l
}

func sameBothWays(t *testing.T, src string, limits Limits) string {
	t.Helper()
	fast := outcome(src, limits)
	var slow string
	withoutFastPaths(func() { slow = outcome(src, limits) })
	if fast != slow {
		t.Errorf("%s\n fast: %s\n slow: %s", src, fast, slow)
	}
	return fast
}

// fastPathPrograms exercise the typed paths, unboxed loop variables and the
// dynamic fast paths, and their fallbacks.
var fastPathPrograms = []string{
	// The workload and variants.
	`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`,
	`(loop [i 1000 acc 0] (if (> i 0) (recur (dec i) (- acc i)) acc))`,
	`(loop [i 0 acc 1] (if (<= i 20) (recur (inc i) (* acc 2)) acc))`,
	`(loop [i 0 acc 0] (if (>= i 10) acc (recur (+ i 1) (+ acc (* i i) (quot i 3) (rem i 4) (mod (- i) 5)))))`,
	`(loop [i 0 acc 0] (if (= i 10) acc (recur (inc i) (+ acc (abs (- 5 i)) (max i 3 7) (min i 2)))))`,
	`(loop [i 0 acc 0] (if (not= i 10) (recur (inc i) (+ acc i)) acc))`,
	`(loop [i 0 acc 0] (if (== i 10) acc (recur (inc i) (+ acc i))))`,
	`(loop [i 0 n 0] (if (< i 20) (recur (inc i) (if (even? i) n n)) n))`,
	`(loop [i 0 e 0 o 0 z 0 p 0 ng 0] (if (< i 10) (recur (inc i) (+ e (if (even? (- i 3)) 1 0)) (+ o (if (odd? i) 1 0)) (+ z (if (zero? (- i 4)) 1 0)) (+ p (if (pos? (- i 4)) 1 0)) (+ ng (if (neg? (- i 4)) 1 0))) [e o z p ng]))`,
	`(loop [i 0] (if (< i 5) (recur (inc i)) i))`,
	`(loop [i 0 j 10] (if (< i j) (recur (inc i) (dec j)) [i j]))`,
	`(loop [a 1 b (inc a) c (+ a b)] (if (< c 100) (recur b c (+ b c)) [a b c]))`,
	`(loop [i 0 acc (+)] (if (< i (*)) (recur (inc i) (+ acc (- i) (- 10 i 1))) acc))`,
	// Several recurs, recur in every tail position.
	`(loop [i 0 acc 0] (cond (> i 10) acc (even? i) (recur (inc i) (+ acc i)) :else (recur (inc i) acc)))`,
	`(loop [i 0 acc 0] (case i 0 (recur 1 5) 1 (recur 2 (* acc 3)) (let [x (inc i)] (if (> x 5) acc (recur x (+ acc x))))))`,
	`(loop [i 0] (when (< i 5) (recur (inc i))))`,
	`(loop [i 0] (and (< i 5) (recur (inc i))))`,
	`(loop [i 0] (or (> i 5) (recur (inc i))))`,
	`(loop [i 0] (if-let [x (when (< i 3) i)] (recur (inc x)) i))`,
	`(loop [i 0] (letfn [(f [x] (* 2 x))] (if (< i 100) (recur (inc (f i))) i)))`,
	`(loop [i 0] (condp = i 3 i (recur (inc i))))`,
	`(loop [i 0] (condp = i 3 :>> (fn [x] x) (recur (inc i))))`,
	// A binding that cannot stay unboxed: floats, other types, destructuring.
	`(loop [i 0 s 0] (if (< i 10) (recur (inc i) (+ s 0.5)) s))`,
	`(loop [x 0.0 i 0] (if (< i 10) (recur (+ x i) (inc i)) [x i]))`,
	`(loop [i 0 x 0] (if (< i 5) (recur (inc i) (if (even? i) x 1.5)) x))`,
	`(loop [[a b] [1 2] i 0] (if (< i 3) (recur [b a] (inc i)) [a b i]))`,
	`(loop [i 0 acc []] (if (< i 5) (recur (inc i) (conj acc i)) acc))`,
	`(loop [i 0 m {}] (if (< i 5) (recur (inc i) (assoc m i (* i i))) m))`,
	`(loop [i 0 s ""] (if (< i 5) (recur (inc i) (str s i)) s))`,
	`(loop [i 0 j nil] (if (< i 3) (recur (inc i) i) [i j]))`,
	`(loop [i 0 x 1 y 2 z 3 a 4 b 5 c 6 d 7 e 8 f 9] (if (< i 3) (recur (inc i) (inc x) (inc y) (inc z) (inc a) (inc b) (inc c) (inc d) (inc e) (inc f)) [i x y z a b c d e f]))`,
	// Generic reads, closures, lazy sequences, pmap over loop variables.
	`(loop [i 0 acc []] (if (< i 5) (recur (inc i) (conj acc (str i) (+ i 0.5) (:a {:a i}))) acc))`,
	`(loop [i 300 acc []] (if (< i 305) (recur (inc i) (conj acc (fn [] (* i i)))) (mapv #(%) acc)))`,
	`(loop [i 0 acc []] (if (< i 4) (recur (inc i) (conj acc #(+ % i))) (map #(% 10) acc)))`,
	`(loop [i 0 acc []] (if (< i 4) (recur (inc i) (conj acc (fn [] (* i i)))) (pmap #(%) acc)))`,
	`(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc (for [x (range)] (+ x i)))) (map #(take 3 %) acc)))`,
	`(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc (for [x [1 2] :when (> x i)] (* x i)))) acc))`,
	`(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc (count (filter (where :a > i) [{:a 1} {:a 2} {:a 3}])))) acc))`,
	`(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc (let [j i k (* j 2)] [j k]))) acc))`,
	`(loop [i 0] (if (< i 3) (do (println i (* i 1000)) (recur (inc i))) (str "done " i)))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) (:a i)))`,
	`(loop [i 0 acc 0] (if (< i 5) (recur (inc i) (+ acc (loop [j 0 s 0] (if (< j i) (recur (inc j) (+ s i j)) s)))) acc))`,
	`(loop [i 0 acc 0] (if (< i 5) (recur (inc i) (+ acc (reduce + (map (fn [x] (* x i)) (range i))))) acc))`,
	`(defn f [n] (loop [i 0 acc 0] (if (< i n) (recur (inc i) (+ acc (if (> n 1) (f (quot n 2)) 1))) acc))) (f 20)`,
	`(defn g [n acc] (if (zero? n) acc (recur (dec n) (+ acc n)))) (g 1000 0)`,
	`(loop [i 0 acc []] (if (< i 3) (recur (inc i) (into acc (for [j (range 3)] (loop [k 0] (if (< k j) (recur (inc k)) (+ k i)))))) acc))`,
	`(def r (loop [i 0] (if (< i 3) (recur (inc i)) i))) (+ r 1)`,
	`(dotimes [i 3] (println (* i 1000)))`,
	`(let [v (vec (range 10))] (loop [i 0 acc 0] (if (< i (count v)) (recur (inc i) (+ acc (nth v i))) acc)))`,
	// Arguments held by value (constants without a shared closure, (:k x))
	// and lets in bindings run as steps of the enclosing let, with errors.
	`(assoc {:a 1} :b 0.25 :c "s" :d {:x [1 2.5 "t"]} :e 12345 :f (:a {:a 2}))`,
	`(let [m {:a 1 :b 2.5}] [(get m :b 1.5) (get m :z "none") (get-in {:a {:b 3}} [:a :b]) (+ (:a m) 0.5) (* 2.5 (:b m)) (< (:a m) 3.5) (> 1.5 (:a m))])`,
	`(let [x {:price 3 :qty 2}] {:total (* (:price x) (:qty x)) :ratio 0.25 :meta {:k 1 :path [:a :b 1]} :s "x" :n (:qty x)})`,
	`(defn f [a b c d] [a b c d]) (f 1.5 "s" {:a [1.5]} (f 2.5 nil true 99999))`,
	`(let [a (let [b 1 c (let [d 2.5] (* d 2))] (+ b c)) e (let [f {:k 1.5}] (:k f))] [a e])`,
	`(let [[a b] (let [x [1 2]] x) {:keys [k]} (let [m {:k 3.5}] m)] (let [c (let [d a] (+ d b k))] c))`,
	`(let [a (let [b 1] (let [c 2] (let [d 3] (+ b c d))))] a)`,
	`(loop [i (let [j 1.5] (int j)) acc (let [m {:x 0.5}] (:x m))] (if (< i 4) (recur (inc i) (+ acc i)) acc))`,
	`(let [a (let [b "x"] (+ b 1))] a)`,
	`(let [a (let [b 1] (nth [1.5 2.5] b 0.5)) c (let [d (/ 1 0)] d)] [a c])`,
	`(let [x "str"] (+ (:a x) 2.5))`,
	`(let [x 1] (assoc x :a 0.5))`,
	`(let [x [1 2]] {:a (nth x 5) :b 0.5})`,
	`(let [f (fn [m] (let [a (let [b (:b m 0.5)] (* b 2))] (let [c (+ a 1.25)] [a c])))] (map f [{:b 1} {} {:b 2.5}]))`,
	// Shadowed builtins are ordinary calls.
	`(let [+ -] (+ 3 1))`,
	`(let [inc (fn [x] (* 2 x))] (loop [i 1] (if (< i 100) (recur (inc i)) i)))`,
	`(let [< >] (loop [i 10] (if (< i 0) (recur (dec i)) i)))`,
	`(let [zero? nil?] (loop [i 0] (if (zero? i) i (recur (dec i)))))`,
	`((fn [+ a b] (+ a b)) * 3 4)`,
	`(loop [inc 0 i 0] (if (< i 3) (recur (+ inc 2) (+ i 1)) inc))`,
	`(defn inc [x] 42) (inc 1)`,
	`(def < 5)`,
	`(loop [i 0] (let [dec inc] (if (< i 3) (recur (dec i)) i)))`,
	// Overflow at the boundaries.
	`(loop [i 9223372036854775805] (if (< i 0) :never (recur (inc i))))`,
	`(loop [i -9223372036854775806] (recur (dec i)))`,
	`(loop [i 0 acc 1] (if (< i 100) (recur (inc i) (* acc 3)) acc))`,
	`(loop [i 0 acc 9223372036854775800] (if (< i 10) (recur (inc i) (+ acc i)) acc))`,
	`(loop [i 0 acc -9223372036854775800] (if (< i 10) (recur (inc i) (- acc i)) acc))`,
	`(loop [i 0 acc -9223372036854775807] (if (< i 2) (recur (inc i) (- acc)) acc))`,
	`(loop [i 0 acc -9223372036854775807] (if (< i 2) (recur (inc i) (dec acc)) (abs acc)))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (quot (dec (- 0 9223372036854775807)) -1)) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (mod (dec (- 0 9223372036854775807)) -1)) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (rem (dec (- 0 9223372036854775807)) -1)) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (+ 9223372036854775807 i)) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (+ 9223372036854775000 1 i 1000)) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (* 4611686018427387904 2 i)) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (* i 4611686018427387904 2)) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (- -9223372036854775807 i 1)) acc))`,
	`(loop [i 0 acc 0] (if (< i 3) (recur (inc i) (quot 10 (- 1 i))) acc))`,
	`(loop [i 0 acc 0] (if (< i 3) (recur (inc i) (mod 10 (- 1 i))) acc))`,
	`(loop [i 0 acc 0] (if (< i 3) (recur (inc i) (rem 10 (- 1 i))) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (+ (inc 9223372036854775807) (quot 1 0))) acc))`,
	`(loop [i 0 acc 0] (if (< i 2) (recur (inc i) (+ (quot 1 0) (inc 9223372036854775807))) acc))`,
	`(+ 9223372036854775807 1)`, `(- -9223372036854775808 1)`, `(* 9223372036854775807 2)`,
	`(inc 9223372036854775807)`, `(dec -9223372036854775808)`, `(- -9223372036854775808)`,
	`(let [x 9223372036854775807] (+ x 1))`, `(let [x 9223372036854775807] (inc x))`,
	`(let [x -9223372036854775808] (dec x))`, `(let [x -9223372036854775808] (- x 1))`,
	`(let [x 3037000500] (* x x))`, `(let [x -1 y -9223372036854775808] (* x y))`,
	`(+ 9223372036854775807 -1)`, `(- 9223372036854775807 9223372036854775807)`,
	// Floats, mixed operands, nil and other types: the builtins decide.
	`(+ 1 2.5)`, `(- 1 2.5)`, `(* 2 1.5)`, `(inc 1.5)`, `(dec 1.5)`, `(+ 9223372036854775807 1.0)`,
	`(< 1 1.5)`, `(> 2.5 2)`, `(<= 1 1.0)`, `(>= 1 ##NaN)`, `(= 1 1.0)`, `(== 1 1.0)`, `(not= 1 1.0)`,
	`(zero? 0.0)`, `(zero? :a)`, `(zero? nil)`, `(even? 2.0)`, `(odd? 1.5)`, `(pos? "a")`,
	`(< "a" "b")`, `(< :a :b)`, `(< 1 "a")`, `(< "a" 1)`, `(= :a :a)`, `(= "a" 1)`, `(= nil nil)`,
	`(+ nil 1)`, `(+ 1 nil)`, `(- nil)`, `(inc nil)`, `(dec "a")`, `(* 2 :k)`, `(< nil 1)`, `(< 1 nil)`,
	`(let [x nil] (+ x 1))`, `(let [x nil] (if (< x 1) :a :b))`, `(let [x 1.5] (if (< x 1) :a :b))`,
	`(loop [i 0 x nil] (if (< i 3) (recur (inc i) (+ i x)) x))`,
	`(loop [i 0] (if (< i nil) 1 2))`,
	`(loop [i 0] (if (< i "a") 1 2))`,
	`(loop [i 0] (if (< i 3) (recur (+ i nil)) i))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) (+ i :k)))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) (+ i 0.5)))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) (< i 2.5)))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) (= i 3.0)))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) [(= i 3) (== i 3) (not= i 3) (zero? i) (pos? i) (neg? i) (even? i) (odd? i)]))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) (quot i 0)))`,
	`(loop [i 0] (if (< i 3) (recur (inc i)) (/ i 2)))`,
	`(mod 7 -2)`, `(rem -7 2)`, `(quot -7 2)`, `(mod -7 2)`, `(mod 7 0)`, `(quot 7.5 2)`,
	`(max 1 2.5)`, `(min 1 1.0)`, `(max 3)`, `(abs -5)`, `(abs -5.5)`, `(abs nil)`,
	`(+ 1 2 3 4 5 6 7 8 9 10)`, `(- 10 1 2 3)`, `(* 1 2 3 4)`, `(+)`, `(*)`, `(- 5)`,
	`(inc)`, `(+ 1 2 3 4 5 6 7 8 9 10 (inc 9223372036854775807))`,
	// Calls of constants, folded when compiled unless they fail.
	`(+ (* 3 4) (- 10 2) (quot 17 5) (rem -17 5) (mod -17 5) (abs -9) (max 1 9 3) (min 4 2 8) (inc 41) (dec 0))`,
	`(* 1000 1000)`, `(- 5 1024)`, `(+ 1023 1)`, `(- -64 1)`, `(max 5)`, `(min -3)`, `(- (- 7))`, `(abs (- 0 3))`,
	`(+ (inc 9223372036854775806) 0)`, `(+ (inc 9223372036854775806) 1)`, `(abs -9223372036854775808)`,
	`(quot -9223372036854775808 -1)`, `(rem -9223372036854775808 -1)`, `(mod -9223372036854775808 -1)`,
	`(quot 1 (- 2 2))`, `(rem 1 (* 0 5))`, `(mod 7 (dec 1))`, `(* -1 -9223372036854775808)`, `(* 3037000500 3037000500)`,
	`(max 1 (inc 9223372036854775807))`, `(+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 (+ 1 1)))))))))))))))))))`,
	`(loop [i 0] (if (< i (* 10 10)) (recur (+ i (- 3 2))) i))`,
	`(loop [i 0 acc 0] (if (< i (inc 9)) (recur (inc i) (+ acc (* 2 3) i)) acc))`,
	`(if (< (* 2 3) (+ 1 2)) :a :b)`, `[(= (+ 1 1) 2) (zero? (- 3 3)) (even? (* 3 5))]`,
	`(let [x 5] (+ x (* 2 3)))`, `(let [x 5] (- (quot 9 0) x))`,
	// The builtins themselves, on values the compiler cannot type.
	`(apply - [10 2.5 1])`, `(apply - [10.5 2 1])`, `(apply - [1 2 3 nil])`, `(apply - [9223372036854775807 -1 1])`,
	`(apply - [-9223372036854775807 2 1])`, `(apply - [5])`, `(apply - [-9223372036854775808])`, `(apply - [])`,
	`(apply - [1.5 nil])`, `(apply - [nil 1])`, `(apply + [1 2 300000])`, `(apply * [70000 70000 2])`,
	`(apply + [9223372036854775807 1])`, `(apply * [4611686018427387904 2])`, `(apply + [1 2.5 3])`,
	`(map inc [1 255 256 65535 65536 -1025 -1024])`, `(map dec [1 0 -1024 -1025 -1023])`,
	`(map #(quot % 7) [70000 -70000 7])`, `(map #(mod % -7) [70000 -70000 7])`, `(map #(rem % 7) [70000 -70000])`,
	`(reduce + (range 100000))`, `(reduce - 0 (range 1000))`, `(reduce * 1 (range 1 20))`,
	`(let [v [3 1.5 nil]] [(+ (v 0) (v 1)) (- (v 0) (v 1)) (* (v 0) 2) (< (v 0) (v 1)) (inc (v 1)) (zero? (v 2))])`,
}

func TestFastPathsBehaveAsBuiltins(t *testing.T) {
	for _, src := range fastPathPrograms {
		sameBothWays(t, src, Limits{})
	}
}

// TestFastPathValues pins the results of the main cases.
func TestFastPathValues(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`, "value=499500"},
		{`(let [+ -] (+ 3 1))`, "value=2"},
		{`((fn [+ a b] (+ a b)) * 3 4)`, "value=12"},
		{`(let [inc (fn [x] (* 2 x))] (loop [i 1] (if (< i 100) (recur (inc i)) i)))`, "value=128"},
		{`(let [< >] (loop [i 10] (if (< i 0) (recur (dec i)) i)))`, "value=0"},
		{`(defn inc [x] 42) (inc 1)`, "value=42"},
		{`(defn inc [x] (* 2 x)) (loop [i 1] (if (< i 100) (recur (inc i)) i))`, "value=128"},
		{`(defn < [a b] (> a b)) (loop [i 10] (if (< i 0) (recur (dec i)) i))`, "value=0"},
		{`(loop [i 9223372036854775805] (if (< i 0) :never (recur (inc i))))`,
			"error=arithmetic_error|integer overflow in inc: the result does not fit 64 bits (+' -' *' inc' dec' give a BigInt instead, e.g. (*' a b); or use floats, e.g. 1.0)|1:57"},
		{`(let [x 9223372036854775807] (+ x 1))`, "error=arithmetic_error|integer overflow in +"},
		{`(loop [i 0 acc 9223372036854775800] (if (< i 10) (recur (inc i) (+ acc i)) acc))`, "error=arithmetic_error|integer overflow in +"},
		{`(loop [i 0 s 0] (if (< i 10) (recur (inc i) (+ s 0.5)) s))`, "value=5.0"},
		{`(loop [i 0] (if (< i nil) 1 2))`, "error=type_error|< compares numbers (or two strings), got nil as argument 2|1:17"},
		{`(loop [i 0] (if (< i 3) (recur (+ i nil)) i))`, "error=type_error|+ expects a number as argument 2, got nil|1:32"},
		{`(loop [i 300 acc []] (if (< i 305) (recur (inc i) (conj acc (fn [] (* i i)))) (mapv #(%) acc)))`, "value=[90000 90601 91204 91809 92416]"},
		{`(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc (for [x (range)] (+ x i)))) (map #(take 3 %) acc)))`, "value=[[0 1 2] [1 2 3] [2 3 4]]"},
	} {
		got := sameBothWays(t, tc.src, Limits{})
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestFastPathLimits checks that the step and loop limits trip exactly
// where they did: the steps of a run and the limit's error are the same
// with and without the fast paths, and the counts are those of the
// interpreter before them.
func TestFastPathLimits(t *testing.T) {
	if !accounting {
		t.Skip("steps and memory are not counted in this build (ptc_nolimits)")
	}
	const w5 = `(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc i)) acc))`
	if got := sameBothWays(t, w5, Limits{}); !strings.Contains(got, "steps=1000 ") {
		t.Errorf("W5: %s, want 1000 steps", got)
	}
	// The step limit is checked every checkInterval steps: a loop of n
	// iterations fails under MaxSteps = n-checkInterval and succeeds
	// under MaxSteps = n.
	long := `(loop [i 0 acc 0] (if (< i 50000) (recur (inc i) (+ acc i)) acc))`
	if got := sameBothWays(t, long, Limits{MaxSteps: 50_000}); !strings.Contains(got, "value=1249975000 ") || !strings.Contains(got, "steps=50000 ") {
		t.Errorf("50,000 steps allowed: %s", got)
	}
	got := sameBothWays(t, long, Limits{MaxSteps: 50_000 - checkInterval})
	if !strings.Contains(got, "error=step_limit_exceeded") || !strings.Contains(got, "steps=49152 ") {
		t.Errorf("48,976 steps allowed: %s", got)
	}
	for _, n := range []int{1, 2, 999, 1000, 1001} {
		limits := Limits{MaxLoopIterations: n}
		got := sameBothWays(t, w5, limits)
		if ok := strings.Contains(got, "value=499500 "); ok != (n >= 1000) {
			t.Errorf("MaxLoopIterations %d: %s", n, got)
		}
		if n < 1000 && !strings.Contains(got, fmt.Sprintf("error=loop_limit_exceeded|loop exceeded %d iterations", n)) {
			t.Errorf("MaxLoopIterations %d: %s", n, got)
		}
	}
	// A run that builds data is charged the same: the memory limit trips
	// at the same size.
	build := `(loop [i 0 acc []] (if (< i 20000) (recur (inc i) (conj acc (+ i 70000))) (count acc)))`
	for _, mem := range []int64{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20} {
		sameBothWays(t, build, Limits{MaxMemory: mem})
	}
	for _, src := range fastPathPrograms {
		for _, n := range []int{1, 3} {
			sameBothWays(t, src, Limits{MaxLoopIterations: n})
		}
		sameBothWays(t, src, Limits{MaxSteps: 2})
	}
}

// TestFastPathAllocations checks that a loop over unboxed integers
// allocates nothing per iteration.
func TestFastPathAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under the race detector")
	}
	allocs := func(n int) float64 {
		p, err := Compile(fmt.Sprintf(`(loop [i 0 acc 0] (if (< i %d) (recur (inc i) (+ acc i)) acc))`, n))
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Limits: Limits{Timeout: -1}}
		return testing.AllocsPerRun(20, func() {
			if _, err := p.Run(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(1000), allocs(21000)
	if per := (large - small) / 20000; per > 0.001 {
		t.Errorf("%.3f allocations per iteration (%v for 1,000 iterations, %v for 21,000)", per, small, large)
	}
}

// TestFoldedConstantsAllocateNothing checks that compiling a call of
// small integer constants builds no closure: it is folded into one made
// at init (W1, an agent's shortest program, is such a call).
func TestFoldedConstantsAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under the race detector")
	}
	for _, src := range []string{`(+ 1 2)`, `(* (inc 3) (- 10 4))`, `(max 1 2 3)`, `nil`, `true`, `1023`} {
		forms, err := syntax.Read(src)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := analyze.Analyze(src, forms, analyzeConfig)
		if err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(20, func() {
			c := compiler{src: src}
			c.expr(ap.Body)
		})
		if n != 0 {
			t.Errorf("%s: %v allocations to compile, want 0", src, n)
		}
	}
}

// TestBoxInt checks the table of boxed small integers.
func TestBoxInt(t *testing.T) {
	for _, i := range []int64{minSmallInt - 1, minSmallInt, -1, 0, 1, 255, 256, 1000, maxSmallInt, maxSmallInt + 1, 1 << 40, -1 << 40} {
		v := boxInt(i)
		if x, ok := v.(int64); !ok || x != i || v != Value(i) {
			t.Errorf("boxInt(%d) = %#v", i, v)
		}
	}
	if testing.AllocsPerRun(10, func() { _ = boxInt(maxSmallInt) }) != 0 {
		t.Error("boxInt allocates for a small integer")
	}
}

// TestUnboxedCellsDoNotLeak checks that closures, lazy sequences and
// concurrent branches see the values of their iteration.
func TestUnboxedCellsDoNotLeak(t *testing.T) {
	src := `(loop [i 0 acc []]
	          (if (< i 200)
	            (recur (inc i) (conj acc (fn [] (* i 1000)) (for [x (range)] (+ x i))))
	            (pmap (fn [f] (if (fn? f) (f) (first (drop 5 f)))) acc)))`
	res, err := Run(context.Background(), src, Options{Limits: patient(Limits{})})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Value.(*Vector)
	for i := 0; i < 200; i++ {
		if a, b := v.At(2*i), v.At(2*i+1); a != int64(i*1000) || b != int64(i+5) {
			t.Fatalf("iteration %d: %v %v", i, a, b)
		}
	}
}

// corpusPrograms gathers the programs of the language tests, the
// differential corpus and the shared conformance vectors.
func corpusPrograms(t *testing.T) []string {
	var out []string
	files, _ := filepath.Glob("testdata/lang/*.txt")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var prog []string
		in := false
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(line, "=== "):
				in, prog = true, nil
			case in && strings.HasPrefix(line, "--- "):
				in = false
				out = append(out, strings.Join(prog, "\n"))
			case in:
				prog = append(prog, line)
			}
		}
	}
	if data, err := os.ReadFile("difftest/testdata/corpus.edn"); err == nil {
		for _, m := range regexp.MustCompile(`:src ("(?:\\.|[^"\\])*")`).FindAllStringSubmatch(string(data), -1) {
			if s, err := strconv.Unquote(m[1]); err == nil {
				out = append(out, s)
			}
		}
	}
	if p, ok := shared.Path("conformance", "dev.jsonl"); ok {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			var v struct{ Program string }
			if json.Unmarshal([]byte(line), &v) == nil && v.Program != "" {
				out = append(out, v.Program)
			}
		}
	}
	return out
}

// TestFastPathsOnCorpora runs every program of the test corpora with and
// without the fast paths: values, errors, positions, output and steps
// must be the same.
func TestFastPathsOnCorpora(t *testing.T) {
	if !accounting {
		t.Skip("the corpora hold programs that only the limits stop (ptc_nolimits build)")
	}
	progs := corpusPrograms(t)
	if len(progs) < 1000 {
		t.Fatalf("only %d programs found", len(progs))
	}
	t.Logf("%d programs", len(progs))
	limits := patient(Limits{MaxSteps: 1_000_000})
	for _, src := range progs {
		fast := outcome(src, limits)
		var slow string
		withoutFastPaths(func() { slow = outcome(src, limits) })
		if fast == slow || strings.Contains(fast+slow, "error=timeout") {
			continue // a timeout depends on the machine's load
		}
		// Under pmap and pcalls, a swap! that loses a race runs its
		// function again (as Clojure does), and that evaluation counts in
		// steps: the step count of such a program depends on the
		// scheduler, everything else must not.
		if parallelForm.MatchString(src) && withoutSteps(fast) == withoutSteps(slow) {
			continue
		}
		// A program whose outcome changes from run to run (the clock,
		// random numbers, the order of pmap branches) is not a difference
		// when some run without the fast paths agrees with one with them.
		seen := map[string]bool{fast: true}
		for range 4 {
			seen[outcome(src, limits)] = true
		}
		agree := false
		for range 5 {
			withoutFastPaths(func() { slow = outcome(src, limits) })
			agree = agree || seen[slow]
		}
		if agree {
			continue
		}
		t.Errorf("%s\n fast: %s\n slow: %s", src, fast, slow)
	}
}

// TestFastPathsRandomLoops compares random integer loops with and without
// the fast paths: operands at the overflow boundaries, floats, nil,
// comparisons, nested loops and closures over the loop variables.
func TestFastPathsRandomLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	consts := []string{"0", "1", "-1", "2", "3", "7", "255", "256", "1000", "65535", "65536", "-1024", "-1025",
		"9223372036854775807", "-9223372036854775808", "9223372036854775806", "4611686018427387904",
		"1.5", "-0.5", "nil", ":k", `"s"`, "##NaN"}
	vars := []string{"a", "b", "c"}
	var expr func(depth int) string
	test := func(depth int) string {
		switch rng.IntN(3) {
		case 0:
			ops := []string{"<", "<=", ">", ">=", "=", "==", "not="}
			return "(" + ops[rng.IntN(len(ops))] + " " + expr(depth+1) + " " + expr(depth+1) + ")"
		case 1:
			ops := []string{"zero?", "pos?", "neg?", "even?", "odd?"}
			return "(" + ops[rng.IntN(len(ops))] + " " + expr(depth+1) + ")"
		}
		return "(< " + vars[rng.IntN(3)] + " " + consts[rng.IntN(8)] + ")"
	}
	expr = func(depth int) string {
		if depth > 3 || rng.IntN(3) == 0 {
			if rng.IntN(2) == 0 {
				return vars[rng.IntN(3)]
			}
			if rng.IntN(4) == 0 {
				return consts[rng.IntN(len(consts))]
			}
			return consts[rng.IntN(13)]
		}
		switch rng.IntN(12) {
		case 0, 1, 2:
			ops := []string{"+", "-", "*"}
			n := 1 + rng.IntN(3)
			args := make([]string, n)
			for i := range args {
				args[i] = expr(depth + 1)
			}
			return "(" + ops[rng.IntN(3)] + " " + strings.Join(args, " ") + ")"
		case 3:
			ops := []string{"inc", "dec", "abs"}
			return "(" + ops[rng.IntN(3)] + " " + expr(depth+1) + ")"
		case 4:
			ops := []string{"quot", "rem", "mod", "max", "min"}
			return "(" + ops[rng.IntN(5)] + " " + expr(depth+1) + " " + expr(depth+1) + ")"
		case 5:
			return "(if " + test(depth+1) + " " + expr(depth+1) + " " + expr(depth+1) + ")"
		case 6:
			return "(let [x " + expr(depth+1) + "] (+ x " + expr(depth+1) + "))"
		case 7:
			return "((fn [] " + expr(depth+1) + "))"
		case 8:
			return "(count (str " + expr(depth+1) + "))"
		case 9:
			return "(loop [d 0 e " + expr(depth+1) + "] (if (< d 3) (recur (inc d) (+ e d)) e))"
		case 10:
			return "(first (for [y [1 2]] (+ y " + expr(depth+1) + ")))"
		}
		return test(depth)
	}
	limits := patient(Limits{MaxLoopIterations: 40, MaxSteps: 100_000})
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		src := fmt.Sprintf("(loop [a %s b %s c %s] (if %s (recur %s %s %s) [a b c]))",
			consts[rng.IntN(13)], expr(2), consts[rng.IntN(13)], test(0), expr(0), expr(0), expr(0))
		sameBothWays(t, src, limits)
	}
}

// A call of one or two arguments evaluates an argument (:k x) itself (see
// callArg): values, errors with their positions, notes and steps are those
// of the same call of a local bound to (:k x).
func TestKeywordArgs(t *testing.T) {
	for _, tc := range []struct{ x, call, bound string }{
		{`{:tags [1 2]}`, `(count (:tags x))`, `(count v)`},
		{`5`, `(count (:tags x))`, `(count v)`},
		{`[{:tags 1}]`, `(count (:tags x))`, `(count v)`},
		{`{:a 3}`, `(* (:a x) 2)`, `(* v 2)`},
		{`[1 2]`, `(* (:a x) 2)`, `(* v 2)`},
		{`{:a 3.5}`, `(- 1 (:a x))`, `(- 1 v)`},
		{`{:a 3}`, `(if (> (:a x) 2) :big :small)`, `(if (> v 2) :big :small)`},
		{`{:a "s"}`, `(if (< 1 (:a x)) :big :small)`, `(if (< 1 v) :big :small)`},
		{`{:a 9223372036854775807}`, `(+ (:a x) 1)`, `(+ v 1)`},
		{`{:a [1 2 3]}`, `(nth (:a x) 1)`, `(nth v 1)`},
		{`{:a [1 2 3]}`, `(nth (:a x) 7)`, `(nth v 7)`},
		{`[{:a 1}]`, `(str (:a x) (:a x))`, `(str v v)`},
	} {
		// Both forms put the call at the same position (nil is padded).
		k := ":a"
		if strings.Contains(tc.call, ":tags") {
			k = ":tags"
		}
		init := "(" + k + " x)"
		fused := fmt.Sprintf(`(let [x %s v %-*s] %s)`, tc.x, len(init), "nil", tc.call)
		bound := fmt.Sprintf(`(let [x %s v %s] %s)`, tc.x, init, tc.bound)
		r1, err1 := Run(context.Background(), fused, Options{Limits: Limits{Timeout: 5 * time.Minute}})
		r2, err2 := Run(context.Background(), bound, Options{Limits: Limits{Timeout: 5 * time.Minute}})
		var e1, e2 *Error
		errors.As(err1, &e1)
		errors.As(err2, &e2)
		if (e1 == nil) != (e2 == nil) || e1 != nil && (e1.Kind != e2.Kind || e1.Message != e2.Message || e1.Pos != e2.Pos) {
			t.Errorf("%s: error %v; %s: %v", fused, err1, bound, err2)
			continue
		}
		if strings.HasPrefix(tc.x, "[{") && len(r1.Notes) == 0 {
			t.Errorf("%s: no note of the keyword read on a vector of maps", fused)
		}
		if !Equal(r1.Value, r2.Value) || !slices.Equal(r1.Notes, r2.Notes) || r1.Steps != r2.Steps {
			t.Errorf("%s: %v notes %q; %s: %v notes %q", fused, r1.Value, r1.Notes, bound, r2.Value, r2.Notes)
		}
	}
}
