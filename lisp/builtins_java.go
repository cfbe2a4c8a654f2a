package lisp

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The java.lang calls models write on their first try: String methods as
// (.method s args), and the static helpers of String, Integer, Long,
// Double, Boolean and Character. Each gives Java's result on the value
// model of PTC-Lisp: a character is a one-character string, and indexes
// and lengths count characters as count and subs do (deviation 43), where
// Java counts UTF-16 units; the two agree on text without emoji or
// combining marks. Where Java throws, the error says which exception it
// would be: NumberFormatException is an invalid_argument whose message is
// Java's ("For input string: \"x\""), StringIndexOutOfBoundsException an
// invalid_argument naming the index and the length.

func registerJava(t *builtinTable) {
	registerStringMethods(t)
	registerJavaStatics(t)
	registerJavaNumbers(t)
	registerJavaUtilStatics(t)
	registerMatcher(t)
	registerIterator(t)
}

func registerStringMethods(t *builtinTable) {
	// Methods of one string returning a part of it or a new string.
	method := func(name string, f func(string) string) {
		t.add(name, 1, 1, func(th *thread, a []Value) (Value, error) {
			s, err := stringArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			return th.transformString(s, f)
		})
	}
	// Case changes also take a Locale, as careful Java code passes
	// Locale/ROOT; the locales PTC-Lisp knows are English, whose case
	// rules are the default ones.
	for name, f := range map[string]func(string) string{".toUpperCase": javaUpper, ".toLowerCase": javaLower} {
		t.add(name, 1, 2, func(th *thread, a []Value) (Value, error) {
			s, err := stringArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			if len(a) == 2 && !isLocale(a[1]) {
				return nil, argError(name, 1, "a Locale such as Locale/ROOT", a[1])
			}
			return th.transformString(s, f)
		})
	}
	// String.trim drops the chars <= U+0020 at both ends, unlike strip and
	// clojure.string/trim, which drop Character.isWhitespace.
	method(".trim", func(s string) string { return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }) })
	method(".strip", func(s string) string { return javaTrimRight(javaTrimLeft(s)) })
	method(".stripLeading", javaTrimLeft)
	method(".stripTrailing", javaTrimRight)
	t.add(".isBlank", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg(".isBlank", a, 0)
		if err != nil {
			return nil, err
		}
		return javaTrimLeft(s) == "", th.scanned(len(s))
	})
	t.add(".length", 1, 1, func(th *thread, a []Value) (Value, error) {
		if v, ok := a[0].(*Vector); ok { // Clojure's vectors have length()
			return int64(v.Len()), nil
		}
		s, err := stringArg(".length", a, 0)
		if err != nil {
			return nil, err
		}
		return int64(graphemeCount(s)), th.scanned(len(s))
	})
	t.add(".isEmpty", 1, 1, func(_ *thread, a []Value) (Value, error) {
		// String.isEmpty and Collection.isEmpty (Clojure's collections are
		// Java collections).
		switch x := a[0].(type) {
		case string:
			return x == "", nil
		case *Vector:
			return x.Len() == 0, nil
		case *Map:
			return x.Len() == 0, nil
		case *Set:
			return x.Len() == 0, nil
		}
		return nil, argError(".isEmpty", 0, "a string or a collection", a[0])
	})
	t.add(".size", 1, 1, func(_ *thread, a []Value) (Value, error) {
		switch x := a[0].(type) {
		case *Vector:
			return int64(x.Len()), nil
		case *Map:
			return int64(x.Len()), nil
		case *Set:
			return int64(x.Len()), nil
		}
		return nil, argError(".size", 0, "a collection (for a string use (count s) or (.length s))", a[0])
	})
	registerJavaCollections(t)
	registerJavaUtil(t)
	t.add(".toString", 1, 1, func(th *thread, a []Value) (Value, error) {
		if a[0] == nil {
			return nil, classError(TypeError, classNullPointer, ".toString of nil (a NullPointerException in Java): use (str x), which gives \"\" for nil")
		}
		s, err := th.render(a[0], false)
		if err != nil {
			return nil, err
		}
		return s, th.chargeString(len(s))
	})
	// Prefix, suffix and substring tests; startsWith takes an offset too.
	t.add(".startsWith", 2, 3, func(th *thread, a []Value) (Value, error) {
		s, x, err := twoStrings(".startsWith", a)
		if err != nil {
			return nil, err
		}
		if len(a) == 3 {
			off, err := intArg(".startsWith", a, 2)
			if err != nil {
				return nil, err
			}
			if off < 0 || off > int64(graphemeCount(s)) {
				return false, nil
			}
			from := charOffset(s, 0, off)
			s = s[from:]
		}
		return strings.HasPrefix(s, x), th.scanned(len(x))
	})
	t.add(".endsWith", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, x, err := twoStrings(".endsWith", a)
		if err != nil {
			return nil, err
		}
		return strings.HasSuffix(s, x), th.scanned(len(x))
	})
	t.add(".contains", 2, 2, func(th *thread, a []Value) (Value, error) {
		// String.contains, and Collection.contains on Clojure's vectors
		// and sets.
		switch c := a[0].(type) {
		case *Vector:
			for _, x := range c.items {
				if err := th.tick(); err != nil {
					return nil, err
				}
				if th.equal(x, a[1]) {
					return true, nil
				}
			}
			return false, nil
		case *Set:
			return c.Has(a[1]), nil
		}
		s, x, err := twoStrings(".contains", a)
		if err != nil {
			return nil, err
		}
		return strings.Contains(s, x), th.scanned(len(s))
	})
	t.add(".indexOf", 2, 3, func(th *thread, a []Value) (Value, error) { return th.javaIndexOf(a, false) })
	t.add(".lastIndexOf", 2, 3, func(th *thread, a []Value) (Value, error) { return th.javaIndexOf(a, true) })
	t.add(".substring", 2, 3, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg(".substring", a, 0)
		if err != nil {
			return nil, err
		}
		begin, err := intArg(".substring", a, 1)
		if err != nil {
			return nil, err
		}
		n := int64(graphemeCount(s))
		end := n
		if len(a) == 3 {
			if end, err = intArg(".substring", a, 2); err != nil {
				return nil, err
			}
		}
		if begin < 0 || end > n || begin > end {
			return nil, classError(InvalidArgument, classStringIndex,
				".substring: begin %d, end %d, length %d (StringIndexOutOfBoundsException): indexes go from 0 to the length, begin <= end; (subs s start end) works the same way",
				begin, end, n)
		}
		from := charOffset(s, 0, begin)
		to := charOffset(s, from, end-begin)
		return s[from:to], th.scanned(to)
	})
	t.add(".charAt", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg(".charAt", a, 0)
		if err != nil {
			return nil, err
		}
		i, err := intArg(".charAt", a, 1)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			from := charOffset(s, 0, i)
			if from < len(s) {
				return s[from : from+graphemeLen(s[from:])], th.scanned(from)
			}
		}
		return nil, classError(InvalidArgument, classStringIndex, ".charAt: index %d, length %d (StringIndexOutOfBoundsException)", i, graphemeCount(s))
	})
	t.add(".concat", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, x, err := twoStrings(".concat", a)
		if err != nil {
			return nil, err
		}
		return s + x, th.chargeString(len(s) + len(x))
	})
	t.add(".repeat", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg(".repeat", a, 0)
		if err != nil {
			return nil, err
		}
		n, err := intArg(".repeat", a, 1)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, errorf(InvalidArgument, ".repeat: count is negative: %d (IllegalArgumentException)", n)
		}
		if s == "" || n == 0 {
			return "", nil
		}
		if n > maxCharge/int64(len(s)) {
			return nil, th.charge(maxCharge + 1)
		}
		if err := th.chargeString(int(n) * len(s)); err != nil {
			return nil, err
		}
		return strings.Repeat(s, int(n)), nil
	})
	t.add(".toCharArray", 1, 1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg(".toCharArray", a, 0)
		if err != nil {
			return nil, err
		}
		xs, err := th.items(s, ".toCharArray")
		if err != nil {
			return nil, err
		}
		return th.newArray("C", xs) // a char[], as Java's: Arrays/sort, aset, (String. a)
	})
	t.add(".replace", 3, 3, func(th *thread, a []Value) (Value, error) {
		// String.replace(char, char) and replace(CharSequence,
		// CharSequence): literal, every occurrence.
		s, err := stringArg(".replace", a, 0)
		if err != nil {
			return nil, err
		}
		target, err := stringArg(".replace", a, 1)
		if err != nil {
			return nil, err
		}
		repl, err := stringArg(".replace", a, 2)
		if err != nil {
			return nil, err
		}
		if err := th.scanned(len(s)); err != nil {
			return nil, err
		}
		if target == "" {
			// Java inserts the replacement before every character and at
			// the end.
			n := graphemeCount(s) + 1
			if err := th.chargeString(len(s) + n*len(repl)); err != nil {
				return nil, err
			}
			var sb strings.Builder
			for i := 0; i < len(s); {
				g := graphemeLen(s[i:])
				sb.WriteString(repl)
				sb.WriteString(s[i : i+g])
				i += g
			}
			sb.WriteString(repl)
			return sb.String(), nil
		}
		count := strings.Count(s, target)
		if err := th.chargeString(len(s) + count*max(len(repl)-len(target), 0)); err != nil {
			return nil, err
		}
		return strings.ReplaceAll(s, target, repl), nil
	})
	// replaceAll, replaceFirst, matches and split read their pattern as a
	// Java regex, with the replacement's $1 and \$ as Java's Matcher.
	regexMethod := func(name string, f func(th *thread, s string, re *Regex, rest []Value) (Value, error), min, max int) {
		t.add(name, min, max, func(th *thread, a []Value) (Value, error) {
			if re, ok := a[0].(*Regex); ok && name == ".split" {
				// (.split pattern s), java.util.regex.Pattern's split.
				a = append([]Value{a[1], re}, a[2:]...)
			}
			s, err := stringArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			var re *Regex
			switch p := a[1].(type) {
			case string:
				if re, err = th.compileRegex(p); err != nil {
					return nil, err
				}
			case *Regex:
				re = p
			default:
				return nil, argError(name, 1, "a regex string", a[1])
			}
			return f(th, s, re, a[2:])
		})
	}
	replaceWith := func(n int) func(th *thread, s string, re *Regex, rest []Value) (Value, error) {
		return func(th *thread, s string, re *Regex, rest []Value) (Value, error) {
			if _, ok := rest[0].(string); !ok {
				return nil, argError(".replaceAll", 2, "a replacement string", rest[0])
			}
			return strReplace(th, []Value{s, re, rest[0]}, n)
		}
	}
	regexMethod(".replaceAll", replaceWith(-1), 3, 3)
	regexMethod(".replaceFirst", replaceWith(1), 3, 3)
	regexMethod(".matches", func(th *thread, s string, re *Regex, _ []Value) (Value, error) {
		m, err := th.findFirst(re, s, true)
		return m != nil, err
	}, 2, 2)
	regexMethod(".split", func(th *thread, s string, re *Regex, rest []Value) (Value, error) {
		args := []Value{s, re}
		if len(rest) == 1 {
			args = append(args, rest[0])
		}
		return strSplit(th, args)
	}, 2, 3)
	t.add(".codePointAt", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg(".codePointAt", a, 0)
		if err != nil {
			return nil, err
		}
		c, err := th.call(t.names["nth"].(*Builtin), []Value{s, a[1]}) // at call time: the table is whole
		if err != nil {
			return nil, err
		}
		r, err := charArg(".codePointAt", []Value{c}, 0)
		if err != nil {
			return nil, classError(InvalidArgument, classStringIndex, ".codePointAt: index %s is outside the string", brief(a[1]))
		}
		return int64(r), nil
	})
	t.add(".equals", 2, 2, func(th *thread, a []Value) (Value, error) {
		// Object.equals: of the same type and equal, so (.equals 1 1.0)
		// is false where (= 1 1.0) is true.
		return strictEqual(th, a[0], a[1]), nil
	})
	t.add(".equalsIgnoreCase", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, ok := a[0].(string)
		if !ok {
			return nil, argError(".equalsIgnoreCase", 0, "a string", a[0])
		}
		x, ok := a[1].(string)
		if !ok {
			return false, nil // Java: false for null and non-strings
		}
		return equalsIgnoreCase(s, x), th.scanned(len(s))
	})
	t.add(".compareTo", 2, 2, func(th *thread, a []Value) (Value, error) { return javaCompareTo(th, a) })
	t.add(".compareToIgnoreCase", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, x, err := twoStrings(".compareToIgnoreCase", a)
		if err != nil {
			return nil, err
		}
		return compareUTF16(foldJavaCase(s), foldJavaCase(x)), th.scanned(len(s) + len(x))
	})
	t.add(".hashCode", 1, 1, func(th *thread, a []Value) (Value, error) {
		h, ok, err := javaHashCode(th, a[0])
		if !ok {
			return nil, argError(".hashCode", 0, "a string, an integer or a boolean (Java's hash of other values is not defined here; use hash)", a[0])
		}
		return h, err
	})
}

