package temporal

import (
	"maps"
	"os"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
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

// historyFile is the newest recorded history.
var historyFile = historyFiles[len(historyFiles)-1]

// The mission workflow replays a recorded history deterministically.
func TestReplayRecordedHistory(t *testing.T) {
	for _, f := range historyFiles {
		r := worker.NewWorkflowReplayer()
		r.RegisterWorkflowWithOptions(missionWorkflow, workflow.RegisterOptions{Name: WorkflowName})
		if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), f); err != nil {
			t.Errorf("the mission recorded in %s does not replay: %v", f, err)
		}
	}
}

// The replay check does check: a workflow whose commands differ from the
// recorded ones is refused.
func TestReplayDetectsNondeterminism(t *testing.T) {
	changed := func(ctx workflow.Context, in MissionInput) (*Result, error) {
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
}

// The recorded mission's Step rounds are local activities (markers in the
// history), and its only activity tasks are its LLM calls and tool calls:
// four turns and four tool calls, in eight rounds.
func TestRecordedHistoryShape(t *testing.T) {
	for _, name := range historyFiles {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
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
