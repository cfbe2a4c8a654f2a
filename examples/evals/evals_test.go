package evals_test

import (
	"os"
	"testing"

	"github.com/ptc-go/ptc/eval/evaltest"
	"github.com/ptc-go/ptc/examples/evals"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/provider"
)

// TestEvals replays the evaluation recorded in testdata/evals: offline,
// no model called, no key needed. Each case is a subtest
// (TestEvals/refunds/carol); a failing case fails it with its reasons.
//
// To record it again (README.md):
//
//	PTC_EVAL_RECORD=1 PTC_MODEL=openai:gpt-4.1-mini go test ./examples/evals/
func TestEvals(t *testing.T) {
	tasks, err := evals.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	model, name := liveModel(t)
	evaltest.Run(t, tasks, evaltest.Options{Dir: "testdata/evals", Model: model, Name: name})
}

// liveModel is the model PTC_MODEL names (its provider's key from the
// environment), else the scripted stand-in; nil when PTC_MODEL names a
// model that does not open (no key): a replay needs none.
func liveModel(t *testing.T) (llm.Model, string) {
	ref := os.Getenv("PTC_MODEL")
	if ref == "" {
		return evals.Scripted(), "scripted"
	}
	m, err := provider.Open(t.Context(), ref, provider.Options{})
	if err != nil {
		t.Logf("PTC_MODEL=%s: %v", ref, err)
		return nil, ref
	}
	return m, ref
}
