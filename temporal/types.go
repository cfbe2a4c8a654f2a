package temporal

import (
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// Names under which the worker registers the mission workflow, its
// activities and its query.
const (
	// WorkflowName is the mission workflow: one mission of one agent.
	WorkflowName = "ptc.Mission"
	// QueryProgress is the query that returns a mission's Progress.
	QueryProgress = "ptc.progress"

	activityStep = "ptc.Step" // a local activity: runs the mission from its journal, up to its next LLM or tool call
	activityLLM  = "ptc.LLM"  // one LLM call
	activityTool = "ptc.Tool" // one tool call
)

// Error types of the activities' application errors.
const (
	errTypeConfig = "ptc.config" // an agent or a model the worker does not have: never retried
)

// Status is where a mission is.
type Status string

// Mission statuses.
const (
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed" // returned
	StatusFailed    Status = "failed"    // ended with a Fail (cancelled and mission_timeout included)
)

// Progress is what the progress query tells of a running mission (of the
// workflow's own agent; its nested agents are child workflows of their
// own, with their own progress).
type Progress struct {
	// Agent is the registered name of the mission's agent.
	Agent string
	// Status is running, completed or failed.
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
	LastProgram string
}

// MissionInput is the input of the mission workflow. Start fills it in;
// a nested agent's child workflow gets it from its parent.
type MissionInput struct {
	// Agent is the registered name of the agent (WorkerOptions.Agents; a
	// nested agent is "parent/tool").
	Agent string
	// Context is the mission's context in its exact printed form
	// (lisp.PrintExact of a map).
	Context string
	// Model names the model in the worker's registry; "" is the worker's
	// default model. An agent's own Config.LLM, or the model bound to the
	// tool that runs it, wins.
	Model string
	// Position places a nested agent's mission in the tree (nil at the
	// root).
	Position *agent.Position `json:",omitempty"`
	// TraceID is the mission's trace id ("": derived from the workflow's
	// id).
	TraceID string `json:",omitempty"`
	// Deadline is the mission tree's deadline (zero: none besides the
	// agent's own MissionTimeout).
	Deadline time.Time `json:",omitempty"`
	// StepTimeout bounds each run of the mission's programs (one attempt
	// of a local activity). Zero: DefaultStepTimeout.
	StepTimeout time.Duration `json:",omitempty"`
	// Run holds the mission's run options.
	Run RunOptions `json:",omitempty"`
}

// RunOptions are the agent.Options of a mission that travel with it:
// plain data (see StartOptions).
type RunOptions struct {
	LLMOptions       map[string]any     `json:",omitempty"`
	Cache            bool               `json:",omitempty"`
	Validation       signature.Mode     `json:",omitempty"`
	ContextSignature string             `json:",omitempty"`
	TokenLimit       int                `json:",omitempty"`
	OnBudgetExceeded agent.BudgetAction `json:",omitempty"`
}

// options returns the agent.Options they stand for.
func (o RunOptions) options() agent.Options {
	return agent.Options{LLMOptions: o.LLMOptions, Cache: o.Cache, Validation: o.Validation,
		ContextSignature: o.ContextSignature, TokenLimit: o.TokenLimit, OnBudgetExceeded: o.OnBudgetExceeded}
}

// inherited returns the options a nested agent's mission takes from its
// caller's, as in-process: the LLM options and caching.
func (o RunOptions) inherited() RunOptions {
	return RunOptions{LLMOptions: o.LLMOptions, Cache: o.Cache}
}

// DefaultStepTimeout bounds the local activity that runs a mission's
// programs from the journal, up to its next LLM or tool call.
const DefaultStepTimeout = time.Minute

// Result is the outcome of the mission workflow. Mission.Result turns it
// into an *agent.Step.
type Result struct {
	// Trace is the mission's Step as a raw agent trace (trace.Marshal
	// with Raw), when the mission's own run ended it. It carries the
	// Step's firewall: the Step read back (Mission.Result, a nested
	// mission's Step in its caller) hides what it hides in-process.
	Trace []byte `json:",omitempty"`
	// Fail is the failure when the workflow ended the mission: cancelled,
	// mission_timeout.
	Fail *agent.Fail `json:",omitempty"`
	// Usage is the mission's usage when Fail is set.
	Usage agent.Usage
	// Warnings are what the journal noticed: tool calls the program made
	// with other arguments than when they were recorded (it read the
	// clock, say), answered with the recorded results, and recorded calls
	// it did not make again.
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
	// its value and used (agent.ToolResult).
	Firewall []byte       `json:",omitempty"`
	Usage    *agent.Usage `json:",omitempty"`
	// Child is a nested agent's outcome, or a compiled agent's.
	Child *Result `json:",omitempty"`
}

type stepInput struct {
	Mission MissionInput
	Journal journal
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
	// The agent's settings the workflow applies.
	MissionTimeout time.Duration `json:",omitempty"`
	ToolTimeout    time.Duration
}

type llmCall struct {
	Request llm.Request
	// Timeout bounds each attempt; the rest is the agent's retry policy.
	Timeout     time.Duration
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
	Backoff     float64
}

type pendingTool struct {
	Turn int
	Key  string
	Name string
	Args string
	// Nested: the tool runs an agent's mission, a child workflow, with
	// the tool's TokenLimit.
	Nested     bool
	TokenLimit int `json:",omitempty"`
	Position   agent.Position
}

type llmInput struct {
	Agent   string
	Model   string
	Request llm.Request
	// MaxAttempts is the agent's; later attempts of an LLM error are not
	// retried.
	MaxAttempts int
}

type toolInput struct {
	Agent string
	Tool  string
	Args  string
	// Timeout bounds the call (the agent's Limits.Timeout, as a program's
	// clock bounds it in-process); a call past it is the tool's error.
	Timeout time.Duration `json:",omitempty"`
	// Position places the agents the call runs in the mission's tree.
	Position *agent.Position `json:",omitempty"`
}

type toolOutput struct {
	Value    string       `json:",omitempty"`
	Err      string       `json:",omitempty"`
	Firewall []byte       `json:",omitempty"`
	Usage    *agent.Usage `json:",omitempty"`
	// Child is a compiled agent's outcome.
	Child *Result `json:",omitempty"`
}
