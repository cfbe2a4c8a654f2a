package temporal

import (
	"encoding/json"
	"errors"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// memoKey is the key of a mission's summary in its workflow's memo.
const memoKey = "ptc"

// summary is what the workflow's memo says of a mission, for people and
// tools that read workflows without a worker (the Web UI, `temporal
// workflow describe`, Progress when no worker answers): written when the
// mission starts and again when it ends.
type summary struct {
	Agent  string
	Status Status
	Reason string     `json:",omitempty"`
	Turns  int        `json:",omitempty"`
	Tokens llm.Tokens `json:",omitzero"`
	Runs   int        `json:",omitempty"`
	// Version is the fingerprint of the agent's version the mission runs
	// (written when it chose it, at its start).
	Version string `json:",omitempty"`
	// QueuedMs is how long the mission waited for its first worker, in
	// milliseconds (as the PtcQueuedMs search attribute).
	QueuedMs int64 `json:",omitempty"`
}

func summaryOf(r *Result) summary {
	return summary{Agent: r.Agent, Status: r.Status, Reason: r.Reason, Turns: r.Turns, Tokens: r.Tokens, Runs: r.Runs}
}

// The search attributes a mission sets when StartOptions.SearchAttributes
// asks for them. Register them on the namespace first:
//
//	temporal operator search-attribute create --name PtcAgent --type Keyword
//	temporal operator search-attribute create --name PtcReason --type Keyword
//	temporal operator search-attribute create --name PtcTurns --type Int
//	temporal operator search-attribute create --name PtcTokens --type Int
//	temporal operator search-attribute create --name PtcQueuedMs --type Int
var (
	// searchAttributeAgent is the agent's registered name, set at the start.
	searchAttributeAgent = sdktemporal.NewSearchAttributeKeyKeyword("PtcAgent")
	// searchAttributeReason is the reason of the mission's Fail ("" when it
	// returned), set at its end.
	searchAttributeReason = sdktemporal.NewSearchAttributeKeyKeyword("PtcReason")
	// searchAttributeTurns is the mission's turns, set at its end.
	searchAttributeTurns = sdktemporal.NewSearchAttributeKeyInt64("PtcTurns")
	// searchAttributeTokens is the tokens of the mission's tree, set at its
	// end.
	searchAttributeTokens = sdktemporal.NewSearchAttributeKeyInt64("PtcTokens")
	// searchAttributeQueued is how long the mission waited for its first
	// worker, in milliseconds, set when a worker first runs it.
	searchAttributeQueued = sdktemporal.NewSearchAttributeKeyInt64("PtcQueuedMs")
)

// statusOf is the Status of a mission that ended with fail (nil: it
// returned).
func statusOf(fail *agent.Fail) Status {
	switch {
	case fail == nil:
		return StatusCompleted
	case fail.Reason == agent.ReasonCancelled:
		return StatusCancelled
	}
	return StatusFailed
}

// ResultFromError is the Result of a mission whose workflow failed or was
// cancelled: the details of the workflow's error (from
// client.WorkflowRun.Get, a child workflow's future, or the SDK's test
// environment's GetWorkflowError); nil when err carries none (the
// workflow could not run). Mission.Result does this for you.
func ResultFromError(err error) *Result {
	var (
		ae *sdktemporal.ApplicationError
		ce *sdktemporal.CanceledError
		r  Result
	)
	switch {
	case errors.As(err, &ae) && ae.HasDetails():
		if ae.Details(&r) != nil {
			return nil
		}
	case errors.As(err, &ce) && ce.HasDetails():
		if ce.Details(&r) != nil {
			return nil
		}
	default:
		return nil
	}
	if r.Trace == nil && r.Fail == nil {
		return nil
	}
	return &r
}

// traceBytes is a Result's trace as JSON: Results written before the
// trace was readable JSON hold it as a base64 string.
func traceBytes(raw json.RawMessage) ([]byte, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var b []byte
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return raw, nil
}
