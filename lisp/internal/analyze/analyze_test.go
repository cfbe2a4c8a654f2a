package analyze

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// TestLargeProgram checks that nodes handed out in chunks never overwrite
// each other: a program with thousands of nodes, and argument lists longer
// than a chunk.
func TestLargeProgram(t *testing.T) {
	var src, want strings.Builder
	want.WriteString("(do")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&src, "(let [x%d %d] (if (= x%d %d) [x%d :k%d \"s%d\"] (inc x%d)))\n", i, i, i, i, i, i, i, i)
		fmt.Fprintf(&want, ` (let [x%d@0 %d] (if (= x%d@0 %d) [x%d@0 :k%d "s%d"] (inc x%d@0)))`, i, i, i, i, i, i, i, i)
	}
	src.WriteString("[")
	want.WriteString(" [")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&src, " (+ %d %d)", i, i+1)
		if i > 0 {
			want.WriteByte(' ')
		}
		fmt.Fprintf(&want, "(+ %d %d)", i, i+1)
	}
	src.WriteString("]")
	want.WriteString("])")
	p := mustAnalyze(t, src.String())
	if got := dump(p.Body); got != want.String() {
		t.Errorf("large program differs:\n got: %.300s...\nwant: %.300s...", got, want.String())
	}
}

// TestFormsUnchanged checks that Analyze does not modify the forms it reads
// (threading macros and #() build new forms).
func TestFormsUnchanged(t *testing.T) {
	src := `(->> ctx/xs (map #(+ % 1)) (filter even?)) (-> 1 inc (+ 2)) (some-> {:a 1} :a) (cond-> 1 true inc) #(do %&)`
	forms := read(t, src)
	var before []string
	for _, f := range forms {
		before = append(before, syntax.Format(f))
	}
	mustAnalyzeForms(t, src, forms)
	for i, f := range forms {
		if got := syntax.Format(f); got != before[i] {
			t.Errorf("form %d changed: %s, was %s", i, got, before[i])
		}
	}
}

func mustAnalyzeForms(t *testing.T, src string, forms []syntax.Node) *Program {
	t.Helper()
	p, err := Analyze(src, forms, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConcurrentAnalyze analyzes the same forms from several goroutines (run
// with -race): analyses share nothing but their input.
func TestConcurrentAnalyze(t *testing.T) {
	src := `(defn f [x & r] (let [{:keys [a] :or {a 1}} x] (->> r (map #(+ % a)) (filter even?))))
		(loop [i 0] (if (< i 3) (recur (inc i)) (f {:a i} 1 2)))`
	forms := read(t, src)
	want := dump(mustAnalyzeForms(t, src, forms).Body)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				p, err := Analyze(src, forms, testConfig())
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := dump(p.Body); got != want {
					errs <- got
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent analysis differs: %s", e)
	}
}

// TestPlaceholderLikeNames: only %, %& and %N are placeholders.
func TestPlaceholderLikeNames(t *testing.T) {
	tests := []struct{ src, want string }{
		{`%a`, `$%a`},
		{`#(foo/bar %)`, ``}, // error: unknown namespace, but % is still a parameter
		{`#(vector %a %)`, `(fn ([%1@0] n=1 (vector $%a %@0)))`},
		{`#(vector '[1 2] %)`, `(fn ([%1@0] n=1 (vector [1 2] %@0)))`},
		{`#(vector {:a %2} #{%1})`, `(fn ([%1@0 %2@1] n=2 (vector {:a %2@1} #{%1@0})))`},
	}
	for _, tt := range tests {
		p, err := analyzeSrc(t, tt.src, testConfig())
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), "unknown namespace foo/") {
				t.Errorf("Analyze(%q): error %v", tt.src, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Analyze(%q): %v", tt.src, err)
			continue
		}
		if got := dump(p.Body); got != tt.want {
			t.Errorf("Analyze(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}
