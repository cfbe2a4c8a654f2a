package lisp

import (
	"context"
	"sync"
)

// The bounds of the zero Cache.
const (
	defaultCachePrograms = 256
	defaultCacheBytes    = 32 << 20
	// compiledBytesPerSourceByte estimates what a compiled program holds
	// per byte of its text: 6 for W6, up to 38 for the densest texts
	// measured (a run of (if a b c) forms).
	compiledBytesPerSourceByte = 40
)

// Cache keeps compiled programs by their source text, so that a text seen
// before is not read, analyzed and compiled again: the programs an agent's
// turns repeat across missions, a compiled agent's program, retries and
// replays. It forgets the least recently used program first, within its
// bounds: MaxPrograms programs, and MaxBytes of their estimated memory, 40
// bytes per byte of text plus their literal data (a program over a quarter
// of MaxBytes is compiled and not kept). The zero Cache is ready to use,
// with the default bounds; set them before its first use, and do not copy
// a Cache after it. A Cache is safe for concurrent use, and
// goroutines that ask for the same new text at once wait for one
// compilation. Errors are not kept: a text that does not compile is read
// again the next time. A miss reuses the memory that reading and
// analyzing earlier misses took (nothing of it stays in a compiled
// program): a Cache keeps up to two such workspaces, each of at most
// 1 MiB. A nil *Cache compiles every time.
type Cache struct {
	// MaxPrograms is the most programs the cache keeps; 0 means 256.
	MaxPrograms int
	// MaxBytes bounds the estimated memory of the kept programs; 0 means
	// 32 MiB.
	MaxBytes int64

	mu sync.Mutex
	// entries are the texts compiled or being compiled: an entry is kept
	// (on the ring lru) once its compilation succeeded, and dropped if it
	// failed or its program is too big to keep.
	entries map[string]*cacheEntry
	lru     cacheEntry // the kept entries' ring: lru.next is the most recently used
	kept    int
	bytes   int64
	stats   CacheStats
	// spare are the workspaces of finished compilations, for the next
	// misses: at most maxSpareWorkspaces, each holding at most about
	// 1 MiB (see syntax.MaxBuffered and analyze.MaxBuffered).
	spare []*workspace
}

// maxSpareWorkspaces bounds the workspaces a Cache keeps: concurrent
// misses beyond it make their own, dropped after their compilation.
const maxSpareWorkspaces = 2

// CacheStats counts what a Cache did.
type CacheStats struct {
	// Hits are the compilations the cache answered, those waited for
	// while another goroutine compiled the same text included; Misses the
	// texts it compiled.
	Hits, Misses int64
	// Evictions counts the programs dropped to stay within the bounds.
	Evictions int64
	// Programs and Bytes are what it keeps now.
	Programs int
	Bytes    int64
}

// HitRate is Hits / (Hits + Misses), 0 before the first compilation.
func (s CacheStats) HitRate() float64 {
	if n := s.Hits + s.Misses; n > 0 {
		return float64(s.Hits) / float64(n)
	}
	return 0
}

// cacheEntry is a text's compilation: in progress, which other
// goroutines asking for the same text wait for, then kept. Its fields
// are guarded by the Cache's mu, and p and err are set before done is
// closed.
type cacheEntry struct {
	src      string
	p        *Program
	err      error
	finished bool
	// done is made by the first goroutine that waits (most compilations
	// have none) and closed when the compilation finishes.
	done       chan struct{}
	prev, next *cacheEntry // on the ring of kept entries
}

// bounds returns the cache's bounds, defaults in place of zeros.
func (c *Cache) bounds() (programs int, bytes int64) {
	programs, bytes = c.MaxPrograms, c.MaxBytes
	if programs <= 0 {
		programs = defaultCachePrograms
	}
	if bytes <= 0 {
		bytes = defaultCacheBytes
	}
	return programs, bytes
}

