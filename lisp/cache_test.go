package lisp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

func TestCacheHitsAndMisses(t *testing.T) {
	c := new(lisp.Cache)
	p1, cached, err := c.Compile(context.Background(), "(+ 1 2)")
	if err != nil || cached {
		t.Fatalf("first compile: cached %v, err %v", cached, err)
	}
	p2, cached, err := c.Compile(context.Background(), "(+ 1 2)")
	if err != nil || !cached || p2 != p1 {
		t.Fatalf("second compile: cached %v, same program %v, err %v", cached, p2 == p1, err)
	}
	// A text that differs in a byte is another program.
	if _, cached, _ := c.Compile(context.Background(), "(+ 1 2) "); cached {
		t.Fatal("a different text was a hit")
	}
	s := c.Stats()
	if s.Hits != 1 || s.Misses != 2 || s.Programs != 2 || s.Evictions != 0 {
		t.Fatalf("stats %+v", s)
	}
	if got := s.HitRate(); got != 1.0/3 {
		t.Fatalf("hit rate %v", got)
	}
	if s.Bytes <= 0 {
		t.Fatalf("bytes %d", s.Bytes)
	}
}

func TestCacheKeepsNoErrors(t *testing.T) {
	c := new(lisp.Cache)
	for i := 0; i < 2; i++ {
		p, cached, err := c.Compile(context.Background(), "(+ 1")
		if err == nil || p != nil || cached {
			t.Fatalf("try %d: program %v, cached %v, err %v", i, p, cached, err)
		}
		var le *lisp.Error
		if !errors.As(err, &le) || le.Kind != lisp.ParseError {
			t.Fatalf("err %v", err)
		}
	}
	if s := c.Stats(); s.Misses != 2 || s.Programs != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := &lisp.Cache{MaxPrograms: 3}
	src := func(i int) string { return fmt.Sprintf("(+ %d 1)", i) }
	for i := 0; i < 3; i++ {
		c.Compile(context.Background(), src(i))
	}
	c.Compile(context.Background(), src(0)) // 0 is now the most recently used: 1 goes first
	c.Compile(context.Background(), src(3))
	if _, cached, _ := c.Compile(context.Background(), src(0)); !cached {
		t.Fatal("the recently used program was evicted")
	}
	if _, cached, _ := c.Compile(context.Background(), src(1)); cached {
		t.Fatal("the least recently used program was kept")
	}
	s := c.Stats()
	if s.Programs != 3 || s.Evictions != 2 { // 1 for src(3), 2 for src(1) again
		t.Fatalf("stats %+v", s)
	}
}

func TestCacheBoundsBytes(t *testing.T) {
	const maxBytes = 2 << 20
	c := &lisp.Cache{MaxBytes: maxBytes}
	// Each program weighs about 41 times its text: 168 KB.
	for i := 0; i < 100; i++ {
		src := fmt.Sprintf("(count %q)", strings.Repeat("x", 4<<10)+fmt.Sprint(i))
		if _, _, err := c.Compile(context.Background(), src); err != nil {
			t.Fatal(err)
		}
		if s := c.Stats(); s.Bytes > maxBytes {
			t.Fatalf("after %d programs the cache holds %d bytes, over %d", i+1, s.Bytes, maxBytes)
		}
	}
	if s := c.Stats(); s.Programs == 0 || s.Programs >= 16 || s.Evictions == 0 {
		t.Fatalf("stats %+v", s)
	}
	// A program heavier than a quarter of the bound is compiled, not kept.
	big := fmt.Sprintf("(count %q)", strings.Repeat("y", 20<<10))
	for i := 0; i < 2; i++ {
		if _, cached, err := c.Compile(context.Background(), big); err != nil || cached {
			t.Fatalf("big program: cached %v, err %v", cached, err)
		}
	}
	// By default, a program of over about 200 KB of text is not kept.
	c = new(lisp.Cache)
	for _, tt := range []struct {
		kb   int
		kept bool
	}{{190, true}, {220, false}} {
		src := fmt.Sprintf("(count %q)", strings.Repeat("z", tt.kb<<10))
		c.Compile(context.Background(), src)
		if _, cached, _ := c.Compile(context.Background(), src); cached != tt.kept {
			t.Errorf("a %d KB program: kept %v, want %v", tt.kb, cached, tt.kept)
		}
	}
}

