package evaltest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
)

// TestPlan: the mode Run takes from the options and PTC_EVAL_RECORD, and
// the errors of a record mode that cannot record or of a recording that
// does not read.
func TestPlan(t *testing.T) {
	recorded := t.TempDir()
	if err := writeIndex(recorded, []eval.Variant{{Name: "openai:gpt-4.1-mini"}, {Name: "m/compact", Profile: "compact"}}); err != nil {
		t.Fatal(err)
	}
	empty, bad := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "index.json"), []byte(`{"format":"other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	model := llm.Func(func(context.Context, llm.Request) (llm.Response, error) { return llm.Response{}, nil })
	cases := []struct {
		name     string
		opts     Options
		env      string
		mode     mode
		variants string // the variants' names and profiles
		err      string // a part of the error; "" none
	}{
		{"zero value skips", Options{}, "", modeSkip, "", ""},
		{"no recording, no model", Options{Dir: empty}, "", modeSkip, "", ""},
		{"replay", Options{Dir: recorded}, "", modeReplay, "openai:gpt-4.1-mini m/compact:compact", ""},
		{"replay, model unused", Options{Dir: recorded, Model: model, Name: "x"}, "0", modeReplay, "openai:gpt-4.1-mini m/compact:compact", ""},
		{"live", Options{Dir: empty, Model: model}, "", modeLive, "model", ""},
		{"live, no dir", Options{Model: model, Name: "mine"}, "false", modeLive, "mine", ""},
		{"record by env", Options{Dir: recorded, Model: model}, "1", modeRecord, "model", ""},
		{"record by option", Options{Dir: empty, Model: model, Record: true, Name: "n"}, "", modeRecord, "n", ""},
		{"record, no dir", Options{Model: model}, "true", 0, "", "needs Options.Dir"},
		{"record, no model", Options{Dir: empty}, "1", 0, "", "needs Options.Model"},
		{"record a name", Options{Dir: empty, Model: llm.Name("m")}, "1", 0, "", "must be an llm.Func"},
		{"bad env", Options{Dir: recorded}, "yes please", 0, "", `PTC_EVAL_RECORD="yes please": want 1 to record, or 0`},
		{"bad index", Options{Dir: bad}, "", 0, "", "is not the index of a recording"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := newPlan(tc.opts, tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var vs []string
			for _, v := range p.variants {
				s := v.Name
				if v.Profile != "" {
					s += ":" + v.Profile
				}
				vs = append(vs, s)
			}
			if p.mode != tc.mode || strings.Join(vs, " ") != tc.variants {
				t.Errorf("mode %d with %v, want %d with %q", p.mode, vs, tc.mode, tc.variants)
			}
			if p.mode == modeSkip && !strings.Contains(p.skip, "PTC_EVAL_RECORD=1 go test") {
				t.Errorf("the skip does not say how to record: %s", p.skip)
			}
		})
	}
}
