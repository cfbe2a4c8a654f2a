package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

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
// number; apart, the errors of the tasks the SDK says it failed to poll
// or process (at INFO or WARN; it polls again and the server hands the
// task out again: on a busy machine a poll or a task can time out).
func (h captureHandler) counts() (levels map[slog.Level]int, msgs map[string]int, retried []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	levels, msgs = map[slog.Level]int{}, map[string]int{}
	for _, r := range *h.recs {
		if strings.HasPrefix(r.Message, "Task processing failed") || strings.HasPrefix(r.Message, "Failed to poll for task") {
			var e string
			r.Attrs(func(a slog.Attr) bool {
				if a.Key == "Error" {
					e = a.Value.String()
				}
				return true
			})
			retried = append(retried, e)
			continue
		}
		levels[r.Level]++
		msgs[r.Level.String()+" "+r.Message]++
	}
	return levels, msgs, retried
}

// TestWorkerLogLevel runs missions on a worker whose client logs through
// slog: at Debug the SDK writes DEBUG records for every mission (what its
// default logger, which has no level, prints to stdout); with the
// handler at Info, none, and no INFO records but the worker's start and
// stop (docs/temporal.md, "Running in production").
func TestWorkerLogLevel(t *testing.T) {
	c, addr := devServer(t)
	a := mustAgent(t, agent.Config{Prompt: "Check item {{id}}.", MaxTurns: 3, Tools: map[string]agent.Tool{
		"fetch": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) { return map[string]any{"ok": true}, nil }},
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
				m, err := Start(ctx, c, "check", StartOptions{TaskQueue: queue, Input: map[string]any{"id": i}})
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
			levels, byMsg, retried := h.counts()
			if len(retried) > 0 {
				t.Logf("tasks the SDK failed to process and retried: %q", retried)
			}
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
			// Started Worker, Stopped Worker for each task queue the worker polls (where missions
			// start, the version's of its agent, and that of earlier releases): none per mission.
			if n := levels[slog.LevelInfo]; n != 6 {
				t.Errorf("%d INFO records for %d missions", n, missions)
			}
			if n := levels[slog.LevelWarn] + levels[slog.LevelError]; n != 0 {
				t.Errorf("%d WARN or ERROR records for missions that succeeded", n)
			}
		})
	}
}

