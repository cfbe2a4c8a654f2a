package base

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/internal/hostio"
)

// Every file ptc reads is read through ReadBounded: a file may be named
// by another file from elsewhere (an agent file's context: and mcp:, an
// MCP configuration's agents), and /dev/zero, a FIFO written to without
// end or a file of many gigabytes must end in an error, not fill the
// memory. docs/cli.md lists the bounds.

// FileKind is a kind of file ptc reads, with its bound.
type FileKind struct {
	Name  string // for messages: "an agent file"
	Limit int64  // bytes
}

var (
	KindAgentFile  = FileKind{"an agent file", 1 << 20}
	KindMCPConfig  = FileKind{"an MCP configuration", 1 << 20}
	KindContext    = FileKind{"a context file", 256 << 20}
	KindTranscript = FileKind{"a transcript", 256 << 20}
	KindTraceFile  = FileKind{"a trace file", 256 << 20}
	KindProgram    = FileKind{"a program file", 16 << 20}
	KindVectors    = FileKind{"a file of conformance vectors", 256 << 20}
)

// ErrNotRegular: a device, a socket, a directory: something whose
// reading may never end or mean nothing, and which ptc does not open.
var ErrNotRegular = errors.New("not a regular file or a pipe (ptc reads no devices)")

// ErrTooLarge is the error of a file over its kind's bound.
var ErrTooLarge = errors.New("file too large")

// TooLargeError is a file larger than its kind allows.
type TooLargeError struct{ kind FileKind }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %s, the bound of %s", agentfile.FormatSize(e.kind.Limit), e.kind.Name)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// OpenBounded opens path for reading at most kind.Limit bytes: a regular
// file or a pipe (-c <(jq ...) works), never a device. Reading past the
// bound is an error (*os.PathError around a *TooLargeError). The errors
// are *os.PathError values: errors.Is(err, os.ErrNotExist) holds for a
// missing file.
func OpenBounded(path string, kind FileKind) (io.ReadCloser, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			pe.Op = "open" // as os.Open says it
		}
		return nil, err
	}
	if !readable(st.Mode()) {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// What was opened, not what was looked at (the name may have changed).
	if st, err = f.Stat(); err != nil || !readable(st.Mode()) {
		f.Close()
		if err == nil {
			err = ErrNotRegular
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &boundedReader{f: f, path: path, kind: kind, left: kind.Limit}, nil
}

func readable(m fs.FileMode) bool {
	return m.IsRegular() || m&fs.ModeNamedPipe != 0
}

// ReadBounded reads the file at path whole, within kind's bound.
func ReadBounded(path string, kind FileKind) ([]byte, error) {
	r, err := OpenBounded(path, kind)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// boundedReader reads a file and fails past its kind's bound.
type boundedReader struct {
	f    *os.File
	path string
	kind FileKind
	left int64 // bytes it may still read
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, &os.PathError{Op: "read", Path: b.path, Err: &TooLargeError{b.kind}}
	}
	// Read one byte past the bound to tell a file of exactly the bound
	// from a larger one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), &os.PathError{Op: "read", Path: b.path, Err: &TooLargeError{b.kind}}
	}
	return n, err
}

func (b *boundedReader) Close() error { return b.f.Close() }

// MaxFileMessage bounds the message of an error in a file (its position
// apart): it may quote what a parser quotes.
const MaxFileMessage = 300

// JSONMsg is the message of a JSON decoder's error.
func JSONMsg(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}

// WriteFileAtomic writes data to path atomically (internal/hostio, which
// the workbench shares).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return hostio.WriteFileAtomic(path, data, perm)
}
