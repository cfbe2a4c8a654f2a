package evaltest_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/eval/bundled"
	"github.com/ptc-go/ptc/eval/evaltest"
)

// ptcRecording is the bundled suite as ptc test --record recorded it.
const ptcRecording = "../../cmd/ptc/testdata/evals"

// recordedFiles lists the files of a recording, relative to dir.
func recordedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestReadsPTCTestRecordings: a recording made by ptc test --record
// replays in evaltest (the bundled suite, every run passing, no request
// unanswered), and evaltest records the same files ptc test does, the
// same index.
func TestReadsPTCTestRecordings(t *testing.T) {
	suite, err := bundled.Open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer suite.Close()
	var rep *eval.Report
	t.Run("replay ptc test", func(t *testing.T) {
		rep = evaltest.Run(t, suite.EvalTasks(), evaltest.Options{Dir: ptcRecording})
	})
	if rep == nil || !rep.Passed() || len(rep.Results) < 40 || rep.Variants[0].Name != "reference" {
		t.Fatalf("the replay of %s: %+v", ptcRecording, rep)
	}

	dir := filepath.Join(t.TempDir(), "evals")
	t.Run("record", func(t *testing.T) {
		evaltest.Run(t, suite.EvalTasks(), evaltest.Options{Dir: dir, Model: suite.Reference(), Name: "reference", Record: true})
	})
	want, got := recordedFiles(t, ptcRecording), recordedFiles(t, dir)
	if !slices.Equal(got, want) {
		t.Errorf("evaltest recorded\n%v\nptc test recorded\n%v", got, want)
	}
	a, _ := os.ReadFile(filepath.Join(ptcRecording, "index.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("index.json: evaltest wrote\n%s\nptc test wrote\n%s", b, a)
	}
}
