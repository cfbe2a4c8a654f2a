package temporal

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// StartOptions are the parameters of a mission started on Temporal.
type StartOptions struct {
	// TaskQueue is the task queue of the workers that run the agent.
	// Required.
	TaskQueue string
	// ID is the workflow id ("": one the client makes up). A mission's id
	// is how it is found again (Attach).
	ID string
	// Context is the mission's input, as agent.Options.Context: a map with
	// string keys, a struct, or a *lisp.Map.
	Context any
	// Model names the model in the workers' llm.Registry ("": the
	// workers' default model); the agent's own Config.LLM wins.
	Model string
	// StepTimeout bounds each run of the mission's programs; zero:
	// DefaultStepTimeout.
	StepTimeout time.Duration
	// Run options, as agent.Options: the plain-data ones travel with the
	// mission (functions, observers and models do not: see docs/temporal.md).
	// LLMOptions and Cache reach nested agents too, as in-process; values
	// of LLMOptions come back from JSON (numbers as float64).
	LLMOptions       map[string]any
	Cache            bool
	Validation       signature.Mode
	ContextSignature string
	TokenLimit       int
	OnBudgetExceeded agent.BudgetAction
	// Workflow are more of the SDK's start options (ID and TaskQueue are
	// set from the fields above).
	Workflow client.StartWorkflowOptions
}

// Mission is a handle on a mission running on Temporal.
type Mission struct {
	c     client.Client
	id    string
	runID string
}

// Start starts a mission of the agent registered as agentName on the
// workers of opts.TaskQueue, and returns at once.
func Start(ctx context.Context, c client.Client, agentName string, opts StartOptions) (*Mission, error) {
	if c == nil || opts.TaskQueue == "" || agentName == "" {
		return nil, fmt.Errorf("%w: Start needs a client, an agent name and StartOptions.TaskQueue", ErrInvalidOptions)
	}
	input, err := contextMap(opts.Context)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	wo := opts.Workflow
	wo.ID, wo.TaskQueue = opts.ID, opts.TaskQueue
	run, err := c.ExecuteWorkflow(ctx, wo, WorkflowName, MissionInput{Agent: agentName,
		Context: lisp.PrintExact(input), Model: opts.Model, StepTimeout: opts.StepTimeout,
		Run: RunOptions{LLMOptions: opts.LLMOptions, Cache: opts.Cache, Validation: opts.Validation,
			ContextSignature: opts.ContextSignature, TokenLimit: opts.TokenLimit, OnBudgetExceeded: opts.OnBudgetExceeded}})
	if err != nil {
		return nil, fmt.Errorf("temporal: starting the mission: %w", err)
	}
	return &Mission{c: c, id: run.GetID(), runID: run.GetRunID()}, nil
}

// Attach returns a handle on the mission of workflow id (runID "": its
// latest run), started by this process or another.
func Attach(c client.Client, id, runID string) *Mission {
	return &Mission{c: c, id: id, runID: runID}
}

// ID is the mission's workflow id.
func (m *Mission) ID() string { return m.id }

// RunID is the id of the workflow's run ("" from Attach without one: the
// latest run).
func (m *Mission) RunID() string { return m.runID }

// Progress asks the mission where it is (the progress query).
func (m *Mission) Progress(ctx context.Context) (Progress, error) {
	v, err := m.c.QueryWorkflow(ctx, m.id, m.runID, QueryProgress)
	if err != nil {
		return Progress{}, fmt.Errorf("temporal: querying the mission's progress: %w", err)
	}
	var p Progress
	if err := v.Get(&p); err != nil {
		return Progress{}, fmt.Errorf("temporal: the mission's progress: %w", err)
	}
	return p, nil
}

// Cancel asks the mission to stop: it ends with the reason cancelled, its
// nested agents' missions with it. Result then returns its Step.
func (m *Mission) Cancel(ctx context.Context) error {
	if err := m.c.CancelWorkflow(ctx, m.id, m.runID); err != nil {
		return fmt.Errorf("temporal: cancelling the mission: %w", err)
	}
	return nil
}

// Result waits for the mission's end and returns its Step, as Agent.Run
// does: when the mission failed, err is an *agent.Error wrapping the same
// Step. Other errors (the workflow could not run, ctx ended) come with a
// nil Step. The Step has no Memory: the journal keeps what the mission
// did, not its namespace.
func (m *Mission) Result(ctx context.Context) (*agent.Step, error) {
	var res Result
	if err := m.c.GetWorkflow(ctx, m.id, m.runID).Get(ctx, &res); err != nil {
		return nil, fmt.Errorf("temporal: the mission's workflow: %w", err)
	}
	return stepResult(&res)
}

// stepResult is the Step of a Result, with an *agent.Error when it failed.
func stepResult(res *Result) (*agent.Step, error) {
	step, err := resultStep(res)
	if err != nil {
		return nil, err
	}
	if step.Fail != nil {
		return step, &agent.Error{Step: step}
	}
	return step, nil
}

// contextMap converts a mission's input to a map, as Agent.Run does.
func contextMap(c any) (*lisp.Map, error) {
	switch c := c.(type) {
	case nil:
		return lisp.NewMap(), nil
	case *lisp.Map:
		return c, nil
	}
	v, err := lisp.FromGo(c)
	if err != nil {
		return nil, fmt.Errorf("temporal: the mission's context: %w", err)
	}
	switch v := v.(type) {
	case *lisp.Map:
		return v, nil
	case nil:
		return lisp.NewMap(), nil
	}
	return nil, fmt.Errorf("temporal: the mission's context must be a map, got %s", lisp.TypeName(v))
}
