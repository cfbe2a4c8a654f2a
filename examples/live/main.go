// Command live runs the mission of examples/agent against a real model, so
// that you can compare a scripted run with a live one: the same tools over
// the same in-memory order store, the same signature and firewall.
//
//	go run ./examples/live -model openai:gpt-4.1-mini       # $OPENAI_API_KEY
//	go run ./examples/live -model anthropic:claude-sonnet-4-5 # $ANTHROPIC_API_KEY
//	go run ./examples/live -model gemini:gemini-2.5-flash     # $GEMINI_API_KEY
//	go run ./examples/live -model ollama:qwen2.5-coder:7b     # a local Ollama
//
// The reference may also come from $PTC_MODEL. Without one, or without the
// provider's key, it says what to set and exits successfully: nothing to
// run. docs/models.md lists the providers and their variables.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/internal/demo"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/provider"
)

func main() {
	model := flag.String("model", os.Getenv("PTC_MODEL"), "model reference, e.g. openai:gpt-4.1-mini (default $PTC_MODEL)")
	replies := flag.Bool("replies", false, "print the model's replies and the feedback it was sent")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *model, *replies, provider.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, ref string, replies bool, popts provider.Options) error {
	if ref == "" {
		fmt.Fprintln(w, "no model: pass -model PROVIDER:MODEL or set PTC_MODEL (see docs/models.md); nothing to run")
		return nil
	}
	f, err := provider.Open(ctx, ref, popts)
	var le *llm.Error
	if errors.As(err, &le) && le.Reason == "missing_api_key" {
		fmt.Fprintf(w, "%s; nothing to run\n", le.Message)
		return nil
	}
	if err != nil {
		return err
	}
	// Keep what the model was sent, to check the firewall afterwards.
	var mu sync.Mutex
	var requests []llm.Request
	model := llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		requests = append(requests, req)
		mu.Unlock()
		fmt.Fprintf(w, "… turn %d: asking %s\n", req.Turn, ref)
		return f(ctx, req)
	})

	cfg := demo.Config()
	cfg.LLMRetry = llm.RetryPolicy{MaxAttempts: 3}
	cfg.MissionTimeout = 10 * time.Minute
	a, err := agent.New(cfg)
	if err != nil {
		return err
	}
	opts := agent.Options{LLM: model, Input: demo.Context()}
	if replies {
		opts.Trace = agent.TraceConversation // each turn's feedback, for the trace's replies
	}
	step, err := a.Run(ctx, opts)
	if perr := trace.Print(w, step, trace.Options{Replies: replies}); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}
	if err := demo.PrintTop(w, step); err != nil {
		return err
	}
	mu.Lock()
	seen, total := demo.FirewalledSeen(requests)
	mu.Unlock()
	u := step.Usage
	fmt.Fprintf(w, "%s: %d turns, %d LLM requests, %d tokens in (%d from cache) / %d out; firewalled strings the model saw: %d of %d\n",
		ref, u.Turns, u.LLMRequests, u.Tokens.Input, u.Tokens.CacheRead, u.Tokens.Output, len(seen), total)
	return nil
}
