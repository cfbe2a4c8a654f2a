package lisp

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"

	"github.com/ptc-go/ptc/lisp/internal/backtrack"
)

// compileRegex compiles a Java/Clojure-style pattern with Go's RE2 engine,
// or, for the Java features that RE2 lacks (lookaround, backreferences,
// possessive quantifiers, atomic groups), with the backtracking matcher of
// lisp/internal/backtrack, whose searches count their steps against the
// run's limits. Java's POSIX-like classes such as \p{Alpha} are
// translated. A pattern whose weight (see regexWeight) exceeds
// maxRegexWeight is rejected before it is compiled: compiling costs time
// and memory in proportion to it.
func compileRegex(src string) (*Regex, error) {
	if len(src) > maxRegexLen {
		return nil, errorf(InvalidArgument, "regex pattern longer than %d bytes", maxRegexLen)
	}
	body, trimEnd := finalDollar(src)
	pat, needsBacktracking, err := translateRegex(body)
	if err != nil {
		return nil, err
	}
	if trimEnd {
		// Java's $ (and \Z) at the end of a pattern also matches before a
		// final line terminator, a lookahead RE2 lacks: the terminator is
		// matched as a last group, which the matches then drop (trimEnd).
		pat = `(?:` + pat + `)(\r\n|[\n\r\x{85}\x{2028}\x{2029}])?\z`
	}
	if needsBacktracking {
		bt, err := backtrack.Compile(pat)
		if err != nil {
			return nil, classError(InvalidArgument, classPatternSyntax, "invalid regex %q: %s", src, err.Error())
		}
		// Its weight is its size: nothing is expanded when it compiles,
		// and its searches count their own steps.
		return &Regex{Source: src, bt: bt, pattern: pat, weight: len(pat), trimEnd: trimEnd}, nil
	}
	parsed, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, classError(InvalidArgument, classPatternSyntax, "invalid regex %q: %s", src, msg)
	}
	if emptyRepeatedGroup(parsed) {
		// (a*)* and the like: after a non-empty iteration Java takes an
		// empty one and reports its group, Go the last non-empty one.
		if bt, err := backtrack.Compile(pat); err == nil {
			return &Regex{Source: src, bt: bt, pattern: pat, weight: len(pat), trimEnd: trimEnd}, nil
		}
	}
	weight := regexWeight(parsed)
	if weight > maxRegexWeight {
		return nil, errorf(InvalidArgument, "regex %q is too large once its repetitions are expanded (%d units, at most %d): use a smaller repeat count or a simpler character class",
			src, weight, maxRegexWeight)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, classError(InvalidArgument, classPatternSyntax, "invalid regex %q: %s", src, msg)
	}
	r := &Regex{Source: src, re: re, pattern: pat, weight: weight, trimEnd: trimEnd}
	r.contextual, r.nullable = patternTraits(parsed)
	return r, nil
}

// anchoredRe returns the whole-string form of the pattern, for re-matches,
// compiled on first use.
func (r *Regex) anchoredRe() *regexp.Regexp {
	r.anchoredOnce.Do(func() { r.anchored = regexp.MustCompile(`^(?:` + r.pattern + `)$`) })
	return r.anchored
}

// resumeRe returns the resume form of a contextual pattern (see findAt),
// compiled on first use.
func (r *Regex) resumeRe() *regexp.Regexp {
	r.resumeOnce.Do(func() { r.resume = regexp.MustCompile(`\A(?s:.)(?s:.*?)(` + r.pattern + `)`) })
	return r.resume
}

// Bounds of patterns: their text, and their weight.
const (
	maxRegexLen    = 4096
	maxRegexWeight = 200_000
)

// regexWeight estimates what compiling and matching a pattern costs: its
// size once repetitions are expanded, a character class counting its
// ranges. \pL{1,1000} weighs about 700,000 (a thousand copies of Unicode's
// letters) though its text is 11 bytes.
func regexWeight(r *syntax.Regexp) int {
	const ceiling = 1 << 40 // no overflow, whatever the nesting
	w := 1
	switch r.Op {
	case syntax.OpLiteral:
		w = len(r.Rune)
	case syntax.OpCharClass:
		w = 1 + len(r.Rune)/2
	case syntax.OpRepeat:
		n := r.Max
		if n < 0 {
			n = max(r.Min, 1) + 1
		}
		return min(ceiling, max(n, 1)*regexWeight(r.Sub[0])+1)
	}
	for _, sub := range r.Sub {
		w = min(ceiling, w+regexWeight(sub))
	}
	return w
}

