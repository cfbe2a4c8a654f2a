package lisp

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

func registerStrings(t *builtinTable) {
	t.add("str", 0, -1, func(th *thread, a []Value) (Value, error) {
		if len(a) == 1 {
			if s, ok := a[0].(string); ok {
				return s, nil
			}
		}
		var sb strings.Builder
		for _, x := range a {
			s, err := th.render(x, false)
			if err != nil {
				return nil, err
			}
			if err := th.chargeString(len(s)); err != nil {
				return nil, err
			}
			sb.WriteString(s)
		}
		return sb.String(), nil
	})
	t.add("subs", 2, 3, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("subs", a, 0)
		if err != nil {
			return nil, err
		}
		start, err := indexArg("subs", a, 1)
		if err != nil {
			return nil, err
		}
		end := int64(math.MaxInt64)
		if len(a) == 3 {
			if end, err = indexArg("subs", a, 2); err != nil {
				return nil, err
			}
		}
		start = max(start, 0)
		if end <= start {
			return "", nil
		}
		// Characters are counted up to the end of the part, not over the
		// whole string; the part shares the string's bytes.
		from := charOffset(s, 0, start)
		to := charOffset(s, from, end-start)
		return s[from:to], th.scanned(to)
	})
	t.add("clojure.string/join", 1, 2, func(th *thread, a []Value) (Value, error) {
		sep, coll := "", a[len(a)-1]
		if len(a) == 2 {
			var err error
			if sep, err = th.render(a[0], false); err != nil {
				return nil, err
			}
		}
		xs, err := th.items(coll, "join")
		if err != nil {
			return nil, err
		}
		var sb strings.Builder
		for i, x := range xs {
			s, err := th.render(x, false)
			if err != nil {
				return nil, err
			}
			if err := th.chargeString(len(s) + len(sep)); err != nil {
				return nil, err
			}
			if i > 0 {
				sb.WriteString(sep)
			}
			sb.WriteString(s)
		}
		return sb.String(), nil
	}, "join")
	t.add("clojure.string/split", 2, 3, strSplit, "split")
	t.add("clojure.string/split-lines", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("split-lines", a, 0)
		if err != nil {
			return nil, err
		}
		if strings.IndexByte(s, '\n') < 0 {
			return vectorOf(s), nil // Java's split: no match, the whole string ("" gives [""])
		}
		if err := th.scanned(len(s)); err != nil {
			return nil, err
		}
		if err := th.charge(2 * int64(strings.Count(s, "\n")+1)); err != nil {
			return nil, err
		}
		if strings.Contains(s, "\r\n") {
			if err := th.chargeString(len(s)); err != nil {
				return nil, err
			}
			s = strings.ReplaceAll(s, "\r\n", "\n")
		}
		parts := strings.Split(s, "\n")
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		return stringsVector(parts), nil
	}, "split-lines")
	strFn := func(name string, f func(string) string, aliases ...string) {
		t.add(name, 1, 1, func(th *thread, a []Value) (Value, error) {
			s, err := stringArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			out := f(s) // a part of s: nothing is built
			return out, th.scanned(len(s) - len(out))
		}, aliases...)
	}
	strFn("clojure.string/trim", func(s string) string { return javaTrimRight(javaTrimLeft(s)) }, "trim")
	strFn("clojure.string/triml", javaTrimLeft, "triml")
	strFn("clojure.string/trimr", javaTrimRight, "trimr")
	strFn("clojure.string/trim-newline", func(s string) string { return strings.TrimRight(s, "\r\n") }, "trim-newline")
	// Case mappings build a new string, about as long as the old one (a
	// few characters grow: ß is SS): charge it before, and the growth after.
	caseFn := func(name string, f func(string) string, aliases ...string) {
		t.add(name, 1, 1, func(th *thread, a []Value) (Value, error) {
			s, err := th.textArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			return th.transformString(s, f)
		}, aliases...)
	}
	caseFn("clojure.string/upper-case", javaUpper, "upper-case", "upcase")
	caseFn("clojure.string/lower-case", javaLower, "lower-case", "downcase")
	caseFn("clojure.string/capitalize", javaCapitalize, "capitalize")
	t.add("clojure.string/reverse", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("clojure.string/reverse", a, 0)
		if err != nil {
			return nil, err
		}
		if err := th.scanned(len(s)); err != nil {
			return nil, err
		}
		if err := th.chargeString(2 * len(s)); err != nil { // the buffer and the string
			return nil, err
		}
		// Characters (not bytes or code points) in reverse order, written
		// from the end of the buffer while reading from the start.
		buf := make([]byte, len(s))
		w := len(s)
		for i := 0; i < len(s); {
			n := graphemeLen(s[i:])
			w -= n
			copy(buf[w:], s[i:i+n])
			i += n
		}
		return string(buf), nil
	})
	t.add("clojure.string/blank?", 1, 1, func(th *thread, a []Value) (Value, error) {
		if a[0] == nil {
			return true, nil
		}
		s, err := stringArg("blank?", a, 0)
		if err != nil {
			return nil, err
		}
		rest := javaTrimLeft(s)
		return rest == "", th.scanned(len(s) - len(rest))
	}, "blank?")
	strPred := func(name string, f func(s, x string) bool, aliases ...string) {
		t.add(name, 2, 2, func(th *thread, a []Value) (Value, error) {
			s, err := th.textArg(aliases[0], a, 0)
			if err != nil {
				return nil, err
			}
			x, err := stringArg(aliases[0], a, 1)
			if err != nil {
				return nil, err
			}
			return f(s, x), th.scanned(len(s))
		}, aliases...)
	}
	strPred("clojure.string/starts-with?", strings.HasPrefix, "starts-with?")
	strPred("clojure.string/ends-with?", strings.HasSuffix, "ends-with?")
	strPred("clojure.string/includes?", strings.Contains, "includes?")
	t.add("clojure.string/index-of", 2, 3, func(th *thread, a []Value) (Value, error) { return th.indexOf(a, false) }, "index-of")
	t.add("clojure.string/last-index-of", 2, 3, func(th *thread, a []Value) (Value, error) { return th.indexOf(a, true) }, "last-index-of")
	t.add("clojure.string/replace", 3, 3, func(th *thread, a []Value) (Value, error) { return strReplace(th, a, -1) })
	t.add("clojure.string/replace-first", 3, 3, func(th *thread, a []Value) (Value, error) { return strReplace(th, a, 1) }, "replace-first")
	t.add("clojure.string/escape", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("escape", a, 0)
		if err != nil {
			return nil, err
		}
		var sb strings.Builder
		for i := 0; i < len(s); {
			g := s[i : i+graphemeLen(s[i:])]
			i += len(g)
			r, err := th.call1(a[1], g)
			if err != nil {
				return nil, err
			}
			if r != nil {
				if g, err = th.render(r, false); err != nil {
					return nil, err
				}
			}
			if err := th.chargeString(len(g)); err != nil {
				return nil, err
			}
			sb.WriteString(g)
		}
		return sb.String(), nil
	})

	t.add("re-pattern", 1, 1, func(th *thread, a []Value) (Value, error) {
		if r, ok := a[0].(*Regex); ok {
			return r, nil
		}
		s, err := stringArg("re-pattern", a, 0)
		if err != nil {
			return nil, err
		}
		return th.compileRegex(s)
	})
	t.add("re-find", 2, 2, func(th *thread, a []Value) (Value, error) {
		re, s, err := th.regexArgs("re-find", a)
		if err != nil {
			return nil, err
		}
		m, err := th.findFirst(re, s, false)
		return matchValue(s, m), err
	})
	t.add("re-matches", 2, 2, func(th *thread, a []Value) (Value, error) {
		re, s, err := th.regexArgs("re-matches", a)
		if err != nil {
			return nil, err
		}
		m, err := th.findFirst(re, s, true)
		return matchValue(s, m), err
	})
	t.add("re-seq", 2, 2, func(th *thread, a []Value) (Value, error) {
		re, s, err := th.regexArgs("re-seq", a)
		if err != nil {
			return nil, err
		}
		var out []Value
		err = th.eachMatch(re, s, -1, func(m []int) error {
			// A slot and a boxed string per match, and per group.
			if err := th.charge(int64(len(m))); err != nil {
				return err
			}
			out = append(out, matchValue(s, m))
			return nil
		})
		if err != nil || len(out) == 0 {
			return nil, err
		}
		return NewVector(out), nil
	})

	t.add("keyword", 1, 2, func(th *thread, a []Value) (Value, error) {
		if len(a) == 2 {
			ns, name := displayString(a[0]), displayString(a[1])
			if ns == "" {
				return Keyword(name), nil
			}
			return Keyword(ns + "/" + name), nil
		}
		switch x := a[0].(type) {
		case Keyword:
			return x, nil
		case string:
			return Keyword(x), nil
		case Symbol:
			return Keyword(x.String()), nil
		}
		// Clojure's keyword of anything else (nil, a number, a vector) is nil.
		return nil, nil
	})
	t.add("name", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch x := a[0].(type) {
		case Keyword:
			s := string(x)
			if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
				return s[i+1:], nil
			}
			return s, nil
		case string:
			return x, nil
		case Symbol:
			return x.Name, nil
		}
		return nil, argError("name", 0, "a keyword, symbol or string", a[0])
	})
	t.add("namespace", 1, 1, func(th *thread, a []Value) (Value, error) {
		if k, ok := a[0].(Keyword); ok {
			s := string(k)
			if i := strings.LastIndexByte(s, '/'); i > 0 && i < len(s)-1 {
				return s[:i], nil
			}
			return nil, nil
		}
		if s, ok := a[0].(Symbol); ok {
			if s.Ns == "" {
				return nil, nil
			}
			return s.Ns, nil
		}
		return nil, argError("namespace", 0, "a keyword or symbol", a[0])
	})
	t.add("char", 1, 1, func(th *thread, a []Value) (Value, error) {
		switch x := a[0].(type) {
		case float64: // truncated, as Clojure does
			if x > -1 && x < unicode.MaxRune+1 {
				return string(rune(int64(x))), nil
			}
			return nil, errorf(InvalidArgument, "char: %s is not a character code", formatFloat(x))
		case int64:
			// Beyond Clojure's 16-bit chars: every code point but the
			// surrogates, which are halves of a UTF-16 pair, not characters.
			if x < 0 || x > unicode.MaxRune || 0xD800 <= x && x < 0xE000 {
				return nil, errorf(InvalidArgument, "char: %d is not a character code", x)
			}
			return string(rune(x)), nil
		case string:
			if x != "" && graphemeLen(x) == len(x) {
				return x, nil
			}
		}
		return nil, argError("char", 0, "a character code", a[0])
	})
	t.add("pr-str", 0, -1, func(th *thread, a []Value) (Value, error) { return th.joinRendered(a, true, "") })
	t.add("prn-str", 0, -1, func(th *thread, a []Value) (Value, error) { return th.joinRendered(a, true, "\n") })
	t.add("print-str", 0, -1, func(th *thread, a []Value) (Value, error) { return th.joinRendered(a, false, "") })
	t.add("println-str", 0, -1, func(th *thread, a []Value) (Value, error) { return th.joinRendered(a, false, "\n") })
	t.add("format", 1, -1, func(th *thread, a []Value) (Value, error) {
		f, err := stringArg("format", a, 0)
		if err != nil {
			return nil, err
		}
		return th.formatJava(f, a[1:])
	}, "String/format")

	t.add("clojure.string/re-quote-replacement", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("re-quote-replacement", a, 0)
		if err != nil {
			return nil, err
		}
		if !strings.ContainsAny(s, `\$`) {
			return s, nil
		}
		n := len(s) + strings.Count(s, `\`) + strings.Count(s, "$")
		if err := th.chargeString(n); err != nil {
			return nil, err
		}
		var sb strings.Builder
		sb.Grow(n)
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' || s[i] == '$' {
				sb.WriteByte('\\')
			}
			sb.WriteByte(s[i])
		}
		return sb.String(), nil
	})
}

// textArg is the string argument i of a clojure.string function that
// Clojure converts with toString first (upper-case, includes?, replace …):
// a keyword, number or collection reads as str prints it, so
// (upper-case :kw) is ":KW". nil stays an error, as Clojure's
// NullPointerException.
func (th *thread) textArg(fn string, a []Value, i int) (string, error) {
	switch x := a[i].(type) {
	case string:
		return x, nil
	case nil:
		return "", argError(fn, i, "a string", x)
	}
	s, err := th.render(a[i], false)
	if err != nil {
		return "", err
	}
	return s, th.chargeString(len(s))
}

// joinRendered renders the arguments joined by spaces, followed by end:
// pr-str's form when printed, else print-str's (strings unquoted at every
// level, nil as "nil").
func (th *thread) joinRendered(a []Value, printed bool, end string) (Value, error) {
	parts := make([]string, len(a))
	size := len(end) + len(a)
	for i, x := range a {
		var err error
		if printed {
			parts[i], err = th.render(x, true)
		} else {
			parts[i], err = th.renderPrint(x)
		}
		if err != nil {
			return nil, err
		}
		size += len(parts[i])
	}
	if err := th.chargeString(size); err != nil {
		return nil, err
	}
	return strings.Join(parts, " ") + end, nil
}

func stringsVector(parts []string) *Vector {
	out := make([]Value, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return NewVector(out)
}

// strSplit is clojure.string/split: by a regex or a literal string, with
// Java's rules (trailing empty strings dropped unless a limit is given).
func strSplit(th *thread, a []Value) (Value, error) {
	s, err := stringArg("split", a, 0)
	if err != nil {
		return nil, err
	}
	limit := int64(0)
	if len(a) == 3 {
		if limit, err = intArg("split", a, 2); err != nil {
			return nil, err
		}
	}
	var parts []string
	n := -1
	if limit > 0 {
		n = int(limit)
	}
	switch sep := a[1].(type) {
	case string:
		if err := th.scanned(len(s)); err != nil {
			return nil, err
		}
		// A part is a slot of the result and a boxed string: charge them
		// before splitting.
		count := len(s)
		if sep != "" {
			count = strings.Count(s, sep) + 1
		}
		if n > 0 {
			count = min(count, n)
		}
		if err := th.charge(2 * int64(count)); err != nil {
			return nil, err
		}
		if sep == "" {
			for i := 0; i < len(s); {
				if n > 0 && len(parts) == n-1 {
					parts = append(parts, s[i:])
					break
				}
				g := graphemeLen(s[i:])
				parts = append(parts, s[i:i+g])
				i += g
			}
		} else {
			parts = strings.SplitN(s, sep, n)
		}
	case *Regex:
		if parts, err = th.splitRegex(sep, s, n); err != nil {
			return nil, err
		}
	default:
		return nil, argError("split", 1, "a regex or a separator string", a[1])
	}
	if limit == 0 {
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		if len(parts) == 0 {
			parts = []string{""}
			if s != "" {
				parts = nil
			}
		}
	}
	return stringsVector(parts), nil
}

// splitRegex splits s at the matches of re like Java's String.split, into
// at most n parts (n <= 0: no limit): a zero-width match at the start
// produces no empty leading piece; one at the end gives an empty trailing
// piece (dropped unless a limit is given).
func (th *thread) splitRegex(re *Regex, s string, n int) ([]string, error) {
	var parts []string
	last := 0
	matches := -1
	if n > 0 {
		matches = n // at most n-1 splits, plus a zero-width match at 0
	}
	err := th.eachMatch(re, s, matches, func(m []int) error {
		if (n > 0 && len(parts) == n-1) || m[1] == 0 {
			return nil // past the limit, or a zero-width match at the beginning
		}
		if err := th.charge(2); err != nil {
			return err
		}
		parts = append(parts, s[last:m[0]])
		last = m[1]
		return nil
	})
	return append(parts, s[last:]), err
}

// indexOf is index-of and last-index-of, in characters (graphemes, as
// subs counts them), with Java's rules for the start index: index-of
// searches from max(from, 0) and finds "" at the end when from is past it;
// last-index-of finds occurrences starting at or before from, none when
// from is negative.
func (th *thread) indexOf(a []Value, last bool) (Value, error) {
	name := "index-of"
	if last {
		name = "last-index-of"
	}
	s, err := th.textArg(name, a, 0)
	if err != nil {
		return nil, err
	}
	x := displayString(a[1])
	if err := th.scanned(len(s)); err != nil {
		return nil, err
	}
	from := -1 // byte offset of the start index, -1: none
	if len(a) == 3 {
		n, err := intArg(name, a, 2)
		if err != nil {
			return nil, err
		}
		if last && n < 0 {
			return nil, nil
		}
		from = charOffset(s, 0, max(n, 0))
	}
	if last {
		end := len(s)
		if from >= 0 {
			end = min(len(s), from+len(x))
		}
		i := strings.LastIndex(s[:end], x)
		if i < 0 {
			return nil, nil
		}
		return int64(charsBefore(s, i)), nil
	}
	start := max(from, 0)
	i := strings.Index(s[start:], x)
	if i < 0 {
		return nil, nil
	}
	return int64(charsBefore(s, start+i)), nil
}

// charOffset returns the byte offset n characters (graphemes) after byte
// offset from in s, or len(s) when s ends first.
func charOffset(s string, from int, n int64) int {
	i := from
	for ; n > 0 && i < len(s); n-- {
		i += graphemeLen(s[i:])
	}
	return i
}

// charsBefore counts the characters of s that start before byte offset b.
func charsBefore(s string, b int) int {
	n := 0
	for i := 0; i < b; i += graphemeLen(s[i:]) {
		n++
	}
	return n
}

// scanned counts the work of a Go loop over n bytes of text: a step per
// 64 bytes, so that long texts reach the run's checkpoints.
func (th *thread) scanned(n int) error { return th.ticks(n >> 6) }

func strReplace(th *thread, a []Value, n int) (Value, error) {
	name := "replace"
	if n == 1 {
		name = "replace-first"
	}
	s, err := th.textArg(name, a, 0)
	if err != nil {
		return nil, err
	}
	switch m := a[1].(type) {
	case string:
		r, ok := a[2].(string)
		if !ok {
			return nil, argError(name, 2, "a replacement string", a[2])
		}
		if err := th.scanned(len(s)); err != nil {
			return nil, err
		}
		// Charge the result before building it: replacements can multiply
		// a string's length.
		count := strings.Count(s, m)
		if n >= 0 {
			count = min(count, n)
		}
		if err := th.chargeString(len(s) + count*max(len(r)-len(m), 0)); err != nil {
			return nil, err
		}
		return strings.Replace(s, m, r, n), nil
	case *Regex:
		r := a[2]
		repl, literal := r.(string)
		if !literal && !isCallable(r) {
			return nil, argError(name, 2, "a replacement string or function", a[2])
		}
		var sb strings.Builder
		last := 0
		err := th.eachMatch(m, s, n, func(idx []int) error {
			var rs string
			size := 0
			if literal {
				var err error
				if size, err = expandJava(nil, m, repl, s, idx); err != nil {
					return err
				}
			} else {
				v, err := th.call1(r, matchValue(s, idx))
				if err != nil {
					return err
				}
				if rs, err = th.render(v, false); err != nil {
					return err
				}
				size = len(rs)
			}
			// Charged before it is written.
			if err := th.chargeString(idx[0] - last + size); err != nil {
				return err
			}
			sb.WriteString(s[last:idx[0]])
			if literal {
				_, _ = expandJava(&sb, m, repl, s, idx)
			} else {
				sb.WriteString(rs)
			}
			last = idx[1]
			return nil
		})
		if err != nil {
			return nil, err
		}
		if err := th.chargeString(len(s) - last); err != nil {
			return nil, err
		}
		sb.WriteString(s[last:])
		return sb.String(), nil
	}
	return nil, argError(name, 1, "a string or regex to match", a[1])
}

// expandJava writes a Java-style replacement to sb: $1 or ${name} for
// groups, \$ and \\ for literal characters. It returns the length of the
// expansion; with a nil sb it only measures it.
func expandJava(sb *strings.Builder, re *Regex, repl, s string, idx []int) (int, error) {
	size := 0
	write := func(text string) {
		size += len(text)
		if sb != nil {
			sb.WriteString(text)
		}
	}
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '\\' && i+1 < len(repl):
			i++
			write(repl[i : i+1])
		case c == '$' && i+1 < len(repl) && repl[i+1] == '{':
			end := strings.IndexByte(repl[i+2:], '}')
			if end < 0 {
				return size, errorf(InvalidArgument, "replace: named capturing group is missing trailing '}'")
			}
			name := repl[i+2 : i+2+end]
			g := re.groupIndex(name)
			if g < 0 {
				return size, errorf(InvalidArgument, "replace: no group with name {%s}", name)
			}
			i += 2 + end
			if idx[2*g] >= 0 {
				write(s[idx[2*g]:idx[2*g+1]])
			}
		case c == '$' && i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9':
			g := int(repl[i+1] - '0')
			i++
			// Java takes more digits while they still name a group.
			for i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9' {
				ng := g*10 + int(repl[i+1]-'0')
				if 2*ng+1 >= len(idx) {
					break
				}
				g = ng
				i++
			}
			if 2*g+1 >= len(idx) {
				return size, errorf(InvalidArgument, "replace: no group %d in the pattern", g)
			}
			if idx[2*g] >= 0 {
				write(s[idx[2*g]:idx[2*g+1]])
			}
		default:
			write(repl[i : i+1])
		}
	}
	return size, nil
}

// compileRegex compiles a pattern at run time, counting its weight as
// steps and charging it as memory: a program that compiles many large
// patterns runs into its limits.
func (th *thread) compileRegex(pat string) (*Regex, error) {
	re, err := compileRegex(pat)
	if err != nil {
		return nil, err
	}
	if err := th.ticks(re.weight); err != nil {
		return nil, err
	}
	return re, th.charge(int64(re.weight))
}

func (th *thread) regexArgs(fn string, a []Value) (*Regex, string, error) {
	var re *Regex
	switch r := a[0].(type) {
	case *Regex:
		re = r
	case string:
		var err error
		if re, err = th.compileRegex(r); err != nil {
			return nil, "", err
		}
	default:
		return nil, "", argError(fn, 0, "a regex", a[0])
	}
	s, ok := a[1].(string)
	if c, isBuilder := a[1].(*Cell); isBuilder && c.kind == builderCell {
		s, ok = builderText(c), true // a CharSequence
	}
	if !ok {
		if a[1] == nil {
			return nil, "", errorf(TypeError, "%s expects a string to search, got nil", fn)
		}
		return nil, "", argError(fn, 1, "a string", a[1])
	}
	return re, s, nil
}

// matchValue is what re-find and friends return: the match when the pattern
// has no groups, else [match group1 ...] with nil for unmatched groups.
func matchValue(s string, idx []int) Value {
	if idx == nil {
		return nil
	}
	if len(idx) == 2 {
		return s[idx[0]:idx[1]]
	}
	out := make([]Value, len(idx)/2)
	for i := range out {
		if idx[2*i] >= 0 {
			out[i] = s[idx[2*i]:idx[2*i+1]]
		}
	}
	return NewVector(out)
}

// isJavaWhitespace is Java's Character.isWhitespace, which trim, triml,
// trimr and blank? use: Unicode space separators except the no-break ones
// (U+00A0, U+2007, U+202F), line and paragraph separators, and the ASCII
// controls \t \n \v \f \r and U+001C-U+001F. U+0085 is not whitespace.
func isJavaWhitespace(r rune) bool {
	switch {
	case r == ' ' || r >= '\t' && r <= '\r' || r >= 0x1C && r <= 0x1F:
		return true
	case r < 0x1680:
		return false
	case r == 0x1680 || r >= 0x2000 && r <= 0x200A && r != 0x2007 || r == 0x2028 || r == 0x2029 || r == 0x205F || r == 0x3000:
		return true
	}
	return false
}

// javaTrimLeft drops leading Java whitespace (isJavaWhitespace).
func javaTrimLeft(s string) string {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c > ' ' || !isJavaWhitespace(rune(c)) {
				return s[i:]
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isJavaWhitespace(r) {
			return s[i:]
		}
		i += n
	}
	return ""
}

// javaTrimRight drops trailing Java whitespace.
func javaTrimRight(s string) string {
	for j := len(s); j > 0; {
		if c := s[j-1]; c < utf8.RuneSelf {
			if c > ' ' || !isJavaWhitespace(rune(c)) {
				return s[:j]
			}
			j--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s[:j])
		if !isJavaWhitespace(r) {
			return s[:j]
		}
		j -= n
	}
	return ""
}

// strAtom is str's text of the atoms that str renders unlike pr-str, as
// Java's toString does: NaN and the infinities ("NaN", "Infinity",
// "-Infinity") and a regex (its pattern). Inside collections str prints
// them as pr-str does (##Inf, #"a+"), as Clojure does.
func strAtom(v Value) (string, bool) {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN", true
		case math.IsInf(x, 1):
			return "Infinity", true
		case math.IsInf(x, -1):
			return "-Infinity", true
		}
	case *Regex:
		return x.Source, true
	case Class:
		return x.text(), true
	}
	return "", false
}

// transformString returns f(s), a string as long as s or a little longer
// (a case change, a trim): the scan of s and the new string are charged
// before f runs, and whatever it grew by after.
func (th *thread) transformString(s string, f func(string) string) (Value, error) {
	if err := th.scanned(len(s)); err != nil {
		return nil, err
	}
	if err := th.chargeString(len(s)); err != nil {
		return nil, err
	}
	out := f(s)
	return out, th.chargeString(len(out) - len(s))
}
