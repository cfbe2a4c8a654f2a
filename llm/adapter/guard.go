package adapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptc-go/ptc/llm"
)

// What a provider endpoint is trusted with: the request, and the
// credentials only on the host the adapter was configured with. A Guard
// holds the rest to account, for every adapter in one place: it redacts the
// credentials from every error (a gateway may echo the request's headers
// in its error pages), refuses redirects to another host (which would
// carry the credentials there), and bounds what is read of a reply.

// DefaultMaxResponseBytes bounds the body of a provider's reply when the
// adapter's Config.MaxResponseBytes is zero: 32 MiB, ten times the
// largest real completion (128k output tokens of 4 bytes each, JSON
// escaping doubling some of them, plus the envelope).
const DefaultMaxResponseBytes = 32 << 20

// maxErrorBody bounds what is read of an error response's body (status
// outside 2xx): an API's error object takes a few hundred bytes; the rest
// of a larger body is dropped, not an error.
const maxErrorBody = 64 << 10

// MaxErrorText bounds the Message of an error a Guard returns, and the
// text of the error it wraps, in bytes: a provider's error page is quoted,
// never kept whole.
const MaxErrorText = 4 << 10

// maxReasonText bounds an error's Reason, which a provider may choose
// (the API's error code).
const maxReasonText = 128

// Reasons of the errors a Guard makes, both of llm.ClassClientError: retrying
// gets the same answer.
const (
	// ReasonRedirectRefused: the provider redirected the call to another
	// scheme, host or port, which the credentials must not go to.
	ReasonRedirectRefused = "redirect_refused"
	// ReasonResponseTooLarge: the reply's body is longer than the
	// adapter's MaxResponseBytes.
	ReasonResponseTooLarge = "response_too_large"
)

// redactedMark replaces a credential in a text.
const redactedMark = "[redacted]"

// minSecret is the shortest credential redacted: a shorter one (a
// placeholder key such as "none") would blank ordinary words.
const minSecret = 6

// minSecretPrefix is the shortest start of a credential redacted where the
// rest of it is missing: a message cut in the middle of a key shows no
// more than minSecretPrefix-1 bytes of it (the public "sk-proj" of a key).
const minSecretPrefix = 8

// GuardConfig configures a Guard.
type GuardConfig struct {
	// Name prefixes the Guard's own error messages ("openai").
	Name string
	// APIKey is the adapter's key: never shown in an error.
	APIKey string
	// Headers are the extra headers the adapter sends; the values of those
	// whose names say they hold a credential (Authorization, any name with
	// key, token, secret, auth...) are never shown (docs/models.md).
	Headers map[string]string
	// MaxResponseBytes bounds the body of a reply; zero:
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Provider and Model, when set, are the Provider and RequestModel of
	// every llm.Response the Guard's Func returns, failed calls included.
	Provider, Model string
}

// Guard protects the credentials of a provider adapter and bounds what it
// reads; see NewGuard. It is immutable and safe for concurrent use.
type Guard struct {
	name     string
	provider string
	model    string
	secrets  []string // with their encodings, longest first
	maxBytes int64
}

// NewGuard returns the Guard of an adapter. An adapter makes its HTTP
// client with Client and wraps its Func with Func; its errors then never
// show the credentials, follow no redirect to another host, and read no
// reply past MaxResponseBytes.
func NewGuard(cfg GuardConfig) *Guard {
	g := &Guard{name: cfg.Name, provider: cfg.Provider, model: cfg.Model, maxBytes: cfg.MaxResponseBytes}
	if g.maxBytes <= 0 {
		g.maxBytes = DefaultMaxResponseBytes
	}
	var raw []string
	raw = append(raw, cfg.APIKey)
	for k, v := range cfg.Headers {
		if credentialHeader(k) {
			raw = append(raw, credentialParts(v)...)
		}
	}
	seen := map[string]bool{}
	for _, s := range raw {
		for _, v := range encodings(s) {
			if len(v) >= minSecret && !seen[v] {
				seen[v] = true
				g.secrets = append(g.secrets, v)
			}
		}
	}
	sort.Slice(g.secrets, func(i, j int) bool {
		if len(g.secrets[i]) != len(g.secrets[j]) {
			return len(g.secrets[i]) > len(g.secrets[j])
		}
		return g.secrets[i] < g.secrets[j]
	})
	return g
}