// twoStrings reads the string receiver and the string argument of a
// String method.
func twoStrings(fn string, a []Value) (string, string, error) {
	s, err := stringArg(fn, a, 0)
	if err != nil {
		return "", "", err
	}
	x, err := stringArg(fn, a, 1)
	if err != nil {
		return "", "", err
	}
	return s, x, nil
}

// javaIndexOf is String.indexOf and lastIndexOf (of a string, a character
// or a code point, from an optional index) and List.indexOf on vectors:
// -1 when absent, where index-of gives nil.
func (th *thread) javaIndexOf(a []Value, last bool) (Value, error) {
	name := ".indexOf"
	if last {
		name = ".lastIndexOf"
	}
	if v, ok := a[0].(*Vector); ok && len(a) == 2 {
		n := v.Len()
		for j := range n {
			i := j
			if last {
				i = n - 1 - j
			}
			if err := th.tick(); err != nil {
				return nil, err
			}
			if th.equal(v.items[i], a[1]) {
				return int64(i), nil
			}
		}
		return int64(-1), nil
	}
	if _, ok := a[0].(string); !ok {
		return nil, argError(name, 0, "a string (or a vector)", a[0])
	}
	args := append([]Value(nil), a...)
	switch x := a[1].(type) {
	case string:
	case int64: // a code point, as Java's indexOf(int ch)
		if x < 0 || x > unicode.MaxRune {
			return int64(-1), nil
		}
		args[1] = string(rune(x))
	default:
		return nil, argError(name, 1, "a string or a character", a[1])
	}
	if len(a) == 3 {
		if _, err := intArg(name, a, 2); err != nil {
			return nil, err
		}
	}
	r, err := th.indexOf(args, last)
	if r == nil && err == nil {
		return int64(-1), nil
	}
	return r, err
}

