package temporal

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// ReplayOptions are the options of ReplayHistory.
type ReplayOptions struct {
	// WorkflowID is the mission's workflow id ("": the one the history's
	// first event records). Its nested agents' child workflow ids are made
	// from it: a history with nested agents replays only under its own.
	WorkflowID string
	// Logger receives the replay's logs (nil: none).
	Logger log.Logger
	// Replayer are the SDK's replayer options: the DataConverter of
	// workers whose payloads are encrypted, say.
	Replayer worker.WorkflowReplayerOptions
}

// ReplayHistory replays one run of a mission's workflow from its history
// with this package's workflow code, as a worker would after a restart,
// and returns an error when the code does not make the commands the
// history records (a change that would break the missions running when
// the workers are upgraded: version it with workflow.GetVersion). It
// runs no LLM call, tool call or program: their results come from the
// history. A history with nested agents replays too (their child
// workflows' ids are made from the mission's, taken from the history),
// and so does a run that continues a mission (continue-as-new); each
// nested agent's child workflow and each run has a history of its own.
//
// A history exported as JSON (`temporal workflow show --workflow-id ID
// --output json`, the Web UI's download) is read with the SDK's
// client.HistoryFromJSON.
func ReplayHistory(hist *historypb.History, opts ReplayOptions) error {
	if hist == nil || len(hist.GetEvents()) == 0 {
		return errors.New("temporal: replaying a history: the history is empty")
	}
	id := opts.WorkflowID
	if id == "" {
		id = hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
	}
	if id == "" {
		for _, e := range hist.GetEvents() {
			if e.GetEventType() == enums.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED {
				return errors.New("temporal: replaying a history: it does not record its workflow id, " +
					"which its nested agents' child workflow ids are made from: give ReplayOptions.WorkflowID")
			}
		}
	}
	r, err := worker.NewWorkflowReplayerWithOptions(opts.Replayer)
	if err != nil {
		return fmt.Errorf("temporal: replaying a history: %w", err)
	}
	r.RegisterWorkflowWithOptions(missionWorkflow, workflow.RegisterOptions{Name: WorkflowName})
	logger := opts.Logger
	if logger == nil {
		logger = log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	err = r.ReplayWorkflowHistoryWithOptions(logger, hist, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: id}})
	if err != nil {
		return fmt.Errorf("temporal: the history of workflow %q does not replay: %w", id, err)
	}
	return nil
}
