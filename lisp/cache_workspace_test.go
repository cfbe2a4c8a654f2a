package lisp

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestCacheSpareWorkspaces checks that a Cache keeps at most
// maxSpareWorkspaces workspaces however many misses ran at once, and that
// a hostile text's compilation leaves them reusable.
func TestCacheSpareWorkspaces(t *testing.T) {
	c := new(Cache)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				src := "(let [x " + strconv.Itoa(g*1000+i) + "] (loop [i 0] (if (< i x) (recur (inc i)) [x i])))"
				if _, _, err := c.Compile(context.Background(), src); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	huge := strings.Repeat("(f :k sym \"str\" [1 2] {:a 1}) ", maxSourceBytes/31)
	c.Compile(context.Background(), huge) // unbound f: an error, after reading all of it
	p, _, err := c.Compile(context.Background(), "(loop [i 0] (if (< i 3) (recur (inc i)) i))")
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	n := len(c.spare)
	c.mu.Unlock()
	if n == 0 || n > maxSpareWorkspaces {
		t.Fatalf("the cache keeps %d workspaces, want 1 to %d", n, maxSpareWorkspaces)
	}
	res, err := p.Run(t.Context(), Options{})
	if err != nil || printString(res.Value) != "3" {
		t.Fatalf("got %v, %v", res, err)
	}
}
