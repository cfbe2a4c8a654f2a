// Package agent runs SubAgents: LLM-driven missions in which the model
// writes PTC-Lisp programs that call your Go tools, and the interpreter
// runs them.
//
// # Agents as data
//
// An agent is defined by a Config (a prompt template, a signature, tools,
// limits) and validated once by New into an *Agent, which can run any
// number of missions, concurrently:
//
//	finder := agent.MustNew(agent.Config{
//		Prompt:    "Find the urgent emails of {{user}}.",
//		Signature: "(user :string) -> {count :int, _ids [:int]}",
//		Tools:     map[string]agent.Tool{"list-emails": agent.Tool{Func: listEmails}},
//	})
//	step, err := finder.Run(ctx, agent.Options{LLM: model, Input: map[string]any{"user": "alice"}})
//
// # The mission
//
// Each turn, the agent sends the LLM the system prompt (the language, the
// data inventory, the tools) and the conversation, extracts the program
// from the reply, and runs it with the context (ctx/name), the tools
// ((tool/name args)), the agent's memory (def, memory/put, memory/name)
// and the values of the last turns (*1 *2 *3). Then:
//
//   - (return v) ends the mission with v, once v matches the signature's
//     output; a mismatch is explained to the LLM, which tries again;
//   - (fail {:reason :r :message "..."}) ends it with that failure;
//   - an error is fed back (and is ctx/fail in the next turn);
//   - otherwise the LLM is shown the value, the println output and the
//     names in memory, and the next turn starts.
//
// An agent with MaxTurns 1 and no tools is single-shot: one LLM call,
// whose program's value is the answer.
//
// A map value also updates memory (unless Config.KeepMaps): its entries are
// stored, and its :return entry, if any, is what the LLM is shown.
//
// A mission ends with a Step: the return value or the Fail with its
// reason (max_turns_exceeded, mission_timeout, llm_error, a program's own
// reason...), the memory, the usage (turns, tokens, time) and a trace of
// every turn, tool calls included. Run returns an *Error wrapping the Step
// when the mission fails.
//
// # The firewall
//
// Fields whose names start with an underscore (_ids, "_raw") are
// firewalled: programs and Go code see them in full, LLMs never do. The
// values the LLM is shown print them as <Firewalled>, the data inventory
// and the tool schemas omit them, and every text an LLM is sent (the
// mission prompt, values, output, error messages, the memory report) is
// scrubbed of every fragment of 8 bytes or more of a firewalled string or
// of the printed form of a firewalled number, escaped or not. What a
// program computes from firewalled data (a transformed text, a fragment,
// a sum) is found by shadow runs of the program on surrogates of the
// firewalled values, with the tools' results replayed, and is hidden as
// well; sizes stay visible, and tools and the caller get real values.
// docs/agents.md states the guarantee and lists every channel.
//
// Everything a run leaves for a reader outside the firewall goes through
// the same scrubber, the Step's: Step.Redaction for values, Step.Scrub for
// text (package agent/trace reaches it through Step.Veil). The traces of
// package agent/trace (Print, PrintChain, Marshal), the events of
// observers not registered with Raw (Fail.Details included), its slog and
// JSON Lines observers, and the integrations (otel, mcp, temporal's progress,
// the ptc command) show no fragment of 8 bytes or more of a firewalled
// text; docs/agents.md ("Outside the mission: every sink") lists the sinks
// that cmd/ptc's TestFirewallSinks checks. The Step's Go data (Return,
// Memory, Fail.Details, the trace's values, Turn.Output, ToolCall.Error)
// stays as it was; raw output is opt-in and says so: Raw,
// trace.Options.Unredacted, trace.JSONOptions.Raw.
//
// # Traces
//
// Step.Trace records each turn: the program, its value or error, its
// output and its tool calls. Package github.com/ptc-go/ptc/agent/trace
// writes it readably, redacted (trace.Print), and gives it a stable JSON
// form (trace.Marshal and trace.Unmarshal; docs/trace-format.md; ptc
// trace view shows it as a page).
//
// # Events
//
// Options.Observers watch a mission as it runs: the run, each turn, LLM
// call and tool call start and end (see Event), nested agents included,
// redacted as the LLM sees them unless an observer is registered with Raw.
// agent/trace's NewSlogObserver logs them, its NewJSONLObserver streams
// them, and package
// github.com/ptc-go/ptc/otel turns them into OpenTelemetry spans.
//
// # Composition
//
// Agents compose as tools. Agent.AsTool makes an agent a tool of another:
// the caller's program passes its arguments as the child's context and gets
// the child's return value, firewalled fields included, while the caller's
// LLM sees the child's signature and results with those fields hidden.
// NewLLMTool makes a tool answered by one LLM call (a judgment or a
// classification inside a program, often under pmap). Across the tree,
// depth counts from the root and the smallest MaxNesting above applies, the
// root's MaxTreeTurns is shared, a mission's TokenLimit and Budget bound its
// whole tree, the root's MissionTimeout bounds every mission, and the
// firewall holds at every level; a program's own Timeout does not count
// the time it waits on a child. ToolCall.Child keeps the child's Step, and
// Step.TotalUsage adds up the subtree. A Go tool that runs an agent with
// the context it was given (Run, Then, Pipeline.Run, Execute) joins it to
// the caller's tree the same way: limits and the caller's firewall flow
// down, and the agent's firewall and usage come back to the caller.
//
// Agent.Compile runs a mission once and keeps its final program as a
// CompiledAgent, which executes on new inputs without an LLM, validated
// against the signature; it can be saved as JSON, loaded with
// LoadCompiled, and used as a tool. Then and Pipeline chain missions, each
// return value the next context, stopping at a failure with
// chained_failure.
//
// # Models
//
// Each LLM setting has one home. The agent (Config) owns how its calls are
// made: Config.LLMRetry (failed calls are retried without consuming
// turns), Config.LLMTimeout (each attempt's bound; by default only the
// mission's), and Config.LLM, a pin: the model this agent always uses. The
// run (Options) owns what the calls go to: Options.LLM, the default model
// for agents that pin none, an llm.Func or an llm.Name resolved in
// Options.Registry, and Options.LLMOptions and Options.Cache, passed with
// every request. An agent's model is its pin, else the model bound to its
// tool, else the run's or its caller's; nested agents inherit the
// registry, and the call options when they use their caller's model.
//
// # Durable execution
//
// An execution engine's hooks, which the Run's context carries, hand a
// mission's LLM calls and tool calls to the engine that records them, so that the mission can run again from its
// start, answered from the record, without repeating a call: package
// temporal runs missions as Temporal workflows this way (docs/temporal.md).
// The hooks' types and Agent.Engine, through which the engine runs tool
// calls elsewhere, belong to an internal package: temporal is the one
// engine, and the seam is not a promise yet (docs/architecture.md).
// Values keep their exact printed form with lisp.Print (Exact) and
// lisp.Read.
package agent
