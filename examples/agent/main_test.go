package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/internal/doctest"
)

// The example is the README's main command: it must keep working, and
// its mission must go the way its comments say.
func TestExampleMission(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, true, true); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{
		"paid orders: 24",
		"_card_token <Firewalled>",
		"did you mean customer?",
		"[Acme Initech Globex]",
		"top[0].orders: missing required field",
		"5 turns, 5 LLM requests",
		"Returned: {:_customer_ids <Firewalled>, :top [{:name \"Acme\", :orders 8, :revenue 1216.0}", // the trace is redacted
		"1. Acme      1216.00 from 8 orders (customer 1)",
		"firewalled strings the model saw: 0 of 45",
		"LLM reply:", // -replies
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

// TestPromptFlag: -prompt prints the system prompt first, then runs the
// mission as without it (README.md says so).
func TestPromptFlag(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, false, true); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := out.String()
	prompt, mission := strings.Index(s, "PTC-Lisp"), strings.Index(s, "5 turns, 5 LLM requests")
	if prompt < 0 || mission < 0 || prompt > mission {
		t.Errorf("the system prompt (at %d) does not come before the mission's end (at %d):\n%s", prompt, mission, s)
	}
}

var update = flag.Bool("update", false, "rewrite the figures of the README's block of this example's output")

// TestREADMEShowsTheOutput: the README shows this example's output as it
// is (durations aside); -update brings its figures up to date after a
// change of the prompt moves the token counts.
func TestREADMEShowsTheOutput(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, false, false); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	doctest.CheckOutput(t, filepath.Join("..", ".."), "go run ./examples/agent", out.String(), *update)
}