// strictEqual is Java's equals on the value model: numbers of one type
// (1 and 1.0 differ), and collections whose elements are so equal.
func strictEqual(th *thread, a, b Value) bool {
	if isNumber(a) || isNumber(b) {
		switch x := a.(type) {
		case int64:
			y, ok := b.(int64)
			return ok && x == y
		case float64:
			y, ok := b.(float64)
			// Double.equals: NaN equals NaN, 0.0 is not -0.0.
			return ok && math.Float64bits(x) == math.Float64bits(y)
		case *Decimal:
			// BigDecimal.equals: the value and the scale (1.0M is not 1M).
			y, ok := b.(*Decimal)
			return ok && x.scale == y.scale && x.unscaled.Cmp(y.unscaled) == 0
		case *big.Int:
			y, ok := b.(*big.Int)
			return ok && x.Cmp(y) == 0
		}
		return false
	}
	if rank(a) != rank(b) {
		return false
	}
	w := walk{th: th}
	r := compareValues(a, b, true, 0, &w) == 0
	w.done()
	return r
}

// equalsIgnoreCase is String.equalsIgnoreCase: the same length, and each
// pair of chars equal, or equal once both are upper-cased, or lower-cased
// after that.
func equalsIgnoreCase(s, x string) bool {
	if utf8.RuneCountInString(s) != utf8.RuneCountInString(x) {
		return false
	}
	for len(s) > 0 {
		r1, n1 := utf8.DecodeRuneInString(s)
		r2, n2 := utf8.DecodeRuneInString(x)
		s, x = s[n1:], x[n2:]
		if r1 == r2 {
			continue
		}
		u1, u2 := unicode.ToUpper(r1), unicode.ToUpper(r2)
		if u1 != u2 && unicode.ToLower(u1) != unicode.ToLower(u2) {
			return false
		}
	}
	return true
}

// compareUTF16 is String.compareTo: the difference of the first differing
// UTF-16 units, else of the lengths.
func compareUTF16(s, x string) int64 {
	a, b := utf16.Encode([]rune(s)), utf16.Encode([]rune(x))
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int64(a[i]) - int64(b[i])
		}
	}
	return int64(len(a)) - int64(len(b))
}

// javaCompareTo is Comparable.compareTo of strings (Java's difference of
// chars or lengths, not -1/0/1), numbers of one type, keywords (by
// namespace, then name, as Clojure's Keyword) and booleans.
func javaCompareTo(th *thread, a []Value) (Value, error) {
	if c, ok := javaTimeCompare(a[0], a[1]); ok {
		return c, nil
	}
	switch x := a[0].(type) {
	case string:
		y, ok := a[1].(string)
		if !ok {
			return nil, argError(".compareTo", 1, "a string, as the first", a[1])
		}
		return compareUTF16(x, y), th.scanned(len(x) + len(y))
	case int64:
		if y, ok := a[1].(int64); ok {
			return int64(cmpInt64(x, y)), nil
		}
		return nil, argError(".compareTo", 1, "an integer, as the first (Long.compareTo)", a[1])
	case float64:
		if y, ok := a[1].(float64); ok {
			return int64(javaDoubleCompare(x, y)), nil
		}
		return nil, argError(".compareTo", 1, "a float, as the first (Double.compareTo)", a[1])
	case *Decimal:
		// BigDecimal.compareTo: by value, 1.0M and 1M equal.
		if y, ok := decimalOf(a[1]); ok {
			return int64(x.cmp(y)), nil
		}
		return nil, argError(".compareTo", 1, "a BigDecimal, as the first", a[1])
	case bool:
		if y, ok := a[1].(bool); ok {
			switch {
			case x == y:
				return int64(0), nil
			case x:
				return int64(1), nil
			}
			return int64(-1), nil
		}
	case Keyword:
		if y, ok := a[1].(Keyword); ok {
			nsx, namex := splitKeyword(x)
			nsy, namey := splitKeyword(y)
			return compareNamed(nsx, namex, nsy, namey), nil
		}
	case Symbol:
		if y, ok := a[1].(Symbol); ok {
			return compareNamed(x.Ns, x.Name, y.Ns, y.Name), nil
		}
	}
	return nil, argError(".compareTo", 0, "a string, number, keyword or boolean, with another of its type", a[0])
}

func splitKeyword(k Keyword) (ns, name string) {
	s := string(k)
	if i := strings.IndexByte(s, '/'); i > 0 && i < len(s)-1 {
		return s[:i], s[i+1:]
	}
	return "", s
}

