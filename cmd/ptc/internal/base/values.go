package base

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/syntax"
)

// ValueTooLarge is the error of a value whose printed form exceeds bound.
func ValueTooLarge(bound int) error {
	return &lisp.Error{Kind: lisp.MemoryExceeded, Message: fmt.Sprintf(
		"the value prints to more than %d bytes (the memory limit): print a part of it, or raise --max-memory", bound)}
}

// PrintContext bounds the printing of a program's value by the time the
// program had (Limits.Timeout), so that --timeout holds within twice its
// time for a value whose printed form is huge.
func PrintContext(ctx context.Context, l lisp.Limits) (context.Context, context.CancelFunc) {
	switch {
	case l.Timeout < 0:
		return ctx, func() {}
	case l.Timeout == 0:
		return context.WithTimeout(ctx, l.Effective().Timeout)
	}
	return context.WithTimeout(ctx, l.Timeout)
}

// maxPrintBytes is the size bound of lisp.Print (64 MiB, its doc).
const maxPrintBytes = 64 << 20

// PrintBound is the largest printed value a command prints: the run's
// memory limit, within lisp.Print's bound.
func PrintBound(l lisp.Limits) int {
	l = l.Effective()
	if l.MaxMemory < 0 {
		return maxPrintBytes
	}
	return int(min(l.MaxMemory, maxPrintBytes))
}

// PrintError writes an error of a program's run as the interpreter
// formats it: "line:col: kind: message" and the source line with a caret.
// Every error of ptc eval has this form, "where: kind: message" (where is
// a file for the command's inputs), so that a caller can classify it.
func PrintError(w io.Writer, err error) {
	var le *lisp.Error
	if errors.As(err, &le) {
		fmt.Fprintln(w, le.Detailed())
		return
	}
	fmt.Fprintln(w, err)
}

// KindIOError is the kind of a file that does not read.
const KindIOError = "io_error"

// FileError is a file that does not read, as "where: io_error: why"; it
// wraps err (errors.Is(err, os.ErrNotExist) holds, and errKind finds the
// *os.PathError).
func FileError(where string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &WrapError{Err: pe, Msg: fmt.Sprintf("%s: %s: %s %s: %v", where, KindIOError, pe.Op, pe.Path, pe.Err)}
	}
	return fmt.Errorf("%s: %s: %w", where, KindIOError, err)
}

// WrapError is err told another way: msg.
type WrapError struct {
	Err error
	Msg string
}

func (e *WrapError) Error() string { return e.Msg }

func (e *WrapError) Unwrap() error { return e.Err }

// DataError is data that does not read, with where the problem is; msg
// starts with the kind, parse_error.
type DataError struct {
	Pos syntax.Pos // zero when unknown
	Msg string
}

func (e *DataError) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d (byte %d): %s", e.Pos.Line, e.Pos.Col, e.Pos.Offset, e.Msg)
}

// Read (EDN) reads JSON, or EDN (PTC-Lisp data) when edn is set, as
// agentfile.Read (EDN) does: syntax errors are *DataError values with their
// position, and a message that quotes at most a token of the data, safe
// for a terminal.
func ReadData(b []byte, edn bool) (lisp.Value, error) {
	v, err := agentfile.ReadData(b, edn)
	var de *agentfile.DataError
	if errors.As(err, &de) {
		pos := syntax.Pos{Offset: int32(de.Offset), Line: int32(de.Line), Col: int32(de.Col)}
		return nil, &DataError{Pos: pos, Msg: TermLine(de.Msg)}
	}
	return v, err
}

// OptionalString is a string flag that records whether it was given, so
// that -e "" (the empty program) differs from no -e at all.
type OptionalString struct {
	Value string
	Given bool
}

func (o *OptionalString) String() string { return o.Value }

func (o *OptionalString) Set(s string) error {
	o.Value, o.Given = s, true
	return nil
}

// RepeatedString is a flag that may be given several times: its values
// in order.
type RepeatedString []string

func (r *RepeatedString) String() string { return strings.Join(*r, " ") }

func (r *RepeatedString) Set(s string) error {
	*r = append(*r, s)
	return nil
}

// ReadBoundedFrom reads r (standard input) whole, within kind's bound.
func ReadBoundedFrom(r io.Reader, kind FileKind) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, kind.Limit+1))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: "-", Err: err}
	}
	if int64(len(b)) > kind.Limit {
		return nil, &os.PathError{Op: "read", Path: "-", Err: &TooLargeError{kind}}
	}
	return b, nil
}
