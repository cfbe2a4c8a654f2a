package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/adapter"
	"github.com/ptc-go/ptc/llm/internal/coerce"
)

// ProviderName is the provider name (gen_ai.provider.name, as the
// OpenTelemetry GenAI conventions spell the Gemini API) of every
// llm.Response of this adapter.
const ProviderName = "gcp.gemini"

// Config configures a Gemini model.
type Config struct {
	// Model is the model's name, e.g. "gemini-2.5-flash" (required).
	Model string
	// APIKey is the Gemini API key; by default $GEMINI_API_KEY, else
	// $GOOGLE_API_KEY.
	APIKey string
	// BaseURL replaces the API's address (for tests and proxies); by
	// default the SDK's (https://generativelanguage.googleapis.com/, or
	// $GOOGLE_GEMINI_BASE_URL).
	BaseURL string
	// Headers are sent with every request.
	Headers map[string]string
	// HTTPClient makes the requests; by default a new http.Client. It is
	// never changed: the adapter uses a guarded copy.
	HTTPClient *http.Client
	// MaxTokens caps the tokens of each reply (maxOutputTokens); 0 leaves
	// the model's default.
	MaxTokens int
	// Temperature is the sampling temperature; nil leaves the model's
	// default.
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

// The reasons of the configuration errors (Class llm.ClassConfig).
const (
	reasonInvalidConfig  = "invalid_llm_config"
	reasonInvalidOptions = "invalid_llm_options"
)

// reasonMalformedResponse is the reason of a reply that is not a
// generateContent response (Class llm.ClassServerError), as in the other
// adapters.
const reasonMalformedResponse = "malformed_response"

// New returns a Func that calls the Gemini Developer API's generateContent
// with the model of cfg. It makes no request. Its errors are *llm.Error
// values of Class llm.ClassConfig.
func New(ctx context.Context, cfg Config) (llm.Func, error) {
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, configError(reasonInvalidConfig, "gemini: Config.Model is required")
	}
	if strings.ContainsAny(model, "?&") || strings.Contains(model, "..") {
		return nil, configError(reasonInvalidConfig, fmt.Sprintf("gemini: invalid model name %q", model))
	}
	key := cfg.APIKey
	if key == "" {
		key = os.Getenv("GEMINI_API_KEY")
	}
	if key == "" {
		key = os.Getenv("GOOGLE_API_KEY")
	}
	if key == "" {
		return nil, configError(reasonInvalidConfig,
			"gemini: no API key: set Config.APIKey, $GEMINI_API_KEY or $GOOGLE_API_KEY")
	}
	if cfg.MaxTokens < 0 || cfg.MaxTokens > math.MaxInt32 {
		return nil, configError(reasonInvalidConfig, fmt.Sprintf("gemini: Config.MaxTokens %d is out of range", cfg.MaxTokens))
	}
	if t := cfg.Temperature; t != nil && (!coerce.Finite(*t) || *t < 0) {
		return nil, configError(reasonInvalidConfig, fmt.Sprintf("gemini: Config.Temperature %v is invalid", *t))
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, configError(reasonInvalidConfig, fmt.Sprintf("gemini: Config.MaxResponseBytes %d is negative", cfg.MaxResponseBytes))
	}
	// Every request goes through the guard's client: no redirect to
	// another host, replies bounded; every error through its Func:
	// credentials redacted.
	guard := adapter.NewGuard(adapter.GuardConfig{Name: "gemini", APIKey: key, Headers: cfg.Headers,
		MaxResponseBytes: cfg.MaxResponseBytes, Provider: ProviderName, Model: model})

	var header http.Header
	if len(cfg.Headers) > 0 {
		header = make(http.Header, len(cfg.Headers))
		for k, v := range cfg.Headers {
			header.Set(k, v) // a fresh one-element slice: the SDK appends to these
		}
	}
	one := int32(1)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     key,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: captureClient(guard.Client(cfg.HTTPClient)),
		HTTPOptions: genai.HTTPOptions{
			BaseURL: cfg.BaseURL,
			Headers: header,
			// One attempt: the agent's RetryPolicy retries, and only it.
			// (The SDK does not retry without RetryOptions either; this
			// keeps it so should its default change.)
			RetryOptions: &genai.HTTPRetryOptions{Attempts: &one},
		},
	})
	if err != nil {
		// The SDK's messages print its whole config, the key included.
		return nil, &llm.Error{Class: llm.ClassConfig, Reason: reasonInvalidConfig, Message: "gemini: " + guard.Redact(err.Error())}
	}
	c := &caller{models: client.Models, model: model, noStreaming: cfg.NoStreaming}
	if cfg.MaxTokens > 0 {
		c.maxTokens = int32(cfg.MaxTokens)
	}
	if cfg.Temperature != nil {
		t := float32(*cfg.Temperature)
		c.temperature = &t
	}
	return guard.Func(c.call), nil
}

