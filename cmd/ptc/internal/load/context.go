package load

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/lisp"
)

// ReadContext reads a context file: .edn as PTC-Lisp data, else JSON. A
// file that does not read (cut in the middle, a stray comma) is reported
// with the position of the problem: line:column and the byte offset, and
// what is wrong there, quoting at most a token of the file (never its
// line: an agent file from elsewhere may name /proc/self/environ).
func ReadContext(path string) (*lisp.Map, error) {
	if path == "" {
		return lisp.NewMap(), nil
	}
	b, err := base.ReadBounded(path, base.KindContext)
	if err != nil {
		return nil, base.FileError("context "+path, err)
	}
	v, err := base.ReadData(b, strings.EqualFold(filepath.Ext(path), ".edn"))
	if err != nil {
		var de *base.DataError
		if errors.As(err, &de) && de.Pos.IsValid() {
			return nil, &base.WrapError{Err: de, Msg: fmt.Sprintf("context %s:%d:%d (byte %d): %s", path,
				de.Pos.Line, de.Pos.Col, de.Pos.Offset, de.Msg)}
		}
		return nil, fmt.Errorf("context %s: %w", path, err)
	}
	m, ok := v.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("context %s: %s: must be a map (a JSON object), got %s", path, lisp.TypeError, lisp.TypeName(v))
	}
	return m, nil
}
