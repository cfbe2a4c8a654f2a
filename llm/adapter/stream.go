package adapter

import (
	"io"
	"net/http"
	"strings"

	"github.com/ptc-go/ptc/llm"
)

// FinishStoppedEarly is the llm.Response.FinishReason of a streamed reply
// whose llm.Request.Stream asked to stop: the reply is what the model wrote
// until then, and its Tokens the provider's when it had counted them, else
// EstimateTokens'.
const FinishStoppedEarly = "stopped_early"

// EstimateTokens estimates the tokens of a request and of a reply from
// their text (4 bytes a token), for a streamed reply stopped before its
// provider counted them (FinishStoppedEarly).
func EstimateTokens(req llm.Request, reply string) llm.Tokens {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return llm.Tokens{Input: (n + 3) / 4, Output: (len(reply) + 3) / 4}
}

// streamGuard passes a streamed reply's pieces on to the request's Stream
// with the Guard's credentials redacted, holding back the end of the text
// that could be the start of one (a credential cut between two pieces is
// redacted whole, never shown in part), and stops passing them on past
// the Guard's MaxResponseBytes.
type streamGuard struct {
	g    *Guard
	next func(string) bool
	text strings.Builder
	sent int // the bytes of text passed on, redacted
}

func (s *streamGuard) write(piece string) bool {
	s.text.WriteString(piece)
	if int64(s.text.Len()) > s.g.maxBytes {
		return true // the transport's bound ends the reply
	}
	full := s.text.String()
	cut := s.safeCut(full)
	if cut <= s.sent {
		return true
	}
	out := s.g.Redact(full[s.sent:cut])
	s.sent = cut
	if out == "" {
		return true
	}
	return s.next(out)
}

// safeCut is the end of the text that can be passed on: before any
// credential's start that the text ends in (or that reaches its end).
func (s *streamGuard) safeCut(full string) int {
	cut := len(full)
	for _, sec := range s.g.secrets {
		from := max(s.sent, len(full)-len(sec)+1)
		for j := from; j < cut; j++ {
			if full[j] == sec[0] && strings.HasPrefix(sec, full[j:]) {
				cut = j
				break
			}
		}
	}
	return cut
}

// WholeReply catches the reply of a server that answers a streaming
// request with one whole body rather than server-sent events: Middleware
// (for an SDK's option.WithMiddleware) reads that body into Body and
// leaves the stream empty, and the adapter reads Body as it reads a reply
// to a request that did not stream. Body stays nil when the reply streams
// (or fails).
type WholeReply struct {
	Body []byte
}

// Middleware is the request middleware that fills w.
func (w *WholeReply) Middleware(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(r)
	if err != nil || res.StatusCode/100 != 2 || strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	if body == nil {
		body = []byte{}
	}
	w.Body = body
	res.Body = io.NopCloser(strings.NewReader(""))
	return res, nil
}
