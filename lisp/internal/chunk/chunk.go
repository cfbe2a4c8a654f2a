// Package chunk recycles the chunks that the reader and the analyzer
// carve their nodes from, for a caller that compiles one program after
// another (lisp.Cache): the pool of one element type, and the bound on
// what pools keep between uses.
package chunk

import "unsafe"

// Pool holds chunks of one element type: free ones, and those handed out
// since the last reset. The zero Pool is empty and ready to use.
type Pool[T any] struct {
	free, used [][]T
	freeBytes  int // of the free chunks
}

// Get returns the smallest free chunk of at least least elements, or
// else a new one of size elements (at least least).
func (p *Pool[T]) Get(least, size int) []T {
	best := -1
	for i, c := range p.free {
		if len(c) >= least && (best < 0 || len(c) < len(p.free[best])) {
			best = i
			if len(c) == least { // none is smaller
				break
			}
		}
	}
	if best < 0 {
		c := make([]T, max(least, size))
		p.used = append(p.used, c)
		return c
	}
	c := p.free[best]
	p.freeBytes -= len(c) * elemSize[T]()
	last := len(p.free) - 1
	p.free[best] = p.free[last]
	p.free[last] = nil
	p.free = p.free[:last]
	p.used = append(p.used, c)
	return c
}

// KeepUsed clears the chunks handed out since the last reset and keeps
// those that fit within limit bytes (the bytes held, counted in *held
// across pools); KeepFree then adds the free chunks that still fit, and
// makes all of them free. Calling KeepUsed on every pool before KeepFree
// on any keeps the chunks of the last use first: they are those the next
// one most likely needs.
func (p *Pool[T]) KeepUsed(held *int, limit int) {
	if len(p.used) == 0 {
		return
	}
	size := elemSize[T]()
	n := 0
	for _, c := range p.used {
		if *held+len(c)*size <= limit {
			*held += len(c) * size
			clear(c)
			p.used[n] = c
			n++
		}
	}
	clear(p.used[n:])
	p.used = p.used[:n]
}

// KeepFree: see KeepUsed.
func (p *Pool[T]) KeepFree(held *int, limit int) {
	if len(p.used) == 0 && *held+p.freeBytes <= limit {
		// Untouched since the last reset (the common case: a small program
		// uses few of the pools), and all of it still fits.
		*held += p.freeBytes
		return
	}
	size := elemSize[T]()
	kept := 0
	for _, c := range p.used {
		kept += len(c) * size
	}
	for _, c := range p.free {
		if *held+len(c)*size <= limit {
			*held += len(c) * size
			kept += len(c) * size
			p.used = append(p.used, c)
		}
	}
	clear(p.free)
	p.free, p.used = p.used, p.free[:0]
	p.freeBytes = kept
}

// elemSize is the size of a T in bytes.
func elemSize[T any]() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

// Held is the bytes of the free chunks: what the pool keeps between uses.
func (p *Pool[T]) Held() int { return p.freeBytes }

// Free returns the free chunks, for tests that check they were cleared.
func (p *Pool[T]) Free() [][]T { return p.free }
