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

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

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

// Each LLM request is stored once in the history: whole in its activity's
// input, and in the round's marker only as what is new since the previous
// request (the reply and the feedback), not the whole conversation again.
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
				if out.LLM.Request.System != "" || out.LLM.Request.Prompt != "" || len(out.LLM.Request.Messages) != 2 {
					t.Errorf("round %d's marker holds more than what is new: %d messages, system prompt %d bytes",
						llmRounds, len(out.LLM.Request.Messages), len(out.LLM.Request.System))
				}
			}
		}
		if llmRounds != turns || deltas != turns-len(runs) {
			t.Errorf("%d LLM rounds, %d of them as a difference; want %d and %d", llmRounds, deltas, turns, turns-len(runs))
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
