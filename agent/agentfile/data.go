package agentfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
)

// DataError is data that does not read (Read (EDN)), with where the
// problem is.
type DataError struct {
	// Line and Col (1-based, Col in characters) and Offset (in bytes) are
	// where the problem is; Line is 0 when that is not known.
	Line, Col, Offset int
	// Msg says what is wrong, starting with the kind, parse_error; it
	// quotes at most a token of the data (40 characters), on one line.
	Msg string
}

func (e *DataError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d (byte %d): %s", e.Line, e.Col, e.Offset, e.Msg)
}

// Read (EDN) reads a context as agent files give it (and ptc's -c): JSON,
// or EDN (PTC-Lisp data) when edn is set. A syntax error is a *DataError
// with its position, and a message that quotes at most a token of the
// data: the data may be any file an agent file names.
func ReadData(b []byte, edn bool) (lisp.Value, error) {
	if edn {
		v, err := lisp.Read(string(b), lisp.ReadOptions{Format: lisp.ReadEDN})
		if err != nil {
			var le *lisp.Error
			if errors.As(err, &le) && le.Pos.IsValid() {
				msg := le.Message
				if form, ok := strings.CutPrefix(msg, notData); ok {
					msg = notData + textutil.Clip(form, 40) // the reader quotes such a form whole
				}
				return nil, &DataError{Line: int(le.Pos.Line), Col: int(le.Pos.Col), Offset: int(le.Pos.Offset),
					Msg: string(le.Kind) + ": " + escapeControls(textutil.Clip(msg, maxDataMessage))}
			}
			return nil, err
		}
		return v, nil
	}
	v, err := lisp.Read(string(b), lisp.ReadOptions{Format: lisp.ReadJSON})
	if err == nil {
		return v, nil
	}
	// lisp.Read (JSON) streams tokens and does not say where it stopped;
	// encoding/json's validator does.
	var raw json.RawMessage
	var se *json.SyntaxError
	if errors.As(json.Unmarshal(b, &raw), &se) {
		off := int(se.Offset)
		if !strings.HasPrefix(se.Error(), "unexpected end") && off > 0 {
			off-- // the offending byte, not the count read past it
		}
		off = max(0, min(off, len(b)))
		start := bytes.LastIndexByte(b[:off], '\n') + 1
		return nil, &DataError{Line: 1 + bytes.Count(b[:off], []byte("\n")), Col: 1 + utf8.RuneCount(b[start:off]),
			Offset: off, Msg: string(lisp.ParseError) + ": " + se.Error()}
	}
	var le *lisp.Error
	if errors.As(err, &le) {
		return nil, err
	}
	return nil, &DataError{Msg: string(lisp.ParseError) + ": " + escapeControls(textutil.Clip(err.Error(), maxDataMessage))}
}

// maxDataMessage bounds the message of data that does not read: the
// reader's tokens are 40 characters at most; a form it quotes whole
// (notData) is cut to 40 too.
const maxDataMessage = 100

// notData starts lisp.Read (EDN)'s message for a form that is not data.
const notData = "not a data literal: "

// ParseDuration reads a duration as agent files write them (and ptc's
// flags): a Go duration (500ms, 2s, 1m), or a bare number: 0 for the
// default and a negative one for none. A bare positive number has no
// unit, and is an error.
func ParseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > 0 {
			return 0, fmt.Errorf("%s has no unit: write %sms or %ss", s, s, s)
		}
		return time.Duration(n), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("not a duration: write 500ms, 2s or 1m (-1: no limit)")
	}
	return v, nil
}

var sizeUnits = [...]struct {
	suffix string
	scale  int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// FormatSize writes a byte count the way ParseSize reads it, in the largest
// binary unit that divides it: 1048576 is "1 MiB", 1500 "1500 bytes".
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ParseSize reads a size as agent files write them (and ptc's flags): a
// byte count with an optional unit, KB, MB, GB (powers of 1000) or KiB,
// MiB, GiB (powers of 1024), as 1048576, 64MiB, 64MB or 1.5GiB; a
// negative number (-1) for no limit.
func ParseSize(s string) (int64, error) {
	text := strings.ToLower(strings.TrimSpace(s))
	scale := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(text, u.suffix) {
			text, scale = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.scale
			break
		}
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		if n < 0 {
			return -1, nil
		}
		if n > math.MaxInt64/scale {
			return 0, fmt.Errorf("%s is too large", s)
		}
		return n * scale, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("not a size: write 64MiB, 500KB or a number of bytes (-1: no limit)")
	}
	if f*float64(scale) >= math.MaxInt64 {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return int64(f * float64(scale)), nil
}
