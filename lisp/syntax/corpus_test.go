package syntax

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptc-go/ptc/internal/shared"
)

// repoCorpus is the differential corpus of lisp/difftest: thousands of
// programs in the repository itself, so the tests that walk a corpus run on
// a clone with nothing beside it.
var repoCorpus = filepath.Join("..", "difftest", "testdata", "corpus.edn")

// corpus returns the programs of the repository's own corpus and, when
// they are present, those of the shared conformance vectors. It fails the
// test when the repository's corpus cannot be read: that file is part of
// the checkout, and a test that silently walked nothing would prove nothing.
func corpus(tb testing.TB) []string {
	tb.Helper()
	progs, err := readCorpusEDN(repoCorpus)
	if err != nil {
		tb.Fatalf("the repository's corpus: %v", err)
	}
	if len(progs) < 1000 {
		tb.Fatalf("the repository's corpus %s holds %d programs, want thousands", repoCorpus, len(progs))
	}
	if p, ok := shared.Path("conformance", "dev.jsonl"); ok {
		progs = append(progs, sharedPrograms(p)...)
	}
	return progs
}

// readCorpusEDN reads the :src strings of a difftest corpus: a vector of
// maps such as {:id "clj:inc/int" :src "(inc 7)"}, read with Read itself.
func readCorpusEDN(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	forms, err := Read(string(b))
	if err != nil {
		return nil, err
	}
	var progs []string
	for _, f := range forms {
		v, ok := f.(*Vector)
		if !ok {
			continue
		}
		for _, it := range v.Items {
			m, ok := it.(*Map)
			if !ok {
				continue
			}
			for i := 0; i+1 < len(m.Items); i += 2 {
				k, isKey := m.Items[i].(*Keyword)
				s, isStr := m.Items[i+1].(*String)
				if isKey && isStr && k.Name == "src" {
					progs = append(progs, s.Value)
				}
			}
		}
	}
	return progs, nil
}

// sharedPrograms returns the programs of a conformance vector file, or nil
// when there is none.
func sharedPrograms(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var progs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v struct {
			Program string `json:"program"`
		}
		if json.Unmarshal(sc.Bytes(), &v) == nil && v.Program != "" {
			progs = append(progs, v.Program)
		}
	}
	return progs
}
