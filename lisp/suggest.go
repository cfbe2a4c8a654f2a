package lisp

import (
	"strings"

	"github.com/ptc-go/ptc/internal/textutil"
)

// unboundMessage explains an unknown name: underscores where Clojure uses
// hyphens, the closest known names, or the PTC-Lisp replacement.
func unboundMessage(name string, ns *Namespace) string {
	if h := unsupportedHint(name); h != "" {
		return h
	}
	msg := "undefined name " + name
	switch name {
	case "ctx", "data", "memory", "tool":
		// Free to def, but most likely the namespace was meant.
		return msg + ": " + name + "/ is a namespace, read one entry with " + name + "/name; or define " + name + " with (def " + name + " ...) first"
	}
	candidates := builtinNames()
	candidates = append(candidates, ns.Names()...)
	if strings.Contains(name, "_") {
		hy := strings.ReplaceAll(name, "_", "-")
		if _, ok := builtins[hy]; ok {
			return msg + ": PTC-Lisp names use hyphens, not underscores (try " + hy + ")"
		}
	}
	if s := closest(name, candidates); s != "" {
		return msg + "; did you mean " + s + "?"
	}
	return msg + ": define it with (def " + name + " ...) first, or read context data with ctx/" + name
}

// closest returns the candidate nearest to name, when one is close enough
// (textutil.Closest).
func closest(name string, candidates []string) string { return textutil.Closest(name, candidates) }