// MaxResponseBytes is the bound on a reply's body.
func (g *Guard) MaxResponseBytes() int64 { return g.maxBytes }

// credentialHeader reports whether a header's name says it carries a
// credential.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"authorization", "cookie", "key", "token", "secret", "auth", "session",
		"password", "signature", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// credentialParts are the secrets of a credential header's value: its
// fields ("Bearer KEY" holds KEY, "a=b; sid=X" holds X), and for Basic
// authorization the decoded user:password and password.
func credentialParts(v string) []string {
	var out []string
	fields := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == ';' })
	for i, f := range fields {
		out = append(out, f)
		if _, val, ok := strings.Cut(f, "="); ok {
			out = append(out, val)
		}
		if i > 0 && strings.EqualFold(fields[i-1], "basic") {
			if dec, err := base64.StdEncoding.DecodeString(f); err == nil {
				out = append(out, string(dec))
				if _, pass, ok := strings.Cut(string(dec), ":"); ok {
					out = append(out, pass)
				}
			}
		}
	}
	return out
}

// encodings are the forms a secret may take in an echoed text: as it is,
// escaped in a URL or a JSON string, in base64.
func encodings(s string) []string {
	if len(s) < minSecret {
		return nil
	}
	out := []string{s, url.QueryEscape(s), url.PathEscape(s),
		base64.StdEncoding.EncodeToString([]byte(s)), base64.RawStdEncoding.EncodeToString([]byte(s)),
		base64.URLEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s))}
	if b, err := json.Marshal(s); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		j := strings.TrimSpace(sb.String())
		out = append(out, j[1:len(j)-1])
	}
	return out
}

// Redact returns s with every credential of the Guard, and every start of
// one (of minSecretPrefix bytes or more) that a cut left, replaced by
// "[redacted]".
func (g *Guard) Redact(s string) string {
	for _, sec := range g.secrets {
		s = redactSecret(s, sec)
	}
	return s
}

func redactSecret(text, sec string) string {
	if len(sec) < minSecretPrefix {
		return strings.ReplaceAll(text, sec, redactedMark)
	}
	head := sec[:minSecretPrefix]
	if !strings.Contains(text, head) {
		return text
	}
	var sb strings.Builder
	for {
		j := strings.Index(text, head)
		if j < 0 {
			break
		}
		n := minSecretPrefix
		for n < len(sec) && j+n < len(text) && text[j+n] == sec[n] {
			n++
		}
		sb.WriteString(text[:j])
		sb.WriteString(redactedMark)
		text = text[j+n:]
	}
	sb.WriteString(text)
	return sb.String()
}

// Error returns err as the *llm.Error an adapter may return: the *llm.Error
// in its chain (or err classified, see llm.Classify) with its Message and Reason
// redacted and bounded (MaxErrorText), and its Err replaced by a copy of
// that error's text, redacted and bounded, which errors.Is still sees
// through (context.DeadlineExceeded...) but errors.As does not: the
// vendor's error types hold the response whole, credentials included.
// Error(nil) is nil.
func (g *Guard) Error(err error) error {
	if err == nil {
		return nil
	}
	e := llm.Classify(err)
	out := *e
	out.Message = bound(g.Redact(e.Message), MaxErrorText)
	out.Reason = bound(g.Redact(e.Reason), maxReasonText)
	if e.Err != nil {
		out.Err = &redactedError{text: bound(g.Redact(e.Err.Error()), MaxErrorText), orig: e.Err}
	}
	return &out
}

// redactedError is the text of an error, redacted; see Guard.Error.
type redactedError struct {
	text string
	orig error
}

func (e *redactedError) Error() string { return e.text }

// GoString keeps %#v from printing the original error.
func (e *redactedError) GoString() string {
	return fmt.Sprintf("&adapter.redactedError{text: %q}", e.text)
}

// Is reports whether the original error is target, for errors.Is.
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }

