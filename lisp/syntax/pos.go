package syntax

import "strconv"

// MaxSource is the largest source text Read accepts: positions are 32-bit,
// which keeps every node small.
const MaxSource = 1 << 30

// Pos is a location in source text. Line and Col are 1-based; Col counts
// Unicode code points (an invalid UTF-8 byte counts as one); Offset is the
// 0-based byte offset.
type Pos struct {
	Offset, Line, Col int32
}

// String returns "line:col", e.g. "3:14".
func (p Pos) String() string {
	return strconv.Itoa(int(p.Line)) + ":" + strconv.Itoa(int(p.Col))
}

// IsValid reports whether p is a real position (the zero Pos is not).
func (p Pos) IsValid() bool { return p.Line > 0 }

// Span is the extent of a form: Stop is just past its last character.
type Span struct {
	Start, Stop Pos
}

// Pos returns where the form starts.
func (s Span) Pos() Pos { return s.Start }

// End returns the position just past the form's last character.
func (s Span) End() Pos { return s.Stop }