type caller struct {
	models      *genai.Models
	model       string
	maxTokens   int32
	temperature *float32
	noStreaming bool
}

func (c *caller) call(ctx context.Context, req llm.Request) (resp llm.Response, err error) {
	info := &respInfo{}
	defer func() {
		if p := recover(); p != nil {
			e := &llm.Error{Class: llm.ClassUnknown, Message: fmt.Sprintf("gemini: panic: %v", p)}
			if status, _ := info.get(); status >= 200 && status < 300 {
				// The SDK's converters panic on a body of the wrong shape
				// ({"candidates": "x"}).
				e.Class, e.Reason = llm.ClassServerError, reasonMalformedResponse
				e.Message = fmt.Sprintf("gemini: malformed generateContent reply: %v", p)
			}
			resp, err = llm.Response{}, e
		}
	}()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, contextError(err, err)
	}
	config, err := c.config(req)
	if err != nil {
		return llm.Response{}, err
	}
	contents, system, err := contents(req)
	if err != nil {
		return llm.Response{}, err
	}
	if system != "" {
		config.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: system}}}
	}

	if req.Stream != nil && !c.noStreaming && len(req.Tools) == 0 {
		// A reply with tool calls is read whole.
		info.stream = true
		return c.stream(ctx, info, contents, config, req)
	}
	out, err := c.models.GenerateContent(context.WithValue(ctx, respInfoKey{}, info), c.model, contents, config)
	if err != nil {
		return llm.Response{}, callError(ctx, err, info)
	}
	return response(out)
}

// stream makes the call with a streamed reply (GenerateContentStream,
// server-sent events): each piece of text goes to req.Stream as it comes;
// when Stream asks to stop, the iteration ends (which closes the
// connection) and the reply so far is returned, its tokens those of the
// last usage the stream reported, else estimated.
func (c *caller) stream(ctx context.Context, info *respInfo, contents []*genai.Content, config *genai.GenerateContentConfig,
	req llm.Request) (llm.Response, error) {
	var (
		text  strings.Builder
		resp  llm.Response
		usage *genai.GenerateContentResponseUsageMetadata
		last  *genai.GenerateContentResponse
	)
	for chunk, err := range c.models.GenerateContentStream(context.WithValue(ctx, respInfoKey{}, info), c.model, contents, config) {
		if err != nil {
			return llm.Response{}, callError(ctx, err, info)
		}
		if chunk == nil {
			continue
		}
		last = chunk
		if chunk.UsageMetadata != nil {
			usage = chunk.UsageMetadata
		}
		if chunk.ModelVersion != "" {
			resp.Model = chunk.ModelVersion
		}
		if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
			continue
		}
		cand := chunk.Candidates[0]
		if cand.FinishReason != "" {
			resp.FinishReason = string(cand.FinishReason)
		}
		if cand.Content == nil {
			continue
		}
		for _, p := range cand.Content.Parts {
			if p == nil || p.Thought || p.Text == "" {
				continue
			}
			text.WriteString(p.Text)
			if !req.Stream(p.Text) {
				resp.Content, resp.FinishReason = text.String(), adapter.FinishStoppedEarly
				resp.Tokens = adapter.EstimateTokens(req, resp.Content)
				if usage != nil {
					resp.Tokens.Input = int(usage.PromptTokenCount)
					resp.Tokens.CacheRead = int(usage.CachedContentTokenCount)
					resp.Tokens.Output = max(resp.Tokens.Output, int(usage.CandidatesTokenCount)+int(usage.ThoughtsTokenCount))
				}
				return resp, nil
			}
		}
	}
	if text.Len() == 0 {
		// No text: the last chunk says why (a blocked prompt or reply),
		// as a whole reply would.
		if last == nil {
			return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Reason: "empty_response",
				Message: "gemini: the stream ended without a reply"}
		}
		return response(last)
	}
	resp.Content = text.String()
	if usage != nil {
		resp.Tokens = llm.Tokens{Input: int(usage.PromptTokenCount),
			Output: int(usage.CandidatesTokenCount) + int(usage.ThoughtsTokenCount), CacheRead: int(usage.CachedContentTokenCount)}
	}
	return resp, nil
}

