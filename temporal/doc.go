// Package temporal runs agent missions as Temporal workflows: durable
// missions that survive deploys and crashes, spread over many workers, and
// never repeat an LLM call or a tool call that completed.
//
// The same agent.Config runs in-process ((*agent.Agent).Run) or on Temporal. The
// workers register the agents by name, with their tools and models
// (NewWorker); a client starts missions by the agent's name (Start), asks
// where they are (Mission.Progress, a query), cancels them (Mission.Cancel)
// and waits for their Step (Mission.Result).
//
// # How a mission runs
//
// The mission workflow (WorkflowName) keeps a journal of what the mission
// did: the outcome of each LLM call, in order, and of each tool call, by
// tool name and arguments. Each round, a local activity (run by the
// workflow's worker inside its workflow task, its result recorded in the
// history) runs the mission from its start with the agent's own loop, its
// programs, memory, feedback and firewall, every LLM call and tool call
// answered from the journal (the hooks of internal/engine, which the
// Run's context carries), up to the first call the journal does not
// have. The workflow then makes that call: an LLM call
// is an activity, retried per the agent's RetryPolicy; a tool call is an
// activity too, and the calls a pmap makes at once run as concurrent
// activities; an agent tool or an LLM tool runs its mission as a child
// workflow, at its depth in the tree, with what is left of the tree's
// turn budget and its deadline. The outcome goes into the journal, and
// the next round runs. Programs are cheap next to LLM calls and tools
// (microseconds a turn), so running them again costs little; and a round,
// a local activity, has no task of its own on the server.
//
// Because every call's outcome is in the workflow's history before the
// mission moves on, a worker that dies loses at most the call in flight;
// a new worker replays the history and goes on from there. Workflow code
// only moves data: everything that reads a clock, runs a goroutine or
// calls out runs in activities, so replay is deterministic.
//
// A program that makes a tool call with other arguments when it runs
// again (it read the clock) gets the recorded result of the same turn and
// tool, with a warning in the Step, rather than a new call.
//
// A mission's workflow ends in the state that matches its Step:
// Completed when it returned, Failed (the Fail's reason as the error's
// type) when it failed or ran out of time, Canceled when it was
// cancelled; its Result, readable JSON with a summary and the raw trace,
// is the workflow's result or the error's details, and its memo holds
// the summary. A mission runs the version of its agent it started with
// (agent.Agent.Fingerprint): the worker that runs its first round records
// its version, and the mission makes its first call, then goes on in a
// new run of its workflow, on that version's task queue (versionTaskQueue),
// which only workers that serve the version poll (WorkerOptions.Agents and
// Versions), with its calls and nested agents; while none is up, it waits
// there, and Mission.Progress says for which version. Each LLM request
// after a run's first is sent, and stored in the history, as what is new
// since the previous one (the worker rebuilds it, asking the workflow when
// it did not make the previous call), so that the history grows by each
// turn's own data; a mission past its HistoryLimit continues in a new run
// of its workflow with its journal. ReplayHistory replays a mission's recorded history
// with this package's workflow code.
//
// A program's error (a tool's error included) is a turn of the mission,
// fed back to the model as in-process; it never fails or retries an
// activity. Activities are retried only when a worker was lost or for the
// LLM errors the agent's policy retries.
//
// See docs/temporal.md for the deployment picture, what is durable and
// what is not, and how to size workers.
package temporal
