package lisp

import (
	"fmt"
	"strings"
	"testing"
)

// A map literal of constant keys and computed values (literalKeys,
// shapedMapLit) builds the map its constant twin builds (constMap, checked
// against mapFromLiteral): same entries, same order, the first of
// duplicate keys kept.
func TestShapedMapMatchesConstant(t *testing.T) {
	many := func(n int, key func(i int) string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s %d ", key(i), i)
		}
		return b.String()
	}
	for _, entries := range []string{
		`:b 1 :a 2`,
		`:p 1 :q 2 :r 3`,
		`:id 1 :name 2 :price 3 :qty 4 :tags 5`,
		`:a 1 :a 2`,
		`:b 1 :a 2 :b 3 :c 4 :a 5`,
		`:a/b 1 :a 2 :ab 3 :a.b 4 :b/a 5 :aa 6 :A 7 :_ 8 :a-b 9`,
		`"b" 1 :b 2 "a" 3 :a 4 1 5 2.5 6 nil 7 true 8 [1] 9 \x 10 sym 11`,
		`:a 1 "a" 2 :a 3`,
		`:abcdefgh 1 :abcdefghi 2 :abcdefg 3 :abcdefghij 4 :abcdefgg 5 :abcdefgi 6`,
		many(16, func(i int) string { return fmt.Sprintf(":k%d", 15-i) }),
		many(17, func(i int) string { return fmt.Sprintf(":k%d", i*7%17) }),
		many(40, func(i int) string { return fmt.Sprintf(":k%d", i%23) }),
		many(16, func(i int) string { return fmt.Sprintf(":k%d", i%5) }),
	} {
		constant := "{" + strings.ReplaceAll(entries, " sym ", " 'sym ") + "}"
		// The same entries, each value computed.
		fields := strings.Fields(strings.ReplaceAll(entries, " sym ", " 'sym "))
		for i := 1; i < len(fields); i += 2 {
			fields[i] = "(identity " + fields[i] + ")"
		}
		computed := "{" + strings.Join(fields, " ") + "}"
		src := fmt.Sprintf(`(let [a %s b %s] [(= a b) (count a) (count b) (pr-str a) (pr-str b) (pr-str (keys a)) (pr-str (keys b))])`, constant, computed)
		out := sameBothWays(t, src, Limits{})
		var want string
		res := outcome(fmt.Sprintf(`(let [a %s] [true (count a) (count a) (pr-str a) (pr-str a) (pr-str (keys a)) (pr-str (keys a))])`, constant), Limits{})
		want = withoutSteps(res)
		if got := withoutSteps(out); got != want {
			t.Errorf("%s:\n got %s\nwant %s", entries, got, want)
		}
	}
}
