package lisp

import (
	"regexp"
	"strings"
)

// maxRegexLen bounds pattern size (RE2 compiles in time and space linear in
// it, and matching is linear in the input: no catastrophic backtracking).
const maxRegexLen = 4096

// compileRegex compiles a Java/Clojure-style pattern with Go's RE2 engine.
// Java features that RE2 lacks (lookaround, backreferences, possessive
// quantifiers, atomic groups) are rejected with an explanation; Java's
// POSIX-like classes such as \p{Alpha} are translated.
func compileRegex(src string) (*Regex, error) {
	if len(src) > maxRegexLen {
		return nil, errorf(InvalidArgument, "regex pattern longer than %d bytes", maxRegexLen)
	}
	pat, err := translateRegex(src)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		return nil, errorf(InvalidArgument, "invalid regex %q: %s", src, msg)
	}
	anchored, err := regexp.Compile(`^(?:` + pat + `)$`)
	if err != nil {
		return nil, errorf(InvalidArgument, "invalid regex %q: %v", src, err)
	}
	r := &Regex{Source: src, re: re, anchored: anchored}
	r.contextual, r.nullable = analyzePattern(pat)
	if r.contextual && r.nullable {
		if r.resume, err = regexp.Compile(`\A(?s:.)(?s:.*?)(` + pat + `)`); err != nil {
			return nil, errorf(InvalidArgument, "invalid regex %q: %v", src, err)
		}
	}
	return r, nil
}

var javaClasses = map[string]string{
	`\p{Alpha}`: `[a-zA-Z]`, `\p{Digit}`: `[0-9]`, `\p{Alnum}`: `[a-zA-Z0-9]`,
	`\p{Upper}`: `[A-Z]`, `\p{Lower}`: `[a-z]`, `\p{Punct}`: `[!-/:-@\[-` + "`" + `{-~]`,
	`\p{Space}`: `\s`, `\p{XDigit}`: `[0-9a-fA-F]`, `\p{Blank}`: `[ \t]`, `\p{ASCII}`: `[\x00-\x7F]`,
	`\p{javaLowerCase}`: `\p{Ll}`, `\p{javaUpperCase}`: `\p{Lu}`, `\p{IsAlphabetic}`: `\p{L}`,
	`\p{IsDigit}`: `\p{Nd}`, `\p{IsLetter}`: `\p{L}`,
}

func translateRegex(src string) (string, error) {
	unsupported := func(what, instead string) (string, error) {
		return "", errorf(InvalidArgument, "regex %q uses %s, which Go's linear-time regex engine does not support; %s", src, what, instead)
	}
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			n := src[i+1]
			if n >= '1' && n <= '9' {
				return unsupported("a backreference (\\"+string(n)+")", "match the parts separately and compare them in code")
			}
			if n == 'k' && i+2 < len(src) && src[i+2] == '<' {
				return unsupported("a named backreference", "match the parts separately and compare them in code")
			}
			if n == 'p' || n == 'P' {
				if j := strings.IndexByte(src[i:], '}'); j > 0 {
					cls := `\p` + src[i+2:i+j+1]
					if tr, ok := javaClasses[cls]; ok {
						if n == 'P' {
							if strings.HasPrefix(tr, "[") {
								tr = "[^" + tr[1:]
							} else {
								tr = strings.Replace(tr, `\p`, `\P`, 1)
							}
						}
						if inClass && strings.HasPrefix(tr, "[") && !strings.HasPrefix(tr, "[^") {
							tr = tr[1 : len(tr)-1]
						}
						sb.WriteString(tr)
						i += j
						continue
					}
				}
			}
			if (n == 'p' || n == 'P' || n == 'x') && i+2 < len(src) && src[i+2] == '{' {
				// \p{Lu}, \x{263A}: copied whole, so that a quantifier after
				// the closing brace is not read as a{2}+ (possessive).
				if j := strings.IndexByte(src[i:], '}'); j > 0 {
					sb.WriteString(src[i : i+j+1])
					i += j
					continue
				}
			}
			switch n {
			case 'Z':
				sb.WriteString(`\z`)
				i++
				continue
			case 'h':
				sb.WriteString(`[ \t]`)
				i++
				continue
			case 'R':
				sb.WriteString(`(?:\r\n|\n|\r)`)
				i++
				continue
			}
			sb.WriteByte(c)
			sb.WriteByte(n)
			i++
		case c == '[' && !inClass:
			inClass = true
			sb.WriteByte(c)
			if i+1 < len(src) && src[i+1] == '^' {
				sb.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				sb.WriteString(`\]`)
				i++
			}
		case c == ']' && inClass:
			inClass = false
			sb.WriteByte(c)
		case c == '(' && !inClass && i+2 < len(src) && src[i+1] == '?':
			rest := src[i+2:]
			switch {
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
				return unsupported("a lookahead (?= or (?!", "match more text and extract the part you need with a group")
			case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return unsupported("a lookbehind (?<= or (?<!", "match more text and extract the part you need with a group")
			case strings.HasPrefix(rest, ">"):
				return unsupported("an atomic group (?>", "use a plain group (?:")
			}
			sb.WriteByte(c)
		case !inClass && (c == '+' || c == '*' || c == '?' || c == '}') && i+1 < len(src) && src[i+1] == '+':
			if i == 0 || src[i-1] != '\\' {
				return unsupported("a possessive quantifier ("+string(c)+"+)", "use the greedy form without the extra +")
			}
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), nil
}
