package temporal

import (
	"encoding/json"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// Names under which the worker registers the mission workflow, its
// activities and its query.
const (
	// WorkflowName is the mission workflow: one mission of one agent.
	WorkflowName = "ptc.Mission"
	// queryProgress is the query that returns a mission's Progress.
	queryProgress = "ptc.progress"
	// queryLLMRequest returns the whole LLM request of the call in flight,
	// to the LLM activity that got it as a difference and cannot rebuild
	// it (conversations.request).
	queryLLMRequest = "ptc.llm_request"

	activityStep = "ptc.Step" // a local activity: runs the mission from its journal, up to its next LLM or tool call
	activityLLM  = "ptc.LLM"  // one LLM call
	activityTool = "ptc.Tool" // one tool call
)

// Error types of the activities' application errors.
const (
	errTypeConfig = "ptc.config" // an agent or a model the worker does not have: never retried
	// errTypeAgentChanged is a worker's refusal of a mission started with
	// another version of its agent.
	errTypeAgentChanged = "ptc.agent_changed"
	// errTypeWorkerStopped is a call cut short by its worker's stop: it
	// is made again.
	errTypeWorkerStopped = "ptc.worker_stopped"
	// errTypeConversation is an LLM request sent as a difference that its
	// worker could not rebuild (the workflow did not answer its query):
	// the call is made again.
	errTypeConversation = "ptc.conversation"
)

// Status is where a mission is.
type Status string

// Mission statuses.
const (
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed" // returned
	StatusFailed    Status = "failed"    // ended with a Fail (mission_timeout included)
	StatusCancelled Status = "cancelled" // cancelled (Mission.Cancel, a cancelled caller)
)

// Progress is what the progress query tells of a running mission (of the
// workflow's own agent; its nested agents are child workflows of their
// own, with their own progress).
type Progress struct {
	// Agent is the registered name of the mission's agent.
	Agent string
	// Status is running, completed, failed or cancelled.
	Status Status
	// Turn is the turn the mission is in (or ended in).
	Turn int
	// LLMCalls and ToolCalls count the calls completed and recorded (tool
	// calls of nested agents included, each as one call).
	LLMCalls, ToolCalls int
	// Usage is the mission's usage so far: turns, LLM requests, tokens.
	Usage agent.Usage
	// LastProgram is the program of the last turn that had one, scrubbed
	// by the mission's firewall (Progress is for display).
	LastProgram string `json:",omitempty"`
	// Queued is how long the mission waited in its task queue before a
	// worker first ran it; its MissionTimeout runs from then.
	Queued time.Duration `json:",omitempty"`
	// Version is the fingerprint of the version of the agent the mission
	// runs (agent.Agent.Fingerprint; "" until its start chose one).
	Version string `json:",omitempty"`
	// Recorded is set when no worker answered (Unanswered says why):
	// the fields then come from the workflow's state and memo
	// (docs/temporal.md, "Starting and following missions").
	Recorded   bool   `json:",omitempty"`
	Unanswered string `json:",omitempty"`
}

// missionInput is the input of the mission workflow. Start fills it in;
// a nested agent's child workflow gets it from its parent.
type missionInput struct {
	// Agent is the registered name of the agent (WorkerOptions.Agents; a
	// nested agent is "parent/tool").
	Agent string
	// Context is the mission's context in its exact printed form
	// (lisp.Print (Exact) of a map).
	Context string
	// Model names the model in the worker's registry; "" is the worker's
	// default model. An agent's own Config.LLM, or the model bound to the
	// tool that runs it, wins.
	Model string
	// Position places a nested agent's mission in the tree (nil at the
	// root).
	Position *engine.Position `json:",omitempty"`
	// TraceID is the mission's trace id ("": derived from the workflow's
	// id).
	TraceID string `json:",omitempty"`
	// Deadline is the mission tree's deadline (zero: none besides the
	// agent's own MissionTimeout).
	Deadline time.Time `json:",omitempty"`
	// StepTimeout bounds each run of the mission's programs (one attempt
	// of a local activity). Zero: defaultStepTimeout.
	StepTimeout time.Duration `json:",omitempty"`
	// Run holds the mission's run options.
	Run runWire
	// SearchAttributes has the mission and its nested agents' missions
	// set the search attributes PtcAgent, PtcQueuedMs, PtcReason,
	// PtcTurns and PtcTokens (StartOptions.SearchAttributes).
	SearchAttributes bool `json:",omitempty"`
	// HistoryLimit is the history size, in bytes, past which the mission
	// goes on in a new run of its workflow (continue-as-new); zero:
	// defaultHistoryLimit.
	HistoryLimit int `json:",omitempty"`
	// Fingerprint is the fingerprint of the agent's version the mission
	// runs (agent.Agent.Fingerprint): recorded by its first round, or
	// given by its caller to a nested agent's mission.
	Fingerprint string `json:",omitempty"`
	// Queue is the task queue of the mission's agent version
	// (versionTaskQueue), where its workflow runs once it made its first
	// calls, with its calls and nested agents; "" before, in a test
	// environment (Register), and for missions started before routing by
	// version, which run on the task queue they started on.
	Queue string `json:",omitempty"`
	// Resume is what a mission that continued in a new run carries over:
	// its journal, its start, its runs.
	Resume *resume `json:",omitempty"`
}

// resume is the state a mission carries into a new run of its workflow
// (continue-as-new): what it did, and since when.
type resume struct {
	Journal journal
	// Started is when the mission's clock started (its first run's).
	Started time.Time
	// Runs counts the runs before this one.
	Runs int
	// Queued is how long the mission waited for its first worker.
	Queued time.Duration `json:",omitempty"`
}

// defaultHistoryLimit is the history size past which a mission continues
// in a new run of its workflow, unless the server suggests it sooner:
// well below Temporal's 50 MB limit (and its 10 MB warning).
const defaultHistoryLimit = 4 << 20

// RunOptions are the agent.Options of a mission that travel with it:
// plain data (functions, observers and models do not: see
// docs/temporal.md). LLMOptions and Cache reach nested agents too, as
// in-process; values of LLMOptions come back from JSON (numbers as
// float64).
type RunOptions struct {
	LLMOptions            map[string]any `json:",omitempty"`
	Cache                 bool           `json:",omitempty"`
	Validation            signature.Mode `json:",omitempty"`
	InputSignature        string         `json:"ContextSignature,omitempty"` // the wire name of older histories
	TokenLimit            int            `json:",omitempty"`
	ReturnPartialOnBudget bool           `json:"-"` // on the wire as OnBudgetExceeded 1 (runWire)
}

// runWire is how a mission's input carries its RunOptions: as older
// histories wrote them, ReturnPartialOnBudget as OnBudgetExceeded 1 (the
// value agent.BudgetReturnPartial had).
type runWire struct{ RunOptions }

// wireRun is the shape of runWire on the wire.
type wireRun struct {
	RunOptions
	OnBudgetExceeded int `json:",omitempty"`
}

func (w runWire) MarshalJSON() ([]byte, error) {
	v := wireRun{RunOptions: w.RunOptions}
	if w.ReturnPartialOnBudget {
		v.OnBudgetExceeded = 1
	}
	return json.Marshal(v)
}

func (w *runWire) UnmarshalJSON(b []byte) error {
	var v wireRun
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	w.RunOptions = v.RunOptions
	w.ReturnPartialOnBudget = v.OnBudgetExceeded == 1
	return nil
}

// options returns the agent.Options they stand for.
func (o RunOptions) options() agent.Options {
	return agent.Options{LLMOptions: o.LLMOptions, Cache: o.Cache, Validation: o.Validation,
		InputSignature: o.InputSignature, TokenLimit: o.TokenLimit, ReturnPartialOnBudget: o.ReturnPartialOnBudget}
}

// inherited returns the options a nested agent's mission takes from its
// caller's, as in-process: the LLM options and caching.
func (o RunOptions) inherited() RunOptions {
	return RunOptions{LLMOptions: o.LLMOptions, Cache: o.Cache}
}

// defaultStepTimeout bounds the local activity that runs a mission's
// programs from the journal, up to its next LLM or tool call.
const defaultStepTimeout = time.Minute

// Result is the outcome of the mission workflow: the workflow's result
// when the mission returned, the details of its error when it failed or
// was cancelled. Mission.Result turns it into an *agent.Step. It is JSON
// a person can read in the Web UI: a summary, then the trace.
type Result struct {
	// Agent, Status, Reason, Message, Turns and Tokens summarize the
	// mission: the agent's name, how it ended, the Fail's reason and
	// message (scrubbed), its turns and the tokens of its tree.
	Agent   string     `json:",omitempty"`
	Status  Status     `json:",omitempty"`
	Reason  string     `json:",omitempty"`
	Message string     `json:",omitempty"`
	Turns   int        `json:",omitempty"`
	Tokens  llm.Tokens `json:",omitzero"`
	// Runs counts the workflow runs the mission took: it continues in a
	// new run on its version's task queue after its first call, and past
	// its HistoryLimit.
	Runs int `json:",omitempty"`
	// Trace is the mission's Step as a raw agent trace (trace.Marshal
	// with Raw), which carries its firewall: the Step read back hides what
	// it hides in-process.
	Trace json.RawMessage `json:",omitempty"`
	// Fail is the failure when the workflow ended the mission without a
	// trace (its last round could not run).
	Fail *agent.Fail `json:",omitempty"`
	// Usage is the mission's usage when Fail is set.
	Usage agent.Usage `json:",omitzero"`
	// Warnings are what the journal noticed: tool calls made again with
	// other arguments (answered with the recorded results), recorded calls
	// not made again (docs/temporal.md, "What is durable, and what is not").
	Warnings []string `json:",omitempty"`
}

// journal is what a mission did that must not be done again: its LLM
// calls, in order, and its tool calls, matched by name and arguments.
type journal struct {
	LLM   []llmEntry  `json:",omitempty"`
	Tools []toolEntry `json:",omitempty"`
}

type llmEntry struct {
	Response *llm.Response `json:",omitempty"`
	// Start and End are when the workflow made the call and had its
	// outcome (retries included); Took, when set, is the successful
	// attempt's own time, as its activity measured it.
	Start, End time.Time
	Took       time.Duration `json:",omitempty"`
	// Err and Class describe an LLM call that failed after its retries.
	Err   string    `json:",omitempty"`
	Class llm.Class `json:",omitempty"`
}

type toolEntry struct {
	// Turn is the turn of the program that made the call, Name the tool's
	// name, Key the name and the arguments' printed form.
	Turn int
	Name string
	Key  string
	// Round numbers the calls the workflow made together (a pmap's), when
	// there were several: they are answered together when the mission
	// runs again (see held).
	Round int `json:",omitempty"`
	// Value is the result in its exact printed form.
	Value string `json:",omitempty"`
	// Err is the tool's error.
	Err string `json:",omitempty"`
	// Firewall and Usage are what the agents a Go tool ran firewall in
	// its value and used (engine.ToolResult).
	Firewall []byte       `json:",omitempty"`
	Usage    *agent.Usage `json:",omitempty"`
	// Child is a nested agent's outcome, or a compiled agent's.
	Child *Result `json:",omitempty"`
	// Start and End are when the workflow made the call and had its
	// outcome; Took, when set, is the call's own time as the activity
	// measured it (without queueing, retries of lost workers, or the gap
	// a crashed worker left before the workflow saw the outcome).
	Start, End time.Time
	Took       time.Duration `json:",omitempty"`
	// Cut marks a call the mission's end cut short (Err says why): the
	// run that answers it ends there, as the mission did.
	Cut bool `json:",omitempty"`
}

type stepInput struct {
	Mission missionInput
	Journal journal
	// Last is the previous LLM request, whole: a new one that continues
	// it is returned as the difference.
	Last *llm.Request
	// Started is the mission's start: the clock of its run starts there
	// and moves on to the end of each recorded call.
	Started time.Time
	// End, when set, ends the mission at the first call the journal does
	// not have, with this Fail (cancelled, mission_timeout), at EndTime.
	End     *agent.Fail
	EndTime time.Time
	// Armed: the run has the agent's settings (stepOutput.MissionTimeout,
	// ToolTimeout, Fingerprint) from its first round; later rounds leave
	// them out.
	Armed bool
}

// stepOutput is a run of the mission from its journal: either its end,
// or the calls it waits for.
type stepOutput struct {
	Done bool
	// Result is the mission's end (Done).
	Result *Result `json:",omitempty"`
	// LLM is the LLM call the mission waits for.
	LLM *llmCall `json:",omitempty"`
	// Tools are the tool calls it waits for (several, from pmap).
	Tools    []pendingTool `json:",omitempty"`
	Progress Progress
	// The agent's settings the workflow applies, in the first round of
	// each run (stepInput.Armed).
	MissionTimeout time.Duration `json:",omitempty"`
	ToolTimeout    time.Duration `json:",omitempty"`
	// ProgramOfReply: Progress.LastProgram is the program of the last
	// reply in the journal, and left out.
	ProgramOfReply bool `json:",omitempty"`
	// Fingerprint is the fingerprint of the agent's version that ran (first
	// round of each run; Progress.Version too).
	Fingerprint string `json:",omitempty"`
	// Queue is the task queue of that version, for a mission that is not
	// there (versionTaskQueue; "" for a nested agent's, and in a test
	// environment).
	Queue string `json:",omitempty"`
}

type llmCall struct {
	// Request is the request; when Base is set, the part of it that is
	// new: it continues the previous request (stepInput.Last), whose
	// system prompt, prompt, tool names, options, sender (Agent, Depth,
	// trace ids) and first Base messages it keeps, with Request's messages
	// and turn. The round's marker in
	// the history then holds only what is new, not the whole
	// conversation again.
	Request llm.Request
	Base    int `json:",omitempty"`
	// Reply: the model's last reply (the journal's), as an assistant
	// message, follows the first Base messages, and is not in Request's.
	Reply bool `json:",omitempty"`
	// Timeout bounds each attempt; the rest is the agent's retry policy.
	Timeout     time.Duration
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
	Backoff     float64
}

type pendingTool struct {
	// Fingerprint is a nested agent's, in the version of the caller that
	// runs.
	Fingerprint string `json:",omitempty"`
	Turn        int
	Key         string
	Name        string
	Args        string
	// Nested: the tool runs an agent's mission, a child workflow, with
	// the tool's TokenLimit.
	Nested     bool
	TokenLimit int `json:",omitempty"`
	Position   engine.Position
}

type llmInput struct {
	Agent       string
	Fingerprint string `json:",omitempty"`
	Model       string
	// Request is the request, whole; or, when Base is set, what is new in
	// it (its turn and the messages after the first Base), the rest being
	// the mission's previous request's (llmCall.Base): its history then
	// holds each message once, not the conversation again on every turn.
	// Only the workers of a version's task queue get differences
	// (sendsDifferences).
	Request llm.Request
	Base    int `json:",omitempty"`
	// Reply: the mission's last reply follows the first Base messages, as
	// in llmCall; the worker that made that call has it.
	Reply bool `json:",omitempty"`
	// Digest is the whole request's (requestDigest), with Base: the
	// worker checks the request it rebuilds against it. Without Base, a
	// Digest and a Request with only its Turn is a run's large first
	// request (largeRequestBytes), which the worker asks the workflow for.
	Digest string `json:",omitempty"`
	// MaxAttempts is the agent's; later attempts of an LLM error are not
	// retried.
	MaxAttempts int
}

// llmOutput is the LLM activity's result: the reply, and the time the
// model took. Its JSON is the reply's with Took beside its fields, so
// that replies recorded before Took read as they were.
type llmOutput struct {
	llm.Response
	Took time.Duration `json:",omitempty"`
}

type toolInput struct {
	Agent       string
	Fingerprint string `json:",omitempty"`
	Tool        string
	Args        string
	// Timeout bounds the call (the agent's Limits.Timeout, as a program's
	// clock bounds it in-process); a call past it is the tool's error.
	Timeout time.Duration `json:",omitempty"`
	// Position places the agents the call runs in the mission's tree.
	Position *engine.Position `json:",omitempty"`
}

type toolOutput struct {
	Value    string       `json:",omitempty"`
	Err      string       `json:",omitempty"`
	Firewall []byte       `json:",omitempty"`
	Usage    *agent.Usage `json:",omitempty"`
	// Child is a compiled agent's outcome.
	Child *Result `json:",omitempty"`
	// Took is the call's own time, measured around it in the activity.
	Took time.Duration `json:",omitempty"`
}
