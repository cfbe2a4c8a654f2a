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

// analysisHint is the analyzer's Config.Hint: the hint of a Clojure name
// PTC-Lisp does not have, or, for a method it does not know, the closest
// one it does (.getHours: did you mean .getHour?), since the model most
// likely misremembered a name.
func analysisHint(name string) string {
	if h := unsupportedHint(name); h != "" {
		return h
	}
	if len(name) < 3 || name[0] != '.' || name[1] == '-' {
		return ""
	}
	var methods []string
	for n := range builtins {
		if len(n) > 1 && n[0] == '.' {
			methods = append(methods, n)
		}
	}
	// Closer than for names: method names are short and many, and a far
	// suggestion (.lines: .minus?) misleads.
	if s := closest(name, methods); s != "" && textutil.EditDistance(name, s, 3) <= (len(name)-1)/3 {
		return "Java interop (" + name + ") is not supported: PTC-Lisp has no host objects; did you mean " + s + "? Otherwise use the builtin functions"
	}
	return ""
}
