package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
	"github.com/ptc-go/ptc/llm/internal/coerce"
)

// DefaultMaxTokens is the max_tokens of a request when neither
// Config.MaxTokens nor the "max_tokens" option sets one: the Messages API
// requires a value.
const DefaultMaxTokens = 4096

// ReasonInvalidConfig is the Reason of the *llm.Error (Class llm.ClassConfig)
// New returns for an invalid Config.
const ReasonInvalidConfig = "invalid_llm_config"

// ReasonMalformedResponse is the Reason of the *llm.Error (Class
// llm.ClassUnknown) returned when the API's reply cannot be read as a message.
const ReasonMalformedResponse = "malformed_response"

// ReasonInvalidOptions is the Reason of the *llm.Error (Class llm.ClassConfig)
// returned for a Request.Options key this adapter does not know, or a value
// of the wrong type. An agent reports it as its Fail reason.
const ReasonInvalidOptions = "invalid_llm_options"

// ProviderName is the provider name (gen_ai.provider.name, as the
// OpenTelemetry GenAI conventions spell it) of every llm.Response of this
// adapter.
const ProviderName = "anthropic"

// Config configures a Claude model reached through the Anthropic Messages
// API.
type Config struct {
	// Model is the model name, e.g. "claude-sonnet-4-5". Required.
	Model string
	// APIKey is sent as the x-api-key header; default $ANTHROPIC_API_KEY.
	APIKey string
	// BaseURL is the API's address; default $ANTHROPIC_BASE_URL, else the
	// SDK's (https://api.anthropic.com/).
	BaseURL string
	// Headers are added to every request (beta flags, a gateway's
	// headers...); they override the adapter's own.
	Headers map[string]string
	// HTTPClient sends the requests; default a client like the SDK's own
	// (http.DefaultTransport with a 10-minute response-header timeout).
	// It is never changed: the adapter uses a guarded copy.
	HTTPClient *http.Client
	// MaxTokens bounds the reply; default DefaultMaxTokens.
	MaxTokens int
	// Temperature, when set, is the default sampling temperature.
	Temperature *float64
	// MaxResponseBytes bounds the body of a reply: a longer one fails
	// with an *llm.Error of Class llm.ClassClientError, Reason
	// adapter.ReasonResponseTooLarge. Zero: adapter.DefaultMaxResponseBytes
	// (32 MiB).
	MaxResponseBytes int64
	// NoStreaming asks for whole replies even when the agent asks for a
	// streamed one (llm.Request.Stream).
	NoStreaming bool
}

// optionKeys are the Request.Options keys the adapter understands.
var optionKeys = []string{"max_tokens", "stop", "temperature", "top_k", "top_p"}

// New returns an llm.Func that calls cfg.Model through the Messages API. It
// fails when Model is empty or another field is invalid. The SDK's own
// retries are off: the agent's RetryPolicy retries. The function is safe for
// concurrent use.
func New(cfg Config) (llm.Func, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, configError(ReasonInvalidConfig, "anthropic: Config.Model is required")
	}
	if cfg.MaxTokens < 0 {
		return nil, configError(ReasonInvalidConfig, fmt.Sprintf("anthropic: Config.MaxTokens is negative (%d)", cfg.MaxTokens))
	}
	if cfg.Temperature != nil && !coerce.Finite(*cfg.Temperature) {
		return nil, configError(ReasonInvalidConfig, "anthropic: Config.Temperature is not a finite number")
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, configError(ReasonInvalidConfig, fmt.Sprintf("anthropic: Config.MaxResponseBytes is negative (%d)", cfg.MaxResponseBytes))
	}
	apiKey := cfg.APIKey
	if apiKey == "" {
		apiKey = os.Getenv("ANTHROPIC_API_KEY")
	}
	baseURL := cfg.BaseURL
	if baseURL == "" {
		baseURL = os.Getenv("ANTHROPIC_BASE_URL")
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = defaultHTTPClient()
	}
	// Every request goes through the guard's client: no redirect to
	// another host, replies bounded; every error through its Func:
	// credentials redacted.
	guard := adapter.NewGuard(adapter.GuardConfig{Name: "anthropic", APIKey: apiKey, Headers: cfg.Headers,
		MaxResponseBytes: cfg.MaxResponseBytes, Provider: ProviderName, Model: cfg.Model})
	httpClient = guard.Client(httpClient)

	// The environment is read here, not by the SDK: its credential chain
	// (auth tokens, profiles, federation) would make the adapter depend on
	// files and variables its Config does not mention.
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0), // the agent's RetryPolicy retries, once
		option.WithHTTPClient(httpClient),
	}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, configError(ReasonInvalidConfig, fmt.Sprintf("anthropic: invalid base URL %q", baseURL))
		}
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	}
	names := make([]string, 0, len(cfg.Headers))
	for k := range cfg.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !validHeader(k, cfg.Headers[k]) {
			return nil, configError(ReasonInvalidConfig, fmt.Sprintf("anthropic: invalid header %q", k))
		}
		opts = append(opts, option.WithHeader(k, cfg.Headers[k]))
	}

	c := &client{
		api:         sdk.NewClient(opts...),
		model:       cfg.Model,
		maxTokens:   cfg.MaxTokens,
		temperature: cfg.Temperature,
		noStreaming: cfg.NoStreaming,
	}
	if c.maxTokens == 0 {
		c.maxTokens = DefaultMaxTokens
	}
	if err := checkNonStreaming(c.maxTokens, cfg.Model); err != nil {
		err.Reason = ReasonInvalidConfig
		return nil, err
	}
	return guard.Func(c.call), nil
}

