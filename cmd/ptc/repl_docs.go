package main

import (
	_ "embed"
	"sort"
	"strings"
	"sync"
)

// The documentation :doc shows, one entry per name, parsed from
// repl_docs.md (the format is described at its top). repl_docs_test.go
// runs every example and checks its result.

//go:embed repl_docs.md
var replDocsText string

type replDoc struct {
	name     string
	usage    string // `(map f coll)` `(map f)`: the calling forms
	desc     string
	examples []replDocExample
}

type replDocExample struct {
	src    string   // the program
	output []string // the lines it prints ("; " lines)
	want   string   // its value as printed (";=> " line)
}

var replDocsOnce = sync.OnceValue(func() map[string]*replDoc { return parseReplDocs(replDocsText) })

// replDocList returns the entries sorted by name.
func replDocList() []*replDoc {
	m := replDocsOnce()
	out := make([]*replDoc, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// docAliases are the namespace prefixes under which a name is documented
// by its plain or clojure.string/clojure.set name.
var replDocPrefixes = []string{"clojure.core/", "core/", "clojure.string/", "string/", "str/", "s/", "clojure.set/", "set/"}

// replLookupDoc finds the entry for name, also spelled with a namespace
// (str/join, clojure.string/join and join are one entry).
func replLookupDoc(name string) *replDoc {
	m := replDocsOnce()
	if e := m[name]; e != nil {
		return e
	}
	base := name
	for _, p := range replDocPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			base = name[len(p):]
			break
		}
	}
	for _, n := range []string{base, "clojure.string/" + base, "clojure.set/" + base} {
		if e := m[n]; e != nil {
			return e
		}
	}
	return nil
}

// parseReplDocs reads entries: "## name", a line of calling forms, the
// description, and examples indented by four spaces, each program
// followed by "; " lines for its output and a ";=> " line for its value.
func parseReplDocs(text string) map[string]*replDoc {
	m := map[string]*replDoc{}
	var e *replDoc
	var ex *replDocExample
	var desc []string
	flush := func() {
		if e != nil {
			e.desc = strings.Join(desc, " ")
			m[e.name] = e
		}
		e, ex, desc = nil, nil, nil
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \r")
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			e = &replDoc{name: strings.TrimSpace(line[3:])}
		case e == nil:
		case strings.HasPrefix(line, "    "):
			code := line[4:]
			switch {
			case strings.HasPrefix(code, ";=> "):
				if ex != nil {
					ex.want = code[4:]
					ex = nil
				}
			case strings.HasPrefix(code, "; ") && ex != nil:
				ex.output = append(ex.output, code[2:])
			default:
				if ex == nil {
					e.examples = append(e.examples, replDocExample{})
					ex = &e.examples[len(e.examples)-1]
				} else {
					ex.src += "\n"
				}
				ex.src += code
			}
		case line == "":
		case e.usage == "" && strings.HasPrefix(line, "`"):
			e.usage = strings.ReplaceAll(strings.Trim(line, "`"), "` `", "   ")
		default:
			desc = append(desc, strings.TrimSpace(line))
		}
	}
	flush()
	return m
}

// format is what :doc prints.
func (e *replDoc) format() string {
	var b strings.Builder
	b.WriteString(e.name + "\n")
	if e.usage != "" {
		b.WriteString("  " + e.usage + "\n")
	}
	for _, l := range replWrap(e.desc, 76) {
		b.WriteString("  " + l + "\n")
	}
	for _, ex := range e.examples {
		b.WriteString("\n")
		for _, l := range strings.Split(ex.src, "\n") {
			b.WriteString("  " + l + "\n")
		}
		for _, l := range ex.output {
			b.WriteString("  ; " + l + "\n")
		}
		b.WriteString("  ;=> " + ex.want + "\n")
	}
	return b.String()
}

// replWrap breaks text into lines of at most width columns.
func replWrap(text string, width int) []string {
	var lines []string
	var cur string
	for _, w := range strings.Fields(text) {
		if cur != "" && replTextWidth(cur)+1+replTextWidth(w) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// replFirstSentence is the start of a description, for :apropos.
func replFirstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 70 {
		cut := 69
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
