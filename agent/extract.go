package agent

import (
	"strings"
)

// extractCode finds the program in an LLM reply:
//
//  1. the fenced blocks tagged clojure, clj, lisp or ptc, all of them,
//     in order (they run as one program);
//  2. else the untagged fenced blocks that start with "(";
//  3. else the text from the first line that starts with "(" to the end of
//     the forms that follow it.
//
// Invisible characters (zero-width spaces, byte order marks) are removed
// and typographic quotes straightened first. "" means no program.
func extractCode(reply string) string {
	reply = cleanReply(reply)
	tagged, untagged := fencedBlocks(reply)
	if len(tagged) > 0 {
		return strings.Join(tagged, "\n")
	}
	var code []string
	for _, b := range untagged {
		if strings.HasPrefix(strings.TrimSpace(b), "(") {
			code = append(code, b)
		}
	}
	if len(code) > 0 {
		return strings.Join(code, "\n")
	}
	return bareForms(reply)
}

var codeTags = map[string]bool{"clojure": true, "clj": true, "lisp": true, "ptc": true, "ptc-lisp": true, "cljs": true, "edn": true}

// fencedBlocks returns the contents of ``` blocks, split into those with a
// code tag and those without a tag. An unclosed block runs to the end.
func fencedBlocks(text string) (tagged, untagged []string) {
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "```") {
			continue
		}
		tag := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "`")))
		if f := strings.Fields(tag); len(f) > 0 {
			tag = f[0]
		}
		var body []string
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				break
			}
			body = append(body, lines[j])
		}
		content := strings.Join(body, "\n")
		switch {
		case codeTags[tag]:
			if strings.TrimSpace(content) != "" {
				tagged = append(tagged, content)
			}
		case tag == "":
			untagged = append(untagged, content)
		}
		i = j
	}
	return tagged, untagged
}

// bareForms returns the forms of a reply without fences: from the first
// line starting with "(" as long as lines continue an open form or start
// a new one (or a comment).
func bareForms(text string) string {
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "(") {
			start = i
			break
		}
	}
	if start < 0 {
		return ""
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
	return strings.TrimSpace(strings.Join(lines[start:end+1], "\n"))
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

var replyCleaner = strings.NewReplacer(
	"\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "", "\u00ad", "",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u2033", `"`,
	"\u2018", "'", "\u2019", "'",
	"\u00a0", " ", "\r\n", "\n",
)

func cleanReply(s string) string { return replyCleaner.Replace(s) }
