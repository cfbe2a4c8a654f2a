package evaltest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
)

// The layout of a recording is that of "ptc test --record DIR": the
// models in DIR/index.json, each run in DIR/MODEL/TASK/CASE.RUN.json (an
// eval.Recording), names made safe as file names.

// indexFormat is the format of DIR/index.json.
const indexFormat = eval.RecordingFormat + "-index"

// maxIndexSize bounds the index Run reads.
const maxIndexSize = 1 << 20

// index is DIR/index.json: the models of a recording, so that a replay
// needs none.
type index struct {
	Format   string       `json:"format"`
	Variants []indexEntry `json:"variants"`
}

type indexEntry struct {
	Name    string `json:"name"`
	Profile string `json:"profile,omitempty"`
}

// writeIndex creates dir and writes its index of the variants.
func writeIndex(dir string, vs []eval.Variant) error {
	idx := index{Format: indexFormat}
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

// readIndex reads the variants of the recording under dir: an error
// wrapping os.ErrNotExist when there is none.
func readIndex(dir string) ([]eval.Variant, error) {
	path := filepath.Join(dir, "index.json")
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	var idx index
	if len(data) > maxIndexSize {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxIndexSize)
	}
	if err := json.Unmarshal(data, &idx); err != nil || idx.Format != indexFormat || len(idx.Variants) == 0 {
		return nil, fmt.Errorf("%s is not the index of a recording (ptc test --record or evaltest)", filepath.ToSlash(path))
	}
	var out []eval.Variant
	seen := map[string]bool{}
	for _, v := range idx.Variants {
		if v.Name == "" || seen[v.Name] {
			return nil, fmt.Errorf("%s: a model is unnamed or listed twice", filepath.ToSlash(path))
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

// writeRecording writes a run's recording at path.
func writeRecording(path string, r *eval.Recorder) error {
	data, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	if len(data) > eval.MaxRecordingSize {
		return fmt.Errorf("%d bytes, over the bound of %d a replay reads", len(data), eval.MaxRecordingSize)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
