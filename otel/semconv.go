package otel

// The names this package reports, in one place: the OpenTelemetry GenAI
// semantic conventions' (https://opentelemetry.io/docs/specs/semconv/gen-ai/:
// gen-ai-spans.md, gen-ai-agent-spans.md, gen-ai-metrics.md) and ptc's
// own, under ptc.*. semconv_test.go checks them against the conventions'
// spelling.

// Metric names: the GenAI conventions' client metrics, and ptc's own.
const (
	MetricTokenUsage      = "gen_ai.client.token.usage"
	MetricChatDuration    = "gen_ai.client.operation.duration"
	MetricToolDuration    = "ptc.tool.duration"
	MetricMissionDuration = "ptc.mission.duration"
)

// Attribute keys: the GenAI semantic conventions' and ptc's own.
const (
	keyOperation      = "gen_ai.operation.name"
	keyAgentName      = "gen_ai.agent.name"
	keyProviderName   = "gen_ai.provider.name"
	keyRequestModel   = "gen_ai.request.model"
	keyResponseModel  = "gen_ai.response.model"
	keyFinishReasons  = "gen_ai.response.finish_reasons"
	keyInputTokens    = "gen_ai.usage.input_tokens"
	keyOutputTokens   = "gen_ai.usage.output_tokens"
	keyCacheRead      = "gen_ai.usage.cache_read.input_tokens"
	keyCacheCreation  = "gen_ai.usage.cache_creation.input_tokens"
	keyTokenType      = "gen_ai.token.type"
	keyToolName       = "gen_ai.tool.name"
	keyToolCallID     = "gen_ai.tool.call.id"
	keyToolArguments  = "gen_ai.tool.call.arguments"
	keyToolResult     = "gen_ai.tool.call.result"
	keySystemInstr    = "gen_ai.system_instructions"
	keyInputMessages  = "gen_ai.input.messages"
	keyOutputMessages = "gen_ai.output.messages"
	keyErrorType      = "error.type"

	keyTraceID       = "ptc.trace_id"
	keyParentTraceID = "ptc.parent_trace_id"
	keyDepth         = "ptc.depth"
	keyTurn          = "ptc.turn"
	keyTurns         = "ptc.turns"
	keyLLMRequests   = "ptc.llm_requests"
	keyPrograms      = "ptc.programs"
	keyCached        = "ptc.programs.cached"
	keyProgramCached = "ptc.program.cached"
	keyAttempt       = "ptc.attempt"
	keyProgram       = "ptc.program"
	keyResult        = "ptc.result"
	keyFailOp        = "ptc.fail.op"
	keyUnfinished    = "ptc.unfinished"

	tokenInput  = "input"
	tokenOutput = "output"

	opInvokeAgent = "invoke_agent"
	opChat        = "chat"
	opExecuteTool = "execute_tool"

	turnSpanName = "ptc.turn"

	// errOther is error.type when nothing better is known.
	errOther = "_OTHER"
	// errProgram is error.type of a turn whose program failed.
	errProgram = "program_error"
	// errTool is error.type of a failed tool call that is not a mission's.
	errTool = "tool_error"
)
