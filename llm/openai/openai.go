package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
	"github.com/ptc-go/ptc/llm/internal/coerce"
)

// DefaultBaseURL is the OpenAI API, used when neither Config.BaseURL nor
// $OPENAI_BASE_URL is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a model served by the OpenAI API or any OpenAI-compatible server.
type Config struct {
	Model      string            // required, e.g. "gpt-4.1-mini"
	APIKey     string            // default $OPENAI_API_KEY; may stay empty for local servers (Ollama, llama.cpp)
	BaseURL    string            // default $OPENAI_BASE_URL, else the SDK's default (https://api.openai.com/v1)
	Headers    map[string]string // extra headers (OpenRouter's, Azure-style api-key...)
	HTTPClient *http.Client      // default: a client on http.DefaultTransport; never changed (a guarded copy is used)
	MaxTokens  int               // default max completion tokens when the request does not say; 0: the server's default
	// Temperature is the default temperature; nil: the server's.
	Temperature *float64
	// MaxResponseBytes bounds the body of a reply: a longer one fails
	// with an *llm.Error of Class llm.ClassClientError, Reason
	// adapter.ReasonResponseTooLarge. Zero: adapter.DefaultMaxResponseBytes
	// (32 MiB).
	MaxResponseBytes int64
	// NoStreaming asks for whole replies even when the agent asks for a
	// streamed one (llm.Request.Stream), for a server that does not
	// stream, or rejects stream_options.
	NoStreaming bool
	// Provider is the provider's name as the OpenTelemetry GenAI
	// conventions spell it (gen_ai.provider.name), reported in every
	// llm.Response: "groq", "ollama"... for the OpenAI-compatible servers
	// this adapter also speaks to; "": ProviderName ("openai").
	Provider string
}

// ProviderName is the provider name (gen_ai.provider.name) this adapter
// reports when Config.Provider is not set.
const ProviderName = "openai"

func providerName(p string) string {
	if p = strings.TrimSpace(p); p != "" {
		return p
	}
	return ProviderName
}

// ReasonInvalidConfig is the Reason of the *llm.Error (Class llm.ClassConfig)
// New returns for an invalid Config.
const ReasonInvalidConfig = "invalid_llm_config"

// ReasonInvalidOptions is the Reason of the *llm.Error (Class llm.ClassConfig)
// returned for a Request.Options key this adapter does not know, or a value
// of the wrong type. An agent reports it as its Fail reason.
const ReasonInvalidOptions = "invalid_llm_options"

// ReasonMalformedResponse is the Reason of the *llm.Error (Class
// llm.ClassUnknown) returned when a reply cannot be read as a chat completion.
const ReasonMalformedResponse = "malformed_response"

// The keys of llm.Request.Options that a call understands.
const (
	optTemperature     = "temperature"      // number
	optMaxTokens       = "max_tokens"       // integer > 0
	optTopP            = "top_p"            // number
	optStop            = "stop"             // string or list of strings
	optSeed            = "seed"             // integer
	optReasoningEffort = "reasoning_effort" // string: "low", "medium", "high"...
)

var knownOptions = []string{optMaxTokens, optReasoningEffort, optSeed, optStop, optTemperature, optTopP}