// checkNonStreaming reports a max_tokens the SDK refuses for a
// non-streaming call (a reply that may take more than 10 minutes, or more
// than a model's non-streaming limit), which is what this adapter makes.
func checkNonStreaming(maxTokens int, model string) *llm.Error {
	if _, err := sdk.CalculateNonStreamingTimeout(maxTokens, sdk.Model(model), nil); err != nil {
		return configError(ReasonInvalidOptions, fmt.Sprintf(
			"anthropic: max_tokens %d is too large for a non-streaming call to %s: %v", maxTokens, model, err))
	}
	return nil
}

// defaultHTTPClient mirrors the SDK's default client, which
// WithoutEnvironmentDefaults leaves out: a server that never answers does
// not hang a call whose context has no deadline.
func defaultHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = 10 * time.Minute
		return &http.Client{Transport: t}
	}
	return &http.Client{Transport: http.DefaultTransport}
}

type client struct {
	api         sdk.Client
	model       string
	maxTokens   int
	temperature *float64
	noStreaming bool
}

func (c *client) call(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, llm.Classify(err)
	}
	params, err := c.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	if req.Stream != nil && !c.noStreaming && len(req.Tools) == 0 {
		// A reply with tool calls is read whole.
		return c.stream(ctx, params, req)
	}
	msg, err := c.api.Messages.New(ctx, params)
	if err != nil {
		return llm.Response{}, classify(ctx, err)
	}
	return response(msg)
}

// response is the llm.Response of a whole message.
func response(msg *sdk.Message) (llm.Response, error) {
	if msg == nil || !msg.JSON.Content.Valid() {
		raw := ""
		if msg != nil {
			raw = msg.RawJSON()
		}
		return llm.Response{}, &llm.Error{Class: llm.ClassUnknown, Reason: ReasonMalformedResponse,
			Message: "anthropic: malformed response: no content in " + abbreviate(raw)}
	}
	var sb strings.Builder
	var calls []llm.Message
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			sb.WriteString(b.Text)
		case "tool_use":
			calls = append(calls, llm.Message{Role: llm.Assistant, ToolCallID: b.ID, ToolName: b.Name, Content: string(b.Input)})
		}
	}
	u := msg.Usage
	return llm.Response{Content: sb.String(), ToolCalls: calls, Model: string(msg.Model), FinishReason: string(msg.StopReason), Tokens: llm.Tokens{
		Input:      int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens),
		Output:     int(u.OutputTokens),
		CacheRead:  int(u.CacheReadInputTokens),
		CacheWrite: int(u.CacheCreationInputTokens),
	}}, nil
}

