package temporal

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// captureHandler is a slog.Handler that keeps the level and message of
// each record at or above its level.
type captureHandler struct {
	level slog.Level
	mu    *sync.Mutex
	recs  *[]slog.Record
}

func newCaptureHandler(level slog.Level) captureHandler {
	return captureHandler{level: level, mu: &sync.Mutex{}, recs: &[]slog.Record{}}
}

func (h captureHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.recs = append(*h.recs, r)
	return nil
}
func (h captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h captureHandler) WithGroup(string) slog.Handler      { return h }

// counts returns the records by level, and the messages with their
// number.
func (h captureHandler) counts() (map[slog.Level]int, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	levels, msgs := map[slog.Level]int{}, map[string]int{}
	for _, r := range *h.recs {
		levels[r.Level]++
		msgs[r.Level.String()+" "+r.Message]++
	}
	return levels, msgs
}

// TestWorkerLogLevel runs missions on a worker whose client logs through
// slog: at Debug the SDK writes DEBUG records for every mission (what its
// default logger, which has no level, prints to stdout); with the
// handler at Info, none (docs/temporal.md, "Running in production").
func TestWorkerLogLevel(t *testing.T) {
	c, addr := devServer(t)
	a := mustAgent(t, agent.Config{Prompt: "Check item {{id}}.", MaxTurns: 3, Tools: map[string]agent.Tool{
		"fetch": agent.Func(func(_ context.Context, args *lisp.Map) (any, error) { return map[string]any{"ok": true}, nil }),
	}})
	model := llm.Func(func(_ context.Context, req llm.Request) (llm.Response, error) {
		code := `(tool/fetch {:id ctx/id})`
		if req.Turn > 1 {
			code = `(return ctx/id)`
		}
		return llm.Response{Content: "```clojure\n" + code + "\n```"}, nil
	})
	const missions = 3
	for _, tt := range []struct {
		name  string
		level slog.Level
		debug bool // DEBUG records expected
	}{
		{"debug", slog.LevelDebug, true},
		{"info", slog.LevelInfo, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newCaptureHandler(tt.level)
			wc, err := client.Dial(client.Options{HostPort: addr, Logger: log.NewStructuredLogger(slog.New(h))})
			if err != nil {
				t.Fatal(err)
			}
			defer wc.Close()
			queue := fmt.Sprintf("ptc-log-%s-%d", tt.name, time.Now().UnixNano())
			w, err := NewWorker(wc, queue, WorkerOptions{Agents: map[string]*agent.Agent{"check": a}, Model: model})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			for i := range missions {
				m, err := Start(ctx, c, "check", StartOptions{TaskQueue: queue, Context: map[string]any{"id": i}})
				if err != nil {
					t.Fatal(err)
				}
				step, err := m.Result(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := printed(step.Return); got != fmt.Sprint(i) {
					t.Fatalf("mission %d returned %s", i, got)
				}
			}
			w.Stop()
			levels, byMsg := h.counts()
			var msgs []string
			for m, n := range byMsg {
				msgs = append(msgs, fmt.Sprintf("%dx %q", n, m))
			}
			sort.Strings(msgs)
			t.Logf("%d missions: %d DEBUG, %d INFO, %d WARN, %d ERROR records: %s", missions,
				levels[slog.LevelDebug], levels[slog.LevelInfo], levels[slog.LevelWarn], levels[slog.LevelError],
				strings.Join(msgs, ", "))
			if got := levels[slog.LevelDebug]; tt.debug && got < missions || !tt.debug && got != 0 {
				t.Errorf("%d DEBUG records for %d missions at level %v", got, missions, tt.level)
			}
			if n := levels[slog.LevelWarn] + levels[slog.LevelError]; n != 0 {
				t.Errorf("%d WARN or ERROR records for missions that succeeded", n)
			}
		})
	}
}
