package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// pagerAgent fetches pages of about 1 KB from a tool, one a turn, and
// counts the calls of each page.
func pagerAgent(t *testing.T, pages *counter) *agent.Agent {
	return mustAgent(t, agent.Config{Prompt: "Read the pages of {{book}}.", MaxTurns: 200, MaxTreeTurns: 200,
		Tools: map[string]agent.Tool{"page": {Signature: "(n :int) -> :map", Description: "Returns a page.",
			Func: func(_ context.Context, args *lisp.Map) (any, error) {
				pages.add(args)
				n, _ := args.Get(lisp.Keyword("n"))
				lines := map[string]any{}
				for i := range 16 {
					lines[fmt.Sprintf("line-%02d", i)] = fmt.Sprintf("page %s, line %d: %s", printed(n), i, strings.Repeat("lorem ", 8))
				}
				return lines, nil
			}}}})
}

// pagerScript reads turns-1 pages, one a turn, and returns how many it
// read.
func pagerScript(turns int) []string {
	script := make([]string, 0, turns)
	for i := 1; i < turns; i++ {
		script = append(script, fmt.Sprintf(`(def p%d (tool/page {:n %d})) (count p%d)`, i, i, i))
	}
	return append(script, fmt.Sprintf(`(return %d)`, turns-1))
}

// historySize is a workflow run's history size in bytes and events, as
// the server counts them.
func historySize(t *testing.T, c client.Client, id, runID string) (bytes, events int64) {
	t.Helper()
	d, err := describe(context.Background(), c, id, runID)
	if err != nil {
		t.Fatal(err)
	}
	info := d.GetWorkflowExecutionInfo()
	return info.GetHistorySizeBytes(), info.GetHistoryLength()
}

// Each LLM request is stored once in the history: in the round's marker and
// in its activity's input only as what is new since the previous request
// (the feedback: the reply is the previous call's result), not the whole
// conversation again; each run's first request whole.
// PTC_TEMPORAL_HISTORY_TURNS=10,20,40 logs the history's size for
// missions of those many turns (docs/temporal.md quotes it).
func TestHistoryGrowth(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("history")
	pages := newCounter()
	sizes := []int{8}
	if s := os.Getenv("PTC_TEMPORAL_HISTORY_TURNS"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 2 {
				t.Fatalf("PTC_TEMPORAL_HISTORY_TURNS=%q", s)
			}
			sizes = append(sizes, n)
		}
	}
	replies := map[string][]string{}
	for _, n := range sizes {
		replies[fmt.Sprintf("book%d", n)] = pagerScript(n)
	}
	model := newScripted(replies)
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"pager": pagerAgent(t, pages)}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, turns := range sizes {
		m, err := Start(ctx, c, "pager", StartOptions{TaskQueue: queue, Input: map[string]any{"book": fmt.Sprintf("book%d", turns)}})
		if err != nil {
			t.Fatal(err)
		}
		step, err := m.Result(ctx)
		if err != nil || printed(step.Return) != strconv.Itoa(turns-1) {
			t.Fatalf("step %v, err %v", step, err)
		}
		// The mission's runs: its first, and the one on its version's task
		// queue; each run's first LLM request is whole.
		runs := missionRuns(t, c, m.ID(), m.RunID())
		var bytes, events int64
		for _, r := range runs {
			b, e := historySize(t, c, m.ID(), r)
			bytes, events = bytes+b, events+e
		}
		t.Logf("%d turns: %d runs, %d history events, %d bytes (%.1f KB a turn)", turns, len(runs), events, bytes,
			float64(bytes)/1024/float64(turns))

		llmRounds, deltas := 0, 0
		var evs []*historypb.HistoryEvent
		for _, r := range runs {
			evs = append(evs, history(t, c, m.ID(), r)...)
		}
		for _, e := range evs {
			a := e.GetMarkerRecordedEventAttributes()
			if a == nil || a.GetMarkerName() != "LocalActivity" {
				continue
			}
			var out stepOutput
			if err := json.Unmarshal(a.GetDetails()["result"].GetPayloads()[0].GetData(), &out); err != nil {
				t.Fatal(err)
			}
			if out.LLM == nil {
				continue
			}
			llmRounds++
			if out.LLM.Base > 0 {
				deltas++
				if out.LLM.Request.System != "" || out.LLM.Request.Prompt != "" || len(out.LLM.Request.Messages) != 1 || !out.LLM.Reply {
					t.Errorf("round %d's marker holds more than what is new: %d messages, system prompt %d bytes",
						llmRounds, len(out.LLM.Request.Messages), len(out.LLM.Request.System))
				}
			}
		}
		if llmRounds != turns || deltas != turns-len(runs) {
			t.Errorf("%d LLM rounds, %d of them as a difference; want %d and %d", llmRounds, deltas, turns, turns-len(runs))
		}
		// The LLM activities' inputs too: each run's first request whole,
		// the others what is new but the reply (the feedback).
		inputs := llmInputs(t, evs)
		differences := 0
		for i, in := range inputs {
			if in.Base == 0 {
				continue
			}
			differences++
			if in.Digest == "" || in.Request.System != "" || in.Request.Prompt != "" || len(in.Request.Messages) != 1 || !in.Reply {
				t.Errorf("LLM call %d's input holds more than what is new: %d messages, system prompt %d bytes, digest %q",
					i+1, len(in.Request.Messages), len(in.Request.System), in.Digest)
			}
		}
		if len(inputs) != turns || differences != turns-len(runs) {
			t.Errorf("%d LLM activities, %d of them sent as a difference; want %d and %d", len(inputs), differences, turns, turns-len(runs))
		}
	}
	want := 0
	for _, n := range sizes {
		want += n - 1
	}
	if pages.total() != want || model.total() != want+len(sizes) {
		t.Errorf("%d tool calls, %d LLM calls: want %d and %d, each made once", pages.total(), model.total(), want, want+len(sizes))
	}
}

