package temporal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// WorkerOptions say what a worker can run: the agents, by name, with their
// tools, and the models.
type WorkerOptions struct {
	// Agents are the agents whose missions the worker runs, by the name
	// Start is given; their agent tools are registered as "name/tool".
	// Every worker of a task queue must register the same agents.
	Agents map[string]*agent.Agent
	// Model is the default model: the one a mission uses when neither
	// StartOptions.Model nor the agent (Config.LLM, a model bound to its
	// tool) names one.
	Model llm.Model
	// Registry resolves model names: StartOptions.Model, and llm.Name
	// models of agents.
	Registry llm.Registry
	// Versions are older versions of the agents, by name, that the worker
	// still runs for the missions started with them (docs/temporal.md,
	// "Agent versions").
	Versions map[string][]*agent.Agent
	// Worker are the SDK's worker options (concurrency, rate limits).
	Worker worker.Options
}

// registrar is where workflows and activities are registered: a
// worker.Worker, or the SDK's test environment.
type registrar interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// ErrInvalidOptions is the error of NewWorker, Register and Start for
// options they cannot run missions with.
var ErrInvalidOptions = errors.New("temporal: invalid options")

// NewWorker returns a worker of taskQueue that runs the missions of
// opts.Agents (call Run or Start on it).
//
// The worker polls taskQueue, where missions start, and one task queue per
// version of each agent it serves (versionTaskQueue: its version in Agents and
// those in Versions): a mission moves, after its first call, to the task
// queue of its agent's version, so that its rounds, its LLM and tool calls and its
// nested agents reach only workers that have that version. The SDK's
// options (opts.Worker) apply to each of these task queues.
func NewWorker(c client.Client, taskQueue string, opts WorkerOptions) (worker.Worker, error) {
	if c == nil || taskQueue == "" {
		return nil, fmt.Errorf("%w: a client and a task queue are required", ErrInvalidOptions)
	}
	if d := opts.Worker.DeploymentOptions; d.UseVersioning && d.DefaultVersioningBehavior == workflow.VersioningBehaviorUnspecified {
		// The mission workflow has no versioning behaviour of its own: the SDK would panic registering it.
		return nil, fmt.Errorf("%w: Worker Versioning needs Worker.DeploymentOptions.DefaultVersioningBehavior "+
			"(workflow.VersioningBehaviorPinned keeps each mission on the build that started it)", ErrInvalidOptions)
	}
	r, err := newRunner(opts)
	if err != nil {
		return nil, err
	}
	r.queue = taskQueue
	f := &fleet{fatal: make(chan error, 1)}
	wo := opts.Worker
	onFatal := wo.OnFatalError
	wo.OnFatalError = func(err error) {
		if onFatal != nil {
			onFatal(err)
		}
		select {
		case f.fatal <- err:
		default:
		}
	}
	queues := []string{taskQueue}
	for _, name := range sortedKeys(opts.Agents) {
		for _, e := range r.agents[name] {
			// The queue of the version's missions, and the one where
			// missions that started under an earlier release of this
			// package wait (legacyVersionTaskQueue).
			for _, q := range []string{versionTaskQueue(taskQueue, name, e.fingerprint),
				legacyVersionTaskQueue(taskQueue, name, e.fingerprint)} {
				if !slices.Contains(queues, q) {
					queues = append(queues, q)
				}
			}
		}
	}
	for _, q := range queues {
		w := worker.New(c, q, wo)
		r.register(w)
		f.all = append(f.all, w)
	}
	f.Worker = f.all[0]
	f.r = r
	return f, nil
}

// versionTaskQueue is the task queue of the missions of the agent registered
// as name, in the version whose fingerprint (agent.Agent.Fingerprint) is
// given, on the workers of taskQueue: "<taskQueue>@<name>@<the
// fingerprint's first 12 hex digits>@p2". Workers serving that version poll
// it; a mission started on taskQueue moves there after its first call, with its
// nested agents, and waits there while no worker serves its version.
//
// The suffix names the protocol its workers speak (queueProtocol): only
// workers that understand LLM requests sent as differences poll it, so
// that a worker of an earlier release, serving the same version during a
// rolling upgrade, never receives one.
func versionTaskQueue(taskQueue, name, fingerprint string) string {
	return legacyVersionTaskQueue(taskQueue, name, fingerprint) + "@" + queueProtocol
}

// legacyVersionTaskQueue is the version's task queue of earlier releases,
// without the protocol: missions that moved there before an upgrade finish
// there, on workers of either release, their LLM requests sent whole.
func legacyVersionTaskQueue(taskQueue, name, fingerprint string) string {
	fp := strings.TrimPrefix(fingerprint, "sha256:")
	if len(fp) > versionQueueDigits {
		fp = fp[:versionQueueDigits]
	}
	return taskQueue + "@" + name + "@" + fp
}