// TestWorkerVersioningPins deploys a second build of a worker with
// Temporal Worker Versioning while a mission of the first build waits in
// a tool call: with the default behaviour Pinned (docs/temporal.md,
// "Deploying a changed agent"), the mission ends on its first build and a
// new mission runs on the second; with AutoUpgrade (the control: the
// test tells the two apart), the running mission moves to the second.
func TestWorkerVersioningPins(t *testing.T) {
	c, addr := devServer(t)
	for _, tt := range []struct {
		name     string
		behavior workflow.VersioningBehavior
		first    string // what the mission started on build v1 returns
	}{
		{"pinned", workflow.VersioningBehaviorPinned, "v1"},
		{"auto-upgrade", workflow.VersioningBehaviorAutoUpgrade, "v2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			suffix := fmt.Sprintf("%s-%d", tt.name, time.Now().UnixNano())
			deployment, queue := "ptc-deploy-"+suffix, "ptc-deploy-"+suffix
			entered := make(chan string, 4) // the build whose tool a mission entered
			release := make(chan struct{})
			stopped := make(chan string, 4) // a tool stopped before the release
			startBuild := func(build string) {
				// The tool waits while the second build starts and becomes
				// current, which can take longer than a program's default 5 s
				// on a busy machine: the mission would then go on without it.
				a := mustAgent(t, agent.Config{Prompt: "Wait.", MaxTurns: 3, MissionTimeout: 5 * time.Minute,
					Limits: lisp.Limits{Timeout: 3 * time.Minute},
					Tools: map[string]agent.Tool{"wait": agent.Tool{Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
						entered <- build
						select {
						case <-release:
							return true, nil
						case <-ctx.Done():
							select {
							case stopped <- build + ": " + context.Cause(ctx).Error():
							default:
							}
							return nil, ctx.Err()
						}
					}}}})
				model := llm.Func(func(_ context.Context, req llm.Request) (llm.Response, error) {
					code := `(tool/wait {})`
					if req.Turn > 1 {
						code = `(return "` + build + `")`
					}
					return llm.Response{Content: "```clojure\n" + code + "\n```"}, nil
				})
				wc, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(wc.Close)
				probe := mustAgent(t, agent.Config{Prompt: "Which build?", MaxTurns: 1, MissionTimeout: 5 * time.Minute,
					LLM: llm.Func(func(context.Context, llm.Request) (llm.Response, error) {
						return llm.Response{Content: "```clojure\n(return \"" + build + "\")\n```"}, nil
					})})
				w, err := NewWorker(wc, queue, WorkerOptions{Agents: map[string]*agent.Agent{"waiter": a, "probe": probe}, Model: model,
					Worker: worker.Options{DeploymentOptions: worker.DeploymentOptions{
						UseVersioning:             true,
						Version:                   worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: build},
						DefaultVersioningBehavior: tt.behavior,
					}}})
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(w.Stop)
				// The version exists once its worker has polled: retry until it can be made current.
				h := c.WorkerDeploymentClient().GetHandle(deployment)
				for {
					_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: build})
					if err == nil {
						return
					}
					if ctx.Err() != nil {
						t.Fatalf("setting %s current: %v", build, err)
					}
					time.Sleep(500 * time.Millisecond)
				}
			}
			run := func(m *Mission) string {
				step, err := m.Result(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return printed(step.Return)
			}

			startBuild("v1")
			first, err := Start(ctx, c, "waiter", StartOptions{TaskQueue: queue})
			if err != nil {
				t.Fatal(err)
			}
			if b := <-entered; b != "v1" {
				t.Fatalf("the first mission's tool ran on %s", b)
			}
			startBuild("v2")
			// A new current version reaches the task queue's partitions after a
			// while: probe with new missions until five in a row run on v2.
			for inARow := 0; inARow < 5; {
				p, err := Start(ctx, c, "probe", StartOptions{TaskQueue: queue})
				if err != nil {
					t.Fatal(err)
				}
				if run(p) == `"v2"` {
					inARow++
				} else {
					inARow = 0
				}
			}
			close(release)
			if got := run(first); got != `"`+tt.first+`"` {
				t.Errorf("the mission started on v1 returned %s, want %q", got, tt.first)
			}
			select {
			case why := <-stopped:
				t.Errorf("the first mission's tool was stopped before the release (%s)", why)
			default:
			}
			second, err := Start(ctx, c, "waiter", StartOptions{TaskQueue: queue})
			if err != nil {
				t.Fatal(err)
			}
			if got := run(second); got != `"v2"` {
				t.Errorf("the mission started after v2 became current returned %s", got)
			}
		})
	}
}

// TestNewWorkerVersioningWithoutBehavior: the SDK panics when a worker
// with Worker Versioning registers a workflow without a versioning
// behaviour and has no default; NewWorker says so with an error instead.
func TestNewWorkerVersioningWithoutBehavior(t *testing.T) {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	version := worker.WorkerDeploymentVersion{DeploymentName: "missions", BuildID: "b1"}
	for _, tt := range []struct {
		name string
		opts worker.DeploymentOptions
		ok   bool
	}{
		{"no versioning", worker.DeploymentOptions{}, true},
		{"pinned", worker.DeploymentOptions{UseVersioning: true, Version: version,
			DefaultVersioningBehavior: workflow.VersioningBehaviorPinned}, true},
		{"no default behaviour", worker.DeploymentOptions{UseVersioning: true, Version: version}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewWorker(c, "missions", WorkerOptions{Agents: map[string]*agent.Agent{"a": mustAgent(t, agent.Config{Prompt: "x"})},
				Worker: worker.Options{DeploymentOptions: tt.opts}})
			if tt.ok && err != nil || !tt.ok && !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("NewWorker: %v", err)
			}
		})
	}
}
