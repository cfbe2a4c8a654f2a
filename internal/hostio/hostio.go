// Package hostio holds what the command line (cmd/ptc) and the workbench
// both do with the host's files and contexts: write a file atomically,
// and lay a context over another. It imports only the standard library
// and package lisp.
package hostio

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ptc-go/ptc/lisp"
)

// WriteFileAtomic writes data to the file at path with the permissions
// perm, through a temporary file beside it renamed over it: a failed
// write leaves the old file, or none, never half a file.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// MergeContext returns base with the entries of over set over it. A key
// replaces both its spellings ("name" and :name), which programs do not
// tell apart.
func MergeContext(base, over *lisp.Map) *lisp.Map {
	if over == nil || over.Len() == 0 {
		return base
	}
	for k, v := range over.All() {
		switch k := k.(type) {
		case string:
			base = base.Dissoc(lisp.Keyword(k))
		case lisp.Keyword:
			base = base.Dissoc(string(k))
		}
		base = base.Assoc(k, v)
	}
	return base
}