// Compile returns the program of src, compiled now or earlier (cached
// reports which), with Compile's errors. The program is shared: it may be
// run by many goroutines at once (see Program). ctx bounds the wait for
// another goroutine's compilation of the same text and the macros of a
// compilation: when it ends, or its deadline passes, while the program's
// macros expand, the error is a Cancelled or Timeout *Error.
func (c *Cache) Compile(ctx context.Context, src string) (p *Program, cached bool, err error) {
	if ctx == nil {
		ctx = context.Background() // as Run treats it
	}
	cb := callerBound{ctx: ctx}
	if d, ok := ctx.Deadline(); ok {
		cb.deadline = d
	}
	if c == nil {
		p, err = compile(&cb, src, nil, nil, nil)
		return p, false, err
	}
	c.mu.Lock()
	if c.entries == nil { // the first use
		c.entries = map[string]*cacheEntry{}
		c.lru.prev, c.lru.next = &c.lru, &c.lru
	}
	if e, ok := c.entries[src]; ok {
		if e.finished {
			c.unlink(e)
			c.pushFront(e)
			c.stats.Hits++
			c.mu.Unlock()
			return e.p, true, nil
		}
		if e.done == nil {
			e.done = make(chan struct{})
		}
		done := e.done
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, false, callerError(ctx.Err())
		}
		c.mu.Lock()
		if e.err == nil {
			c.stats.Hits++
		} else {
			c.stats.Misses++
		}
		c.mu.Unlock()
		return e.p, e.err == nil, e.err
	}
	e := &cacheEntry{src: src}
	c.entries[src] = e
	c.stats.Misses++
	var ws *workspace
	if n := len(c.spare); n > 0 {
		ws = c.spare[n-1]
		c.spare[n-1] = nil
		c.spare = c.spare[:n-1]
	} else {
		ws = new(workspace)
	}
	c.mu.Unlock()

	// Compile does not panic on any input (fuzzed), but the waiters must
	// be released whatever happens.
	var prog *Program
	var cerr error
	defer func() {
		c.mu.Lock()
		e.p, e.err, e.finished = prog, cerr, true
		if cerr != nil || prog == nil || !c.keep(e) {
			delete(c.entries, src)
		}
		if len(c.spare) < maxSpareWorkspaces {
			c.spare = append(c.spare, ws)
		}
		if e.done != nil {
			close(e.done)
		}
		c.mu.Unlock()
	}()
	prog, cerr = compile(&cb, src, nil, ws, nil)
	return prog, false, cerr
}

// keep puts e, just compiled, at the front of the kept entries, evicting
// the least recently used ones to make room; it reports false, keeping
// nothing, for a program too big to keep. c.mu is held.
func (c *Cache) keep(e *cacheEntry) bool {
	weight := cacheWeight(e.p)
	maxPrograms, maxBytes := c.bounds()
	if weight > maxBytes/4 {
		return false
	}
	for c.kept > 0 && (c.kept >= maxPrograms || c.bytes+weight > maxBytes) {
		old := c.lru.prev
		c.unlink(old)
		delete(c.entries, old.src)
		c.bytes -= cacheWeight(old.p)
		c.stats.Evictions++
	}
	c.pushFront(e)
	c.bytes += weight
	return true
}

// pushFront puts e on the ring as the most recently used; unlink takes it
// off. c.mu is held.
func (c *Cache) pushFront(e *cacheEntry) {
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
	c.kept++
}

func (c *Cache) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	c.kept--
}

// cacheWeight estimates the memory p holds: its compiled form from its
// text's length, and its literal data as a run's memory budget weighs it.
func cacheWeight(p *Program) int64 {
	return int64(len(p.src))*compiledBytesPerSourceByte + p.size
}

// Stats returns the cache's counts so far (zero for a nil Cache).
func (c *Cache) Stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Programs = c.kept
	s.Bytes = c.bytes
	return s
}
