package replcmd

import (
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

// :doc and :apropos read the language's documentation table
// (lisp.Docs, lisp.LookupDoc); lisp's TestDocs runs every example.

// replDocFormat is what :doc prints for the entry d.
func replDocFormat(d lisp.Doc) string {
	var b strings.Builder
	b.WriteString(d.Name + "\n")
	if len(d.Usage) > 0 {
		b.WriteString("  " + strings.Join(d.Usage, "   ") + "\n")
	}
	for _, l := range replWrap(d.Text, 76) {
		b.WriteString("  " + l + "\n")
	}
	for _, ex := range d.Examples {
		b.WriteString("\n")
		for _, l := range strings.Split(ex.Program, "\n") {
			b.WriteString("  " + l + "\n")
		}
		for _, l := range ex.Output {
			b.WriteString("  ; " + l + "\n")
		}
		b.WriteString("  ;=> " + ex.Result + "\n")
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

// replDocumented reports whether :doc has an entry for name.
func replDocumented(name string) bool {
	_, ok := lisp.LookupDoc(name)
	return ok
}

// replBuiltinNames is every builtin name (lisp.Docs: the entries' names
// and aliases), special forms left out.
func replBuiltinNames() []string {
	var names []string
	for _, d := range lisp.Docs() {
		if !d.Special {
			names = append(names, d.Name)
		}
		names = append(names, d.Aliases...)
	}
	return names
}
