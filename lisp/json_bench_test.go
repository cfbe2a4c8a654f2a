package lisp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp"
)

// The JSON ingest benchmarks: Read (JSON) side by side with encoding/json
// decoding the same bytes into map[string]any (the speed to match), over
// the shared orders context (10k rows) and a generated 100k-row document.

// benchOrdersJSON returns the shared orders.json, or 10k rows like it when
// the shared materials are absent.
func benchOrdersJSON(b *testing.B) []byte {
	if p, ok := shared.Path("bench", "orders.json"); ok {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	return genOrdersJSON(10_000)
}

// genOrdersJSON generates n rows shaped like orders.json's.
func genOrdersJSON(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"orders":[`)
	status := []string{"open", "closed", "pending"}
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"amount":%d,"status":%q,"customer":"c%d"}`, i, i*37%500, status[i%3], i%100)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

var wideRows = sync.OnceValue(func() []byte { return genWideJSON(100_000) })

// genWideJSON generates n records with the variety of real tool output:
// nested objects, floats, negative numbers, booleans, nulls, escaped and
// non-ASCII strings, unique and repeated values, pretty-printed.
func genWideJSON(n int) []byte {
	var sb strings.Builder
	sb.WriteString("{\n  \"count\": ")
	fmt.Fprintf(&sb, "%d,\n  \"items\": [\n", n)
	regions := []string{"north", "south", "east", "west", "Zürich"}
	for i := range n {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `    {"id": %d, "sku": "SKU-%07d", "name": "Item \"%d\" — spécial", "price": %d.%02d, "qty": %d, `+
			`"discount": %g, "active": %t, "note": null, "tags": ["t%d", "t%d"], `+
			`"dims": {"w": %d, "h": %d, "unit": "cm"}, "region": %q, "ts": "2025-01-%02dT10:%02d:00Z"}`,
			i, i, i, i%1000, i%100, i%50-10, float64(i%7)*0.05, i%2 == 0, i%13, i%17,
			i%200, i%300, regions[i%len(regions)], i%28+1, i%60)
	}
	sb.WriteString("\n  ]\n}\n")
	return []byte(sb.String())
}

func benchParseJSON(b *testing.B, data []byte) {
	if _, err := lisp.Read(string(data), lisp.ReadOptions{Format: lisp.ReadJSON}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := lisp.Read(string(data), lisp.ReadOptions{Format: lisp.ReadJSON}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEncodingJSONMap(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// smallJSON is a typical small tool result.
var smallJSON = []byte(`{"status": "ok", "count": 2, "results": [{"id": 101, "title": "Quarterly report", "score": 0.93, ` +
	`"tags": ["finance", "q3"]}, {"id": 102, "title": "Team offsite \u2014 agenda", "score": 0.71, "tags": []}], "next": null}`)

func BenchmarkParseJSON(b *testing.B) {
	b.Run("small", func(b *testing.B) { benchParseJSON(b, smallJSON) })
	b.Run("orders10k", func(b *testing.B) { benchParseJSON(b, benchOrdersJSON(b)) })
	b.Run("wide100k", func(b *testing.B) { benchParseJSON(b, wideRows()) })
}

func BenchmarkEncodingJSONMap(b *testing.B) {
	b.Run("small", func(b *testing.B) { benchEncodingJSONMap(b, smallJSON) })
	b.Run("orders10k", func(b *testing.B) { benchEncodingJSONMap(b, benchOrdersJSON(b)) })
	b.Run("wide100k", func(b *testing.B) { benchEncodingJSONMap(b, wideRows()) })
}
