package temporal

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// historyFiles are histories of TestWorkerCrash's mission against a real
// server: four turns, a pmap, a worker killed in the middle of an LLM
// call and the mission finished by another. The first was recorded
// before the workflow's version versionProduction (a mission started
// then replays as it ran), the second with it. Record a new one after a
// change of the workflow's commands with
//
//	PTC_TEMPORAL_RECORD_HISTORY=$PWD/testdata/crash_history_vN.json go test -run TestWorkerCrash ./temporal/
//
// and keep the old ones: a change that makes one fail to replay breaks
// the missions running when the workers are upgraded (version it with
// workflow.GetVersion).
var historyFiles = []string{"testdata/crash_history.json", "testdata/crash_history_v1.json"}

// historyFile is the newest recorded crash history.
var historyFile = historyFiles[len(historyFiles)-1]

// treeHistoryFiles are the histories of TestReplayMissionTree's mission,
// recorded with the workflow's version versionRouted: its start (the run
// that moves it to its version's task queue), its first run there, with
// nested agents, the run it continued in past its HistoryLimit, and a
// nested agent's child workflow. Record them again with
//
//	PTC_TEMPORAL_RECORD_TREE=1 go test -run TestReplayMissionTree ./temporal/
var treeHistoryFiles = []string{"testdata/tree_v2_start.json", "testdata/tree_v2_run.json",
	"testdata/tree_v2_continued.json", "testdata/tree_v2_child.json"}

// Every recorded history replays with replayHistoryFile, under the
// workflow id it records: the crash histories, and the tree's, whose
// nested agents' child workflow ids are made from it; among them a
// history with child workflows and one that continues a mission.
func TestReplayRecordedHistory(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(historyFiles, treeHistoryFiles...) {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a recorded history is missing: %v", err)
		}
	}
	children, continued, resumed := 0, 0, 0
	for _, f := range files {
		if err := replayHistoryFile(f, ReplayOptions{}); err != nil {
			t.Errorf("%v", err)
		}
		hist := readHistory(t, f)
		c, cont, res := historyKinds(t, hist)
		children, continued, resumed = children+c, continued+cont, resumed+res
	}
	if children == 0 || continued == 0 || resumed == 0 {
		t.Errorf("the recorded histories have %d child workflows, %d continued runs, %d runs resuming a journal: "+
			"the test covers none of one kind", children, continued, resumed)
	}
}

// missionRuns are the run ids of a workflow that ended, from run on
// (continue-as-new).
func missionRuns(t *testing.T, c client.Client, id, run string) []string {
	t.Helper()
	var runs []string
	for run != "" {
		runs = append(runs, run)
		evs := history(t, c, id, run)
		run = evs[len(evs)-1].GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
	}
	return runs
}

func readHistory(t *testing.T, path string) *historypb.History {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return hist
}

// historyKinds counts a history's child workflows, and whether it
// continues a run (continue-as-new), and one that carries a journal
// (resume).
func historyKinds(t *testing.T, hist *historypb.History) (children, continued, resumed int) {
	t.Helper()
	for _, e := range hist.GetEvents() {
		if e.GetEventType() == enums.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED {
			children++
		}
	}
	a := hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	if a.GetContinuedExecutionRunId() != "" {
		continued = 1
		if p := a.GetInput().GetPayloads(); len(p) == 1 && strings.Contains(string(p[0].GetData()), `"Resume":`) {
			resumed = 1
		}
	}
	return children, continued, resumed
}