// New returns an llm.Func that calls cfg.Model through the Chat Completions
// API. The SDK's own retries are off: a failed call fails at once with an
// *llm.Error whose Class tells the agent's RetryPolicy whether to retry.
// New fails, with an *llm.Error of class llm.ClassConfig, when Model is empty or
// the configuration is unusable (a malformed base URL, a negative
// MaxTokens, a bad header name).
func New(cfg Config) (llm.Func, error) {
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, configError(ReasonInvalidConfig, "openai: Config.Model is required")
	}
	if cfg.MaxTokens < 0 {
		return nil, configError(ReasonInvalidConfig, fmt.Sprintf("openai: Config.MaxTokens is negative (%d)", cfg.MaxTokens))
	}
	if t := cfg.Temperature; t != nil && !coerce.Finite(*t) {
		return nil, configError(ReasonInvalidConfig, "openai: Config.Temperature is not a finite number")
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, configError(ReasonInvalidConfig, fmt.Sprintf("openai: Config.MaxResponseBytes is negative (%d)", cfg.MaxResponseBytes))
	}
	apiKey := cfg.APIKey
	if apiKey == "" {
		apiKey = os.Getenv("OPENAI_API_KEY")
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = strings.TrimSpace(os.Getenv("OPENAI_BASE_URL"))
	}
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, configError(ReasonInvalidConfig,
			fmt.Sprintf("openai: the base URL %q is not an http(s) URL", base))
	}

	opts := []option.RequestOption{
		option.WithBaseURL(base),
		// The agent's RetryPolicy retries, once and for all: the SDK must
		// not retry on its own (its retries would multiply the policy's
		// and hide the failures from it).
		option.WithMaxRetries(0),
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
		v := cfg.Headers[k]
		if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			return nil, configError(ReasonInvalidConfig, fmt.Sprintf("openai: invalid header %q", k))
		}
		opts = append(opts, option.WithHeader(k, v))
	}
	// Every request goes through the guard's client: no redirect to
	// another host, replies bounded; every error through its Func:
	// credentials redacted.
	guard := adapter.NewGuard(adapter.GuardConfig{Name: "openai", APIKey: apiKey, Headers: cfg.Headers,
		MaxResponseBytes: cfg.MaxResponseBytes, Provider: providerName(cfg.Provider), Model: model})
	opts = append(opts, option.WithHTTPClient(guard.Client(cfg.HTTPClient)))
	c := &caller{
		client:      sdk.NewClient(opts...),
		model:       model,
		maxTokens:   cfg.MaxTokens,
		newMaxField: usesMaxCompletionTokens(u),
		noStreaming: cfg.NoStreaming,
	}
	if cfg.Temperature != nil {
		t := *cfg.Temperature
		c.temperature = &t
	}
	return guard.Func(c.call), nil
}

// caller holds a configured client; it is immutable, so its call is safe
// for concurrent use (the SDK's client is).
type caller struct {
	client      sdk.Client
	model       string
	maxTokens   int
	temperature *float64
	// newMaxField sends the token limit as max_completion_tokens (OpenAI,
	// whose reasoning models reject max_tokens) rather than max_tokens
	// (which every OpenAI-compatible server understands).
	newMaxField bool
	noStreaming bool
}

func (c *caller) call(ctx context.Context, req llm.Request) (llm.Response, error) {
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
	var (
		raw     []byte
		httpRes *http.Response
	)
	// The body is decoded here rather than by the SDK, to tell an empty or
	// malformed reply (and an error a proxy sends with status 200) apart.
	_, err = c.client.Chat.Completions.New(ctx, params,
		option.WithResponseBodyInto(&raw), option.WithResponseInto(&httpRes))
	if err != nil {
		return llm.Response{}, callError(ctx, err, httpRes)
	}
	status := 0
	var header http.Header
	if httpRes != nil {
		status, header = httpRes.StatusCode, httpRes.Header
	}
	return decode(raw, status, header)
}