// stream makes the call with a streamed reply (Messages.NewStreaming):
// each text delta goes to req.Stream as it comes; when Stream asks to stop,
// the stream is closed and the reply so far returned, its input tokens
// those of the message_start event and its output tokens estimated. A
// server that answers with a whole message is read as without streaming.
func (c *client) stream(ctx context.Context, params sdk.MessageNewParams, req llm.Request) (llm.Response, error) {
	var whole adapter.WholeReply
	st := c.api.Messages.NewStreaming(ctx, params, option.WithMiddleware(whole.Middleware))
	defer st.Close()
	var (
		text    strings.Builder
		resp    llm.Response
		in, out sdk.MessageDeltaUsage
		started bool
	)
	tokens := func() llm.Tokens {
		return llm.Tokens{Input: int(in.InputTokens + in.CacheReadInputTokens + in.CacheCreationInputTokens),
			Output: int(out.OutputTokens), CacheRead: int(in.CacheReadInputTokens), CacheWrite: int(in.CacheCreationInputTokens)}
	}
	for st.Next() {
		ev := st.Current()
		switch ev.Type {
		case "message_start":
			started = true
			resp.Model = string(ev.Message.Model)
			u := ev.Message.Usage
			in = sdk.MessageDeltaUsage{InputTokens: u.InputTokens, CacheReadInputTokens: u.CacheReadInputTokens,
				CacheCreationInputTokens: u.CacheCreationInputTokens}
			out.OutputTokens = u.OutputTokens
		case "content_block_delta":
			if ev.Delta.Type != "text_delta" || ev.Delta.Text == "" {
				continue
			}
			text.WriteString(ev.Delta.Text)
			if !req.Stream(ev.Delta.Text) {
				resp.Content, resp.FinishReason = text.String(), adapter.FinishStoppedEarly
				resp.Tokens = tokens()
				est := adapter.EstimateTokens(req, resp.Content)
				resp.Tokens.Output = max(resp.Tokens.Output, est.Output)
				if resp.Tokens.Input == 0 {
					resp.Tokens.Input = est.Input
				}
				return resp, nil
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				resp.FinishReason = string(ev.Delta.StopReason)
			}
			if ev.Usage.OutputTokens > 0 {
				out.OutputTokens = ev.Usage.OutputTokens
			}
			if ev.Usage.InputTokens > 0 {
				in.InputTokens = ev.Usage.InputTokens
			}
		}
	}
	if err := st.Err(); err != nil {
		return llm.Response{}, classify(ctx, err)
	}
	if whole.Body != nil {
		var msg sdk.Message
		if err := json.Unmarshal(whole.Body, &msg); err != nil {
			return llm.Response{}, &llm.Error{Class: llm.ClassUnknown, Reason: ReasonMalformedResponse,
				Message: "anthropic: malformed response: " + abbreviate(string(whole.Body))}
		}
		r, err := response(&msg)
		if err == nil && r.Content != "" {
			req.Stream(r.Content) // the whole reply is its one piece
		}
		return r, err
	}
	if !started {
		return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Reason: "empty_response",
			Message: "anthropic: the stream ended without a message"}
	}
	resp.Content, resp.Tokens = text.String(), tokens()
	return resp, nil
}

// params builds the Messages API request of req.
func (c *client) params(req llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(c.model),
		MaxTokens: int64(c.maxTokens),
	}
	if c.temperature != nil {
		p.Temperature = sdk.Float(*c.temperature)
	}
	if err := applyOptions(&p, req.Options); err != nil {
		return p, err
	}
	if p.MaxTokens != int64(c.maxTokens) {
		if err := checkNonStreaming(int(p.MaxTokens), c.model); err != nil {
			return p, err
		}
	}

	var system []sdk.TextBlockParam
	if req.System != "" {
		system = append(system, sdk.TextBlockParam{Text: req.System})
	}
	msgs := make([]sdk.MessageParam, 0, len(req.Messages))
	for i, m := range req.Messages {
		// Tool calls and results (tool-calling mode): blocks of the
		// assistant's or the user's message, consecutive ones together.
		var block sdk.ContentBlockParamUnion
		var role sdk.MessageParamRole
		switch {
		case m.Role == llm.Assistant && m.ToolName != "":
			var input any = map[string]any{}
			if strings.TrimSpace(m.Content) != "" {
				input = json.RawMessage(m.Content)
			}
			block, role = sdk.NewToolUseBlock(m.ToolCallID, input, m.ToolName), sdk.MessageParamRoleAssistant
		case m.Role == llm.User && m.ToolCallID != "":
			block, role = sdk.NewToolResultBlock(m.ToolCallID, m.Content, strings.HasPrefix(m.Content, "Error:")), sdk.MessageParamRoleUser
		}
		if role != "" {
			if n := len(msgs); n > 0 && msgs[n-1].Role == role && i > 0 && req.Messages[i-1].Role == m.Role {
				msgs[n-1].Content = append(msgs[n-1].Content, block)
			} else if role == sdk.MessageParamRoleAssistant {
				msgs = append(msgs, sdk.NewAssistantMessage(block))
			} else {
				msgs = append(msgs, sdk.NewUserMessage(block))
			}
			continue
		}
		switch m.Role {
		case llm.User:
			msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(m.Content)))
		case llm.Assistant:
			msgs = append(msgs, sdk.NewAssistantMessage(sdk.NewTextBlock(m.Content)))
		case llm.System:
			// The Messages API has no system turns: the text joins the
			// system parameter.
			system = append(system, sdk.TextBlockParam{Text: m.Content})
		default:
			return p, &llm.Error{Class: llm.ClassClientError,
				Message: fmt.Sprintf("anthropic: message %d has the unknown role %q", i, m.Role)}
		}
	}
	if req.Cache {
		// At most two of the API's four breakpoints: the system prompt,
		// and the end of the previous turn, so that the next turn finds
		// the conversation so far in the cache.
		if n := len(system); n > 0 {
			system[n-1].CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		if i := prefixEnd(msgs); i >= 0 {
			if b := msgs[i].Content[len(msgs[i].Content)-1].OfText; b != nil {
				b.CacheControl = sdk.NewCacheControlEphemeralParam()
			}
		}
	}
	p.System = system
	p.Messages = msgs
	for _, t := range req.Tools {
		schema := sdk.ToolInputSchemaParam{Properties: t.Parameters["properties"], ExtraFields: map[string]any{}}
		if req, ok := t.Parameters["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					schema.Required = append(schema.Required, s)
				}
			}
		} else if req, ok := t.Parameters["required"].([]string); ok {
			schema.Required = req
		}
		for k, v := range t.Parameters {
			if k != "type" && k != "properties" && k != "required" {
				schema.ExtraFields[k] = v
			}
		}
		tool := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	return p, nil
}