// queueProtocol ends the task queues whose workers take LLM requests sent
// as differences from the mission's previous request (llmInput.Base).
const queueProtocol = "p2"

// sendsDifferences reports whether the workers of queue take LLM requests
// sent as differences.
func sendsDifferences(queue string) bool { return strings.HasSuffix(queue, "@"+queueProtocol) }

// versionQueueDigits are the hex digits of an agent's fingerprint in its
// version's task queue (48 bits).
const versionQueueDigits = 12

// fleet is the worker NewWorker returns: one SDK worker for the task
// queue where missions start (the embedded one, which also takes Nexus
// services), one for each agent version's task queue.
type fleet struct {
	worker.Worker
	all   []worker.Worker // the start queue's first
	fatal chan error
	r     *runner
}

func (f *fleet) RegisterWorkflow(w any) {
	for _, x := range f.all {
		x.RegisterWorkflow(w)
	}
}

func (f *fleet) RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions) {
	for _, x := range f.all {
		x.RegisterWorkflowWithOptions(w, options)
	}
}

func (f *fleet) RegisterDynamicWorkflow(w any, options workflow.DynamicRegisterOptions) {
	for _, x := range f.all {
		x.RegisterDynamicWorkflow(w, options)
	}
}

func (f *fleet) RegisterActivity(a any) {
	for _, x := range f.all {
		x.RegisterActivity(a)
	}
}

func (f *fleet) RegisterActivityWithOptions(a any, options activity.RegisterOptions) {
	for _, x := range f.all {
		x.RegisterActivityWithOptions(a, options)
	}
}

func (f *fleet) RegisterDynamicActivity(a any, options activity.DynamicRegisterOptions) {
	for _, x := range f.all {
		x.RegisterDynamicActivity(a, options)
	}
}

// Start starts polling every task queue; when one cannot start, the others
// are stopped.
func (f *fleet) Start() error {
	for i, w := range f.all {
		if err := w.Start(); err != nil {
			stopAll(f.all[:i])
			return err
		}
	}
	return nil
}

// Run starts the worker and runs it until interruptCh receives or one of
// its task queues' workers fails for good (its error is returned).
func (f *fleet) Run(interruptCh <-chan any) error {
	if err := f.Start(); err != nil {
		return err
	}
	var err error
	select {
	case <-interruptCh:
	case err = <-f.fatal:
	}
	f.Stop()
	return err
}

// Stop stops every task queue's worker, at once: each waits up to the
// SDK's WorkerStopTimeout for its calls in flight.
func (f *fleet) Stop() { stopAll(f.all) }

func stopAll(ws []worker.Worker) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Stop()
		}()
	}
	wg.Wait()
}

// Register registers the mission workflow and its activities, for
// opts.Agents, on r (opts.Worker is not used): for the SDK's test
// environment (testsuite.TestWorkflowEnvironment), or a worker.Worker. Missions run there with the current version of their agent,
// where they started; on a worker of your own, they would not move to
// their version's task queue as NewWorker's do (see NewWorker).
func Register(r interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}, opts WorkerOptions) error {
	rn, err := newRunner(opts)
	if err != nil {
		return err
	}
	rn.register(r)
	return nil
}

// runner holds the worker's agents and models; its methods are the
// activities.
type runner struct {
	agents   map[string][]entry // by name: the current version first, then the older ones
	queue    string             // the task queue where missions start ("": Register's, no routing)
	roots    map[string]bool    // the names of Agents: the agents missions are started with
	model    llm.Model
	registry llm.Registry
	// conversations are the last whole LLM request of the missions whose
	// calls this worker made, to rebuild the next from its difference.
	conversations *conversations
}

// entry is a registered agent in one version, with the model bound to
// the tool that runs it when it is a nested agent.
type entry struct {
	agent       *agent.Agent
	bound       llm.Model
	fingerprint string
	nested      map[string]string // the nested agents' fingerprints, by tool
}

// maxTreeDepth bounds the walk of nested agents.
const maxTreeDepth = 32