// config builds the generation config: the Config's defaults, then the
// request's options.
func (c *caller) config(req llm.Request) (*genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{MaxOutputTokens: c.maxTokens}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: t.Parameters})
		}
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	if c.temperature != nil {
		t := *c.temperature
		config.Temperature = &t
	}
	keys := make([]string, 0, len(req.Options))
	for k := range req.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same error for the same options
	for _, k := range keys {
		v := req.Options[k]
		switch k {
		case "temperature", "top_p", "top_k":
			f, ok := coerce.Float(v)
			if !ok || f < 0 || (k == "top_k" && f < 1) || (k == "top_p" && f > 1) {
				return nil, optionError(k, v)
			}
			f32 := float32(f)
			switch k {
			case "temperature":
				config.Temperature = &f32
			case "top_p":
				config.TopP = &f32
			default:
				config.TopK = &f32
			}
		case "max_tokens":
			f, ok := coerce.Float(v)
			if !ok || f < 1 || f > math.MaxInt32 || f != math.Trunc(f) {
				return nil, optionError(k, v)
			}
			config.MaxOutputTokens = int32(f)
		case "stop":
			stop, ok := coerce.Strings(v)
			if !ok {
				return nil, optionError(k, v)
			}
			config.StopSequences = stop
		default:
			return nil, configError(reasonInvalidOptions, fmt.Sprintf(
				"gemini: unknown LLM option %q (known: max_tokens, stop, temperature, top_k, top_p)", k))
		}
	}
	return config, nil
}

// contents maps the conversation to Gemini's: user stays user, assistant
// becomes model. System messages (the contract keeps them out of Messages)
// join the system instruction.
func contents(req llm.Request) ([]*genai.Content, string, error) {
	system := req.System
	out := make([]*genai.Content, 0, len(req.Messages))
	names := map[string]string{} // tool call id -> the tool's name, for the results
	for i, m := range req.Messages {
		// Tool calls and results (tool-calling mode): functionCall parts
		// of the model's content, functionResponse parts of the user's,
		// consecutive ones together.
		var part *genai.Part
		var role string
		switch {
		case m.Role == llm.Assistant && m.ToolName != "":
			args := map[string]any{}
			if strings.TrimSpace(m.Content) != "" {
				if err := json.Unmarshal([]byte(m.Content), &args); err != nil {
					args = map[string]any{"arguments": m.Content}
				}
			}
			names[m.ToolCallID] = m.ToolName
			part, role = &genai.Part{FunctionCall: &genai.FunctionCall{ID: sentCallID(m.ToolCallID), Name: m.ToolName, Args: args}}, genai.RoleModel
		case m.Role == llm.User && m.ToolCallID != "":
			key := "output"
			if strings.HasPrefix(m.Content, "Error:") {
				key = "error"
			}
			part, role = &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: sentCallID(m.ToolCallID), Name: names[m.ToolCallID],
				Response: map[string]any{key: m.Content}}}, genai.RoleUser
		}
		if part != nil {
			if n := len(out); n > 0 && out[n-1].Role == role && i > 0 && req.Messages[i-1].Role == m.Role {
				out[n-1].Parts = append(out[n-1].Parts, part)
			} else {
				out = append(out, &genai.Content{Role: role, Parts: []*genai.Part{part}})
			}
			continue
		}
		switch m.Role {
		case llm.User:
			role = genai.RoleUser
		case llm.Assistant:
			role = genai.RoleModel
		case llm.System:
			if system != "" {
				system += "\n\n"
			}
			system += m.Content
			continue
		default:
			return nil, "", &llm.Error{Class: llm.ClassClientError, Reason: "invalid_request",
				Message: fmt.Sprintf("gemini: message %d has the unknown role %q", i, m.Role)}
		}
		out = append(out, &genai.Content{Role: role, Parts: []*genai.Part{{Text: m.Content}}})
	}
	if len(out) == 0 && req.Prompt != "" {
		out = append(out, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: req.Prompt}}})
	}
	return out, system, nil
}

