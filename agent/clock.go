package agent

import (
	"time"

	"github.com/ptc-go/ptc/internal/engine"
)

// clock is what a mission reads the time from for what it records (its
// Step's durations, its turns', its tool calls', its events', a Budget's
// elapsed time): Hooks.Now, which the missions below it inherit, or the
// real clock when nil. Limits and deadlines never read it.
type clock func() time.Time

// clockOf is the clock of a mission run with hooks h under up, the tree of
// its caller (nil: a root): its own Hooks.Now, else its caller's clock.
func clockOf(h *engine.Hooks, up *tree) clock {
	if h != nil && h.Now != nil {
		return h.Now
	}
	if up != nil {
		return up.clock
	}
	return nil
}

// now reads the clock; a panic of the engine's clock reads the real one.
func (c clock) now() (t time.Time) {
	if c == nil {
		return time.Now()
	}
	defer func() {
		if recover() != nil {
			t = time.Now()
		}
	}()
	return c()
}

// since is the time from start to now, never negative: an engine's clock
// may stand still, jump, or go back.
func (c clock) since(start time.Time) time.Duration {
	return max(c.now().Sub(start), 0)
}

// now is the mission's time, for what it records.
func (m *mission) now() time.Time { return m.clock.now() }

// since is the time since start by the mission's clock, never negative.
func (m *mission) since(start time.Time) time.Duration { return m.clock.since(start) }