// javaDoubleCompare is Double.compare: -0.0 before 0.0, NaN after
// everything and equal to itself.
func javaDoubleCompare(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	bx, by := int64(math.Float64bits(x)), int64(math.Float64bits(y))
	if math.IsNaN(x) {
		bx = int64(math.Float64bits(math.NaN()))
	}
	if math.IsNaN(y) {
		by = int64(math.Float64bits(math.NaN()))
	}
	return cmpInt64(bx, by)
}

func registerJavaStatics(t *builtinTable) {
	t.add("String/join", 2, -1, func(th *thread, a []Value) (Value, error) {
		// String.join(delimiter, elements) and the varargs form
		// (String/join "," "a" "b"), which Clojure cannot call but javac can.
		sep, err := stringArg("String/join", a, 0)
		if err != nil {
			return nil, err
		}
		parts := a[1:]
		if len(a) == 2 {
			if _, ok := a[1].(string); !ok {
				if parts, err = th.items(a[1], "String/join"); err != nil {
					return nil, err
				}
			}
		}
		var sb strings.Builder
		for i, x := range parts {
			s, err := th.render(x, false)
			if err != nil {
				return nil, err
			}
			if x == nil {
				s = "null"
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
	})
	t.add("String/valueOf", 1, 3, func(th *thread, a []Value) (Value, error) {
		if s, ok, err := th.charsText("String/valueOf", a); ok || err != nil {
			return s, err // String.valueOf(char[]), and of a range of one
		}
		if len(a) > 1 {
			return nil, argError("String/valueOf", 0, "a char array, with an offset and a count", a[0])
		}
		if a[0] == nil {
			return "null", nil // String.valueOf(Object)
		}
		s, err := th.render(a[0], false)
		if err != nil {
			return nil, err
		}
		return s, th.chargeString(len(s))
	})
	t.add("String/copyValueOf", 1, 3, func(th *thread, a []Value) (Value, error) {
		if s, ok, err := th.charsText("String/copyValueOf", a); ok || err != nil {
			return s, err
		}
		return nil, argError("String/copyValueOf", 0, "a char array", a[0])
	})
	t.add(".getBytes", 1, 2, func(th *thread, a []Value) (Value, error) {
		// String.getBytes: its UTF-8 bytes, signed as Java's bytes are.
		s, err := stringArg(".getBytes", a, 0)
		if err != nil {
			return nil, err
		}
		if len(a) == 2 {
			cs, ok := a[1].(string)
			if !ok || !strings.EqualFold(strings.ReplaceAll(cs, "-", ""), "utf8") {
				return nil, argError(".getBytes", 1, `the charset "UTF-8"`, a[1])
			}
		}
		xs := make([]Value, len(s))
		for i := 0; i < len(s); i++ {
			xs[i] = int64(int8(s[i]))
		}
		return th.newArray("B", xs)
	})
	// The String constructors: (String.) is "", (String. s) a copy of a
	// string or a StringBuilder's text, (String. chars) and (String. chars
	// offset count) the characters of a char array, (String. bytes) and
	// (String. bytes "UTF-8") the UTF-8 text of a byte array.
	t.add("String.", 0, 3, func(th *thread, a []Value) (Value, error) {
		if len(a) == 0 {
			return "", nil
		}
		if s, ok, err := th.charsText("String.", a); ok || err != nil {
			return s, err
		}
		switch x := a[0].(type) {
		case string:
			if len(a) == 1 {
				return x, nil
			}
		case *Cell:
			if x.kind == builderCell && len(a) == 1 {
				s := builderText(x)
				return s, th.chargeString(len(s))
			}
			if x.kind == arrayCell && x.load().val.(*arrayData).elem == "B" {
				return th.bytesText(x, a)
			}
		}
		return nil, argError("String.", 0, "a string, a StringBuilder, a char array or a byte array", a[0])
	}, "java.lang.String.")

	// Double's and Float's tests of a value (a long widens to a double, as
	// in Java), and Double.toString.
	floatTest := func(name string, test func(float64) bool) {
		t.add(name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			f, err := floatArg(name, a, 0)
			return test(f), err
		})
	}
	for _, class := range []string{"Double/", "Float/"} {
		floatTest(class+"isNaN", math.IsNaN)
		floatTest(class+"isInfinite", func(f float64) bool { return math.IsInf(f, 0) })
		floatTest(class+"isFinite", func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) })
	}
	t.add("Double/toString", 1, 1, func(th *thread, a []Value) (Value, error) {
		f, err := floatArg("Double/toString", a, 0)
		if err != nil {
			return nil, err
		}
		return th.render(f, false)
	})

	t.set("Integer/MAX_VALUE", int64(math.MaxInt32))
	t.set("Integer/MIN_VALUE", int64(math.MinInt32))
	parseInt := func(name string, bits int) builtinFn {
		return func(_ *thread, a []Value) (Value, error) {
			if a[0] == nil {
				return nil, classError(InvalidArgument, classNumberFormat, "Cannot parse null string: null")
			}
			s, err := stringArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			radix := int64(10)
			if len(a) == 2 {
				if radix, err = intArg(name, a, 1); err != nil {
					return nil, err
				}
			}
			return parseJavaInt(s, radix, bits)
		}
	}
	t.add("Integer/parseInt", 1, 2, parseInt("Integer/parseInt", 32))
	t.add("Integer/valueOf", 1, 2, func(th *thread, a []Value) (Value, error) {
		if n, ok := a[0].(int64); ok && len(a) == 1 {
			return intValue(n)
		}
		return parseInt("Integer/valueOf", 32)(th, a)
	})
	// Long/parseLong and Long/valueOf with a radix: the one-argument forms
	// are in builtins_num.go.
	t.wrap("Long/parseLong", func(old *Builtin) *Builtin {
		return &Builtin{Name: old.Name, MinArgs: 1, MaxArgs: 2, fn: parseInt("Long/parseLong", 64)}
	})
	t.wrap("Long/valueOf", func(old *Builtin) *Builtin {
		return &Builtin{Name: old.Name, MinArgs: 1, MaxArgs: 2, fn: func(th *thread, a []Value) (Value, error) {
			if len(a) == 1 {
				return old.fn(th, a)
			}
			return parseInt("Long/valueOf", 64)(th, a)
		}}
	})
	toString := func(name string, bits int) {
		t.add(name+"/toString", 1, 2, func(_ *thread, a []Value) (Value, error) {
			n, err := intArg(name+"/toString", a, 0)
			if err != nil {
				return nil, err
			}
			if bits == 32 {
				if _, err := intValue(n); err != nil {
					return nil, err
				}
			}
			radix := int64(10)
			if len(a) == 2 {
				if radix, err = intArg(name+"/toString", a, 1); err != nil {
					return nil, err
				}
				if radix < 2 || radix > 36 {
					radix = 10 // Java's rule
				}
			}
			return strconv.FormatInt(n, int(radix)), nil
		})
		for _, f := range []struct {
			name  string
			shift uint
		}{{"toBinaryString", 1}, {"toOctalString", 3}, {"toHexString", 4}} {
			t.add(name+"/"+f.name, 1, 1, func(_ *thread, a []Value) (Value, error) {
				n, err := intArg(name+"/"+f.name, a, 0)
				if err != nil {
					return nil, err
				}
				u := uint64(n)
				if bits == 32 {
					if _, err := intValue(n); err != nil {
						return nil, err
					}
					u = uint64(uint32(n)) // two's complement in 32 bits
				}
				return strconv.FormatUint(u, 1<<f.shift), nil
			})
		}
	}
	toString("Integer", 32)
	toString("Long", 64)

	t.add("Boolean/parseBoolean", 1, 1, func(_ *thread, a []Value) (Value, error) {
		s, ok := a[0].(string)
		return ok && strings.EqualFold(s, "true"), nil
	})
	t.add("Boolean/valueOf", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if b, ok := a[0].(bool); ok {
			return b, nil
		}
		s, ok := a[0].(string)
		return ok && strings.EqualFold(s, "true"), nil
	})

	// The boxing constructors, deprecated in Java but written by models:
	// (Integer. "42") is Integer/valueOf.
	for _, box := range []string{"Integer", "Long", "Double", "Boolean"} {
		valueOf := box + "/valueOf"
		t.add(box+".", 1, 1, func(th *thread, a []Value) (Value, error) {
			return t.names[valueOf].(*Builtin).fn(th, a) // at call time: the table is whole
		}, "java.lang."+box+".")
	}

	charPred := func(name string, f func(rune) bool) {
		t.add("Character/"+name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			r, err := charArg("Character/"+name, a, 0)
			if err != nil {
				return nil, err
			}
			return f(r), nil
		})
	}
	charPred("isDigit", func(r rune) bool { return unicode.Is(unicode.Nd, r) })
	charPred("isLetter", unicode.IsLetter)
	charPred("isLetterOrDigit", func(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.Nd, r) })
	charPred("isAlphabetic", func(r rune) bool {
		return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r)
	})
	charPred("isWhitespace", isJavaWhitespace)
	charPred("isSpaceChar", func(r rune) bool { return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) })
	charPred("isUpperCase", func(r rune) bool { return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r) })
	charPred("isLowerCase", func(r rune) bool { return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r) })
	charMap := func(name string, f func(rune) rune) {
		t.add("Character/"+name, 1, 1, func(_ *thread, a []Value) (Value, error) {
			r, err := charArg("Character/"+name, a, 0)
			if err != nil {
				return nil, err
			}
			if _, isCode := a[0].(int64); isCode {
				return int64(f(r)), nil // Character.toUpperCase(int) returns a code point
			}
			return string(f(r)), nil
		})
	}
	charMap("toUpperCase", unicode.ToUpper)
	charMap("toLowerCase", unicode.ToLower)
	// Character/toString and Character/valueOf: the character itself (a
	// one-character string), also from a code point.
	t.add("Character/toString", 1, 1, func(_ *thread, a []Value) (Value, error) {
		r, err := charArg("Character/toString", a, 0)
		if err != nil {
			return nil, err
		}
		if s, ok := a[0].(string); ok {
			return s, nil
		}
		return string(r), nil
	}, "Character/valueOf")
	t.add("Character/getNumericValue", 1, 1, func(_ *thread, a []Value) (Value, error) {
		r, err := charArg("Character/getNumericValue", a, 0)
		if err != nil {
			return nil, err
		}
		return int64(javaDigit(r, 36)), nil
	})
	t.add("Character/digit", 2, 2, func(_ *thread, a []Value) (Value, error) {
		r, err := charArg("Character/digit", a, 0)
		if err != nil {
			return nil, err
		}
		radix, err := intArg("Character/digit", a, 1)
		if err != nil {
			return nil, err
		}
		if radix < 2 || radix > 36 {
			return int64(-1), nil
		}
		return int64(javaDigit(r, int(radix))), nil
	})
	// Character/forDigit is the digit character of a value in a radix,
	// lower-case, or the character 0 of code 0 when there is none (Java's
	// '\u0000').
	t.add("Character/forDigit", 2, 2, func(_ *thread, a []Value) (Value, error) {
		d, err := intArg("Character/forDigit", a, 0)
		if err != nil {
			return nil, err
		}
		radix, err := intArg("Character/forDigit", a, 1)
		if err != nil {
			return nil, err
		}
		if radix < 2 || radix > 36 || d < 0 || d >= radix {
			return "\x00", nil
		}
		return strconv.FormatInt(d, 36), nil
	})
}

