package replcmd

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// ekInterrupt is the byte a terminal in raw mode sends for Ctrl-C.
const ctrlCByte = 0x03

// replInput reads a byte stream on a goroutine of its own, so that the
// REPL can watch for Ctrl-C while an evaluation runs, wait a moment for the
// rest of an escape sequence, and keep what the user types ahead.
type replInput struct {
	ch      chan replChunk
	stop    chan struct{}
	pending []byte
	err     error // the reader's error, once pending is drained
}

type replChunk struct {
	b   []byte
	err error
}

func newReplInput(r io.Reader) *replInput {
	ch, stop := make(chan replChunk), make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			var c replChunk
			switch {
			case n > 0:
				c.b = bytes.Clone(buf[:n])
			case err != nil:
				c.err = err
			default:
				continue
			}
			select {
			case ch <- c:
			case <-stop:
				return
			}
			if c.err != nil {
				return
			}
			if err != nil {
				select {
				case ch <- replChunk{err: err}:
				case <-stop:
				}
				return
			}
		}
	}()
	return &replInput{ch: ch, stop: stop}
}

// close lets the reading goroutine end once its read returns.
func (q *replInput) close() { close(q.stop) }

// receive stores one chunk (or the final error) from the reader.
func (q *replInput) receive(c replChunk) {
	if c.err != nil {
		q.err = c.err
		q.ch = nil // a nil channel blocks forever in select
		return
	}
	q.pending = append(q.pending, c.b...)
}

// readByte returns the next byte, waiting for it.
func (q *replInput) readByte() (byte, error) {
	for len(q.pending) == 0 {
		if q.ch == nil {
			return 0, q.err
		}
		q.receive(<-q.ch)
	}
	b := q.pending[0]
	q.pending = q.pending[1:]
	return b, nil
}

// readByteWithin returns the next byte if it comes within d; ok is false
// when it does not (a lone Esc key rather than an escape sequence).
func (q *replInput) readByteWithin(d time.Duration) (b byte, ok bool, err error) {
	if len(q.pending) == 0 && q.ch != nil {
		t := time.NewTimer(d)
		select {
		case c := <-q.ch:
			t.Stop()
			q.receive(c)
		case <-t.C:
			return 0, false, nil
		}
	}
	if len(q.pending) == 0 {
		return 0, false, q.err
	}
	b, err = q.readByte()
	return b, true, err
}

// buffered reports whether input is waiting to be read without blocking:
// the editor redraws only once it has caught up with a paste.
func (q *replInput) buffered() bool {
	if len(q.pending) > 0 {
		return true
	}
	if q.ch == nil {
		return false
	}
	select {
	case c := <-q.ch:
		q.receive(c)
		return len(q.pending) > 0 || q.ch == nil
	default:
		return false
	}
}

// whileRunning calls interrupt when Ctrl-C arrives before done is closed,
// and keeps every other byte typed meanwhile for the editor. Input read
// before the evaluation started is the editor's: a Ctrl-C there clears
// the next input instead.
func (q *replInput) whileRunning(done <-chan struct{}, interrupt func()) {
	for {
		select {
		case <-done:
			return
		case c := <-q.ch:
			if i := bytes.IndexByte(c.b, ctrlCByte); i >= 0 {
				c.b = append(c.b[:i:i], c.b[i+1:]...)
				interrupt()
			}
			q.receive(c)
		}
	}
}

// replCRLFWriter turns "\n" into "\r\n": a terminal in raw mode does not.
type replCRLFWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (c *replCRLFWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.IndexByte(p, '\n') < 0 {
		return c.w.Write(p)
	}
	out := make([]byte, 0, len(p)+8)
	for i, b := range p {
		if b == '\n' && (i == 0 || p[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, b)
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