// response reads the text of the first candidate and the token counts.
func response(out *genai.GenerateContentResponse) (llm.Response, error) {
	if out == nil {
		return llm.Response{}, &llm.Error{Class: llm.ClassUnknown, Reason: "empty_response", Message: "gemini: no response"}
	}
	if len(out.Candidates) == 0 || out.Candidates[0] == nil {
		if fb := out.PromptFeedback; fb != nil && fb.BlockReason != "" {
			msg := fmt.Sprintf("gemini: the prompt was blocked (%s)", fb.BlockReason)
			if fb.BlockReasonMessage != "" {
				msg += ": " + fb.BlockReasonMessage
			}
			return llm.Response{}, &llm.Error{Class: llm.ClassClientError, Reason: "prompt_blocked", Message: msg}
		}
		// Gemini sends no candidate only with a block reason: a body
		// without either ({}, an empty one) is not a generateContent reply.
		return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Reason: reasonMalformedResponse,
			Message: "gemini: malformed generateContent reply: no candidates"}
	}
	cand := out.Candidates[0]
	var sb strings.Builder
	var calls []llm.Message
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if p == nil || p.Thought {
				continue
			}
			sb.WriteString(p.Text)
			if fc := p.FunctionCall; fc != nil {
				args, _ := json.Marshal(fc.Args)
				if fc.Args == nil {
					args = []byte("{}")
				}
				id := fc.ID
				if id == "" {
					// Gemini may leave calls unnamed: the agent pairs
					// results with calls by id.
					id = fmt.Sprintf("%s%d", madeUpCallID, len(calls)+1)
				}
				calls = append(calls, llm.Message{Role: llm.Assistant, ToolCallID: id, ToolName: fc.Name, Content: string(args)})
			}
		}
	}
	if sb.Len() == 0 && len(calls) > 0 {
		resp := usageResponse(out, cand)
		resp.ToolCalls = calls
		return resp, nil
	}
	if sb.Len() == 0 {
		reason := cand.FinishReason
		if reason == "" {
			reason = "none"
		}
		msg := fmt.Sprintf("gemini: the model's reply has no text (finish reason %s)", reason)
		if cand.FinishMessage != "" {
			msg += ": " + cand.FinishMessage
		}
		e := &llm.Error{Class: llm.ClassUnknown, Reason: "empty_response", Message: msg}
		if blocked(cand.FinishReason) {
			e.Class, e.Reason = llm.ClassClientError, "response_blocked"
		}
		return llm.Response{}, e
	}
	resp := usageResponse(out, cand)
	resp.Content, resp.ToolCalls = sb.String(), calls
	return resp, nil
}

// madeUpCallID starts the ids this adapter gives the function calls Gemini
// sent without one (the agent pairs results with calls by id); they are
// not sent back.
const madeUpCallID = "gemini-call-"

// sentCallID is a call's id as Gemini is sent it: "" for one made up.
func sentCallID(id string) string {
	if strings.HasPrefix(id, madeUpCallID) {
		return ""
	}
	return id
}

// usageResponse is the Response of a reply without its text: the tokens,
// the model and the finish reason.
func usageResponse(out *genai.GenerateContentResponse, cand *genai.Candidate) llm.Response {
	var tokens llm.Tokens
	if u := out.UsageMetadata; u != nil {
		tokens = llm.Tokens{
			Input:     int(u.PromptTokenCount),
			Output:    int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount),
			CacheRead: int(u.CachedContentTokenCount),
		}
	}
	return llm.Response{Tokens: tokens, Model: out.ModelVersion, FinishReason: string(cand.FinishReason)}
}

// blocked reports whether a finish reason means the reply was filtered.
func blocked(r genai.FinishReason) bool {
	switch r {
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonLanguage:
		return true
	}
	return false
}