// A mission whose history passes its HistoryLimit goes on in a new run of
// its workflow, with its journal: it ends as it would have, each LLM call
// and tool call made once, and Result follows it to its last run.
func TestContinueAsNew(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("continue")
	pages := newCounter()
	const turns = 6
	model := newScripted(map[string][]string{"book": pagerScript(turns)})
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"pager": pagerAgent(t, pages)}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "pager", StartOptions{TaskQueue: queue, Input: map[string]any{"book": "book"},
		HistoryLimit: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != strconv.Itoa(turns-1) {
		t.Fatalf("step %v, err %v", step, err)
	}
	if model.total() != turns || len(model.repeated()) > 0 || pages.total() != turns-1 || len(pages.repeated()) > 0 {
		t.Errorf("LLM calls %d (repeated %v), tool calls %d (repeated %v)", model.total(), model.repeated(),
			pages.total(), pages.repeated())
	}
	if len(step.Trace) != turns || step.Usage.Turns != turns || step.Usage.LLMRequests != turns {
		t.Errorf("%d turns traced, usage %+v", len(step.Trace), step.Usage)
	}
	d, err := describe(ctx, c, m.ID(), m.RunID())
	if err != nil {
		t.Fatal(err)
	}
	if s := d.GetWorkflowExecutionInfo().GetStatus(); s != enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
		t.Errorf("the first run's status is %v", s)
	}
	p, err := m.Progress(ctx)
	if err != nil || p.Status != StatusCompleted || p.Turn != turns {
		t.Errorf("progress %+v, %v", p, err)
	}
	d, err = describe(ctx, c, m.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	var sum summary
	if err := converter.GetDefaultDataConverter().FromPayload(d.GetWorkflowExecutionInfo().GetMemo().GetFields()[memoKey], &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Runs < 2 || sum.Status != StatusCompleted {
		t.Errorf("memo %+v: want the mission's runs (more than one)", sum)
	}
	t.Logf("%d turns in %d runs", turns, sum.Runs)
}

// llmInputs are the inputs of the LLM activities scheduled in evs.
func llmInputs(t *testing.T, evs []*historypb.HistoryEvent) []llmInput {
	t.Helper()
	var ins []llmInput
	for _, e := range evs {
		a := e.GetActivityTaskScheduledEventAttributes()
		if a == nil || a.GetActivityType().GetName() != activityLLM {
			continue
		}
		var in llmInput
		if err := json.Unmarshal(a.GetInput().GetPayloads()[0].GetData(), &in); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	return ins
}

// newData is the bytes of what each turn adds of its own to evs: the
// model's replies (the LLM activities' results) and the tool calls'
// arguments and results (the tool activities' inputs and results).
func newData(evs []*historypb.HistoryEvent) int {
	tools := map[int64]bool{}
	llms := map[int64]bool{}
	n := 0
	size := func(ps []*commonpb.Payload) (b int) {
		for _, p := range ps {
			b += len(p.GetData())
		}
		return b
	}
	for _, e := range evs {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			switch a.GetActivityType().GetName() {
			case activityTool:
				tools[e.GetEventId()] = true
				n += size(a.GetInput().GetPayloads())
			case activityLLM:
				llms[e.GetEventId()] = true
			}
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && (tools[a.GetScheduledEventId()] || llms[a.GetScheduledEventId()]) {
			n += size(a.GetResult().GetPayloads())
		}
	}
	return n
}

// The history grows by what each turn brings, not by the conversation:
// with a 20 KB context and replies of about 1 KB, a turn adds its reply,
// its tool call's arguments and result, and at most 4 KB more (the
// feedback, the round's markers, the events of its tasks), whatever the
// mission's length. Measured as the slope between a short and a long
// mission, so that what a run stores once (the context, the first
// request) does not count, and without the mission's end (its Result, the
// trace, is stored with the last round and as the workflow's result).
func TestHistoryGrowthPerTurn(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("history-turn")
	pages := newCounter()
	short, long := 6, 26
	// Replies of about 1 KB: a program and a comment.
	padded := func(script []string) []string {
		for i, p := range script {
			script[i] = p + "\n;; " + strings.Repeat("a comment on the page read this turn. ", 26)
		}
		return script
	}
	replies := map[string][]string{"short": padded(pagerScript(short)), "long": padded(pagerScript(long))}
	model := newScripted(replies)
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"pager": pagerAgent(t, pages)}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	notes := strings.Repeat("a note of the context, ", 20<<10/23)
	type measure struct{ bytes, data int }
	measures := map[string]measure{}
	for _, book := range []string{"short", "long"} {
		m, err := Start(ctx, c, "pager", StartOptions{TaskQueue: queue, Input: map[string]any{"book": book, "notes": notes}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Result(ctx); err != nil {
			t.Fatal(err)
		}
		var mm measure
		for _, r := range missionRuns(t, c, m.ID(), m.RunID()) {
			evs := history(t, c, m.ID(), r)
			mm.bytes += runningSize(t, evs)
			mm.data += newData(evs)
		}
		measures[book] = mm
	}
	turns := long - short
	growth := float64(measures["long"].bytes-measures["short"].bytes) / float64(turns)
	data := float64(measures["long"].data-measures["short"].data) / float64(turns)
	t.Logf("a turn adds %.0f bytes to the history: %.0f of replies, tool arguments and results, %.0f more", growth, data, growth-data)
	if growth-data > 4096 {
		t.Errorf("a turn adds %.0f bytes beyond its replies, tool arguments and results; want at most 4096", growth-data)
	}
}

// runningSize is the bytes of the events of evs, a run's history, but its
// end: the round that ended the mission and the workflow's completion,
// which hold its Result.
func runningSize(t *testing.T, evs []*historypb.HistoryEvent) int {
	t.Helper()
	n := 0
	for _, e := range evs {
		if e.GetEventType() == enums.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
			continue
		}
		if a := e.GetMarkerRecordedEventAttributes(); a != nil && a.GetMarkerName() == "LocalActivity" {
			var out stepOutput
			if err := json.Unmarshal(a.GetDetails()["result"].GetPayloads()[0].GetData(), &out); err != nil {
				t.Fatal(err)
			}
			if out.Done {
				continue
			}
		}
		n += proto.Size(e)
	}
	return n
}