var javaClasses = map[string]string{
	`\p{Alpha}`: `[a-zA-Z]`, `\p{Digit}`: `[0-9]`, `\p{Alnum}`: `[a-zA-Z0-9]`,
	`\p{Upper}`: `[A-Z]`, `\p{Lower}`: `[a-z]`, `\p{Punct}`: `[!-/:-@\[-` + "`" + `{-~]`,
	`\p{Space}`: `\s`, `\p{XDigit}`: `[0-9a-fA-F]`, `\p{Blank}`: `[ \t]`, `\p{ASCII}`: `[\x00-\x7F]`,
	`\p{javaLowerCase}`: `\p{Ll}`, `\p{javaUpperCase}`: `\p{Lu}`, `\p{IsAlphabetic}`: `\p{L}`,
	`\p{IsDigit}`: `\p{Nd}`, `\p{IsLetter}`: `\p{L}`,
}

// finalDollar reports whether src ends with Java's end-of-input anchor, $
// or \Z, outside any group, class and alternation and without the
// multiline flag, and returns src without it.
func finalDollar(src string) (string, bool) {
	n := len(src)
	var cut int
	switch {
	case n >= 1 && src[n-1] == '$':
		cut = n - 1
	case n >= 2 && src[n-2:] == `\Z`:
		cut = n - 2
	default:
		return src, false
	}
	depth, inClass := 0, false
	for i := 0; i < cut; i++ {
		switch c := src[i]; {
		case c == '\\':
			if i+1 == cut {
				return src, false // an escaped $: \$
			}
			if src[i+1] == 'Q' { // \Q...\E quotes the rest literally
				return src, false
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < cut && src[i+1] == '^' {
				i++
			}
			if i+1 < cut && src[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
			if strings.HasPrefix(src[i+1:], "?") {
				flags := src[i+2:]
				if j := strings.IndexAny(flags, ":)"); j >= 0 && strings.ContainsRune(strings.SplitN(flags[:j], "-", 2)[0], 'm') {
					return src, false // multiline: $ is the end of any line
				}
			}
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			return src, false
		}
	}
	if inClass || depth != 0 {
		return src, false
	}
	return src[:cut], true
}

// javaSpaces are Java's \h and \v.
var javaSpaces = map[byte]string{
	'h': `[ \t\xA0\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}]`,
	'v': `[\n\x0B\f\r\x{85}\x{2028}\x{2029}]`,
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// stripExtended removes what Java's comments flag (?x) ignores: whitespace
// and # comments to the end of the line, outside classes and escapes.
func stripExtended(s string) string {
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			sb.WriteString(s[i : i+2])
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			sb.WriteByte(c)
		case c == '[':
			inClass = true
			sb.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// translateRegex rewrites a Java pattern in Go's syntax; backtracking
// reports a construct only the backtracking matcher has (lookaround,
// backreferences, atomic groups, possessive quantifiers), kept as written.
func translateRegex(src string) (pat string, backtracking bool, err error) {
	unsupported := func(what, instead string) (string, bool, error) {
		return "", false, errorf(InvalidArgument, "regex %q uses %s, which no regex engine here supports; %s", src, what, instead)
	}
	var sb strings.Builder
	inClass := false
	nested := 0 // unions inside a class, [a-c[x-z]], flattened
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inClass && c == '&' && i+1 < len(src) && src[i+1] == '&':
			return unsupported("a character class intersection (&&)", "list the characters the class keeps, [b-df-hj-np-tv-z], or filter the matches in code")
		case inClass && c == '[' && i+1 < len(src) && src[i+1] != ':':
			if src[i+1] == '^' {
				return unsupported("a negated class inside a class ([...[^...]])", "list the characters the class keeps, or filter the matches in code")
			}
			nested++ // Java's union: [a[bc]] is [abc]
		case inClass && c == ']' && nested > 0:
			nested--
		case c == '\\' && i+1 < len(src):
			n := src[i+1]
			if n >= '1' && n <= '9' || n == 'k' && i+2 < len(src) && src[i+2] == '<' {
				backtracking = true // a backreference: \1, \k<name>
			}
			if (n == 'p' || n == 'P') && strings.HasPrefix(src[i+2:], "{Is") {
				// \p{IsLatin}: Java's script (and category) names with Is.
				if j := strings.IndexByte(src[i:], '}'); j > 0 {
					name := src[i+5 : i+j]
					if _, isScript := unicode.Scripts[name]; isScript && javaClasses[`\p{Is`+name+`}`] == "" {
						sb.WriteString(`\` + string(n) + `{` + name + `}`)
						i += j
						continue
					}
				}
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
			case 'h', 'v':
				// Java's horizontal and vertical whitespace (Go's \v is
				// the vertical tab alone).
				cls := javaSpaces[n]
				if inClass {
					cls = cls[1 : len(cls)-1]
				}
				sb.WriteString(cls)
				i++
				continue
			case 'u':
				// \uXXXX, a UTF-16 unit: Go writes \x{XXXX}.
				if i+6 <= len(src) && isHex(src[i+2:i+6]) {
					sb.WriteString(`\x{` + src[i+2:i+6] + `}`)
					i += 5
					continue
				}
			case 'e':
				sb.WriteString(`\x1B`)
				i++
				continue
			case 'c':
				if i+2 < len(src) {
					fmt.Fprintf(&sb, `\x{%X}`, src[i+2]^64) // \cA is control-A
					i += 2
					continue
				}
			case '0':
				// Java's octal escape \0n, \0nn, \0mnn (m 0-3).
				j := i + 2
				for j < len(src) && j < i+5 && src[j] >= '0' && src[j] <= '7' {
					j++
				}
				if j == i+5 && src[i+2] > '3' {
					j--
				}
				if j > i+2 {
					v, _ := strconv.ParseUint(src[i+2:j], 8, 16)
					fmt.Fprintf(&sb, `\x{%X}`, v)
					i = j - 1
					continue
				}
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
			case strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "="),
				strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, ">"):
				backtracking = true // lookaround, an atomic group
				sb.WriteByte(c)
				continue
			}
			// Inline flags: Go has i, m, s; Java's u and U (Unicode case
			// and classes) and d (Unix lines) are dropped, x (comments)
			// applied to the rest of the pattern.
			if j := strings.IndexAny(rest, ":)"); j >= 0 && strings.Trim(rest[:j], "imsuxUd-") == "" && j > 0 {
				flags, term := rest[:j], rest[j]
				kept := strings.Map(func(r rune) rune {
					if strings.ContainsRune("uUdx", r) {
						return -1
					}
					return r
				}, flags)
				after := src[i+2+j+1:]
				if on, _, _ := strings.Cut(flags, "-"); strings.ContainsRune(on, 'x') {
					after = stripExtended(after)
				}
				if strings.Trim(kept, "-") == "" {
					kept = ""
				}
				head := "(?" + kept + string(term)
				if kept == "" && term == ')' {
					head = ""
				}
				src = src[:i] + head + after
				if head == "" {
					i--
					continue
				}
				sb.WriteString(head)
				i += len(head) - 1
				continue
			}
			sb.WriteByte(c)
		case !inClass && (c == '+' || c == '*' || c == '?' || c == '}') && i+1 < len(src) && src[i+1] == '+':
			if i == 0 || src[i-1] != '\\' {
				backtracking = true // a possessive quantifier
			}
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), backtracking, nil
}

// groupCount is the number of the pattern's capturing groups (the final
// terminator's group of trimEnd excluded).
func (r *Regex) groupCount() int {
	n := 0
	if r.bt != nil {
		n = r.bt.NumSubexp()
	} else {
		n = r.re.NumSubexp()
	}
	if r.trimEnd {
		n--
	}
	return n
}

// groupIndex is the number of the group named name, or -1.
func (r *Regex) groupIndex(name string) int {
	if r.bt != nil {
		return r.bt.SubexpIndex(name)
	}
	return r.re.SubexpIndex(name)
}

// backtrackFind is a search of the backtracking matcher within the run's
// limits: its steps are the thread's.
func (th *thread) backtrackFind(re *Regex, s string, from int, whole bool) ([]int, error) {
	m, err := re.bt.Find(s, from, whole, th.ticks)
	if errors.Is(err, backtrack.ErrTooDeep) {
		return nil, classError(DepthExceeded, classStackOverflow, "regex %q: %s", re.Source, err.Error())
	}
	return m, err
}

// emptyRepeatedGroup reports a repetition of a pattern that holds a
// capturing group and can match the empty string ((a*)*, (x?)+), whose
// groups Go's regexp reports otherwise than Java.
func emptyRepeatedGroup(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if r.Op != syntax.OpQuest && hasCapture(r.Sub[0]) && canBeEmpty(r.Sub[0]) {
			return true
		}
	}
	for _, sub := range r.Sub {
		if emptyRepeatedGroup(sub) {
			return true
		}
	}
	return false
}

func hasCapture(r *syntax.Regexp) bool {
	if r.Op == syntax.OpCapture {
		return true
	}
	for _, sub := range r.Sub {
		if hasCapture(sub) {
			return true
		}
	}
	return false
}
