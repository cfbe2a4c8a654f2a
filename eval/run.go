package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// Task is an agent and the cases it is measured on.
type Task struct {
	// Name identifies the task ("orders/paid-total"); unique in a run.
	Name string
	// Description says what it exercises, for listings.
	Description string
	// Tags group tasks ("pmap", "firewall", "composition").
	Tags []string
	// Config is the agent. It is built once per variant, its language
	// profile replaced by the variant's when the variant names one.
	Config agent.Config
	// Options are the run options besides LLM and Context, which each run
	// sets (Validation, Observers, Hooks...).
	Options agent.Options
	// Cases are its inputs and checks.
	Cases []Case
}

// Variant is what a run measures: a model with a language profile. A
// comparison has several.
type Variant struct {
	// Name labels the variant's column ("openai:gpt-4.1-mini",
	// "…/compact"); unique in a run.
	Name  string
	Model llm.Model
	// Profile, when not "", replaces every task's language profile
	// ("default", "compact").
	Profile string
	// Mode, when not "", replaces every task's agent mode ("program",
	// "tools", "text"; see agent.Config.Mode).
	Mode string
	// Price, when known, gives each run's cost.
	Price *Price
}

// Price is what a model charges, in dollars per million tokens.
type Price struct {
	Input, Output float64
}

// Cost is the price of tokens, in dollars.
func (p Price) Cost(t llm.Tokens) float64 {
	return (float64(t.Input)*p.Input + float64(t.Output)*p.Output) / 1e6
}

// Config configures Run. The zero value runs each case once, one mission
// at a time; Variants must name at least one model.
type Config struct {
	Variants []Variant
	// Runs is how many times each case runs per variant (pass^N needs
	// N > 1). Zero: 1.
	Runs int
	// Parallel is how many missions run at once. Zero: 1.
	Parallel int
	// Wrap, when set, gives the model of one run from the variant's (a
	// recording, a replay); an error fails that run. It is called from the
	// runs' goroutines, Parallel at once.
	Wrap func(k RunKey, m llm.Model) (llm.Model, error)
	// Done, when set, is called after each run (r.Step is its mission), one
	// call at a time. It may fail a run that passed (Passed false, and
	// Why): the report counts the run as Done leaves it.
	Done func(r *RunResult)
}

// runKeyContext is the context key of a run's RunKey.
type runKeyContext struct{}

// RunKeyFrom returns the RunKey of the run whose mission ctx is the
// context of (Run gives each mission's context its key, which its tool
// calls and its checks see): the tools a task's runs share can tell them
// apart, to record each run's calls, or to answer them from its
// recording.
func RunKeyFrom(ctx context.Context) (RunKey, bool) {
	k, ok := ctx.Value(runKeyContext{}).(RunKey)
	return k, ok
}

// RunKey names one run: a case of a task, on a variant, the how-manieth
// time (from 1).
type RunKey struct {
	Variant string `json:"variant"`
	Task    string `json:"task"`
	Case    string `json:"case"`
	Run     int    `json:"run"`
}

// RunResult is one mission and its verdict.
type RunResult struct {
	RunKey
	Passed bool `json:"passed"`
	// Why says which check failed and how ("" when Passed).
	Why string `json:"why,omitempty"`
	// Reason is the mission's Fail reason ("" when it succeeded).
	Reason string `json:"reason,omitempty"`
	// Turns, LLMRequests and Tokens count the mission's whole tree;
	// ErrorTurns are its own turns whose program failed or that had no
	// program.
	Turns       int        `json:"turns"`
	ErrorTurns  int        `json:"error_turns"`
	LLMRequests int        `json:"llm_requests"`
	Tokens      llm.Tokens `json:"tokens"`
	// Cost in dollars; nil when the variant's price is unknown.
	Cost     *float64      `json:"cost,omitempty"`
	Duration time.Duration `json:"-"`
	// Step is the mission (not in JSON: traces are saved apart).
	Step *agent.Step `json:"-"`
}