// charArg reads a character: a one-character string, or a code point as
// Java's int overloads take.
func charArg(fn string, a []Value, i int) (rune, error) {
	switch x := a[i].(type) {
	case string:
		if x != "" && graphemeLen(x) == len(x) {
			r, _ := utf8.DecodeRuneInString(x)
			return r, nil
		}
	case int64:
		if x >= 0 && x <= unicode.MaxRune {
			return rune(x), nil
		}
	}
	return 0, argError(fn, i, "a character", a[i])
}

// javaDigit is Character.digit: the value of r as a digit of radix, or -1.
// Decimal digits of any script count, and Latin letters (ASCII or
// fullwidth) are 10 to 35.
func javaDigit(r rune, radix int) int {
	d := -1
	switch {
	case r >= '0' && r <= '9':
		d = int(r - '0')
	case r >= 'a' && r <= 'z':
		d = int(r-'a') + 10
	case r >= 'A' && r <= 'Z':
		d = int(r-'A') + 10
	case r >= 0xFF21 && r <= 0xFF3A: // fullwidth A-Z
		d = int(r-0xFF21) + 10
	case r >= 0xFF41 && r <= 0xFF5A: // fullwidth a-z
		d = int(r-0xFF41) + 10
	case unicode.Is(unicode.Nd, r):
		zero := r
		for unicode.Is(unicode.Nd, zero-1) {
			zero--
		}
		d = int(r-zero) % 10
	}
	if d >= radix {
		return -1
	}
	return d
}

