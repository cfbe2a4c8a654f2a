package evaltest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/internal/evalrec"
)

// The layout of a recording is that of "ptc test --record DIR": the
// models in DIR/index.json, each run in DIR/MODEL/TASK/CASE.RUN.json (a
// ptc-trace recording), names made safe as file names (package
// internal/evalrec).

// writeIndex creates dir and writes its index of the variants.
func writeIndex(dir string, vs []eval.Variant) error { return evalrec.WriteIndex(dir, vs) }

// readIndex reads the variants of the recording under dir: an error
// wrapping os.ErrNotExist when there is none.
func readIndex(dir string) ([]eval.Variant, error) {
	path := filepath.Join(dir, "index.json")
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	vs, err := evalrec.ParseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s %v", filepath.ToSlash(path), err)
	}
	return vs, nil
}

// writeRecording writes the recording of the run r at path.
func writeRecording(path string, rec *evalrec.Recorder, r *eval.RunResult) error {
	data, err := rec.Marshal(r.Step, r.Variant)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