// The replay check does check: a workflow whose commands differ from the
// recorded ones is refused; so is a history with nested agents replayed
// under another workflow id than its own (their child workflow ids differ).
func TestReplayDetectsNondeterminism(t *testing.T) {
	changed := func(ctx workflow.Context, in missionInput) (*Result, error) {
		if err := workflow.Sleep(ctx, time.Second); err != nil { // a timer where the history has an activity
			return nil, err
		}
		return missionWorkflow(ctx, in)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(changed, workflow.RegisterOptions{Name: WorkflowName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), historyFile); err == nil {
		t.Fatal("a changed workflow replayed the recorded history")
	}
	err := replayHistoryFile("testdata/tree_v2_run.json", ReplayOptions{WorkflowID: "ReplayId"})
	if err == nil || !strings.Contains(err.Error(), "TMPRL1100") {
		t.Errorf("a history with nested agents replayed under another id: %v", err)
	}
}

// The recorded mission's Step rounds are local activities (markers in the
// history), and its only activity tasks are its LLM calls and tool calls:
// four turns and four tool calls, in eight rounds.
func TestRecordedHistoryShape(t *testing.T) {
	for _, name := range historyFiles {
		hist := readHistory(t, name)
		activities := map[string]int{}
		markers := 0
		for _, e := range hist.Events {
			switch e.EventType {
			case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				activities[e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()]++
			case enums.EVENT_TYPE_MARKER_RECORDED:
				if e.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
					markers++
				}
			}
		}
		if want := map[string]int{activityLLM: 4, activityTool: 4}; !maps.Equal(activities, want) {
			t.Errorf("%s: activities scheduled %v, want %v", name, activities, want)
		}
		if markers != 8 {
			t.Errorf("%s: %d local activity markers, want one for each of the 8 rounds", name, markers)
		}
	}
}

// A mission with nested agents, against a real server, that continues in
// a new run past its HistoryLimit: every run of its workflow, and its
// nested agents' child workflows, replay with ReplayHistory as exported,
// under the workflow id each records (with PTC_TEMPORAL_RECORD_TREE=1 the
// histories are written to testdata for TestReplayRecordedHistory).
func TestReplayMissionTree(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("tree-replay")
	child := mustAgent(t, agent.Config{Prompt: "Answer {{q}}.", Description: "Answers.", Signature: "(q :string) -> :int"})
	ask, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Ask.", MaxTurns: 6, Tools: map[string]agent.Tool{"ask": ask}})
	model := newScripted(map[string][]string{
		"Ask": {`(def a (tool/ask {:q "a"}))`, `(def b (tool/ask {:q "b"}))`, `(def c (tool/ask {:q "c"}))`,
			`(def d (tool/ask {:q "d"}))`, `(return (+ a b c d))`},
		"Answer": {`(return 1)`},
	})
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model.Func), Agents: map[string]*agent.Agent{"root": root}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "root", StartOptions{TaskQueue: queue, ID: queue + "-root", HistoryLimit: 24 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if step, err := m.Result(ctx); err != nil || printed(step.Return) != "4" {
		t.Fatalf("step %v, err %v", step, err)
	}
	// The runs of the mission's workflow, from its start.
	runs := missionRuns(t, c, m.ID(), m.RunID())
	if len(runs) < 3 {
		t.Fatalf("the mission took %d runs: its start, and at least two on its version's task queue were expected", len(runs))
	}
	type recorded struct{ id, run, file string }
	hists := []recorded{{m.ID(), runs[0], "tree_v2_start.json"}, {m.ID(), runs[1], "tree_v2_run.json"},
		{m.ID(), runs[2], "tree_v2_continued.json"}}
	for _, r := range runs[3:] {
		hists = append(hists, recorded{m.ID(), r, ""})
	}
	children := 0
	for _, h := range hists {
		for _, e := range history(t, c, h.id, h.run) {
			if a := e.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
				f := ""
				if children == 0 {
					f = "tree_v2_child.json"
				}
				children++
				hists = append(hists, recorded{a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId(), f})
			}
		}
	}
	if children != 4 {
		t.Errorf("%d child workflows, want 4", children)
	}
	record := os.Getenv("PTC_TEMPORAL_RECORD_TREE") != ""
	for _, h := range hists {
		hist := fetchHistory(t, c, h.id, h.run)
		if err := ReplayHistory(hist, ReplayOptions{}); err != nil {
			t.Errorf("run %s of %s: %v", h.run, h.id, err)
		}
		if record && h.file != "" {
			writeHistory(t, c, h.id, h.run, filepath.Join("testdata", h.file))
		}
	}
	t.Logf("%d runs, %d child workflows replayed", len(runs), children)
}
