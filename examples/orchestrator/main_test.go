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

// The example is the README's tour of composition: it must keep working,
// and its tree of agents must go the way its comments say.
func TestExampleOrchestrator(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, true, true); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{
		`Compiled refund-check in 2 turns with model "smart"`,
		"(topic :string) -> {tickets [{id :int, subject :string, order_id :int}], _emails [:string]}\n  ; hidden from you: _emails", // -prompt: _emails named, marked hidden
		"6 tickets mention refund and 5 are open",                                                                                   // the ticket desk's turn
		"desk: {:_emails <Firewalled>, :tickets 5}",                                                                                 // what the orchestrator printed
		`→ classify {:subject "Charged twice, please refund"}`,
		`← {:category "delivery", :urgent false}`,
		`← {:amount 649.0, :order_id 1005, :reason "over 500, a manager must approve", :refundable false}`,
		"no LLM (a compiled program)", // the compiled agent calls no LLM
		"═══ Step 2 of 2 ═══",
		"orchestrator  Usage:      turns 2, LLM requests 2",
		"TotalUsage: turns 9, LLM requests 9", // + the desk's 2 turns and 5 classify calls
		"reply to ticket 101: Your refund of 89.90 is on its way.",
		"reply to ticket 103: We cannot refund this automatically: outside the 30-day window.",
		"customers to notify (Go sees the emails, no model did): 5, first dana.whitfield@example.com",
		"What the orchestrator's model saw: 2 requests",
		"ticket transcripts it saw: 0 of 9; firewalled values it saw: 0 of 13",
		"LLM reply:", // -replies
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// The trace is stable from run to run (no timings, parallel calls
	// sorted), so that the README can quote it.
	var again bytes.Buffer
	if err := run(context.Background(), &again, true, true); err != nil {
		t.Fatal(err)
	}
	if again.String() != s {
		t.Errorf("two runs printed different output")
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
	doctest.CheckOutput(t, filepath.Join("..", ".."), "go run ./examples/orchestrator", out.String(), *update)
}
