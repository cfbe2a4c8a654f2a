// Package otel reports agent missions to OpenTelemetry: an agent.Observer
// that turns a mission's events into spans and metrics following the
// OpenTelemetry GenAI semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/).
//
//	obs, err := otel.NewObserver(otel.Options{}) // the global providers
//	if err != nil { ... }
//	step, err := a.Run(ctx, agent.Options{LLM: model, Observers: []agent.Observer{obs}})
//
// The core packages (agent, llm, lisp...) depend on the standard library
// only; this package is where the OpenTelemetry API comes in. One Observer
// serves any number of concurrent runs.
//
// # Spans
//
// A mission tree becomes one trace:
//
//	invoke_agent {agent}            INTERNAL  the mission (run.start → run.stop, run.exception)
//	└── ptc.turn                    INTERNAL  one turn of the loop (turn.start → turn.stop)
//	    ├── chat {model}            CLIENT    one LLM call attempt (llm.start → llm.stop, llm.exception)
//	    └── execute_tool {tool}     INTERNAL  one tool call of the turn's program
//	        └── invoke_agent {child}          the mission of an agent called as a tool
//
// The root mission's span is a child of the span in the context given to
// Run (the caller's, if any). A nested mission's span is a child of the
// execute_tool span of the tool call that runs it, so the children of a
// pmap over an agent tool each sit under their own call. Retries of an LLM
// call are sibling chat spans, told apart by ptc.attempt (the newest
// conventions would have one span cover every attempt; one per attempt
// keeps each failure's error.type, duration and model). The tool calls
// of a compiled agent's program, which has no turns, hang directly under
// its mission's span.
//
// The GenAI conventions have no span for a turn; this package adds one
// (ptc.turn) because a mission is a loop, and without it the chat and
// tool spans of every turn would be siblings under the mission, the
// program of turn 3 and the tool calls it made indistinguishable from
// those of turn 4. The turn span groups a reply with the calls its program
// made and carries the turn's outcome (its program, value and error), so
// that a failed turn the model then corrected is visible as such. The
// spans the conventions define keep their names, kinds and attributes.
//
// Attributes:
//
//   - invoke_agent: gen_ai.operation.name = "invoke_agent",
//     gen_ai.agent.name (Config.Name, when set), ptc.trace_id,
//     ptc.parent_trace_id (nested missions), ptc.depth; at the end
//     gen_ai.usage.input_tokens and gen_ai.usage.output_tokens (the
//     mission's own LLM calls, its children's excluded: they have their
//     own spans), gen_ai.usage.cache_read.input_tokens and
//     gen_ai.usage.cache_creation.input_tokens when non-zero, ptc.turns,
//     ptc.llm_requests, ptc.programs and ptc.programs.cached (the programs
//     its turns ran, and those the compile cache had). A failed mission has status Error with the Fail's
//     message as its description, error.type = the Fail's reason
//     ("max_turns_exceeded", a program's own reason...; "_OTHER" when
//     unknown) and ptc.fail.op when the failure names a tool.
//   - ptc.turn: ptc.turn (the number, from 1), gen_ai.agent.name, the
//     turn's token usage, ptc.program.cached (when the turn ran a
//     program: whether the compile cache had it); a turn whose program failed (or that had no
//     program) has status Error, error.type = "program_error" and, as its
//     description, the error as the LLM was told it.
//   - chat, named "chat {gen_ai.request.model}" ("chat" when no model is
//     named): gen_ai.operation.name = "chat"; gen_ai.request.model, the
//     model asked for (the Reply's RequestModel: the adapter's configured
//     model, else the llm.Name; absent when nothing names it);
//     gen_ai.response.model, the model that answered (a dated version of
//     it, often), which never replaces the request model;
//     gen_ai.provider.name, the adapter's ("openai", "anthropic",
//     "gcp.gemini"...; the Reply's Provider); gen_ai.usage.input_tokens,
//     output_tokens and the cache counts, gen_ai.response.finish_reasons,
//     ptc.turn, ptc.attempt. A failed attempt has status Error,
//     error.type = its llm.Class ("rate_limit", "timeout"...) and its
//     message as the description, and keeps its request model and
//     provider when the adapter reports them (this module's do).
//   - execute_tool: gen_ai.operation.name = "execute_tool",
//     gen_ai.tool.name, gen_ai.tool.call.id (the event's CallID, unique in
//     the mission tree), ptc.turn. A failed call has status Error,
//     error.type = "tool_error" (or the failure reason of a nested
//     mission) and the error's message as the description.
//   - Spans ended without their end event (a mission that ended with calls
//     still open, EndAll) carry ptc.unfinished = true.
//
// # Content
//
// With Options.CaptureContent, the spans also carry what the GenAI
// conventions call content, which may hold personal data and is off by
// default: on chat spans gen_ai.system_instructions, gen_ai.input.messages
// and gen_ai.output.messages (JSON, in the conventions' message format,
// text parts); on execute_tool spans gen_ai.tool.call.arguments and
// gen_ai.tool.call.result; on turn spans ptc.program and ptc.result (the
// turn's value); on invoke_agent spans ptc.result (the mission's return
// value). These are the texts of the events: firewalled data is redacted
// in them exactly as it is for the LLM (see agent.Event), so no value
// under a "_" key reaches a span. Error messages (span status
// descriptions) are recorded in every case, bounded to 1 KiB; they too are
// scrubbed by the firewall.
//
// # Metrics
//
//   - gen_ai.client.token.usage (histogram, {token}): the input and
//     output tokens of each LLM call attempt that succeeded, with
//     gen_ai.token.type ("input", "output"), gen_ai.operation.name = "chat",
//     and gen_ai.request.model, gen_ai.response.model and
//     gen_ai.provider.name when known.
//   - gen_ai.client.operation.duration (histogram, s): each LLM call
//     attempt, with gen_ai.operation.name, gen_ai.request.model,
//     gen_ai.provider.name, gen_ai.response.model (when it succeeded) when
//     known and, on failure, error.type.
//   - ptc.tool.duration (histogram, s): each tool call, with
//     gen_ai.operation.name = "execute_tool", gen_ai.tool.name and, on
//     failure, error.type.
//   - ptc.mission.duration (histogram, s): each mission, nested ones
//     included, with gen_ai.operation.name = "invoke_agent",
//     gen_ai.agent.name and, on failure, error.type (the Fail's reason).
//
// The histograms use the bucket boundaries the GenAI conventions advise.
//
// # Limits
//
// An Observer cannot change the context a tool runs with, so spans a tool
// starts from its own context (an instrumented HTTP client...) are not
// children of its execute_tool span; they are children of the span of the
// context given to Run. The provider and the adapter's model are known
// when the call returns: a chat span started under an llm.Name is renamed
// then to the adapter's model, and gen_ai.provider.name is set at its end,
// not at its start (samplers do not see it). The invoke_agent span carries
// no model or provider: one mission may use several. Events of a mission whose run.start the
// Observer did not see, and stop events without their start, are ignored.
package otel
