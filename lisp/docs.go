package lisp

import (
	_ "embed"
	"sort"
	"strings"
	"sync"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Doc documents a builtin function, constant or special form: the one
// table of the language's documentation, read from builtin_docs.md (its
// format is described at its top).
type Doc struct {
	Name     string
	Usage    []string     // the calling forms: "(map f coll)", "(map f)"
	Text     string       // what it does, a few sentences
	Examples []DocExample // each runs; TestDocs checks its result
	// Aliases are the other builtin names the entry documents, sorted:
	// filterv, Math/abs, the class names under String.
	Aliases []string
	// MinArgs and MaxArgs are the builtin's arities (MaxArgs -1: any
	// number); both are 0 for a constant and a special form.
	MinArgs, MaxArgs int
	// Special: a special form or macro of the analyzer, not a builtin.
	Special bool
}

// DocExample is a program and what running it in a fresh namespace
// gives, as the REPL prints it.
type DocExample struct {
	Program string
	Output  []string // the lines it prints
	Result  string   // its value, printed with the default PrintOptions
}

//go:embed builtin_docs.md
var docsText string

// docTable is parsed once, on first use, and never modified afterwards;
// each entry lists the builtin names documented by it as Aliases.
var docTable = sync.OnceValue(func() map[string]*Doc {
	m := parseDocs(docsText)
	for n := range builtins {
		if m[n] != nil || strings.HasPrefix(n, " ") { // " ": lazy-seq's runtime function
			continue
		}
		if d := lookupDoc(m, n); d != nil {
			d.Aliases = append(d.Aliases, n)
		}
	}
	for _, d := range m {
		sort.Strings(d.Aliases)
	}
	return m
})

// Docs returns the documentation entries, sorted by name: every builtin
// name is the Name or one of the Aliases of one entry; the special forms
// have theirs. LookupDoc finds an entry by any name.
func Docs() []Doc {
	m := docTable()
	out := make([]Doc, 0, len(m))
	for _, d := range m {
		out = append(out, d.withArity())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupDoc returns the documentation of name: a builtin, an alias of one
// (filterv, Math/abs), a name in any namespace the language accepts
// (str/join, clojure.core/map) or a special form.
func LookupDoc(name string) (Doc, bool) {
	if d := lookupDoc(docTable(), name); d != nil {
		return d.withArity(), true
	}
	return Doc{}, false
}

// lookupDoc is LookupDoc in the table m.
func lookupDoc(m map[string]*Doc, name string) *Doc {
	if d := m[name]; d != nil {
		return d
	}
	if i := strings.LastIndexByte(name, '/'); i > 0 && i < len(name)-1 {
		if ns, ok := analyze.CanonicalNamespace(name[:i]); ok {
			canon := name[i+1:]
			if ns != "" {
				canon = ns + "/" + canon
			}
			if canon != name {
				return lookupDoc(m, canon)
			}
		}
	}
	if _, ok := builtins[name].(Class); ok && name != "String" {
		// Every class name is documented by one entry.
		return lookupDoc(m, "String")
	}
	if b, ok := builtins[name].(*Builtin); ok && b.Name != name {
		return m[b.Name]
	}
	return nil
}

// withArity copies d with the arities of the builtin it documents.
func (d *Doc) withArity() Doc {
	out := *d
	out.Usage = append([]string(nil), d.Usage...)
	out.Examples = append([]DocExample(nil), d.Examples...)
	out.Aliases = append([]string(nil), d.Aliases...)
	if b, ok := builtins[d.Name].(*Builtin); ok {
		out.MinArgs, out.MaxArgs = b.MinArgs, b.MaxArgs
	}
	out.Special = analyze.IsSpecialForm(d.Name)
	return out
}

// parseDocs reads entries: "## name", a line of calling forms, the
// description, and examples indented by four spaces, each program
// followed by "; " lines for its output and a ";=> " line for its value.
func parseDocs(text string) map[string]*Doc {
	m := map[string]*Doc{}
	var d *Doc
	var ex *DocExample
	var desc []string
	flush := func() {
		if d != nil {
			d.Text = strings.Join(desc, " ")
			m[d.Name] = d
		}
		d, ex, desc = nil, nil, nil
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \r")
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			d = &Doc{Name: strings.TrimSpace(line[3:])}
		case d == nil:
		case strings.HasPrefix(line, "    "):
			code := line[4:]
			switch {
			case strings.HasPrefix(code, ";=> "):
				if ex != nil {
					ex.Result = code[4:]
					ex = nil
				}
			case strings.HasPrefix(code, "; ") && ex != nil:
				ex.Output = append(ex.Output, code[2:])
			default:
				if ex == nil {
					d.Examples = append(d.Examples, DocExample{})
					ex = &d.Examples[len(d.Examples)-1]
				} else {
					ex.Program += "\n"
				}
				ex.Program += code
			}
		case line == "":
		case d.Usage == nil && strings.HasPrefix(line, "`"):
			d.Usage = strings.Split(strings.Trim(line, "`"), "` `")
		default:
			desc = append(desc, strings.TrimSpace(line))
		}
	}
	flush()
	return m
}
