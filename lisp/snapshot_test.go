package lisp_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/conformance"
	"github.com/ptc-go/ptc/lisp/difftest"
)

// TestBehaviourSnapshot writes what every known program does to the file
// $PTC_SNAPSHOT: the conformance vectors (when ../shared is there), the
// Clojure corpus, every language test and W1–W6, each under four sets of
// limits, one line per run with its value, status, steps, tool calls,
// output and error (kind, position, message). Two commits' snapshots,
// compared by bench/behaviour-diff, show whether a change of the
// interpreter's internals changed anything a program can see. Without
// $PTC_SNAPSHOT the test skips: it is a tool, and the language tests and
// the conformance tests already check the expected answers.
func TestBehaviourSnapshot(t *testing.T) {
	out := os.Getenv("PTC_SNAPSHOT")
	if out == "" {
		t.Skip("PTC_SNAPSHOT is not set: bench/behaviour-diff sets it to write a snapshot")
	}
	type program struct {
		id, src string
		input   *lisp.Map
	}
	var progs []program
	readCtx := func(text string, format lisp.ReadFormat) *lisp.Map {
		v, err := lisp.Read(text, lisp.ReadOptions{Format: format})
		if err != nil {
			t.Fatalf("context %.40q: %v", text, err)
		}
		m, _ := v.(*lisp.Map)
		return m
	}
	if p, ok := shared.Path("conformance", "dev.jsonl"); ok {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := conformance.Load(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			pr := program{id: "conformance:" + v.ID, src: v.Program}
			switch {
			case v.ContextEDN != "":
				pr.input = readCtx(v.ContextEDN, lisp.ReadEDN)
			case len(v.Context) > 0:
				pr.input = readCtx(string(v.Context), lisp.ReadJSON)
			}
			progs = append(progs, pr)
		}
	}
	corpus, err := difftest.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range corpus {
		progs = append(progs, program{id: e.ID, src: e.Src})
	}
	for _, c := range loadLangCases(t) {
		pr := program{id: "lang:" + c.file + ":" + c.name, src: c.program}
		if c.ctx != "" {
			pr.input = readCtx(c.ctx, lisp.ReadEDN)
		}
		progs = append(progs, pr)
	}
	var orders *lisp.Map
	if p, ok := shared.Path("bench", "orders.json"); ok {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		orders = readCtx(string(data), lisp.ReadJSON)
	}
	for i := 1; i <= 6; i++ {
		p, ok := shared.Path("bench", fmt.Sprintf("w%d.ptc", i))
		if !ok {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pr := program{id: fmt.Sprintf("bench:w%d", i), src: string(src)}
		if i >= 2 && i <= 4 {
			pr.input = orders
		}
		progs = append(progs, pr)
	}
	// A generous clock, so that no run ends on time, which would depend on
	// the machine; the other limits are met by many programs. pmap and
	// pcalls branches run in turn (MaxParallel 1): branches that retry
	// swap! or dosync under contention take a varying number of steps.
	limits := []lisp.Limits{
		{Timeout: time.Minute, MaxParallel: 1},
		{Timeout: time.Minute, MaxParallel: 1, MaxSteps: 2000},
		{Timeout: time.Minute, MaxParallel: 1, MaxMemory: 32 << 10},
		{Timeout: time.Minute, MaxParallel: 1, MaxDepth: 40, MaxLoopIterations: 200, MaxOutputBytes: 200},
	}
	var b strings.Builder
	for _, p := range progs {
		for li, l := range limits {
			opts := lisp.Options{Limits: l}
			if p.input != nil {
				opts.Input = p.input
			}
			res, err := lisp.Run(context.Background(), p.src, opts)
			fmt.Fprintf(&b, "%s limits#%d", p.id, li)
			if err != nil {
				var le *lisp.Error
				if errors.As(err, &le) {
					fmt.Fprintf(&b, " error %s", le.Kind)
				}
				fmt.Fprintf(&b, " %q", err.Error())
			}
			v := lisp.Print(res.Value, lisp.PrintOptions{})
			if len(v) > 300 {
				v = fmt.Sprintf("%.200s… sha256:%x", v, sha256.Sum256([]byte(v)))
			}
			fmt.Fprintf(&b, " %s %q steps=%d tools=%d out=%q\n", res.Status, v, res.Steps, res.ToolCalls, strings.Join(res.Output, "\n"))
		}
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d programs, %d runs: %s", len(progs), len(progs)*len(limits), out)
}
