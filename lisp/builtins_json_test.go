package lisp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// json/read-str is charged before it decodes, as if every two bytes made a
// value: a dense document past the memory limit fails with
// memory_exceeded, not after building it.
func TestJSONReadChargesMemory(t *testing.T) {
	doc := "[" + strings.Repeat("0,", 200_000) + "0]"
	in := lisp.NewMap(lisp.Keyword("doc"), doc)
	_, err := lisp.Run(context.Background(), `(count (json/read-str ctx/doc))`,
		lisp.Options{Input: in, Limits: lisp.Limits{MaxMemory: 1 << 20}})
	if !errors.Is(err, lisp.MemoryExceeded) {
		t.Fatalf("reading %d bytes of JSON under a 1 MiB limit: %v, want memory_exceeded", len(doc), err)
	}
	res, err := lisp.Run(context.Background(), `(count (json/read-str ctx/doc))`,
		lisp.Options{Input: in, Limits: lisp.Limits{MaxMemory: 64 << 20}})
	if err != nil || res.Value != int64(200_001) {
		t.Fatalf("under the default limit: %v, %v", res, err)
	}
}
