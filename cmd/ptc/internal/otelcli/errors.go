//go:build !ptc_nootel

package otelcli

import (
	"errors"
	"net/url"
	"strings"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/llm/adapter"
	"github.com/ptc-go/ptc/llm/provider"
)

// An OTLP collector is a peer that gets the exporters' requests and their
// headers (OTEL_EXPORTER_OTLP_HEADERS, often an API key), and whose
// answers are not trusted: the exporters put the body of an error answer
// (up to 4 MiB) in their errors, and a collector or a gateway in front of
// it may echo the request's headers there. ptc says an export failed,
// with the collector's words, but never a credential, and in a few
// hundred characters.

// MaxErrorChars bounds each error of an export that ptc prints (a
// collector's answer is in it), MaxErrors how many a message holds.
const (
	MaxErrorChars = 300
	MaxErrors     = 4
)

// otelHeaderVars are the variables whose headers the exporters send,
// otelEndpointVars those of the URLs they post to (whose user
// information and query may hold a key).
var (
	otelHeaderVars = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"}
	otelEndpointVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"}
)

// Redactor hides credentials from the exporters' errors: every header
// value of the OTEL_EXPORTER_OTLP_*HEADERS variables (the whole value and,
// for Authorization-like values, the key after Bearer, Basic's
// user:password), the user information and query values of the OTLP
// endpoints, and the API keys of the environment (the providers' key
// variables, $PTC_MCP_TOKEN); each also URL- or JSON-escaped and in
// base64, and any start of 8 bytes or more of one, as adapter.Guard redacts a
// provider's errors.
type Redactor struct {
	guards []*adapter.Guard
}

// NewRedactor reads the secrets from the variables that getenv and
// each of more give (the exporters read the process's environment, which
// a command's getenv may not be).
func NewRedactor(getenv func(string) string, more ...func(string) string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	add := func(v string) {
		if v = strings.TrimSpace(v); v == "" || seen[v] {
			return
		}
		seen[v] = true
		// As a key, and as an Authorization header's value: its parts
		// (the key after Bearer, Basic's user:password) are secrets too.
		r.guards = append(r.guards, adapter.NewGuard(adapter.GuardConfig{APIKey: v, Headers: map[string]string{"Authorization": v}}))
	}
	var keyVars []string
	for _, p := range provider.Providers() {
		keyVars = append(keyVars, p.KeyEnv...)
	}
	keyVars = append(keyVars, load.MCPTokenEnv)
	for _, get := range append([]func(string) string{getenv}, more...) {
		for _, name := range otelHeaderVars {
			for _, kv := range strings.Split(get(name), ",") {
				_, v, ok := strings.Cut(kv, "=")
				if !ok {
					continue
				}
				add(v)
				if dec, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
					add(dec)
				}
			}
		}
		for _, name := range otelEndpointVars {
			u, err := url.Parse(strings.TrimSpace(get(name)))
			if err != nil {
				continue
			}
			if u.User != nil {
				add(u.User.Username())
				p, _ := u.User.Password()
				add(p)
				add(u.User.String())
			}
			for _, vs := range u.Query() {
				for _, v := range vs {
					add(v)
				}
			}
		}
		for _, name := range keyVars {
			add(get(name))
		}
	}
	return r
}

// Redact hides the secrets from s.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, g := range r.guards {
		s = g.Redact(s)
	}
	return s
}

// Message is what ptc prints of an exporter's error, on one line: each
// of the errors it joins (a signal's, a retry's...) redacted and cut to
// MaxErrorChars characters, at most MaxErrors of them, joined
// with "; ".
func (r *Redactor) Message(err error) string {
	var lines []string
	var walk func(err error, depth int)
	walk = func(err error, depth int) {
		if err == nil || len(lines) > MaxErrors {
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok && depth < 8 {
			for _, e := range j.Unwrap() {
				walk(e, depth+1)
			}
			return
		}
		// Redacted before it is cut: a cut must not leave a key's start
		// that the redaction would no longer know.
		text := strings.Join(strings.Fields(r.Redact(err.Error())), " ")
		lines = append(lines, base.TermLine(base.ClipText(text, MaxErrorChars)))
	}
	walk(err, 0)
	if len(lines) > MaxErrors {
		lines = append(lines[:MaxErrors], "(more errors left out)")
	}
	return strings.Join(lines, "; ")
}

// Wrap is err as ptc reports it (nil for nil): its message, redacted and
// bounded; it wraps nothing (the exporters' errors hold the collector's
// answer whole).
func (r *Redactor) Wrap(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(r.Message(err))
}