func TestCacheConcurrentCompilesOnce(t *testing.T) {
	c := new(lisp.Cache)
	src := "(reduce + (range 100))"
	const n = 32
	progs := make([]*lisp.Program, n)
	var wg sync.WaitGroup
	for i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _, err := c.Compile(context.Background(), src)
			if err != nil {
				t.Error(err)
			}
			progs[i] = p
			res, err := p.Run(context.Background(), lisp.Options{})
			if err != nil || res.Value != int64(4950) {
				t.Errorf("run: %v %v", res.Value, err)
			}
		}()
	}
	wg.Wait()
	for _, p := range progs {
		if p != progs[0] {
			t.Fatal("goroutines got different programs for one text")
		}
	}
	if s := c.Stats(); s.Misses != 1 || s.Hits != n-1 {
		t.Fatalf("stats %+v: want one compilation", s)
	}
}

// A cached program runs in a namespace that redefines a builtin as the
// text run there would.
func TestCacheProgramInShadowingNamespace(t *testing.T) {
	c := new(lisp.Cache)
	bg := context.Background()
	src := "(inc 1)"
	p, _, _ := c.Compile(context.Background(), src)
	first, err := p.Run(bg, lisp.Options{})
	if err != nil || first.Value != int64(2) {
		t.Fatalf("plain: %v %v", first.Value, err)
	}
	def, err := lisp.Run(bg, "(defn inc [x] (* x 10))", lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, cached, _ := c.Compile(context.Background(), src)
	if !cached {
		t.Fatal("not cached")
	}
	got, err := p.Run(bg, lisp.Options{Namespace: def.Namespace})
	want, err2 := lisp.Run(bg, src, lisp.Options{Namespace: def.Namespace})
	if err != nil || err2 != nil || got.Value != want.Value || got.Value != int64(10) {
		t.Fatalf("cached %v (%v), Run %v (%v)", got.Value, err, want.Value, err2)
	}
}

func TestNilCacheCompiles(t *testing.T) {
	var c *lisp.Cache
	p, cached, err := c.Compile(context.Background(), "(+ 1 2)")
	if err != nil || cached || p == nil {
		t.Fatalf("%v %v %v", p, cached, err)
	}
	if s := c.Stats(); s != (lisp.CacheStats{}) {
		t.Fatalf("stats %+v", s)
	}
}

// BenchmarkCache compares W6 compiled every time with W6 taken from a
// cache, run in both cases: what a repeated program saves.
func BenchmarkCache(b *testing.B) {
	src, ctxMap := loadWorkload(b, "w6.ptc", false)
	bg := context.Background()
	opts := lisp.Options{Input: ctxMap}
	b.Run("compile", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := lisp.Run(bg, src, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		c := new(lisp.Cache)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			p, _, err := c.Compile(context.Background(), src)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Run(bg, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCacheConcurrentWaiters: goroutines that ask for a text being
// compiled get what that compilation gives: the program, kept once; an
// error, kept never; a program too big to keep, not kept. Large texts keep
// the compilation going while the others arrive.
func TestCacheConcurrentWaiters(t *testing.T) {
	big := fmt.Sprintf("(count %q)", strings.Repeat("z", 100<<10))
	for _, tt := range []struct {
		name     string
		src      string
		wantErr  bool
		wantKept int
	}{
		{"compiles", big, false, 1},
		{"fails", big + " (+ 1", true, 0},
		{"too big to keep", fmt.Sprintf("(count %q)", strings.Repeat("z", 220<<10)), false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := new(lisp.Cache)
			const n = 16
			progs := make([]*lisp.Program, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range progs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					p, cached, err := c.Compile(context.Background(), tt.src)
					if (err != nil) != tt.wantErr || (p == nil) != tt.wantErr || (cached && tt.wantErr) {
						t.Errorf("Compile: program %v, cached %v, error %v", p != nil, cached, err)
						return
					}
					if p != nil {
						if res, err := p.Run(context.Background(), lisp.Options{}); err != nil || res.Value == nil {
							t.Errorf("run: %v %v", res, err)
						}
					}
					progs[i] = p
				}()
			}
			close(start)
			wg.Wait()
			s := c.Stats()
			if s.Programs != tt.wantKept || s.Hits+s.Misses != n {
				t.Fatalf("stats %+v: want %d kept and %d compilations asked for", s, tt.wantKept, n)
			}
			switch {
			case tt.wantErr && s.Hits != 0:
				t.Errorf("stats %+v: a failed compilation counted as a hit", s)
			case tt.wantKept == 1:
				if s.Misses != 1 {
					t.Errorf("stats %+v: want one compilation", s)
				}
				for _, p := range progs {
					if p != progs[0] {
						t.Fatal("goroutines got different programs for one text")
					}
				}
			}
			// Whatever was not kept is compiled again next time.
			if _, cached, _ := c.Compile(context.Background(), tt.src); cached != (tt.wantKept == 1) {
				t.Errorf("the next Compile: cached %v, want %v", cached, tt.wantKept == 1)
			}
		})
	}
}
