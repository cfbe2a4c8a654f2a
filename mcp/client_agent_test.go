package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
)

// everything the model was sent: system prompts and messages.
func sentText(reqs []llm.Request) string {
	var sb strings.Builder
	for _, r := range reqs {
		sb.WriteString(r.System)
		for _, m := range r.Messages {
			sb.WriteString("\n" + m.Content)
		}
	}
	return sb.String()
}

func TestAgentMissionCallsMCPTool(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{})
	s := llmtest.NewScript(llmtest.Code(`(return (tool/up.add {:a 1 :b 2}))`))
	a, err := agent.New(agent.Config{Prompt: "Add 1 and 2.", Tools: ts.Tools(0)})
	if err != nil {
		t.Fatal(err)
	}
	step, err := a.Run(context.Background(), agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `{"sum" 3}` {
		t.Errorf("return %s", got)
	}
	// The system prompt lists the tools with their signatures.
	sys := s.Requests()[0].System
	for _, want := range []string{"(tool/up.add {:a ... :b ...}) ; Adds two integers.", "up.echo", "-> {sum :int}"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
}

func TestAgentToolErrorIsFeedback(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{})
	s := llmtest.NewScript(
		llmtest.Code(`(tool/up.fail {})`),
		llmtest.Code(`(return (:message ctx/fail))`),
	)
	a, err := agent.New(agent.Config{Prompt: "Try.", Tools: ts.Tools(0)})
	if err != nil {
		t.Fatal(err)
	}
	step, err := a.Run(context.Background(), agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, "boom: bad input") {
		t.Errorf("feedback %q", fb)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); !strings.Contains(got, "boom: bad input") {
		t.Errorf("return %s", got)
	}
}

func TestAgentLargeCatalogSearch(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{Tools: 60}, false, mcp.Server{})
	tools := ts.Tools(0)
	if len(tools) != 11+60+1 || !tools["up.tool_011"].Unlisted || tools[mcp.SearchToolName].Unlisted {
		t.Fatalf("%d tools; tool_011 unlisted %v", len(tools), tools["up.tool_011"].Unlisted)
	}
	if n := len(ts.Search("", 1000)); n != mcp.MaxSearchLimit {
		t.Errorf("limit not capped: %d", n)
	}
	s := llmtest.NewScript(
		llmtest.Code(`(mapv :name (tool/mcp.search {:query "invoice lookup" :limit 3}))`),
		llmtest.Code(`(return (tool/up.tool_011 {:id 5}))`),
	)
	a, err := agent.New(agent.Config{Prompt: "Find invoice 5.", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	pv, err := a.Preview(agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pv.System, "tool_011") || !strings.Contains(pv.System, "tool/mcp.search") ||
		!strings.Contains(pv.System, "71 more tools are callable but not listed here") {
		t.Errorf("system prompt:\n%s", pv.System)
	}
	step, err := a.Run(context.Background(), agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `{"id" 5, "tool" 11, "topic" "invoice"}` {
		t.Errorf("return %s", got)
	}
	if strings.Contains(s.Requests()[0].System, "tool_011") {
		t.Error("the system prompt lists the catalog")
	}
	if fb := s.LastMessage(1); !strings.Contains(fb, `["up.tool_001" "up.tool_011" "up.tool_021"]`) {
		t.Errorf("feedback %q", fb)
	}
}

func TestAgentFirewall(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{}, false, mcp.Server{
		Firewall: map[string][]string{"secret": {"/items/*/token"}},
	})
	s := llmtest.NewScript(
		llmtest.Code(`(def items (:items (tool/up.secret {}))) items`),
		llmtest.Code(`(def r (tool/up.echo {:text "pass" :_token (:_token (first items))})) r`),
		llmtest.Code(`(return {:ok (= (:_token r) (:_token (first items))) :_token (:_token r)})`),
	)
	a, err := agent.New(agent.Config{Prompt: "Pass the token on.", Tools: ts.Tools(0)})
	if err != nil {
		t.Fatal(err)
	}
	step, err := a.Run(context.Background(), agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatal(err)
	}
	// The program had the token, and passed it on.
	if got := lisp.Print(step.Return, lisp.PrintOptions{}); got != `{:_token "s3cr3t", :ok true}` {
		t.Errorf("return %s", got)
	}
	sent := sentText(s.Requests())
	if strings.Contains(sent, upstream.Secret) {
		t.Errorf("the model saw the secret:\n%s", sent)
	}
	if !strings.Contains(s.LastMessage(1), "Firewalled") {
		t.Errorf("feedback %q", s.LastMessage(1))
	}
	// The signature the model sees names the field, marked hidden.
	if !strings.Contains(sent, "(tool/up.secret) ; Returns items with tokens.") || !strings.Contains(sent, "; hidden from you: items._token") {
		t.Errorf("system prompt:\n%s", s.Requests()[0].System)
	}
}
