package evalrec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
)

// MaxSize bounds the recording files a replay reads.
const MaxSize = 64 << 20

// IndexFormat is the format of DIR/index.json.
const IndexFormat = "ptc-eval-recording-index"

// maxIndexSize bounds the index a replay reads.
const maxIndexSize = 1 << 20

// unsafeName matches what a file name should not hold.
var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// SafeName makes a name safe as one element of a path: what a file name
// should not hold becomes "_", and it is at most 80 bytes.
func SafeName(s string) string {
	s = strings.Trim(unsafeName().ReplaceAllString(s, "_"), "._")
	if s == "" {
		s = "_"
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// Path is the file of the run k in a recording under dir:
// dir/MODEL/TASK/CASE.RUN.json, each name made safe by SafeName.
func Path(dir string, k eval.RunKey) string {
	return filepath.Join(dir, SafeName(k.Variant), SafeName(k.Task), fmt.Sprintf("%s.%d.json", SafeName(k.Case), k.Run))
}

// index is DIR/index.json.
type index struct {
	Format   string       `json:"format"`
	Variants []indexEntry `json:"variants"`
}

type indexEntry struct {
	Name    string `json:"name"`
	Profile string `json:"profile,omitempty"`
}

// WriteIndex creates dir and writes its index of the variants.
func WriteIndex(dir string, vs []eval.Variant) error {
	idx := index{Format: IndexFormat}
	for _, v := range vs {
		idx.Variants = append(idx.Variants, indexEntry{v.Name, v.Profile})
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "index.json"), append(data, '\n'), 0o644)
}

// ParseIndex reads the variants of an index; their models are never
// called (a replay answers every request from the recording). Its errors
// follow the file's name: "index.json is not…".
func ParseIndex(data []byte) ([]eval.Variant, error) {
	var idx index
	if len(data) > maxIndexSize {
		return nil, fmt.Errorf("is over %d bytes", maxIndexSize)
	}
	if err := json.Unmarshal(data, &idx); err != nil || idx.Format != IndexFormat || len(idx.Variants) == 0 {
		return nil, errors.New("is not the index of a recording (ptc test --record or evaltest)")
	}
	var out []eval.Variant
	seen := map[string]bool{}
	for _, v := range idx.Variants {
		if v.Name == "" || seen[v.Name] {
			return nil, errors.New("names a model twice, or none")
		}
		seen[v.Name] = true
		out = append(out, eval.Variant{Name: v.Name, Profile: v.Profile, Model: llm.Func(noModel)})
	}
	return out, nil
}

// noModel is the model of a replay: every reply comes from the
// recording, so it is never called.
func noModel(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, &llm.Error{Class: llm.ClassConfig, Message: "a replay calls no model"}
}