// stream makes the call with a streamed reply: each piece of text goes to
// req.Stream as it comes; when Stream asks to stop, the stream is closed
// (the server stops generating when the connection goes) and the reply so
// far is returned. The usage comes in the stream's last event
// (stream_options.include_usage); a reply stopped before it has its
// tokens estimated.
func (c *caller) stream(ctx context.Context, params sdk.ChatCompletionNewParams, req llm.Request) (llm.Response, error) {
	params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
	var httpRes *http.Response
	// A server that does not stream answers with one JSON body: it is
	// read whole, as without streaming.
	var whole adapter.WholeReply
	st := c.client.Chat.Completions.NewStreaming(ctx, params, option.WithResponseInto(&httpRes),
		option.WithMiddleware(whole.Middleware))
	defer st.Close()
	var (
		text    strings.Builder
		refusal strings.Builder
		resp    llm.Response
		usage   bool
	)
	for st.Next() {
		ch := st.Current()
		if ch.Model != "" {
			resp.Model = ch.Model
		}
		if ch.JSON.Usage.Valid() && ch.Usage.PromptTokens+ch.Usage.CompletionTokens > 0 {
			usage = true
			resp.Tokens = llm.Tokens{Input: int(ch.Usage.PromptTokens), Output: int(ch.Usage.CompletionTokens),
				CacheRead: int(ch.Usage.PromptTokensDetails.CachedTokens)}
		}
		if len(ch.Choices) == 0 {
			continue
		}
		choice := ch.Choices[0]
		if choice.FinishReason != "" {
			resp.FinishReason = choice.FinishReason
		}
		refusal.WriteString(choice.Delta.Refusal)
		if piece := choice.Delta.Content; piece != "" {
			text.WriteString(piece)
			if !req.Stream(piece) {
				resp.Content, resp.FinishReason = text.String(), adapter.FinishStoppedEarly
				if !usage {
					resp.Tokens = adapter.EstimateTokens(req, resp.Content)
				}
				return resp, nil
			}
		}
	}
	if err := st.Err(); err != nil {
		return llm.Response{}, callError(ctx, err, httpRes)
	}
	if whole.Body != nil {
		status := 0
		var header http.Header
		if httpRes != nil {
			status, header = httpRes.StatusCode, httpRes.Header
		}
		r, err := decode(whole.Body, status, header)
		if err == nil && r.Content != "" {
			req.Stream(r.Content) // the whole reply is its one piece
		}
		return r, err
	}
	resp.Content = text.String()
	if resp.Content == "" {
		resp.Content = refusal.String()
	}
	if resp.Content == "" && resp.FinishReason == "" {
		return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Reason: "empty_response",
			Message: "openai: the stream ended without a reply"}
	}
	return resp, nil
}

// params maps a request to the Chat Completions parameters.
func (c *caller) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(c.model)}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		switch {
		case m.Role == llm.User && m.ToolCallID != "":
			p.Messages = append(p.Messages, sdk.ToolMessage(m.Content, m.ToolCallID))
			continue
		case m.Role == llm.Assistant && m.ToolName != "":
			// A call joins the assistant message before it (its text, or
			// the calls before it): one message with several calls.
			call := sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID: m.ToolCallID, Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: m.ToolName, Arguments: m.Content}}}
			if n := len(p.Messages); n > 0 && p.Messages[n-1].OfAssistant != nil && i > 0 && req.Messages[i-1].Role == llm.Assistant {
				a := p.Messages[n-1].OfAssistant
				a.ToolCalls = append(a.ToolCalls, call)
				continue
			}
			p.Messages = append(p.Messages, sdk.ChatCompletionMessageParamUnion{OfAssistant: &sdk.ChatCompletionAssistantMessageParam{
				ToolCalls: []sdk.ChatCompletionMessageToolCallUnionParam{call}}})
			continue
		}
		switch m.Role {
		case llm.User:
			p.Messages = append(p.Messages, sdk.UserMessage(m.Content))
		case llm.Assistant:
			p.Messages = append(p.Messages, sdk.AssistantMessage(m.Content))
		case llm.System:
			p.Messages = append(p.Messages, sdk.SystemMessage(m.Content))
		default:
			return p, &llm.Error{Class: llm.ClassClientError,
				Message: fmt.Sprintf("openai: message %d has the unknown role %q", i, m.Role)}
		}
	}

	for _, t := range req.Tools {
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
		if t.Description != "" {
			def.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(def))
	}

	temperature, maxTokens := c.temperature, c.maxTokens
	var unknown []string
	for k := range req.Options {
		switch k {
		case optTemperature, optTopP, optMaxTokens, optSeed, optStop, optReasoningEffort:
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return p, configError(ReasonInvalidOptions, fmt.Sprintf("openai: unknown option %s (known: %s)",
			quoteAll(unknown), strings.Join(knownOptions, ", ")))
	}
	// A nil value unsets the option: the server's default applies, even
	// over a Config default.
	if v, ok := req.Options[optTemperature]; ok {
		temperature = nil
		if v != nil {
			f, err := optFloat(optTemperature, v)
			if err != nil {
				return p, err
			}
			temperature = &f
		}
	}
	if v, ok := req.Options[optMaxTokens]; ok {
		maxTokens = 0
		if v != nil {
			n, err := optInt(optMaxTokens, v)
			if err != nil {
				return p, err
			}
			if n <= 0 {
				return p, optError(optMaxTokens, v, "a positive integer")
			}
			maxTokens = int(n)
		}
	}
	if temperature != nil {
		p.Temperature = sdk.Float(*temperature)
	}
	if maxTokens > 0 {
		if c.newMaxField {
			p.MaxCompletionTokens = sdk.Int(int64(maxTokens))
		} else {
			p.MaxTokens = sdk.Int(int64(maxTokens))
		}
	}
	if v := req.Options[optTopP]; v != nil {
		f, err := optFloat(optTopP, v)
		if err != nil {
			return p, err
		}
		p.TopP = sdk.Float(f)
	}
	if v := req.Options[optSeed]; v != nil {
		n, err := optInt(optSeed, v)
		if err != nil {
			return p, err
		}
		p.Seed = sdk.Int(n)
	}
	if v := req.Options[optStop]; v != nil {
		stop, ok := coerce.Strings(v)
		switch s, one := v.(string); {
		case !ok:
			return p, optError(optStop, v, "a string or a list of strings")
		case one:
			p.Stop.OfString = sdk.String(s)
		default:
			p.Stop.OfStringArray = stop
		}
	}
	if v := req.Options[optReasoningEffort]; v != nil {
		s, ok := v.(string)
		if !ok || s == "" {
			return p, optError(optReasoningEffort, v, `a string ("low", "medium", "high"...)`)
		}
		p.ReasoningEffort = shared.ReasoningEffort(s)
	}
	return p, nil
}

