package agentfile

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// TestFileErrorsBounded: an agent file's value is quoted to its 40th
// character, and a message, whatever a parser quotes, to 300 characters on
// one line.
func TestFileErrorsBounded(t *testing.T) {
	long := strings.Repeat("x", 100)
	_, err := Parse("agent.md", []byte("---\nmax-turns: "+long+"\n---\nP"))
	if want := `agent.md:2:12: max-turns: want a whole number, 1 or more, got "` + long[:40] + `…"`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	af, err := Parse("agent.md", []byte("---\nsignature: (x :"+strings.Repeat("y", 1000)+") -> :int\n---\nP"))
	if err == nil {
		_, err = af.NewAgent(af.Config)
	}
	if msg, ok := strings.CutPrefix(fmt.Sprint(err), "agent.md:2:"); !ok || utf8.RuneCountInString(msg) > 300+5 {
		t.Errorf("error %v: longer than 300 characters", err)
	}
	e := &Error{File: "a.md", Pos: Pos{1, 2}, Msg: "x\n\x1b[2Jy"}
	if got, want := e.Error(), `a.md:1:2: x\u000a\u001b[2Jy`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestLoadBounded: Load reads at most MaxSize bytes of an agent file, and
// MaxContextSize of a context file; it reads no directory or device.
func TestLoadBounded(t *testing.T) {
	fsys := fstest.MapFS{
		"big.md":      {Data: []byte("P" + strings.Repeat(" ", MaxSize))},
		"exact.md":    {Data: []byte("P" + strings.Repeat(" ", MaxSize-1))},
		"dir/x.md":    {Data: []byte("P")},
		"dev.md":      {Data: []byte("P"), Mode: fs.ModeDevice},
		"ctxdir.md":   {Data: []byte("---\ncontext: dir\n---\nP")},
		"missing.md":  {Data: []byte("---\ncontext: none.json\n---\nP")},
		"sub/a.md":    {Data: []byte("---\ncontext: ../data.edn\n---\nP")},
		"data.edn":    {Data: []byte("{:a 1}")},
		"sub/abs.md":  {Data: []byte("---\ncontext: /data.edn\n---\nP")},
		"notamap.md":  {Data: []byte("---\ncontext: list.json\n---\nP")},
		"list.json":   {Data: []byte("[1]")},
		"ednctx.md":   {Data: []byte("---\ncontext: bad.edn\n---\nP")},
		"bad.edn":     {Data: []byte("{:a (+ 1 2)}")},
		"agent-ok.md": {Data: []byte("---\nmax-turns: 2\n---\nP")},
	}
	tests := []struct {
		file    string
		loadErr string // the start of Load's error
		ctxErr  string // the start of Context's error
		ctx     int    // the context's size when it loads
	}{
		{file: "big.md", loadErr: "big.md: read big.md: larger than 1 MiB, the bound of an agent file"},
		{file: "exact.md"},
		{file: "dir", loadErr: "dir: open dir: not a regular file or a pipe"},
		{file: "dev.md", loadErr: "dev.md: open dev.md: not a regular file or a pipe"},
		{file: "nope.md", loadErr: "nope.md: open nope.md: file does not exist"},
		{file: "ctxdir.md", ctxErr: "ctxdir.md:2:10: context: open dir: not a regular file or a pipe"},
		{file: "missing.md", ctxErr: "missing.md:2:10: context: no file none.json"},
		{file: "sub/a.md", ctx: 1},
		{file: "sub/abs.md", ctxErr: "sub/abs.md:2:10: context: no file /data.edn"},
		{file: "notamap.md", ctxErr: "notamap.md:2:10: context: must be a map, got vector"},
		{file: "ednctx.md", ctxErr: "ednctx.md:2:10: context: bad.edn:1:6 (byte 5): parse_error: not a data literal: +"},
		{file: "agent-ok.md"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := Load(fsys, tt.file)
			if tt.loadErr != "" {
				var fe *Error
				if err == nil || !strings.HasPrefix(err.Error(), tt.loadErr) || !errors.As(err, &fe) {
					t.Fatalf("Load error %v, want %q", err, tt.loadErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx, err := f.Context()
			if tt.ctxErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.ctxErr) {
					t.Fatalf("Context error %v, want %q", err, tt.ctxErr)
				}
				return
			}
			if err != nil || ctx.Len() != tt.ctx {
				t.Fatalf("Context: %v, %d entries", err, ctx.Len())
			}
		})
	}
	if _, err := Parse("big.md", fsys["big.md"].Data); err == nil || err.Error() != "big.md: larger than 1 MiB, the bound of an agent file" {
		t.Errorf("Parse of a file over MaxSize: %v", err)
	}
}

// TestParseReadsNoFile: a File from Parse gives an inline context, and
// names a context file without reading it.
func TestParseReadsNoFile(t *testing.T) {
	f, err := Parse("a.md", []byte("---\ncontext: /etc/passwd\nmcp: tools.json\n---\nP"))
	if err != nil {
		t.Fatal(err)
	}
	if f.ContextFile() != "/etc/passwd" || f.MCPFile() != "tools.json" || f.Pos("mcp") != (Pos{3, 6}) {
		t.Errorf("ContextFile %q, MCPFile %q at %v", f.ContextFile(), f.MCPFile(), f.Pos("mcp"))
	}
	if _, err := f.Context(); err == nil || !strings.Contains(err.Error(), "a File from Parse reads none") {
		t.Errorf("Context: %v", err)
	}
}
