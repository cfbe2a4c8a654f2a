package lisp

import (
	"fmt"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// readData is Read with ReadEDN.
func readData(src string) (Value, error) {
	forms, err := syntax.Read(src)
	if err != nil {
		return nil, fromSyntax(err, src)
	}
	if len(forms) != 1 {
		return nil, &Error{Kind: ParseError, Message: fmt.Sprintf("expected one value, found %d forms", len(forms)), src: src}
	}
	v, err := dataValue(forms[0], 0)
	if e, ok := err.(*Error); ok {
		// dataValue knows only the offset: the line and column come from src.
		lines := syntax.LinesOf(src)
		e.src, e.Pos = src, lines.Pos(e.Pos.Offset)
	}
	return v, err
}

func dataValue(n syntax.Node, depth int) (Value, error) {
	if depth > maxDataDepth {
		return nil, &Error{Kind: DepthExceeded, Pos: syntax.Pos{Offset: n.Bounds().Start}, Message: "data nested too deep"}
	}
	items := func(ns []syntax.Node) ([]Value, error) {
		out := make([]Value, len(ns))
		for i, x := range ns {
			v, err := dataValue(x, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	switch n := n.(type) {
	case *syntax.Nil:
		return nil, nil
	case *syntax.Bool:
		return n.Value, nil
	case *syntax.Int:
		return n.Value, nil
	case *syntax.BigInt:
		return n.Value, nil
	case *syntax.Decimal:
		if d, ok := parseDecimal(n.Text); ok {
			return d, nil
		}
		return nil, errorf(InvalidArgument, "invalid number %sM", n.Text)
	case *syntax.Float:
		return n.Value, nil
	case *syntax.String:
		return n.Value, nil
	case *syntax.Keyword:
		return Keyword(n.Name), nil
	case *syntax.Inst: // EDN's built-in tagged elements
		return Instant{T: n.Time}, nil
	case *syntax.UUID:
		return n.Value, nil // a UUID is its text
	case *syntax.Vector:
		xs, err := items(n.Items)
		return NewVector(xs), err
	case *syntax.List:
		xs, err := items(n.Items)
		return NewList(xs), err
	case *syntax.Set:
		xs, err := items(n.Items)
		return NewSet(xs...), err
	case *syntax.Map:
		xs, err := items(n.Items)
		if err != nil {
			return nil, err
		}
		b := emptyMapBuilder()
		for i := 0; i+1 < len(xs); i += 2 {
			b.Set(xs[i], xs[i+1])
		}
		return b.Map(), nil
	}
	return nil, &Error{Kind: ParseError, Pos: syntax.Pos{Offset: n.Bounds().Start}, Message: "not a data literal: " + syntax.Format(n)}
}