// Run runs every case of every task on every variant, cfg.Runs times,
// and reports. It returns an error, running nothing, when a task's agent
// does not build or a check can never pass; a mission that fails is a
// failed run, not an error. ctx ends the runs not started and those
// running.
func Run(ctx context.Context, tasks []Task, cfg Config) (*Report, error) {
	if len(cfg.Variants) == 0 {
		return nil, errors.New("eval: no model to run on (Config.Variants is empty)")
	}
	runs, parallel := max(cfg.Runs, 1), max(cfg.Parallel, 1)
	type job struct {
		key  RunKey
		a    *agent.Agent
		task *Task
		c    *Case
		v    *Variant
	}
	var jobs []job
	seenV := map[string]bool{}
	for vi := range cfg.Variants {
		v := &cfg.Variants[vi]
		if v.Name == "" || seenV[v.Name] {
			return nil, fmt.Errorf("eval: variant %d: a variant needs a name of its own", vi+1)
		}
		seenV[v.Name] = true
	}
	seenT := map[string]bool{}
	for ti := range tasks {
		t := &tasks[ti]
		if t.Name == "" || seenT[t.Name] {
			return nil, fmt.Errorf("eval: task %d: a task needs a name of its own", ti+1)
		}
		seenT[t.Name] = true
		for ci := range t.Cases {
			for _, chk := range t.Cases[ci].Checks {
				if err := chk.Validate(); err != nil {
					return nil, fmt.Errorf("eval: %s, %s: %w", t.Name, t.Cases[ci].Name, err)
				}
			}
		}
	}
	for vi := range cfg.Variants {
		v := &cfg.Variants[vi]
		for ti := range tasks {
			t := &tasks[ti]
			ac := t.Config
			if v.Profile != "" {
				ac.Presentation.Language = v.Profile
			}
			if v.Mode != "" {
				ac.Mode = v.Mode
			}
			a, err := agent.New(ac)
			if err != nil {
				return nil, fmt.Errorf("eval: %s: %w", t.Name, err)
			}
			for ci := range t.Cases {
				for r := 1; r <= runs; r++ {
					jobs = append(jobs, job{RunKey{v.Name, t.Name, t.Cases[ci].Name, r}, a, t, &t.Cases[ci], v})
				}
			}
		}
	}

	results := make([]*RunResult, len(jobs))
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(parallel, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				r := runOne(ctx, j.key, j.a, j.task, j.c, j.v, cfg.Wrap)
				mu.Lock()
				results[i] = r
				if cfg.Done != nil {
					cfg.Done(r)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	done := results[:0:0]
	for _, r := range results {
		if r != nil {
			done = append(done, r)
		}
	}
	return newReport(tasks, cfg.Variants, runs, done), ctx.Err()
}

// runOne runs one mission and checks it.
func runOne(ctx context.Context, key RunKey, a *agent.Agent, t *Task, c *Case, v *Variant, wrap func(RunKey, llm.Model) (llm.Model, error)) (r *RunResult) {
	r = &RunResult{RunKey: key}
	ctx = context.WithValue(ctx, runKeyContext{}, key)
	defer func() {
		// A check or a wrapper that panics fails its run, not the others.
		if p := recover(); p != nil {
			r.Passed, r.Why = false, fmt.Sprintf("internal error: %v", p)
		}
	}()
	model := v.Model
	if wrap != nil {
		m, err := wrap(key, model)
		if err != nil {
			r.Why = err.Error()
			return r
		}
		model = m
	}
	opts := t.Options
	opts.LLM, opts.Input, opts.Trace = model, c.Input, agent.TraceOn // the trace counts error turns
	start := time.Now()
	step, _ := a.Run(ctx, opts)
	r.Duration = time.Since(start)
	r.Step = step
	u := step.TotalUsage
	r.Turns, r.LLMRequests, r.Tokens = u.Turns, u.LLMRequests, u.Tokens
	for _, turn := range step.Trace {
		if turn.Error != "" {
			r.ErrorTurns++
		}
	}
	if step.Fail != nil {
		r.Reason = string(step.Fail.Reason)
	}
	if v.Price != nil {
		cost := v.Price.Cost(u.Tokens)
		r.Cost = &cost
	}
	for _, chk := range c.Checks {
		if err := chk.Verify(ctx, step); err != nil {
			r.Why = err.Error()
			return r
		}
	}
	if len(c.Checks) == 0 && step.Fail != nil {
		r.Why = "failed: " + step.Scrub(step.Fail.Error())
		return r
	}
	r.Passed = true
	return r
}

// sortedDurations returns ds sorted, for percentiles.
func sortedDurations(ds []time.Duration) []time.Duration {
	out := slices.Clone(ds)
	slices.Sort(out)
	return out
}