// bound cuts s to at most limit bytes, on a rune boundary, marking the cut.
func bound(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// stamp returns the Guard's model and provider where it has them, else
// model and provider, redacted.
func (g *Guard) stamp(model, provider string) (string, string) {
	if g.model != "" {
		model = g.model
	}
	if g.provider != "" {
		provider = g.provider
	}
	return g.Redact(model), g.Redact(provider)
}

// Func wraps an adapter's function: every error it returns goes through
// Error, and a reply the Guard refused (too large, redirected to another
// host) fails with the Guard's error whatever the vendor's SDK made of it.
// A reply's texts are redacted too: a server that puts the credentials in
// the reply itself gets them into no trace.
func (g *Guard) Func(f llm.Func) llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		st := &callState{}
		if req.Stream != nil {
			sg := &streamGuard{g: g, next: req.Stream}
			req.Stream = sg.write
		}
		resp, err := f(context.WithValue(ctx, callStateKey{}, st), req)
		if err == nil {
			resp.Content, resp.Model, resp.FinishReason = g.Redact(resp.Content), g.Redact(resp.Model), g.Redact(resp.FinishReason)
			resp.RequestModel, resp.Provider = g.stamp(resp.RequestModel, resp.Provider)
			return resp, nil
		}
		if e := st.get(); e != nil && ctx.Err() == nil {
			err = e
		}
		// A failed call still names its model and provider (see Func).
		out := llm.Response{}
		out.RequestModel, out.Provider = g.stamp("", "")
		return out, g.Error(err)
	}
}

// callState records the Guard's refusal during one call.
type callState struct {
	mu  sync.Mutex
	err *llm.Error
}

type callStateKey struct{}

func (s *callState) set(e *llm.Error) {
	if s == nil {
		return
	}
	// A copy: the error itself goes up through the SDK, and an adapter
	// may rewrite what it finds on the way.
	c := *e
	s.mu.Lock()
	if s.err == nil {
		s.err = &c
	}
	s.mu.Unlock()
}

func (s *callState) get() *llm.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func stateOf(ctx context.Context) *callState {
	s, _ := ctx.Value(callStateKey{}).(*callState)
	return s
}

// Client returns the HTTP client an adapter sends its requests with: a
// copy of hc (a new client when nil; hc itself is left as it is) whose
// transport bounds the replies (MaxResponseBytes for a success, 64 KiB of
// an error's body, the rest dropped) and which follows no redirect to
// another scheme, host or port: a call redirected there fails with
// ReasonRedirectRefused, and the other host gets no request. Redirects on
// the same host go through hc's own CheckRedirect, if any.
func (g *Guard) Client(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &guardTransport{base: base, g: g}
	theirs := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from := via[0].URL; origin(req.URL) != origin(from) {
			e := &llm.Error{Class: llm.ClassClientError, Reason: ReasonRedirectRefused, Message: fmt.Sprintf(
				"%sthe provider redirected the call from %s to %s: not followed, the credentials go to the configured host only",
				g.prefix(), origin(from), origin(req.URL))}
			stateOf(req.Context()).set(e)
			return e
		}
		if theirs != nil {
			return theirs(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return c
}

func (g *Guard) prefix() string {
	if g.name == "" {
		return ""
	}
	return g.name + ": "
}

// origin is a URL's scheme://host:port, the port made explicit.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// guardTransport bounds the bodies of the replies.
type guardTransport struct {
	base http.RoundTripper
	g    *Guard
}

func (t *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	st := stateOf(req.Context())
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// An error's body is only quoted: its start is enough.
		if resp.ContentLength > maxErrorBody {
			resp.ContentLength = -1
		}
		resp.Body = &cutBody{rc: resp.Body, left: maxErrorBody}
		return resp, nil
	}
	if resp.ContentLength > t.g.maxBytes {
		_ = resp.Body.Close()
		e := t.g.tooLarge(fmt.Sprintf("declares %d bytes, more than", resp.ContentLength))
		st.set(e)
		return nil, e
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.g.maxBytes, g: t.g, st: st}
	return resp, nil
}

func (g *Guard) tooLarge(what string) *llm.Error {
	return &llm.Error{Class: llm.ClassClientError, Reason: ReasonResponseTooLarge, Message: fmt.Sprintf(
		"%sthe provider's reply %s %d bytes, the most the adapter reads (its Config.MaxResponseBytes)",
		g.prefix(), what, g.maxBytes)}
}

// CloseIdleConnections forwards to the wrapped transport.
func (t *guardTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// limitedBody reads at most left bytes, and fails past them.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
	g    *Guard
	st   *callState
	err  error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.left <= 0 {
		// The limit is reached: the body may still end here.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n == 0 {
			return 0, err
		}
		e := b.g.tooLarge("is longer than")
		b.st.set(e)
		b.err = e
		return 0, e
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// cutBody ends after left bytes, as if the body ended there.
type cutBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cutBody) Close() error { return b.rc.Close() }
