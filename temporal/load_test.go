package temporal

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// TestLoad measures missions per second and the 95th percentile of their
// completion time: PTC_TEMPORAL_LOAD=1000 short missions (two turns, one
// tool call, an instant model) over two workers against the dev server.
// It only runs when PTC_TEMPORAL_LOAD is set, and asserts nothing about
// time. PTC_TEMPORAL_LOAD_INFLIGHT bounds the missions in flight (200);
// PTC_TEMPORAL_DB=memory runs the server on an in-memory database, and
// PTC_TEMPORAL_DEV_ARGS passes it more flags.
//
//	PTC_TEMPORAL_LOAD=1000 go test -run TestLoad -v ./temporal/
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PTC_TEMPORAL_LOAD"))
	if n <= 0 {
		t.Skip("set PTC_TEMPORAL_LOAD to the number of missions to run")
	}
	c, addr := devServer(t)
	queue := "ptc-load-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	a := agent.MustNew(agent.Config{Prompt: "Check item {{id}}.", MaxTurns: 3, Tools: map[string]agent.Tool{
		"fetch": agent.Func(func(_ context.Context, args *lisp.Map) (any, error) { return map[string]any{"ok": true}, nil }),
	}})
	model := llm.Func(func(_ context.Context, req llm.Request) (llm.Response, error) {
		code := `(tool/fetch {:id ctx/id})`
		if req.Turn > 1 {
			code = `(return ctx/id)`
		}
		return llm.Response{Content: "```clojure\n" + code + "\n```"}, nil
	})
	for i := 0; i < 2; i++ {
		wc, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer wc.Close()
		w, err := NewWorker(wc, queue, WorkerOptions{Agents: map[string]*agent.Agent{"check": a}, Model: model,
			Worker: worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lat := make([]time.Duration, n)
	errs := make(chan error, n)
	inFlight := 200
	if v, _ := strconv.Atoi(os.Getenv("PTC_TEMPORAL_LOAD_INFLIGHT")); v > 0 {
		inFlight = v
	}
	sem := make(chan struct{}, inFlight) // missions in flight
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t0 := time.Now()
			m, err := Start(ctx, c, "check", StartOptions{TaskQueue: queue, Context: map[string]any{"id": i}})
			if err == nil {
				var step *agent.Step
				step, err = m.Result(ctx)
				if err == nil && printed(step.Return) != fmt.Sprint(i) {
					err = fmt.Errorf("mission %d returned %s", i, printed(step.Return))
				}
			}
			lat[i] = time.Since(t0)
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	total := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	slices.Sort(lat)
	db := os.Getenv("PTC_TEMPORAL_DB")
	if db == "" {
		db = "file"
	}
	t.Logf("%d missions (2 turns, 1 tool call each; %d in flight) over 2 workers, server db %s %s: %.1f missions/s, p50 %v, p95 %v, max %v, total %v",
		n, inFlight, db, os.Getenv("PTC_TEMPORAL_DEV_ARGS"), float64(n)/total.Seconds(), lat[n/2].Round(time.Millisecond), lat[n*95/100].Round(time.Millisecond),
		lat[n-1].Round(time.Millisecond), total.Round(time.Millisecond))
}