// callError classifies a failed GenerateContent call.
func callError(ctx context.Context, err error, info *respInfo) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return contextError(ctxErr, err)
	}
	var apiErr genai.APIError
	if pe := (*genai.APIError)(nil); errors.As(err, &pe) && pe != nil {
		apiErr = *pe
	} else if !errors.As(err, &apiErr) {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syntax) || errors.As(err, &typ) {
			return &llm.Error{Class: llm.ClassServerError, Reason: reasonMalformedResponse, Err: err,
				Message: "gemini: the response body is not a valid generateContent reply: " + firstLine(err.Error())}
		}
		e := llm.Classify(err)
		return &llm.Error{Class: e.Class, Err: err, Message: "gemini: " + truncate(err.Error())}
	}
	status, header := info.get()
	if apiErr.Code != 0 {
		status = apiErr.Code
	}
	msg := apiErr.Message
	if msg == "" {
		msg = http.StatusText(status)
	}
	reason := ""
	if apiErr.Status != "" && !strings.Contains(apiErr.Status, " ") { // "RESOURCE_EXHAUSTED", not "429 Too Many Requests"
		msg = apiErr.Status + ": " + msg
		reason = apiErr.Status
	}
	e := adapter.HTTPError(status, header, "gemini: "+truncate(msg), err)
	if e.Reason == "" {
		e.Reason = reason
	}
	if e.Class == llm.ClassClientError && invalidKey(apiErr) {
		e.Class = llm.ClassAuth
	}
	if e.RetryAfter == 0 {
		e.RetryAfter = retryDelay(apiErr)
	}
	return e
}

func contextError(ctxErr, err error) error {
	e := llm.Classify(ctxErr)
	return &llm.Error{Class: e.Class, Err: err, Message: "gemini: " + ctxErr.Error()}
}

// invalidKey reports whether a 400 is Gemini's answer to a wrong API key
// (INVALID_ARGUMENT with the ErrorInfo reason API_KEY_INVALID, or
// API_KEY_EXPIRED).
func invalidKey(e genai.APIError) bool {
	if e.Status == "UNAUTHENTICATED" {
		return true
	}
	for _, d := range e.Details {
		if r, _ := d["reason"].(string); r == "API_KEY_INVALID" || r == "API_KEY_EXPIRED" {
			return true
		}
	}
	return strings.Contains(e.Message, "API key not valid")
}

// retryDelay reads the google.rpc.RetryInfo detail of a 429 ("retryDelay":
// "17s").
func retryDelay(e genai.APIError) time.Duration {
	for _, d := range e.Details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, _ := d["retryDelay"].(string); s != "" {
			if d, err := time.ParseDuration(s); err == nil && d > 0 {
				return d
			}
		}
	}
	return 0
}

func configError(reason, msg string) *llm.Error {
	return &llm.Error{Class: llm.ClassConfig, Reason: reason, Message: msg}
}

func optionError(key string, v any) *llm.Error {
	return configError(reasonInvalidOptions, fmt.Sprintf("gemini: invalid value %v (%T) for the LLM option %q", v, v, key))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return truncate(s)
}

func truncate(s string) string {
	const limit = 500
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// The SDK's APIError carries the status and message of a failed call but
// not the response's headers (Retry-After). The HTTP client's transport
// records them for the call whose context carries a respInfo.

type respInfoKey struct{}

type respInfo struct {
	mu     sync.Mutex
	status int
	header http.Header
	// stream: the call asked for a streamed reply; a server that answers
	// with a whole JSON body has it read as the stream's one event.
	stream bool
}

func (r *respInfo) set(status int, h http.Header) {
	r.mu.Lock()
	r.status, r.header = status, h
	r.mu.Unlock()
}

func (r *respInfo) get() (int, http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.header
}

type captureTransport struct{ base http.RoundTripper }

func (t captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if info, ok := req.Context().Value(respInfoKey{}).(*respInfo); ok {
			info.set(resp.StatusCode, resp.Header.Clone())
			if info.stream && resp.StatusCode/100 == 2 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				return asEvent(resp)
			}
		}
	}
	return resp, err
}

// asEvent turns a whole JSON reply to a streaming request into a stream of
// one event.
func asEvent(resp *http.Response) (*http.Response, error) {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var one bytes.Buffer
	if json.Compact(&one, body) == nil {
		body = append(append([]byte("data: "), one.Bytes()...), '\n', '\n')
		resp.Header = resp.Header.Clone()
		resp.Header.Set("Content-Type", "text/event-stream")
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// CloseIdleConnections forwards to the wrapped transport.
func (t captureTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// captureClient returns a copy of hc (a new client when nil) whose
// transport records the responses' headers.
func captureClient(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = captureTransport{base: base}
	return &c
}