// parseJavaInt is Integer.parseInt (bits 32) and Long.parseLong (64): an
// optional sign and digits of radix, no spaces, in range; anything else is
// Java's NumberFormatException.
func parseJavaInt(s string, radix int64, bits int) (Value, error) {
	if radix < 2 {
		return nil, errorf(InvalidArgument, "radix %d less than Character.MIN_RADIX", radix)
	}
	if radix > 36 {
		return nil, errorf(InvalidArgument, "radix %d greater than Character.MAX_RADIX", radix)
	}
	bad := func() (Value, error) {
		msg := "For input string: \"" + s + "\""
		if len(s) > 200 {
			msg = "For input string: " + quoteShort(s)
		}
		if radix != 10 {
			msg += " under radix " + strconv.FormatInt(radix, 10)
		}
		return nil, classError(InvalidArgument, classNumberFormat, "%s", msg)
	}
	body, neg := s, false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg, body = body[0] == '-', body[1:]
	}
	if body == "" {
		return bad()
	}
	// Java's loop: accumulate negatively, so that the minimum fits, and
	// check before each multiplication and subtraction.
	limit := -int64(math.MaxInt64)
	if bits == 32 {
		limit = -math.MaxInt32
	}
	if neg {
		limit--
	}
	multmin := limit / radix
	var n int64
	for _, r := range body {
		d := -1
		if r <= 0xFFFF { // Java reads chars: a supplementary digit is two non-digits
			d = javaDigit(r, int(radix))
		}
		if d < 0 || n < multmin {
			return bad()
		}
		n *= radix
		if n < limit+int64(d) {
			return bad()
		}
		n -= int64(d)
	}
	if !neg {
		n = -n
	}
	return n, nil
}

// intValue checks that n fits Java's int, as Clojure's coercion of a long
// to an int argument does (an ArithmeticException there).
func intValue(n int64) (Value, error) {
	if n < math.MinInt32 || n > math.MaxInt32 {
		return nil, classError(ArithmeticError, classArithmetic, "integer overflow: %d does not fit Java's int (32 bits)", n)
	}
	return n, nil
}

// numberFormatError is Java's NumberFormatException for a string that
// Long.parseLong or Double.parseDouble (what: "a number") cannot read,
// with Java's message, so that a program that catches it sees what Java
// says.
func numberFormatError(s, what string) *Error {
	if what == "a number" && strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }) == "" {
		return classError(InvalidArgument, classNumberFormat, "empty String")
	}
	if len(s) > 200 {
		return classError(InvalidArgument, classNumberFormat, "For input string: %s", quoteShort(s))
	}
	return classError(InvalidArgument, classNumberFormat, "For input string: \"%s\"", s)
}

// registerJavaCollections adds the java.util.Map and java.util.List
// methods models call on Clojure's collections, which implement those
// interfaces: .get (a map's value, a list's element by index), .getOrDefault,
// .containsKey, .containsValue, .keySet and .values. A map finds a key as
// get does (:city for "city" too, as everywhere in PTC-Lisp).
func registerJavaCollections(t *builtinTable) {
	builtin := func(name string) builtinFn { return t.names[name].(*Builtin).fn } // at call time: the table is whole
	nilTarget := func(name string) error {
		return classError(TypeError, classNullPointer, "%s of nil (a NullPointerException in Java)", name)
	}
	mapTarget := func(name string, v Value) (*Map, error) {
		switch m := v.(type) {
		case *Map:
			return m, nil
		case nil:
			return nil, nilTarget(name)
		}
		return nil, argError(name, 0, "a map", v)
	}
	t.add(".get", 2, 2, func(th *thread, a []Value) (Value, error) {
		switch c := a[0].(type) {
		case *Vector:
			i, err := intArg(".get", a, 1)
			if err != nil {
				return nil, err
			}
			if i < 0 || i >= int64(c.Len()) {
				return nil, classError(InvalidArgument, classIndexOutOfBound, "Index %d out of bounds for length %d", i, c.Len())
			}
			return c.items[i], nil
		case *Map:
			return builtin("get")(th, a)
		case nil:
			return nil, nilTarget(".get")
		}
		return nil, argError(".get", 0, "a map or a vector (for a string use (nth s i) or (.charAt s i))", a[0])
	})
	t.add(".getOrDefault", 3, 3, func(_ *thread, a []Value) (Value, error) {
		m, err := mapTarget(".getOrDefault", a[0])
		if err != nil {
			return nil, err
		}
		if _, v, ok := m.Entry(a[1]); ok {
			return v, nil
		}
		return a[2], nil
	})
	t.add(".containsKey", 2, 2, func(th *thread, a []Value) (Value, error) {
		switch a[0].(type) {
		case *Map, *Vector:
			return builtin("contains?")(th, a)
		case nil:
			return nil, nilTarget(".containsKey")
		}
		return nil, argError(".containsKey", 0, "a map", a[0])
	})
	t.add(".containsValue", 2, 2, func(th *thread, a []Value) (Value, error) {
		m, err := mapTarget(".containsValue", a[0])
		if err != nil {
			return nil, err
		}
		for _, v := range m.All() {
			if err := th.tick(); err != nil {
				return nil, err
			}
			if th.equal(v, a[1]) {
				return true, nil
			}
		}
		return false, nil
	})
	t.add(".keySet", 1, 1, func(th *thread, a []Value) (Value, error) {
		m, err := mapTarget(".keySet", a[0])
		if err != nil {
			return nil, err
		}
		if err := th.charge(int64(m.Len())); err != nil {
			return nil, err
		}
		return NewSet(m.Keys()...), nil
	})
	t.add(".entrySet", 1, 1, func(th *thread, a []Value) (Value, error) {
		// A set of the entries, as Clojure's (a java.util.Set): what
		// .getKey and .getValue read.
		m, err := mapTarget(".entrySet", a[0])
		if err != nil {
			return nil, err
		}
		if err := th.charge(3 * int64(m.Len())); err != nil {
			return nil, err
		}
		entries := make([]Value, 0, m.Len())
		for k, v := range m.All() {
			entries = append(entries, NewVector([]Value{k, v}))
		}
		return NewSet(entries...), nil
	})
	t.add(".getKey", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if e, ok := mapEntry(a[0]); ok {
			return e.At(0), nil
		}
		return nil, argError(".getKey", 0, "a map entry, [k v] (from seq, first or .entrySet of a map)", a[0])
	})
	t.add(".values", 1, 1, func(th *thread, a []Value) (Value, error) {
		if _, err := mapTarget(".values", a[0]); err != nil {
			return nil, err
		}
		v, err := builtin("vals")(th, a)
		if v == nil && err == nil {
			return NewList(nil), nil // an empty collection, not nil
		}
		return v, err
	})
}