// decode reads a successful reply: the first choice's text and the usage.
func decode(raw []byte, status int, header http.Header) (llm.Response, error) {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 {
		return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Status: status, Reason: "empty_response",
			Message: "openai: the server answered with an empty body"}
	}
	if body[0] != '{' || !json.Valid(body) {
		return llm.Response{}, &llm.Error{Class: llm.ClassUnknown, Status: status, Reason: ReasonMalformedResponse,
			Message: "openai: the response body is not a JSON object: " + excerpt(body)}
	}
	var cc sdk.ChatCompletion
	if err := json.Unmarshal(body, &cc); err != nil {
		return llm.Response{}, &llm.Error{Class: llm.ClassUnknown, Status: status, Reason: ReasonMalformedResponse,
			Message: "openai: malformed chat completion: " + excerpt(body), Err: err}
	}
	if len(cc.Choices) == 0 {
		// Some gateways (OpenRouter...) report an upstream failure as a
		// 200 whose body holds an error object.
		if msg, code, ok := bodyError(body); ok {
			if code >= 400 && code <= 599 {
				e := adapter.HTTPError(code, header, msg, nil)
				e.Message = "openai: " + msg
				return llm.Response{}, e
			}
			return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Status: status, Reason: "error_in_body",
				Message: "openai: the server answered with an error: " + msg}
		}
		return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Status: status, Reason: "no_choices",
			Message: "openai: the response has no choices: " + excerpt(body)}
	}
	msg := cc.Choices[0].Message
	content := msg.Content
	if content == "" && msg.Refusal != "" {
		content = msg.Refusal
	}
	var calls []llm.Message
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		calls = append(calls, llm.Message{Role: llm.Assistant, ToolCallID: tc.ID, ToolName: tc.Function.Name, Content: tc.Function.Arguments})
	}
	u := cc.Usage
	return llm.Response{Content: content, ToolCalls: calls, Model: cc.Model, FinishReason: cc.Choices[0].FinishReason, Tokens: llm.Tokens{
		Input:     int(u.PromptTokens),
		Output:    int(u.CompletionTokens),
		CacheRead: int(u.PromptTokensDetails.CachedTokens),
	}}, nil
}

