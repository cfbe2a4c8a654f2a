package prompt

import (
	"strings"
	"unicode/utf8"
)

// ExtractProgram finds the program in an LLM reply, as an agent's turn
// does before it runs it (a tool that shows replies shows the same
// program):
//
//  1. the fenced blocks tagged clojure, clj, lisp or ptc, all of them,
//     in order (they run as one program);
//  2. else the untagged fenced blocks that start with "(";
//  3. else the text from the first line that starts with "(" to the end of
//     the forms that follow it.
//
// The search reads the reply with invisible characters (zero-width spaces,
// byte order marks) removed and typographic quotes straightened; the
// program itself gets the same cleaning only outside its string literals,
// so "don’t" or an emoji joined by zero-width joiners stays as written,
// while a string delimited by “…” becomes "…". "" means no program.
func ExtractProgram(reply string) string {
	raw := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	// The cleaner never adds or removes a line break, so line i of view
	// is line i of raw.
	view := make([]string, len(raw))
	for i, l := range raw {
		view[i] = replyCleaner.Replace(l)
	}
	code := func(spans []span) string {
		parts := make([]string, len(spans))
		for i, sp := range spans {
			parts[i] = strings.Join(raw[sp.from:sp.to], "\n")
		}
		return cleanCode(strings.Join(parts, "\n"))
	}
	tagged, untagged := fencedBlocks(view)
	if len(tagged) > 0 {
		return code(tagged)
	}
	var forms []span
	for _, b := range untagged {
		if strings.HasPrefix(strings.TrimSpace(strings.Join(view[b.from:b.to], "\n")), "(") {
			forms = append(forms, b)
		}
	}
	if len(forms) > 0 {
		return code(forms)
	}
	if sp, ok := bareForms(view); ok {
		return strings.TrimSpace(code([]span{sp}))
	}
	return ""
}

// ProgramClosed reports whether reply, a reply being written, already
// holds a whole program: a fenced block tagged as code (as ExtractProgram
// finds them), closed, not blank, whose brackets are balanced outside its
// string literals. An agent stops a streamed reply there: what a model
// writes after its program is not read.
func ProgramClosed(reply string) bool {
	if strings.Count(reply, "```") < 2 {
		return false
	}
	view := strings.Split(replyCleaner.Replace(strings.ReplaceAll(reply, "\r\n", "\n")), "\n")
	tagged, _ := fencedBlocks(view)
	for _, b := range tagged {
		if b.open {
			return false // the block is still being written
		}
		depth := 0
		var sc scanState
		for _, l := range view[b.from:b.to] {
			depth = sc.scan(l, depth)
		}
		if depth == 0 && !sc.inString {
			return true
		}
	}
	return false
}

// ProgramWatch watches a reply as it is written, piece by piece, and tells
// when it holds a whole program (ProgramClosed), at a cost linear in the
// reply's length plus one reading of it at each fence. The zero value is
// ready.
type ProgramWatch struct {
	text   strings.Builder
	fences int
}

// Write adds a piece of the reply and reports whether the reply so far
// holds a whole program.
func (w *ProgramWatch) Write(piece string) (closed bool) {
	prev := w.text.Len()
	w.text.WriteString(piece)
	s := w.text.String()
	// A fence that the piece completes starts at most two bytes before it.
	n := strings.Count(s[max(0, prev-2):], "```")
	if n == 0 {
		return false
	}
	w.fences += n
	return w.fences >= 2 && ProgramClosed(s)
}

// Text is the reply so far.
func (w *ProgramWatch) Text() string { return w.text.String() }

// span is the lines [from, to) of a reply; open: a fenced block whose
// closing fence is not written (yet).
type span struct {
	from, to int
	open     bool
}

var codeTags = map[string]bool{"clojure": true, "clj": true, "lisp": true, "ptc": true, "ptc-lisp": true, "cljs": true, "edn": true}

