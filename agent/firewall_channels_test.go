package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/leaks"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// The firewall's guarantee, channel by channel: no fragment of 8 bytes or
// more of a firewalled text (a string, or the printed form of a number) in
// any of the forms it is printed in reaches the model, in any request of a
// mission, whatever the programs do to move it there short of transforming
// it. Each channel is a mission whose programs try one way; every request
// the model receives (the system prompt, the mission, every message) is
// scanned, as are the preview and the Fail of the Step.

// The corpus (secrets, channels, fragments) is internal/leaks, shared
// with the firewall-sinks test of cmd/ptc, which runs it through every
// sink a run leaves behind.

var fwSecrets = leaks.Secrets

const fwPin = leaks.Pin

const timeUnit = time.Millisecond

// leak returns the first fragment of a firewalled text found in text.
func leak(text string, secrets ...string) string { return leaks.Find(text, secrets...) }

// requestTexts returns everything a request sends the model.
func requestTexts(req llm.Request) []string { return leaks.RequestTexts(req) }

func TestFirewallChannels(t *testing.T) {
	for _, secret := range fwSecrets {
		for _, ch := range append(slices.Clone(leaks.Channels), leaks.DerivedChannels...) {
			t.Run(fmt.Sprintf("%s/%d bytes", ch.Name, len(secret)), func(t *testing.T) {
				step, s, err := ch.Run(secret, agent.Options{})
				if err != nil {
					t.Fatal(err)
				}
				// The derived channels' texts too: what they compute from
				// the secret (docs/agents.md, "Derived values").
				secrets := append(leaks.Texts(secret), leaks.DerivedTexts(secret)...)
				for i, req := range s.Requests() {
					for _, text := range requestTexts(req) {
						if f := leak(text, secrets...); f != "" {
							t.Errorf("request %d leaks %q:\n%s", i+1, f, text)
						}
					}
				}
				if step.Fail != nil {
					for _, text := range []string{string(step.Fail.Reason), step.Fail.Message, step.Fail.Op} {
						if f := leak(text, secrets...); f != "" {
							t.Errorf("Fail leaks %q: %q", f, text)
						}
					}
				}
			})
		}
	}
}

// The mission prompt is expanded behind the firewall: a placeholder of a
// firewalled field is refused, and collections print with their
// firewalled parts hidden, in the first message and in the preview.
func TestFirewallInMissionPrompt(t *testing.T) {
	secret := fwSecrets[1]
	for _, prompt := range []string{"Show {{_secret}}", "Use {{config._key}}", "{{#records}}{{_id}}{{/records}}"} {
		if _, err := agent.New(agent.Config{Prompt: prompt}); err == nil || !strings.Contains(err.Error(), "firewalled") {
			t.Errorf("%s: got %v, want a firewalled-placeholder error", prompt, err)
		}
	}
	a, err := agent.New(agent.Config{Prompt: "Config {{config}}; records: {{#records}}[{{.}} {{name}}]{{/records}}; copy {{copy}}"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := map[string]any{
		"config":  map[string]any{"_key": secret, "region": "eu"},
		"records": []any{map[string]any{"name": "a", "_id": secret}, map[string]any{"name": "b", "_id": secret}},
		"_secret": secret,
		"copy":    "prefix " + secret, // a public string holding a firewalled one
	}
	pv, err := a.Preview(agent.Options{Input: ctx})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{pv.User, pv.System} {
		if f := leak(text, secret); f != "" {
			t.Errorf("preview leaks %q:\n%s", f, text)
		}
	}
	if !strings.Contains(pv.User, `"region" "eu"`) || !strings.Contains(pv.User, `"name" "a"} a]`) {
		t.Errorf("the public parts are missing from the prompt: %s", pv.User)
	}
	s := llmtest.NewScript(llmtest.Code(`(return 1)`))
	if _, err := a.Run(context.Background(), agent.Options{LLM: s.Func(), Input: ctx}); err != nil {
		t.Fatal(err)
	}
	for _, text := range requestTexts(s.Requests()[0]) {
		if f := leak(text, secret); f != "" {
			t.Errorf("the first request leaks %q:\n%s", f, text)
		}
	}
}

// A model callback that ignores its context cannot extend a mission past
// its deadline, and its late reply is not used.
func TestIgnoringModelIsAbandoned(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	stubborn := llm.Func(func(context.Context, llm.Request) (llm.Response, error) {
		<-release
		return llm.Response{Content: "```clojure\n(return 1)\n```"}, nil
	})
	a := agent.MustNew(agent.Config{Prompt: "x", MissionTimeout: 50 * timeUnit})
	step, err := a.Run(context.Background(), agent.Options{LLM: stubborn})
	if err == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Fatalf("got %v, %+v; want mission_timeout", err, step.Fail)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	step, err = agent.MustNew(agent.Config{Prompt: "x"}).Run(ctx, agent.Options{LLM: stubborn})
	var ae *agent.Error
	if !errors.As(err, &ae) || step.Fail.Reason != agent.ReasonCancelled {
		t.Fatalf("cancelled caller: got %v, %+v", err, step.Fail)
	}
}