// prefixEnd is the index of the message before the newest user message:
// the end of the stable prefix of the conversation; -1 when there is none.
func prefixEnd(msgs []sdk.MessageParam) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == sdk.MessageParamRoleUser {
			return i - 1
		}
	}
	return -1
}

// applyOptions sets the parameters of a request's Options.
func applyOptions(p *sdk.MessageNewParams, opts map[string]any) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := opts[k]
		bad := func(want string) error {
			return configError(ReasonInvalidOptions,
				fmt.Sprintf("anthropic: option %q must be %s, not %T (%v)", k, want, v, v))
		}
		switch k {
		case "temperature", "top_p":
			if v == nil {
				continue
			}
			f, ok := coerce.Float(v)
			if !ok {
				return bad("a finite number")
			}
			if k == "temperature" {
				p.Temperature = sdk.Float(f)
			} else {
				p.TopP = sdk.Float(f)
			}
		case "max_tokens", "top_k":
			if v == nil {
				continue
			}
			n, ok := coerce.Int(v)
			if !ok || (k == "max_tokens" && n <= 0) || n < 0 {
				if k == "max_tokens" {
					return bad("a positive integer")
				}
				return bad("a non-negative integer")
			}
			if k == "max_tokens" {
				p.MaxTokens = n
			} else {
				p.TopK = sdk.Int(n)
			}
		case "stop":
			if v == nil {
				continue
			}
			stop, ok := coerce.Strings(v)
			if !ok {
				return bad("a string or a list of strings")
			}
			p.StopSequences = stop
		default:
			return configError(ReasonInvalidOptions, fmt.Sprintf("anthropic: unknown option %q (known: %s)",
				k, strings.Join(optionKeys, ", ")))
		}
	}
	return nil
}

// validHeader reports whether a header can be sent: a token for a name,
// no line breaks in the value.
func validHeader(name, value string) bool {
	if name == "" || strings.ContainsAny(value, "\r\n\x00") {
		return false
	}
	for _, r := range name {
		if r > 126 || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

func configError(reason, msg string) *llm.Error {
	return &llm.Error{Class: llm.ClassConfig, Reason: reason, Message: msg}
}

// classify turns an error of the SDK into an *llm.Error.
func classify(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The caller's deadline or cancellation, whatever the SDK made of
		// it (a transport error, a cut body).
		e := llm.Classify(ctxErr)
		e.Message = "anthropic: the call's context ended: " + err.Error()
		return e
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		var header http.Header
		if apiErr.Response != nil {
			header = apiErr.Response.Header
		}
		typ, msg := apiMessage(apiErr)
		e := adapter.HTTPError(apiErr.StatusCode, header, msg, err)
		e.Reason = typ
		return e
	}
	if e := llm.Classify(err); e.Class != llm.ClassUnknown {
		// A network timeout, the SDK's own 10-minute attempt timeout.
		e.Message = "anthropic: " + err.Error()
		return e
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return &llm.Error{Class: llm.ClassUnknown, Message: "anthropic: request failed: " + err.Error(), Err: err}
	}
	return &llm.Error{Class: llm.ClassUnknown, Reason: ReasonMalformedResponse,
		Message: "anthropic: malformed or unreadable response: " + err.Error(), Err: err}
}

// apiMessage reads the type and the message of an API error body,
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
func apiMessage(e *sdk.Error) (typ, msg string) {
	raw := strings.TrimSpace(e.RawJSON())
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &body) == nil {
		typ, msg = body.Error.Type, body.Error.Message
		if msg == "" {
			msg = body.Message
		}
	}
	switch {
	case msg == "" && raw != "" && !strings.HasPrefix(raw, "{"):
		msg = abbreviate(raw) // a proxy's page
	case msg == "" && typ != "":
		msg = typ
	case msg == "":
		msg = http.StatusText(e.StatusCode)
	}
	return typ, msg
}

// abbreviate shortens a response body quoted in an error message.
func abbreviate(s string) string {
	const limit = 200
	s = strings.TrimSpace(s)
	if s == "" {
		return "an empty body"
	}
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