// fencedBlocks returns the contents of ``` blocks, split into those with a
// code tag and those without a tag. An unclosed block runs to the end.
// Blocks with a code tag and nothing but white space are left out.
func fencedBlocks(lines []string) (tagged, untagged []span) {
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "```") {
			continue
		}
		tag := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "`")))
		if f := strings.Fields(tag); len(f) > 0 {
			tag = f[0]
		}
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				break
			}
		}
		body := span{from: i + 1, to: j, open: j == len(lines)}
		switch {
		case codeTags[tag]:
			if strings.TrimSpace(strings.Join(lines[body.from:body.to], "")) != "" {
				tagged = append(tagged, body)
			}
		case tag == "":
			untagged = append(untagged, body)
		}
		i = j
	}
	return tagged, untagged
}

// bareForms finds the forms of a reply without fences: from the first
// line starting with "(" as long as lines continue an open form or start
// a new one (or a comment).
func bareForms(lines []string) (span, bool) {
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "(") {
			start = i
			break
		}
	}
	if start < 0 {
		return span{}, false
	}
	depth := 0
	var sc scanState
	end := start
	for i := start; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		// A line inside a string literal (strings may span lines) belongs
		// to the program whatever it starts with.
		if depth <= 0 && !sc.inString && i > start && t != "" && !strings.HasPrefix(t, "(") && !strings.HasPrefix(t, ";") {
			break
		}
		depth = sc.scan(lines[i], depth)
		end = i
	}
	return span{from: start, to: end + 1}, true
}

// cleanCode applies replyCleaner to a program outside its string
// literals. A typographic double quote outside a literal delimits one: it
// opens a string that the matching typographic quote closes (a straight
// one too), while inside a literal opened by a straight quote typographic
// quotes are text.
func cleanCode(code string) string {
	var b strings.Builder
	b.Grow(len(code))
	const (
		outside = iota
		inStraight
		inCurly
	)
	state := outside
	rest := code
	for rest != "" {
		r, size := utf8.DecodeRuneInString(rest)
		tok := rest[:size]
		rest = rest[size:]
		switch state {
		case outside:
			switch {
			case r == '"':
				state = inStraight
			case r == '\\' && rest != "":
				// A character literal such as \" or \“: copy the next
				// character as it is.
				_, n := utf8.DecodeRuneInString(rest)
				tok += rest[:n]
				rest = rest[n:]
			case r == ';':
				// A comment runs to the end of the line; quotes in it
				// open nothing.
				n := strings.IndexByte(rest, '\n')
				if n < 0 {
					n = len(rest)
				}
				tok = replyCleaner.Replace(tok + rest[:n])
				rest = rest[n:]
			case isCurlyDouble(r):
				tok, state = `"`, inCurly
			default:
				tok = replyCleaner.Replace(tok)
			}
		default:
			switch {
			case r == '\\' && rest != "":
				_, n := utf8.DecodeRuneInString(rest)
				tok += rest[:n]
				rest = rest[n:]
			case r == '"':
				state = outside
			case state == inCurly && isCurlyDouble(r):
				tok, state = `"`, outside
			}
		}
		b.WriteString(tok)
	}
	return b.String()
}

func isCurlyDouble(r rune) bool {
	return r == '\u201c' || r == '\u201d' || r == '\u201e' || r == '\u2033'
}

// scanState tracks strings across lines while counting brackets.
type scanState struct{ inString bool }

func (s *scanState) scan(line string, depth int) int {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if s.inString {
			switch c {
			case '\\':
				i++
			case '"':
				s.inString = false
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
		case ';':
			return depth
		case '\\':
			i++ // a character literal such as \( or \"
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
	return depth
}

// replyCleaner removes invisible characters and straightens typographic
// quotes and spaces, which models and chat front ends put into code.
var replyCleaner = strings.NewReplacer(
	"\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "", "\u00ad", "",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u2033", `"`,
	"\u2018", "'", "\u2019", "'",
	"\u00a0", " ",
)