// callError classifies a failed call: the caller's context first (its
// deadline is a Timeout, its cancellation Cancelled), then the HTTP status
// of the API's error, then anything else (a network error...).
func callError(ctx context.Context, err error, res *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		e := llm.Classify(ctxErr)
		if errors.Is(err, ctxErr) {
			e.Err = err
		}
		return e
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		var header http.Header
		if apiErr.Response != nil {
			header = apiErr.Response.Header
		}
		msg := apiErr.Message
		if msg == "" && apiErr.Response != nil && apiErr.Response.Body != nil {
			msg = bodyMessage(apiErr.Response.Body)
		}
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		e := adapter.HTTPError(apiErr.StatusCode, header, msg, err)
		if e.Class == llm.ClassClientError && (apiErr.Code == "context_length_exceeded" || apiErr.Code == "string_above_max_length") {
			e.Class = llm.ClassContextLength
		}
		// The API's code names the failure ("rate_limit_exceeded"); some
		// servers put the HTTP status there, which says nothing more.
		e.Reason = apiErr.Code
		if e.Reason == "" || strings.Trim(e.Reason, "0123456789") == "" {
			e.Reason = apiErr.Type
		}
		return e
	}
	// The SDK could not read the error body as the API's (a proxy's HTML
	// page, say): the status still says what happened.
	if res != nil && res.StatusCode >= 400 {
		msg := ""
		if res.Body != nil {
			msg = bodyMessage(res.Body)
		}
		if msg == "" {
			msg = http.StatusText(res.StatusCode)
		}
		return adapter.HTTPError(res.StatusCode, res.Header, msg, err)
	}
	e := llm.Classify(err)
	if e.Class == llm.ClassUnknown && e.Message == "" {
		e.Message = "openai: " + err.Error()
	}
	return e
}

// bodyError finds an error object in a reply: {"error": {"message": ...,
// "code": 502}} or {"error": "..."}. code is the numeric code, if any.
func bodyError(body []byte) (msg string, code int, ok bool) {
	var probe struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &probe) != nil || len(probe.Error) == 0 || string(probe.Error) == "null" {
		return "", 0, false
	}
	var s string
	if json.Unmarshal(probe.Error, &s) == nil {
		return s, 0, s != ""
	}
	var obj struct {
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(probe.Error, &obj) != nil {
		return excerpt(probe.Error), 0, true
	}
	_ = json.Unmarshal(obj.Code, &code)
	msg = obj.Message
	if msg == "" {
		msg = obj.Type
	}
	if msg == "" {
		msg = excerpt(probe.Error)
	}
	return msg, code, true
}

// bodyMessage reads an error body the SDK could not parse and returns its
// message: error.message, message or detail of a JSON object, else the
// start of the text.
func bodyMessage(r io.Reader) string {
	raw, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if msg, _, ok := bodyError(raw); ok {
		return msg
	}
	var obj struct {
		Message string `json:"message"`
		Detail  any    `json:"detail"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		if obj.Message != "" {
			return obj.Message
		}
		if s, ok := obj.Detail.(string); ok && s != "" {
			return s
		}
	}
	return excerpt(raw)
}

// excerpt is the start of a body, for messages.
func excerpt(b []byte) string {
	const limit = 300
	s := strings.TrimSpace(string(b))
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// usesMaxCompletionTokens reports whether the server is OpenAI's own (or
// Azure OpenAI), whose reasoning models accept only max_completion_tokens.
func usesMaxCompletionTokens(u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	return host == "api.openai.com" || strings.HasSuffix(host, ".openai.azure.com")
}

func optFloat(key string, v any) (float64, error) {
	f, ok := coerce.Number(v)
	if !ok {
		return 0, optError(key, v, "a number")
	}
	if !coerce.Finite(f) {
		return 0, optError(key, v, "a finite number")
	}
	return f, nil
}

func optInt(key string, v any) (int64, error) {
	if n, ok := coerce.Int(v); ok {
		return n, nil
	}
	return 0, optError(key, v, "an integer")
}

func optError(key string, v any, want string) *llm.Error {
	return configError(ReasonInvalidOptions, fmt.Sprintf("openai: option %q must be %s, not %T %v", key, want, v, v))
}

func configError(reason, msg string) *llm.Error {
	return &llm.Error{Class: llm.ClassConfig, Reason: reason, Message: msg}
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

// validHeaderName reports whether s is an HTTP token (RFC 9110).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x7f || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}