// registerJavaUtil adds the static helpers of java.util.Arrays and
// java.util.Collections, and Pattern/compile, that models call on their
// first try: on Clojure's collections and on Java arrays.
func registerJavaUtil(t *builtinTable) {
	builtin := func(name string) *Builtin { return t.names[name].(*Builtin) } // at call time: the table is whole
	// Pattern.compile(regex, flags): the flags (Pattern/CASE_INSENSITIVE
	// and its kin, or-ed with bit-or) become the pattern's inline flags.
	patternFlags := []struct {
		name   string
		bit    int64
		inline string
	}{
		{"UNIX_LINES", 1, "d"}, {"CASE_INSENSITIVE", 2, "i"}, {"COMMENTS", 4, "x"}, {"MULTILINE", 8, "m"},
		{"LITERAL", 16, ""}, {"DOTALL", 32, "s"}, {"UNICODE_CASE", 64, "u"}, {"CANON_EQ", 128, ""},
		{"UNICODE_CHARACTER_CLASS", 256, "U"},
	}
	for _, f := range patternFlags {
		t.set("Pattern/"+f.name, f.bit)
	}
	t.add("Pattern/compile", 1, 2, func(th *thread, a []Value) (Value, error) {
		if len(a) == 1 {
			return th.call(builtin("re-pattern"), a)
		}
		src, err := stringArg("Pattern/compile", a, 0)
		if err != nil {
			return nil, err
		}
		bits, err := intArg("Pattern/compile", a, 1)
		if err != nil {
			return nil, err
		}
		inline := ""
		for _, f := range patternFlags {
			if bits&f.bit == 0 {
				continue
			}
			bits &^= f.bit
			if f.bit == 16 { // LITERAL: the pattern is its text
				src = `\Q` + strings.ReplaceAll(src, `\E`, `\E\\E\Q`) + `\E`
			}
			inline += f.inline
		}
		if bits != 0 {
			return nil, errorf(InvalidArgument, "Pattern/compile: unknown flag bits %d", bits)
		}
		if inline != "" {
			src = "(?" + inline + ")" + src
		}
		return th.compileRegex(src)
	})
	t.add("Pattern/matches", 2, 2, func(th *thread, a []Value) (Value, error) {
		m, err := th.call(builtin("re-matches"), a)
		return m != nil, err
	})
	// The methods of a Pattern: .matcher is re-matcher, .pattern its text.
	t.add(".matcher", 2, 2, func(th *thread, a []Value) (Value, error) {
		if _, ok := a[0].(*Regex); !ok {
			return nil, argError(".matcher", 0, "a regex (Pattern/compile, #\"...\")", a[0])
		}
		return th.call(builtin("re-matcher"), a)
	})
	t.add(".pattern", 1, 1, func(_ *thread, a []Value) (Value, error) {
		re, ok := a[0].(*Regex)
		if !ok {
			return nil, argError(".pattern", 0, "a regex", a[0])
		}
		return re.Source, nil
	})
	t.add("Arrays/asList", 0, -1, func(th *thread, a []Value) (Value, error) {
		// One array is the list of its elements (varargs); otherwise the
		// arguments are.
		if len(a) == 1 {
			if c, ok := a[0].(*Cell); ok && c.kind == arrayCell {
				xs, err := th.arrayItems(c)
				if err != nil {
					return nil, err
				}
				return NewVector(xs), nil
			}
		}
		return th.vector(append([]Value(nil), a...))
	})
	t.add("Arrays/toString", 1, 1, func(th *thread, a []Value) (Value, error) {
		if a[0] == nil {
			return "null", nil
		}
		xs, err := th.items(a[0], "Arrays/toString")
		if err != nil {
			return nil, err
		}
		var sb strings.Builder
		sb.WriteByte('[')
		for i, x := range xs {
			if i > 0 {
				sb.WriteString(", ")
			}
			part := "null"
			if x != nil {
				var err error
				if part, err = th.render(x, false); err != nil { // str's text, charged
					return nil, err
				}
			}
			if err := th.chargeString(len(part) + 2); err != nil {
				return nil, err
			}
			sb.WriteString(part)
		}
		sb.WriteByte(']')
		return sb.String(), nil
	})
	// Arrays/deepToString: arrays inside the array written as their
	// contents, as Java's; an array inside itself is [...].
	t.add("Arrays/deepToString", 1, 1, func(th *thread, a []Value) (Value, error) {
		if a[0] == nil {
			return "null", nil
		}
		var sb strings.Builder
		onPath := map[*Cell]bool{} // the arrays being written, outermost first
		var write func(c *Cell) error
		write = func(c *Cell) error {
			if len(onPath) >= maxDataDepth {
				return errorf(InvalidArgument, "Arrays/deepToString: arrays nested more than %d deep", maxDataDepth)
			}
			onPath[c] = true
			defer delete(onPath, c)
			var v Value = c
			xs, err := th.items(v, "Arrays/deepToString")
			if err != nil {
				return err
			}
			sb.WriteByte('[')
			for i, x := range xs {
				if i > 0 {
					sb.WriteString(", ")
				}
				if err := th.chargeString(2); err != nil {
					return err
				}
				if x == nil {
					sb.WriteString("null")
					continue
				}
				if xc, ok := x.(*Cell); ok && xc.kind == arrayCell {
					if onPath[xc] {
						sb.WriteString("[...]")
						continue
					}
					if err := write(xc); err != nil {
						return err
					}
					continue
				}
				part, err := th.render(x, false)
				if err != nil {
					return err
				}
				if err := th.chargeString(len(part)); err != nil {
					return err
				}
				sb.WriteString(part)
			}
			sb.WriteByte(']')
			return nil
		}
		c, ok := a[0].(*Cell)
		if !ok || c.kind != arrayCell {
			return nil, argError("Arrays/deepToString", 0, "an array (to-array-2d, object-array ...)", a[0])
		}
		if err := write(c); err != nil {
			return nil, err
		}
		return sb.String(), nil
	})
	// (Arrays/sort a), (Arrays/sort a cmp), (Arrays/sort a from to) and
	// (Arrays/sort a from to cmp): the whole array or [from, to), by the
	// natural order or a comparator (a function, as sort takes one).
	t.add("Arrays/sort", 1, 4, func(th *thread, a []Value) (Value, error) {
		c, ok := a[0].(*Cell)
		if !ok || c.kind != arrayCell {
			return nil, argError("Arrays/sort", 0, "a Java array (for a collection use sort)", a[0])
		}
		xs, err := th.arrayItems(c)
		if err != nil {
			return nil, err
		}
		from, to, cmp := 0, len(xs), Value(nil)
		switch len(a) {
		case 2:
			cmp = a[1]
		case 3, 4:
			if from, to, err = arrayRange("Arrays/sort", a, len(xs)); err != nil {
				return nil, err
			}
			if len(a) == 4 {
				cmp = a[3]
			}
		}
		args := []Value{NewVector(xs[from:to])}
		if cmp != nil {
			args = []Value{cmp, args[0]}
		}
		sorted, err := th.call(builtin("sort"), args)
		if err != nil {
			return nil, err
		}
		out, err := th.items(sorted, "Arrays/sort")
		if err != nil {
			return nil, err
		}
		return nil, th.mutate(c, func(cd cellData) error {
			d := cd.(*arrayData)
			if from+len(out) <= len(d.items) {
				copy(d.items[from:], out)
			}
			return nil
		})
	})
	t.add("Collections/frequency", 2, 2, func(th *thread, a []Value) (Value, error) {
		xs, err := th.items(a[0], "Collections/frequency")
		if err != nil {
			return nil, err
		}
		n := int64(0)
		for _, x := range xs {
			if Equal(x, a[1]) {
				n++
			}
		}
		return n, th.ticks(len(xs))
	})
	// Collections.max and min, by the natural order or by a comparator
	// (a function of two arguments, as sort takes); the first of equals.
	for _, f := range []struct {
		name string
		want int
	}{{"Collections/max", 1}, {"Collections/min", -1}} {
		t.add(f.name, 1, 2, func(th *thread, a []Value) (Value, error) {
			xs, err := th.items(a[0], f.name)
			if err != nil {
				return nil, err
			}
			if len(xs) == 0 {
				return nil, classError(InvalidArgument, classNoSuchElement, "%s of an empty collection", f.name)
			}
			if err := th.ticks(len(xs)); err != nil {
				return nil, err
			}
			cmp := Compare
			if len(a) == 2 && a[1] != nil { // a nil comparator is the natural order, as in Java
				cmp = th.comparatorFn(a[1])
			}
			return guarded(func() (Value, error) {
				best := xs[0]
				for _, x := range xs[1:] {
					if sign(int64(cmp(x, best))) == f.want {
						best = x
					}
				}
				return best, nil
			})
		})
	}
}

