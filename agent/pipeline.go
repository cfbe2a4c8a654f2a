package agent

import (
	"context"
	"fmt"
)

// Then runs next with the return value of prev as its context (and prev's
// signature as the context's types): PtcRunner's then (docs/deviations.md). When prev failed,
// next does not run: the Step fails at once with chained_failure, its
// Details["upstream"] being prev's Fail, and no LLM is called.
// opts.Input and opts.InputSignature are ignored.
//
//	found, err := finder.Run(ctx, opts)
//	drafted, err := agent.Then(ctx, found, drafter, opts)
func Then(ctx context.Context, prev *Step, next *Agent, opts Options) (*Step, error) {
	return then(ctx, treeFrom(ctx), prev, next, opts, nil)
}

// Must returns step when err is nil and panics with err otherwise:
// PtcRunner's run! and then!, for scripts, examples and tests where a failed
// mission should stop everything. It takes what Run, Then and
// CompiledAgent.Execute return:
//
//	found := agent.Must(finder.Run(ctx, opts))
//	drafted := agent.Must(agent.Then(ctx, found, drafter, opts))
//
// The panic's value is err, an *Error for a failed mission, so a recover
// can still read the Step. Code that handles failures checks err instead.
func Must(step *Step, err error) *Step {
	if err != nil {
		panic(err)
	}
	return step
}

// then runs next on prev under up, as a stage of a pipeline whose limit is
// pipe (nil: none).
func then(ctx context.Context, up *tree, prev *Step, next *Agent, opts Options, pipe *treeLimit) (*Step, error) {
	if prev == nil {
		prev = &Step{Fail: &Fail{Reason: ReasonChainedFailure, Message: "no previous step"}}
	}
	// The context's signature is prev's: an InputSignature meant for the
	// first agent of a chain must not override it.
	opts.Input, opts.InputSignature = prev, ""
	return next.runIn(ctx, up, opts, pipe)
}

// Pipeline is a sequence of agents, each taking the return value of the
// one before as its context.
type Pipeline []*Agent

// Run runs the agents in order, the first on opts.Input, and returns
// every Step that was made, in order (trace.PrintChain prints them). It stops at
// the first failure: when agents remain, the last Step is the next agent's
// chained_failure (which did not run, nor call an LLM) and the error wraps
// it; errors.As(err, &fail) then gives the chained_failure, whose
// Details["upstream"] is the failure that stopped the pipeline.
// opts.TokenLimit and opts.Budget bound the pipeline's total, its agents'
// nested agents included; ReturnPartialOnBudget applies to the agent that runs
// when the total goes over.
func (p Pipeline) Run(ctx context.Context, opts Options) ([]*Step, error) {
	// opts.TokenLimit and Budget bound the pipeline's total.
	up := treeFrom(ctx)
	pipe, opts := pipelineLimit(ctx, up, opts)
	steps := make([]*Step, 0, len(p))
	for i, a := range p {
		var step *Step
		var err error
		// A stage's model is told that its return value feeds the next.
		opts.feeds = nil
		if i+1 < len(p) {
			opts.feeds = p[i+1]
		}
		if i == 0 {
			step, err = a.runIn(ctx, up, opts, pipe)
		} else {
			step, err = then(ctx, up, steps[i-1], a, opts, pipe)
		}
		steps = append(steps, step)
		if err != nil {
			if i+1 < len(p) && step.Fail.Reason != ReasonChainedFailure {
				// The chained_failure names the stage that failed.
				opts.stage, opts.feeds = &pipelineStage{index: i, agent: agentName(a)}, nil
				chained, cerr := then(ctx, up, step, p[i+1], opts, pipe)
				return append(steps, chained), cerr
			}
			return steps, err
		}
	}
	return steps, nil
}

// pipelineStage names a stage of a pipeline: its index and its agent's
// Config.Name.
type pipelineStage struct {
	index int
	agent string
}

func agentName(a *Agent) string {
	if a == nil {
		return ""
	}
	return a.cfg.Name
}

func describeStage(name string) string {
	if name == "" {
		return "an agent without a name"
	}
	return fmt.Sprintf("agent %q", name)
}
