package lisp_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// The scaling benchmarks run W2, W3 and W4 over contexts of 1k to 1M
// orders, shaped as the shared bench's (id, amount = id*37 mod 500,
// status, customer = "c" + id mod 100), beside plain Go over the same rows
// decoded by encoding/json into []map[string]any. The figure to read is
// ns/row: a linear implementation keeps it flat as the rows grow.
//
//	go test -run '^$' -bench Scale -benchmem ./lisp/
//	go test -run '^$' -bench 'Scale/W2/.*/rows=1M' -benchtime 5x ./lisp/

var scaleSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}}

var scalePrograms = map[string]string{
	"W2": `(->> ctx/orders (filter (where :amount > 100)) (sum-by :amount))`,
	"W3": `(->> ctx/orders (group-by :customer) (map (fn [[k v]] {:customer k :total (sum-by :amount v) :n (count v)})) (sort-by :total >) (take 5))`,
	"W4": `(reduce (fn [acc o] (assoc acc (:id o) (:amount o))) {} ctx/orders)`,
}

// ordersJSON is the context document {"orders": [...]} of n rows.
func ordersJSON(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"orders": [`)
	statuses := []string{"open", "closed", "pending"}
	for id := range n {
		if id > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"id": %d, "amount": %d, "status": %q, "customer": "c%d"}`, id, id*37%500, statuses[id%3], id%100)
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

// scaleLimits lift the time, step and memory limits, which a 1M-row run
// would hit; the accounting still runs.
var scaleLimits = lisp.Limits{Timeout: -1, MaxSteps: -1, MaxMemory: -1, MaxLoopIterations: -1}

func BenchmarkScale(b *testing.B) {
	// Each size's document is made when a benchmark first needs it.
	docs := map[int]func() []byte{}
	for _, size := range scaleSizes {
		docs[size.n] = sync.OnceValue(func() []byte { return ordersJSON(size.n) })
	}
	for _, w := range []string{"W2", "W3", "W4"} {
		for _, size := range scaleSizes {
			b.Run(w+"/ptc/rows="+size.name, func(b *testing.B) {
				data := docs[size.n]()
				// The context's memory: what Read (JSON) leaves on the heap.
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				v, err := lisp.Read(string(data), lisp.ReadOptions{Format: lisp.ReadJSON})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				ctxBytes := float64(after.HeapAlloc) - float64(before.HeapAlloc)
				prog, err := lisp.Compile(scalePrograms[w])
				if err != nil {
					b.Fatal(err)
				}
				opts := lisp.Options{Input: v.(*lisp.Map), Limits: scaleLimits}
				bg := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := prog.Run(bg, opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size.n), "ns/row")
				b.ReportMetric(ctxBytes/float64(size.n), "ctx-B/row")
			})
			b.Run(w+"/go/rows="+size.name, func(b *testing.B) {
				data := docs[size.n]()
				var doc struct {
					Orders []map[string]any `json:"orders"`
				}
				if err := json.Unmarshal(data, &doc); err != nil {
					b.Fatal(err)
				}
				run := goWorkloads[w]
				b.ReportAllocs()
				for b.Loop() {
					run(doc.Orders)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size.n), "ns/row")
			})
		}
	}
}

// scaleGroup is a row of W3's answer.
type scaleGroup struct {
	customer string
	total    float64
	n        int
}

// goWorkloads are W2–W4 written in plain Go over decoded JSON rows.
var goWorkloads = map[string]func([]map[string]any) any{
	"W2": func(rows []map[string]any) any {
		sum := 0.0
		for _, r := range rows {
			if a := r["amount"].(float64); a > 100 {
				sum += a
			}
		}
		return sum
	},
	"W3": func(rows []map[string]any) any {
		index := map[string]int{}
		var groups []scaleGroup
		for _, r := range rows {
			c := r["customer"].(string)
			i, ok := index[c]
			if !ok {
				i = len(groups)
				index[c] = i
				groups = append(groups, scaleGroup{customer: c})
			}
			groups[i].total += r["amount"].(float64)
			groups[i].n++
		}
		slices.SortStableFunc(groups, func(a, b scaleGroup) int { return cmp.Compare(b.total, a.total) })
		return groups[:min(5, len(groups))]
	},
	"W4": func(rows []map[string]any) any {
		m := make(map[float64]float64)
		for _, r := range rows {
			m[r["id"].(float64)] = r["amount"].(float64)
		}
		return m
	},
}

// The scaling programs give the same answers as plain Go.
func TestScaleWorkloadsAgree(t *testing.T) {
	data := ordersJSON(3_000)
	v, err := lisp.Read(string(data), lisp.ReadOptions{Format: lisp.ReadJSON})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Orders []map[string]any `json:"orders"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	run := func(w string) lisp.Value {
		res, err := lisp.Run(context.Background(), scalePrograms[w], lisp.Options{Input: v.(*lisp.Map), Limits: scaleLimits})
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		return res.Value
	}
	if got, want := lisp.Print(run("W2"), lisp.PrintOptions{}), fmt.Sprint(goWorkloads["W2"](doc.Orders)); got != want {
		t.Errorf("W2: %s, Go %s", got, want)
	}
	w3 := run("W3").(*lisp.Vector)
	top := goWorkloads["W3"](doc.Orders).([]scaleGroup)
	if w3.Len() != len(top) {
		t.Fatalf("W3: %d rows, Go %d", w3.Len(), len(top))
	}
	for i, g := range top {
		want := fmt.Sprintf(`{:customer %q, :n %d, :total %v}`, g.customer, g.n, g.total)
		if got := lisp.Print(w3.At(i), lisp.PrintOptions{}); got != want {
			t.Errorf("W3 row %d: %s, Go %s", i, got, want)
		}
	}
	if got := run("W4").(*lisp.Map).Len(); got != 3_000 {
		t.Errorf("W4: %d entries", got)
	}
}