// mapEntry reports whether v is a map entry as PTC-Lisp has them: a vector
// of a key and a value (what seq of a map gives).
func mapEntry(v Value) (*Vector, bool) {
	e, ok := v.(*Vector)
	return e, ok && e.Len() == 2
}

// charsText is the text of a char array, a[0], or of the range a[1] (an
// offset) and a[2] (a count) of it: String.valueOf(char[]) and its
// siblings. ok is false when a[0] is no char array.
func (th *thread) charsText(fn string, a []Value) (string, bool, error) {
	c, isCell := a[0].(*Cell)
	if !isCell || c.kind != arrayCell {
		return "", false, nil
	}
	d := c.load().val.(*arrayData)
	if d.elem != "C" {
		return "", false, nil
	}
	xs := d.snapshot()
	if len(a) == 3 {
		off, err := intArg(fn, a, 1)
		if err != nil {
			return "", true, err
		}
		n, err := intArg(fn, a, 2)
		if err != nil {
			return "", true, err
		}
		if off < 0 || n < 0 || off+n > int64(len(xs)) {
			return "", true, classError(InvalidArgument, classStringIndex, "offset %d, count %d, length %d", off, n, len(xs))
		}
		xs = xs[off : off+n]
	} else if len(a) == 2 {
		return "", true, errorf(ArityError, "%s takes a char array, or a char array, an offset and a count", fn)
	}
	var sb strings.Builder
	for _, x := range xs {
		s, _ := x.(string) // a char array holds one-character strings
		sb.WriteString(s)
	}
	return sb.String(), true, th.chargeString(sb.Len())
}

// bytesText is new String(bytes) or new String(bytes, charset): the bytes
// of a byte array a[0] read as UTF-8 (invalid sequences replaced, as Java
// does).
func (th *thread) bytesText(c *Cell, a []Value) (string, error) {
	if len(a) == 2 {
		cs, ok := a[1].(string)
		if !ok || !strings.EqualFold(strings.ReplaceAll(cs, "-", ""), "utf8") {
			return "", argError("String.", 1, `the charset "UTF-8"`, a[1])
		}
	} else if len(a) > 2 {
		return "", errorf(ArityError, "String. takes a byte array and a charset name, \"UTF-8\"")
	}
	xs := c.load().val.(*arrayData).snapshot()
	buf := make([]byte, len(xs))
	for i, x := range xs {
		n, _ := x.(int64)
		buf[i] = byte(n)
	}
	s := strings.ToValidUTF8(string(buf), "\uFFFD")
	return s, th.chargeString(len(s))
}

// compareNamed is Clojure's compareTo of two keywords or symbols: those
// without a namespace first, then by namespace, then by name (UTF-16
// differences, as String.compareTo).
func compareNamed(nsx, namex, nsy, namey string) int64 {
	switch {
	case nsx == nsy:
		return compareUTF16(namex, namey)
	case nsx == "":
		return -1
	case nsy == "":
		return 1
	}
	return compareUTF16(nsx, nsy)
}

// javaHashCode is Java's hashCode of a string (String.hashCode, over UTF-16
// units in 32-bit arithmetic), an integer (Long.hashCode) or a boolean; ok
// is false for other values.
func javaHashCode(th *thread, v Value) (h int64, ok bool, err error) {
	switch x := v.(type) {
	case string:
		var h int32
		for _, r := range x {
			if r >= 0x10000 {
				hi, lo := utf16.EncodeRune(r)
				h = 31*h + hi
				h = 31*h + lo
			} else {
				h = 31*h + r
			}
		}
		return int64(h), true, th.scanned(len(x))
	case int64:
		return int64(int32(uint64(x) ^ uint64(x)>>32)), true, nil
	case bool:
		if x {
			return 1231, true, nil
		}
		return 1237, true, nil
	}
	return 0, false, nil
}