func newRunner(opts WorkerOptions) (*runner, error) {
	if len(opts.Agents) == 0 {
		return nil, fmt.Errorf("%w: no agents", ErrInvalidOptions)
	}
	r := &runner{agents: map[string][]entry{}, roots: map[string]bool{}, model: opts.Model, registry: opts.Registry,
		conversations: newConversations(conversationBytes)}
	var walk func(name string, e entry, depth int) error
	walk = func(name string, e entry, depth int) error {
		if e.agent == nil {
			return fmt.Errorf("%w: agent %q is nil", ErrInvalidOptions, name)
		}
		if depth > maxTreeDepth {
			return fmt.Errorf("%w: agent %q is nested more than %d levels deep", ErrInvalidOptions, name, maxTreeDepth)
		}
		e.fingerprint = e.agent.Fingerprint()
		for _, have := range r.agents[name] {
			if have.fingerprint == e.fingerprint {
				return nil // a version registered already (a version shares its nested agents with another)
			}
		}
		host := e.agent.Engine()
		names := e.agent.ToolNames()
		for _, n := range names {
			if child, _, ok := host.NestedTool(n); ok {
				if e.nested == nil {
					e.nested = map[string]string{}
				}
				e.nested[n] = child.(*agent.Agent).Fingerprint()
			}
		}
		r.agents[name] = append(r.agents[name], e)
		for _, n := range names {
			if child, bound, ok := host.NestedTool(n); ok {
				if err := walk(name+"/"+n, entry{agent: child.(*agent.Agent), bound: bound}, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, name := range sortedKeys(opts.Agents) {
		if name == "" {
			return nil, fmt.Errorf("%w: an agent has no name", ErrInvalidOptions)
		}
		if err := walk(name, entry{agent: opts.Agents[name]}, 0); err != nil {
			return nil, err
		}
		r.roots[name] = true
	}
	for _, name := range sortedKeys(opts.Versions) {
		if _, ok := opts.Agents[name]; !ok {
			return nil, fmt.Errorf("%w: Versions has agent %q, which Agents does not have", ErrInvalidOptions, name)
		}
		for _, a := range opts.Versions[name] {
			if err := walk(name, entry{agent: a}, 0); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// register registers the workflow and the activities; the Step, a local
// activity, is registered too, as the workflow calls it by its name.
func (r *runner) register(reg registrar) {
	reg.RegisterWorkflowWithOptions(missionWorkflow, workflow.RegisterOptions{Name: WorkflowName})
	reg.RegisterActivityWithOptions(r.step, activity.RegisterOptions{Name: activityStep})
	reg.RegisterActivityWithOptions(r.callLLM, activity.RegisterOptions{Name: activityLLM})
	reg.RegisterActivityWithOptions(r.callTool, activity.RegisterOptions{Name: activityTool})
}

// lookup finds the agent registered as name in the version whose
// fingerprint is fingerprint ("": the current version). A worker that does
// not have that version refuses the mission (errTypeAgentChanged): it does
// not run a mission recorded with another version of its agent, whose
// recorded calls could then mean something else.
func (r *runner) lookup(name, fingerprint string) (entry, error) {
	versions, ok := r.agents[name]
	if !ok {
		return entry{}, sdktemporal.NewNonRetryableApplicationError(
			fmt.Sprintf("this worker has no agent %q: register it in WorkerOptions.Agents", name), errTypeConfig, nil)
	}
	if fingerprint == "" {
		return versions[0], nil
	}
	for _, e := range versions {
		if e.fingerprint == fingerprint {
			return e, nil
		}
	}
	return entry{}, sdktemporal.NewApplicationError(fmt.Sprintf(
		"agent %q changed since the mission started (its fingerprint was %s, this worker has %s): "+
			"the mission waits for a worker that has its version (WorkerOptions.Versions); see docs/temporal.md, "+
			"Deploying a changed agent", name, fingerprint, versions[0].fingerprint), errTypeAgentChanged)
}

// versionQueue is the task queue of the version e of the agent registered
// as name, for a mission on this worker's task queue: "" for a nested
// agent (it runs on its caller's) and without a task queue (Register).
func (r *runner) versionQueue(name string, e entry) string {
	if r.queue == "" || !r.roots[name] {
		return ""
	}
	return versionTaskQueue(r.queue, name, e.fingerprint)
}

// stopping is the error of an LLM or tool call cut short because its
// worker is stopping (the SDK cancels the calls in flight after its
// WorkerStopTimeout): a retryable failure, so that the call is made again
// on a worker of the mission's version, rather than an outcome recorded in
// the journal. Nil when the call was not cut short so.
func stopping(ctx context.Context) error {
	if ctx.Err() == nil || !errors.Is(context.Cause(ctx), worker.ErrWorkerShutdown) {
		return nil
	}
	return sdktemporal.NewApplicationError("the worker stopped during the call: it is made again", errTypeWorkerStopped)
}

// changed reports whether err is a worker's refusal of a mission started
// with another version of its agent.
func changed(err error) bool {
	var ae *sdktemporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == errTypeAgentChanged
}

// callLLM is the LLM activity: one attempt of one LLM call. A failure is
// an application error whose type is the failure's class; it is not
// retryable when the agent's policy does not retry the class, or when the
// attempts of the agent's policy are spent.
func (r *runner) callLLM(ctx context.Context, in llmInput) (*llmOutput, error) {
	e, err := r.lookup(in.Agent, in.Fingerprint)
	if err != nil {
		return nil, err
	}
	model := e.agent.Config().LLM
	if model == nil {
		model = e.bound
	}
	if model == nil && in.Model != "" {
		model = llm.Name(in.Model)
	}
	if model == nil {
		model = r.model
	}
	f, err := r.registry.Resolve(model)
	if err != nil {
		le := llm.Classify(err)
		return nil, sdktemporal.NewNonRetryableApplicationError(le.Message, string(llm.ClassConfig), nil)
	}
	stopHeartbeat := heartbeat(ctx)
	req, err := r.conversations.request(ctx, in)
	if err != nil {
		stopHeartbeat()
		return nil, err
	}
	// A model that streams stops writing at the reply's program, as in
	// process (agent's stream.go); the activity reports no chunks.
	var watch prompt.ProgramWatch
	req.Stream = func(piece string) bool { return !watch.Write(piece) }
	began := time.Now()
	resp, err := callModel(ctx, f, req)
	took := time.Since(began)
	stopHeartbeat()
	if err == nil {
		digest := in.Digest
		if digest == "" {
			digest = requestDigest(req)
		}
		r.conversations.replied(ctx, digest, resp.Content)
		return &llmOutput{Response: resp, Took: took}, nil
	}
	if serr := stopping(ctx); serr != nil {
		return nil, serr
	}
	le := llm.Classify(err)
	policy := e.agent.Config().LLMRetry
	attempt := int(activity.GetInfo(ctx).Attempt)
	msg, stop := err.Error(), false
	// A Retry-After past the policy's MaxRetryAfter is not waited for, as
	// in-process (a hostile or exhausted provider's Retry-After: 999999).
	if limit := policy.MaxWait(); le.RetryAfter > limit {
		msg += fmt.Sprintf(" (not retried: the provider asks to wait %v, longer than the retry policy's MaxRetryAfter (%v))",
			le.RetryAfter.Round(time.Second), limit)
		stop = true
	}
	return nil, sdktemporal.NewApplicationErrorWithOptions(msg, string(le.Class), sdktemporal.ApplicationErrorOptions{
		NonRetryable:   stop || !policy.Retries(le.Class) || attempt >= max(in.MaxAttempts, 1),
		NextRetryDelay: le.RetryAfter,
	})
}

// callModel calls f, a panic an error.
func callModel(ctx context.Context, f llm.Func, req llm.Request) (resp llm.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &llm.Error{Class: llm.ClassUnknown, Message: fmt.Sprintf("the LLM callback panicked: %v", p)}
		}
	}()
	return f(ctx, req)
}

// callTool is the tool activity: one call of one tool. The tool's own
// error is a value (the program's turn handles it), never an activity
// failure, so that it is not retried.
func (r *runner) callTool(ctx context.Context, in toolInput) (*toolOutput, error) {
	e, err := r.lookup(in.Agent, in.Fingerprint)
	if err != nil {
		return nil, err
	}
	args, err := readMap(in.Args)
	if err != nil {
		return nil, sdktemporal.NewNonRetryableApplicationError("the tool's arguments: "+err.Error(), errTypeConfig, nil)
	}
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, in.Timeout)
		defer cancel()
	}
	req := engine.ToolRequest{Name: in.Tool, Args: args}
	if in.Position != nil {
		req.Position = *in.Position
	}
	stopHeartbeat := heartbeat(ctx)
	began := time.Now()
	res, err := e.agent.Engine().RunTool(ctx, req)
	took := time.Since(began)
	stopHeartbeat()
	out := &toolOutput{Firewall: res.Firewall, Took: took}
	if u, _ := res.Usage.(agent.Usage); u != (agent.Usage{}) {
		out.Usage = &u
	}
	if err != nil {
		if serr := stopping(ctx); serr != nil {
			return nil, serr
		}
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("the tool did not return within %v (the program's Limits.Timeout): %w", in.Timeout, err)
		}
		out.Err, out.Firewall = err.Error(), nil
		return out, nil
	}
	if step, _ := res.Step.(*agent.Step); step != nil {
		child, err := resultOf(in.Agent+"/"+in.Tool, step)
		if err != nil {
			return nil, err
		}
		return &toolOutput{Child: child, Took: took}, nil
	}
	out.Value = lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	return out, nil
}

// readValue reads a value's exact printed form (lisp.Print (Exact)), the
// firewall's placeholder as that string, as the agent's trace reader does.
func readValue(s string) (lisp.Value, error) {
	return lisp.Read(s, lisp.ReadOptions{Placeholder: agent.Firewalled})
}

// readMap reads a printed map ("" and nil are the empty map).
func readMap(s string) (*lisp.Map, error) {
	if s == "" {
		return lisp.NewMap(), nil
	}
	v, err := readValue(s)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case *lisp.Map:
		return m, nil
	case nil:
		return lisp.NewMap(), nil
	}
	return nil, fmt.Errorf("a map was expected, got %s", lisp.TypeName(v))
}
