package agent

import (
	"time"

	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/llm"
)

// An LLM call asks for its reply as it is written (llm.Request.Stream). A
// model that streams then shows observers the reply as it comes (LLMChunk
// events), and stops writing once the reply holds a whole program: what a
// model writes after its program's block is never read, so it is neither
// waited for nor paid for. A model that does not stream ignores the
// request, and its reply comes whole.

// Chunk events are throttled: one when the reply has grown by
// chunkEventBytes since the last, or chunkEventEvery has passed.
const (
	chunkEventBytes = 256
	chunkEventEvery = 100 * time.Millisecond
)

// replyStream is the Stream of one LLM call attempt.
type replyStream struct {
	m       *mission
	id      uint64
	attempt int
	watch   prompt.ProgramWatch
	sent    int       // the reply's length at the last chunk event
	last    time.Time // when that event was
}

// newReplyStream returns the Stream of an LLM call attempt: it ends the
// reply at its program, and reports it to the mission's observers (call
// id and attempt as its llm.start).
func (m *mission) newReplyStream(id uint64, attempt int) *replyStream {
	return &replyStream{m: m, id: id, attempt: attempt}
}

// write takes a piece of the reply; false stops the generation (the reply
// holds a whole program, or the mission is over).
func (s *replyStream) write(piece string) bool {
	m := s.m
	if m.ctx.Err() != nil {
		// The mission ended (its Step may be delivered already): no
		// event, and no more text.
		return false
	}
	// A text-mode or tool-mode reply holds no program: it is read whole.
	closed := s.watch.Write(piece) && !m.a.textMode && !m.a.toolMode
	if m.obs != nil {
		n := len(s.watch.Text())
		now := m.now()
		if n-s.sent >= chunkEventBytes || (n > s.sent && now.Sub(s.last) >= chunkEventEvery) || (closed && n > s.sent) {
			s.sent, s.last = n, now
			// The whole reply so far, scrubbed as one text: a firewalled
			// text cut between pieces is scrubbed as it would be whole.
			m.emit(&Event{Kind: LLMChunk, Time: now, CallID: s.id, Attempt: s.attempt,
				Reply: &llm.Response{Content: veil{m.fw}.Scrub(s.watch.Text())}})
		}
	}
	return !closed
}
