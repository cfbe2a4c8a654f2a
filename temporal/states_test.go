package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// startWorker runs a worker of queue for the test.
func startWorker(t *testing.T, c client.Client, queue string, opts WorkerOptions) worker.Worker {
	t.Helper()
	w, err := NewWorker(c, queue, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func testQueue(name string) string {
	return "ptc-" + name + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// history is a workflow run's events.
func history(t *testing.T, c client.Client, id, runID string) []*historypb.HistoryEvent {
	t.Helper()
	var events []*historypb.HistoryEvent
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	return events
}

// blockingTool signals started when it is called, then waits for its
// context to end (or a minute).
func blockingTool(started chan<- struct{}) agent.Tool {
	return agent.Tool{Signature: "() -> :int", Description: "Waits.", Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Minute):
			return 1, nil
		}
	}}
}

// A mission ends its workflow in the state that matches its Step:
// Completed when it returned, Failed with the Fail's reason as the error
// type when it failed or ran out of time, Canceled when it was cancelled;
// the Step comes back through Mission.Result with its trace in every case,
// and the memo and the search attributes summarize it.
func TestEndStates(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("states")
	started := make(chan struct{}, 1)
	mk := func(prompt string, maxTurns int, timeout time.Duration) *agent.Agent {
		return mustAgent(t, agent.Config{Prompt: prompt + " {{x}}.", MaxTurns: maxTurns, MissionTimeout: timeout,
			Tools: map[string]agent.Tool{"wait": blockingTool(started)}})
	}
	model := newScripted(map[string][]string{
		"Return": {`(return 42)`},
		"Loop":   {`(def a 1)`, `(def b 2)`},
		"Cancel": {`(tool/wait {})`},
		"Slow":   {`(tool/wait {})`},
	})
	agents := map[string]*agent.Agent{
		"returns": mk("Return", 2, 0), "loops": mk("Loop", 2, 0), "cancelled": mk("Cancel", 2, 0),
		"slow": mk("Slow", 2, 2*time.Second)}
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: agents})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	cases := []struct {
		agent  string
		cancel bool
		status enums.WorkflowExecutionStatus
		reason string // the Fail's reason, the workflow error's type
		turns  int
	}{
		{"returns", false, enums.WORKFLOW_EXECUTION_STATUS_COMPLETED, "", 1},
		{"loops", false, enums.WORKFLOW_EXECUTION_STATUS_FAILED, string(agent.ReasonMaxTurnsExceeded), 2},
		{"cancelled", true, enums.WORKFLOW_EXECUTION_STATUS_CANCELED, string(agent.ReasonCancelled), 1},
		{"slow", false, enums.WORKFLOW_EXECUTION_STATUS_FAILED, string(agent.ReasonMissionTimeout), 1},
	}
	for _, tc := range cases {
		t.Run(tc.agent, func(t *testing.T) {
			m, err := Start(ctx, c, tc.agent, StartOptions{TaskQueue: queue, ID: queue + "-" + tc.agent,
				Input: map[string]any{"x": 1}, SearchAttributes: true})
			if err != nil {
				t.Fatal(err)
			}
			if tc.cancel {
				select {
				case <-started:
				case <-ctx.Done():
					t.Fatal("the tool was not called")
				}
				if err := m.Cancel(ctx); err != nil {
					t.Fatal(err)
				}
			}
			step, err := m.Result(ctx)
			if step == nil {
				t.Fatalf("no Step: %v", err)
			}
			var ae *agent.Error
			if reason := ""; step.Fail != nil {
				reason = string(step.Fail.Reason)
				if reason != tc.reason || !errors.As(err, &ae) {
					t.Errorf("Fail %+v, err %v; want the reason %q", step.Fail, err, tc.reason)
				}
			} else if tc.reason != "" || err != nil || printed(step.Return) != "42" {
				t.Errorf("return %s, err %v; want the reason %q", printed(step.Return), err, tc.reason)
			}
			if len(step.Trace) != tc.turns || step.Usage.Turns != tc.turns {
				t.Errorf("%d turns traced, usage %+v; want %d", len(step.Trace), step.Usage, tc.turns)
			}
			if tc.reason == string(agent.ReasonCancelled) || tc.reason == string(agent.ReasonMissionTimeout) {
				// The trace shows where the mission was when the workflow ended it.
				if p := step.Trace[0].Program; !strings.Contains(p, "tool/wait") {
					t.Errorf("turn 1's program %q", p)
				}
			}

			d, err := describe(ctx, c, m.ID(), "")
			if err != nil {
				t.Fatal(err)
			}
			info := d.GetWorkflowExecutionInfo()
			if info.GetStatus() != tc.status {
				t.Errorf("workflow status %v, want %v", info.GetStatus(), tc.status)
			}
			events := history(t, c, m.ID(), "")
			last := events[len(events)-1]
			switch tc.status {
			case enums.WORKFLOW_EXECUTION_STATUS_FAILED:
				f := last.GetWorkflowExecutionFailedEventAttributes().GetFailure()
				if typ := f.GetApplicationFailureInfo().GetType(); typ != tc.reason {
					t.Errorf("the workflow failed with the type %q (%s), want %q", typ, f.GetMessage(), tc.reason)
				}
			case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
				// The result is JSON a person can read: a summary, then the trace
				// as an object (not base64).
				data := last.GetWorkflowExecutionCompletedEventAttributes().GetResult().GetPayloads()[0].GetData()
				var res map[string]any
				if err := json.Unmarshal(data, &res); err != nil {
					t.Fatal(err)
				}
				if tr, ok := res["Trace"].(map[string]any); !ok || res["Agent"] != "returns" || res["Status"] != "completed" ||
					res["Turns"] != 1.0 || tr["format"] != "ptc-trace" || tr["step"] == nil {
					t.Errorf("the workflow's result: %.300s", data)
				}
			}
			var s summary
			if err := converter.GetDefaultDataConverter().FromPayload(info.GetMemo().GetFields()[memoKey], &s); err != nil {
				t.Fatal(err)
			}
			want := summary{Agent: tc.agent, Status: statusOf(step.Fail), Reason: tc.reason, Turns: tc.turns,
				Tokens: step.TotalUsage.Tokens, Runs: 2, Version: agents[tc.agent].Fingerprint()} // its first run, and its version's
			if s.QueuedMs < 0 {
				t.Errorf("memo's QueuedMs %v", s.QueuedMs)
			}
			s.QueuedMs = 0 // how long the mission waited for a worker: TestClockStartsAtFirstWorker
			if s != want {
				t.Errorf("memo %+v, want %+v", s, want)
			}
			sa := info.GetSearchAttributes().GetIndexedFields()
			var agentName, reason string
			var turns int
			_ = converter.GetDefaultDataConverter().FromPayload(sa["PtcAgent"], &agentName)
			_ = converter.GetDefaultDataConverter().FromPayload(sa["PtcReason"], &reason)
			_ = converter.GetDefaultDataConverter().FromPayload(sa["PtcTurns"], &turns)
			if agentName != tc.agent || reason != tc.reason || turns != tc.turns {
				t.Errorf("search attributes: agent %q, reason %q, turns %d", agentName, reason, turns)
			}
		})
	}
}

// A nested agent's child workflow is named after its caller, its tool and
// the call's number in the mission.
func TestChildWorkflowIDs(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("children")
	child := mustAgent(t, agent.Config{Prompt: "Answer {{q}}.", Description: "Answers.", Signature: "(q :string) -> :int"})
	ask, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Ask.", MaxTurns: 3, Tools: map[string]agent.Tool{"ask": ask}})
	model := newScripted(map[string][]string{
		"Ask":    {`(tool/ask {:q "a"})`, `(return (+ 1 (tool/ask {:q "b"})))`},
		"Answer": {`(return 1)`},
	})
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"root": root}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "root", StartOptions{TaskQueue: queue, ID: queue + "-root"})
	if err != nil {
		t.Fatal(err)
	}
	if step, err := m.Result(ctx); err != nil || printed(step.Return) != "2" {
		t.Fatalf("step %v, err %v", step, err)
	}
	var ids []string
	for _, e := range history(t, c, m.ID(), "") {
		if a := e.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			ids = append(ids, a.GetWorkflowExecution().GetWorkflowId())
		}
	}
	want := []string{m.ID() + "/ask-1", m.ID() + "/ask-2"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("child workflow ids %v, want %v", ids, want)
	}
}
