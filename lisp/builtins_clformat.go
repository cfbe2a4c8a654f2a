package lisp

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// clojure.pprint/cl-format: Common Lisp's format, as models write it for
// reports: ~a ~s ~d (~:d with commas) ~b ~o ~x ~r (numbers in English,
// ordinals, Roman numerals) ~f ~$ ~% ~& ~~ ~p ~c ~* ~[...~] ~{...~} ~^
// ~(...~) and ~ at the end of a line. The directives models rarely write
// (~e ~g ~< ~t ~i ~w ~_ ~?) are refused with an error naming them. The
// output is charged as it grows; every directive counts a step.

// clArgs are the arguments a directive consumes, in order.
type clArgs struct {
	xs  []Value
	pos int
	// scan: the directives are only being looked through (findCLClose),
	// so v and # parameters read nothing.
	scan bool
}

func (a *clArgs) next(dir byte) (Value, error) {
	if a.scan {
		return nil, nil
	}
	if a.pos >= len(a.xs) {
		return nil, errorf(InvalidArgument, "cl-format: ~%c has no argument left", dir)
	}
	a.pos++
	return a.xs[a.pos-1], nil
}

func (a *clArgs) left() int { return len(a.xs) - a.pos }

// clDirective is one ~ directive: its parameters, modifiers and character.
type clDirective struct {
	params      []Value // int64, a one-character string, or nil (omitted)
	colon, at   bool
	char        byte
	start, end  int // the directive's text in the format
	paramsGiven int
}

// clStop ends the processing of a format (or a loop body) at ~^.
type clStop struct{}

func (clStop) Error() string { return "~^" }

type clFormatter struct {
	th    *thread
	out   strings.Builder
	depth int // of ~[ ~{ ~( inside one another, bounded by maxCLDepth
}

// maxCLDepth bounds the nesting of a format's groups: each level is a Go
// call, and a format is program data of any length.
const maxCLDepth = 64

func (f *clFormatter) write(s string) error {
	if err := f.th.chargeString(len(s)); err != nil {
		return err
	}
	f.out.WriteString(s)
	return nil
}

// parse reads the directive at f[i] == '~'.
func parseCLDirective(fmtStr string, i int, args *clArgs) (clDirective, error) {
	d := clDirective{start: i}
	j := i + 1
	for {
		var p Value
		given := false
		switch {
		case j < len(fmtStr) && (fmtStr[j] == '-' || fmtStr[j] == '+' || fmtStr[j] >= '0' && fmtStr[j] <= '9'):
			k := j + 1
			for k < len(fmtStr) && fmtStr[k] >= '0' && fmtStr[k] <= '9' {
				k++
			}
			n, err := strconv.ParseInt(fmtStr[j:k], 10, 64)
			if err != nil {
				return d, errorf(InvalidArgument, "cl-format: parameter %s is not a number", fmtStr[j:k])
			}
			p, given, j = n, true, k
		case j+1 < len(fmtStr) && fmtStr[j] == '\'':
			p, given, j = fmtStr[j+1:j+2], true, j+2
		case j < len(fmtStr) && (fmtStr[j] == 'v' || fmtStr[j] == 'V'):
			v, err := args.next('v')
			if err != nil {
				return d, err
			}
			p, given, j = v, true, j+1
		case j < len(fmtStr) && fmtStr[j] == '#':
			p, given, j = int64(args.left()), true, j+1
		}
		if given {
			d.paramsGiven++
		}
		if j < len(fmtStr) && fmtStr[j] == ',' {
			d.params = append(d.params, p)
			j++
			continue
		}
		if given {
			d.params = append(d.params, p)
		}
		break
	}
	for j < len(fmtStr) && (fmtStr[j] == ':' || fmtStr[j] == '@') {
		if fmtStr[j] == ':' {
			d.colon = true
		} else {
			d.at = true
		}
		j++
	}
	if j >= len(fmtStr) {
		return d, errorf(InvalidArgument, "cl-format: the format ends inside a directive")
	}
	d.char = byte(unicode.ToLower(rune(fmtStr[j])))
	if fmtStr[j] == '\n' {
		d.char = '\n'
	}
	d.end = j + 1
	return d, nil
}

func (d clDirective) intParam(i int, def int64) int64 {
	if i < len(d.params) {
		if n, ok := d.params[i].(int64); ok {
			return n
		}
	}
	return def
}

func (d clDirective) charParam(i int, def string) string {
	if i < len(d.params) {
		if s, ok := d.params[i].(string); ok && s != "" {
			return s
		}
	}
	return def
}

// padTo pads s to mincol characters, on the left when left.
func padTo(s string, mincol int64, padchar string, left bool) string {
	n := int64(len([]rune(s)))
	if mincol <= n || mincol > 1<<20 {
		return s
	}
	fill := strings.Repeat(padchar, int(mincol-n))
	if left {
		return fill + s
	}
	return s + fill
}

// findClose finds the directive that closes the one ending at i (close:
// ']' ')' '}'), and the positions of the ~; separators at its level.
func findCLClose(th *thread, fmtStr string, i int, open, close byte) (seps []clDirective, end clDirective, err error) {
	depth := 0
	for j := i; j < len(fmtStr); j++ {
		if fmtStr[j] != '~' {
			continue
		}
		if err := th.tick(); err != nil {
			return nil, end, err
		}
		d, err := parseCLDirective(fmtStr, j, &clArgs{scan: true})
		if err != nil {
			return nil, d, err
		}
		switch d.char {
		case '[', '{', '(', '<':
			depth++
		case ']', '}', ')', '>':
			if depth == 0 {
				if d.char != close {
					return nil, d, errorf(InvalidArgument, "cl-format: ~%c closes ~%c", d.char, open)
				}
				return seps, d, nil
			}
			depth--
		case ';':
			if depth == 0 {
				seps = append(seps, d)
			}
		}
		j = d.end - 1
	}
	return nil, clDirective{}, errorf(InvalidArgument, "cl-format: ~%c is never closed by ~%c", open, close)
}

// run formats fmtStr with args into f.out.
func (f *clFormatter) run(fmtStr string, args *clArgs) error {
	if f.depth++; f.depth > maxCLDepth {
		return errorf(DepthExceeded, "cl-format: groups nested deeper than %d levels", maxCLDepth)
	}
	defer func() { f.depth-- }()
	for i := 0; i < len(fmtStr); {
		if fmtStr[i] != '~' {
			j := strings.IndexByte(fmtStr[i:], '~')
			if j < 0 {
				j = len(fmtStr) - i
			}
			if err := f.write(fmtStr[i : i+j]); err != nil {
				return err
			}
			i += j
			continue
		}
		if err := f.th.tick(); err != nil {
			return err
		}
		d, err := parseCLDirective(fmtStr, i, args)
		if err != nil {
			return err
		}
		i = d.end
		switch d.char {
		case 'a', 's':
			v, err := args.next(d.char)
			if err != nil {
				return err
			}
			s, err := f.th.render(v, d.char == 's')
			if err != nil {
				return err
			}
			if v == nil && d.char == 'a' {
				s = "nil"
			}
			if err := f.write(padTo(s, d.intParam(0, 0), d.charParam(3, " "), d.at)); err != nil {
				return err
			}
		case 'd', 'b', 'o', 'x':
			v, err := args.next(d.char)
			if err != nil {
				return err
			}
			radix := map[byte]int{'d': 10, 'b': 2, 'o': 8, 'x': 16}[d.char]
			if err := f.write(clInteger(f.th, v, radix, d)); err != nil {
				return err
			}
		case 'r':
			v, err := args.next('r')
			if err != nil {
				return err
			}
			s, err := clRadix(f.th, v, d)
			if err != nil {
				return err
			}
			if err := f.write(s); err != nil {
				return err
			}
		case 'f', '$':
			v, err := args.next(d.char)
			if err != nil {
				return err
			}
			s, err := clFixed(v, d)
			if err != nil {
				return err
			}
			if err := f.write(s); err != nil {
				return err
			}
		case '%', '&', '|', '~':
			n := d.intParam(0, 1)
			if n < 0 || n > 1<<20 {
				return errorf(InvalidArgument, "cl-format: ~%c repeated %d times", d.char, n)
			}
			ch := map[byte]string{'%': "\n", '&': "\n", '|': "\f", '~': "~"}[d.char]
			if d.char == '&' && (f.out.Len() == 0 || strings.HasSuffix(f.out.String(), "\n")) {
				n--
			}
			if n > 0 {
				if err := f.write(strings.Repeat(ch, int(n))); err != nil {
					return err
				}
			}
		case '\n':
			// ~ at the end of a line: the line break and the blanks after it go.
			if d.at {
				if err := f.write("\n"); err != nil {
					return err
				}
			}
			if !d.colon {
				for i < len(fmtStr) && (fmtStr[i] == ' ' || fmtStr[i] == '\t') {
					i++
				}
			}
		case 'p':
			if d.colon {
				if args.pos == 0 {
					return errorf(InvalidArgument, "cl-format: ~:p has no argument before it")
				}
				args.pos--
			}
			v, err := args.next('p')
			if err != nil {
				return err
			}
			one := v == int64(1) || v == 1.0
			s := map[bool]string{true: "", false: "s"}[one]
			if d.at {
				s = map[bool]string{true: "y", false: "ies"}[one]
			}
			if err := f.write(s); err != nil {
				return err
			}
		case 'c':
			v, err := args.next('c')
			if err != nil {
				return err
			}
			s, ok := v.(string)
			if !ok {
				return errorf(TypeError, "cl-format: ~c expects a character, got %s", describe(v))
			}
			if d.at {
				s = `\` + s
			}
			if err := f.write(s); err != nil {
				return err
			}
		case '*':
			n := d.intParam(0, 1)
			switch {
			case d.at:
				args.pos = int(d.intParam(0, 0))
			case d.colon:
				args.pos -= int(n)
			default:
				args.pos += int(n)
			}
			if args.pos < 0 || args.pos > len(args.xs) {
				return errorf(InvalidArgument, "cl-format: ~* moves outside the arguments")
			}
		case '^':
			if args.left() == 0 {
				return clStop{}
			}
		case '[':
			next, err := f.conditional(fmtStr, i, d, args)
			if err != nil {
				return err
			}
			i = next
		case '{':
			next, err := f.iteration(fmtStr, i, d, args)
			if err != nil {
				return err
			}
			i = next
		case '(':
			seps, end, err := findCLClose(f.th, fmtStr, i, '(', ')')
			if err != nil {
				return err
			}
			if len(seps) > 0 {
				return errorf(InvalidArgument, "cl-format: ~; inside ~(")
			}
			inner := &clFormatter{th: f.th, depth: f.depth}
			err = inner.run(fmtStr[i:end.start], args)
			if _, stop := err.(clStop); err != nil && !stop {
				return err
			}
			if werr := f.write(clCase(inner.out.String(), d)); werr != nil {
				return werr
			}
			i = end.end
			if err != nil {
				return err
			}
		default:
			return errorf(InvalidArgument, "cl-format: the directive ~%c is not supported (use ~a ~s ~d ~f ~$ ~r ~%% ~{~} ~[~] ~p, or format)", d.char)
		}
	}
	return nil
}

// conditional is ~[a~;b~] (the clause the integer argument numbers, ~:;
// the default), ~:[false~;true~], and ~@[x~] (x when the argument is
// truthy, which x then consumes).
func (f *clFormatter) conditional(fmtStr string, i int, d clDirective, args *clArgs) (int, error) {
	seps, end, err := findCLClose(f.th, fmtStr, i, '[', ']')
	if err != nil {
		return 0, err
	}
	var clauses []string
	from := i
	dflt := -1
	for _, s := range seps {
		clauses = append(clauses, fmtStr[from:s.start])
		if s.colon {
			dflt = len(clauses)
		}
		from = s.end
	}
	clauses = append(clauses, fmtStr[from:end.start])
	chosen := ""
	switch {
	case d.at:
		if args.left() == 0 {
			return 0, errorf(InvalidArgument, "cl-format: ~@[ has no argument")
		}
		if v := args.xs[args.pos]; v != nil && v != false {
			chosen = clauses[0]
		} else {
			args.pos++
		}
	case d.colon:
		v, err := args.next('[')
		if err != nil {
			return 0, err
		}
		if len(clauses) != 2 {
			return 0, errorf(InvalidArgument, "cl-format: ~:[ takes two clauses, false~;true")
		}
		chosen = clauses[map[bool]int{true: 1, false: 0}[v != nil && v != false]]
	default:
		n := d.intParam(0, -1)
		if n < 0 {
			v, err := args.next('[')
			if err != nil {
				return 0, err
			}
			x, ok := v.(int64)
			if !ok {
				return 0, errorf(TypeError, "cl-format: ~[ expects an integer, got %s", describe(v))
			}
			n = x
		}
		switch {
		case n >= 0 && n < int64(len(clauses)) && !(dflt >= 0 && int(n) >= dflt):
			chosen = clauses[n]
		case dflt >= 0:
			chosen = clauses[dflt]
		}
	}
	if err := f.run(chosen, args); err != nil {
		return 0, err
	}
	return end.end, nil
}

// iteration is ~{body~} over a list, ~:{ over a list of argument lists,
// ~@{ over the remaining arguments, ~:@{ over them as argument lists.
func (f *clFormatter) iteration(fmtStr string, i int, d clDirective, args *clArgs) (int, error) {
	_, end, err := findCLClose(f.th, fmtStr, i, '{', '}')
	if err != nil {
		return 0, err
	}
	body := fmtStr[i:end.start]
	var items []Value
	if d.at {
		items = args.xs[args.pos:]
		args.pos = len(args.xs)
	} else {
		v, err := args.next('{')
		if err != nil {
			return 0, err
		}
		if items, err = f.th.items(v, "cl-format ~{"); err != nil {
			return 0, err
		}
	}
	limit := d.intParam(0, -1)
	if d.colon {
		for n, item := range items {
			if limit >= 0 && int64(n) >= limit {
				break
			}
			sub, err := f.th.items(item, "cl-format ~:{")
			if err != nil {
				return 0, err
			}
			err = f.run(body, &clArgs{xs: sub})
			if _, stop := err.(clStop); err != nil && !stop {
				return 0, err
			}
		}
		return end.end, nil
	}
	inner := &clArgs{xs: items}
	for n := int64(0); inner.left() > 0 && (limit < 0 || n < limit); n++ {
		before := inner.pos
		err := f.run(body, inner)
		if _, stop := err.(clStop); stop {
			break
		}
		if err != nil {
			return 0, err
		}
		if inner.pos == before {
			return 0, errorf(InvalidArgument, "cl-format: the body of ~{ consumes no argument")
		}
	}
	return end.end, nil
}

// clCase is ~( (lower case), ~:( (every word capitalized), ~@( (the
// first word capitalized), ~:@( (upper case).
func clCase(s string, d clDirective) string {
	switch {
	case d.colon && d.at:
		return strings.ToUpper(s)
	case d.colon:
		var sb strings.Builder
		prev := false
		for _, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				if prev {
					sb.WriteRune(unicode.ToLower(r))
				} else {
					sb.WriteRune(unicode.ToUpper(r))
				}
				prev = true
			} else {
				sb.WriteRune(r)
				prev = false
			}
		}
		return sb.String()
	case d.at:
		s = strings.ToLower(s)
		for i, r := range s {
			if unicode.IsLetter(r) {
				return s[:i] + string(unicode.ToUpper(r)) + s[i+len(string(r)):]
			}
		}
		return s
	}
	return strings.ToLower(s)
}

// clInteger is ~d ~b ~o ~x: mincol, padchar, commachar, comma-interval;
// : groups the digits, @ always shows the sign. Not an integer: as ~a.
func clInteger(th *thread, v Value, radix int, d clDirective) string {
	n, ok := v.(int64)
	if !ok {
		s, _ := th.render(v, false)
		return padTo(s, d.intParam(0, 0), " ", true)
	}
	digits := strconv.FormatUint(uint64(absInt(n)), radix)
	if n == math.MinInt64 {
		digits = strings.TrimPrefix(strconv.FormatInt(n, radix), "-")
	}
	if d.colon {
		comma := d.charParam(2, ",")
		every := int(d.intParam(3, 3))
		if every < 1 {
			every = 3
		}
		var sb strings.Builder
		for i, c := range digits {
			if i > 0 && (len(digits)-i)%every == 0 {
				sb.WriteString(comma)
			}
			sb.WriteRune(c)
		}
		digits = sb.String()
	}
	switch {
	case n < 0:
		digits = "-" + digits
	case d.at:
		digits = "+" + digits
	}
	return padTo(digits, d.intParam(0, 0), d.charParam(1, " "), true)
}

// clFixed is ~w,dF and ~d,n,w$ on a number.
func clFixed(v Value, d clDirective) (string, error) {
	x, ok := toFloat(v)
	if !ok {
		return "", errorf(TypeError, "cl-format: ~%c expects a number, got %s", d.char, describe(v))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	var s string
	var width int64
	padchar := " "
	if d.char == '$' {
		digits := d.intParam(0, 2)
		if digits < 0 || digits > 100 {
			return "", errorf(InvalidArgument, "cl-format: ~$ with %d digits", digits)
		}
		s = formatFixed(math.Abs(x), int(digits))
		intPart, frac, _ := strings.Cut(s, ".")
		for minInt := d.intParam(1, 1); int64(len(intPart)) < minInt && minInt <= 100; {
			intPart = "0" + intPart
		}
		s = intPart
		if frac != "" {
			s += "." + frac
		}
		width, padchar = d.intParam(2, 0), d.charParam(3, " ")
	} else {
		width = d.intParam(0, 0)
		if len(d.params) > 1 && d.params[1] != nil {
			digits := d.intParam(1, 0)
			if digits < 0 || digits > 100 {
				return "", errorf(InvalidArgument, "cl-format: ~f with %d digits", digits)
			}
			s = formatFixed(math.Abs(x), int(digits))
			if digits == 0 {
				s += "."
			}
		} else {
			s = strconv.FormatFloat(math.Abs(x), 'f', -1, 64)
			if !strings.Contains(s, ".") {
				s += ".0"
			}
		}
		padchar = d.charParam(4, " ")
	}
	switch {
	case x < 0 || (x == 0 && math.Signbit(x) && s != strings.Repeat("0", len(s))):
		s = "-" + s
	case d.at:
		s = "+" + s
	}
	return padTo(s, width, padchar, true), nil
}

// clRadix is ~r: with a radix parameter, the integer in that radix (~d's
// other parameters following); without, in English words (~:r ordinal)
// or Roman numerals (~@r).
func clRadix(th *thread, v Value, d clDirective) (string, error) {
	n, ok := v.(int64)
	if !ok {
		return "", errorf(TypeError, "cl-format: ~r expects an integer, got %s", describe(v))
	}
	if len(d.params) > 0 && d.params[0] != nil {
		radix := d.intParam(0, 10)
		if radix < 2 || radix > 36 {
			return "", errorf(InvalidArgument, "cl-format: ~r radix %d is not 2-36", radix)
		}
		rest := d
		rest.params = d.params[1:]
		return clInteger(th, n, int(radix), rest), nil
	}
	switch {
	case d.at:
		if n < 1 || n > 3999 {
			return "", errorf(InvalidArgument, "cl-format: ~@r takes 1 to 3999, got %d", n)
		}
		return romanNumeral(n), nil
	case d.colon:
		return englishOrdinal(n), nil
	}
	return englishCardinal(n), nil
}

func romanNumeral(n int64) string {
	vals := []int64{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var sb strings.Builder
	for i, v := range vals {
		for n >= v {
			sb.WriteString(syms[i])
			n -= v
		}
	}
	return sb.String()
}

var (
	englishOnes = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	englishTens   = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	englishScales = []string{"", " thousand", " million", " billion", " trillion", " quadrillion", " quintillion"}
)

// englishCardinal is ~r: 1234 is "one thousand, two hundred thirty-four",
// as Clojure's cl-format writes it.
func englishCardinal(n int64) string {
	if n == 0 {
		return "zero"
	}
	if n < 0 {
		if n == math.MinInt64 {
			return "minus nine quintillion, two hundred twenty-three quadrillion, three hundred seventy-two trillion, thirty-six billion, eight hundred fifty-four million, seven hundred seventy-five thousand, eight hundred eight"
		}
		return "minus " + englishCardinal(-n)
	}
	var parts []string
	for scale := 0; n > 0; scale++ {
		if g := n % 1000; g > 0 {
			parts = append([]string{englishHundreds(g) + englishScales[scale]}, parts...)
		}
		n /= 1000
	}
	return strings.Join(parts, ", ")
}

func englishHundreds(n int64) string {
	var s string
	if n >= 100 {
		s = englishOnes[n/100] + " hundred"
		n %= 100
		if n > 0 {
			s += " "
		}
	}
	switch {
	case n == 0:
	case n < 20:
		s += englishOnes[n]
	default:
		s += englishTens[n/10]
		if n%10 > 0 {
			s += "-" + englishOnes[n%10]
		}
	}
	return s
}

// englishOrdinal is ~:r: "one thousand, two hundred thirty-fourth".
func englishOrdinal(n int64) string {
	s := englishCardinal(n)
	irregular := map[string]string{"one": "first", "two": "second", "three": "third", "five": "fifth",
		"eight": "eighth", "nine": "ninth", "twelve": "twelfth"}
	i := strings.LastIndexAny(s, " -")
	last := s[i+1:]
	switch {
	case irregular[last] != "":
		last = irregular[last]
	case strings.HasSuffix(last, "y"):
		last = last[:len(last)-1] + "ieth"
	default:
		last += "th"
	}
	return s[:i+1] + last
}

func registerCLFormat(t *builtinTable) {
	t.add("clojure.pprint/cl-format", 2, -1, func(th *thread, a []Value) (Value, error) {
		fmtStr, ok := a[1].(string)
		if !ok {
			return nil, argError("cl-format", 1, "a format string", a[1])
		}
		f := &clFormatter{th: th}
		err := f.run(fmtStr, &clArgs{xs: a[2:]})
		if _, stop := err.(clStop); err != nil && !stop {
			return nil, err
		}
		switch a[0] {
		case nil, false:
			return f.out.String(), nil
		case true:
			// To the output, as print writes.
			return nil, th.printValues([]Value{f.out.String()}, false, false)
		}
		return nil, argError("cl-format", 0, "nil (return the text) or true (print it)", a[0])
	})
}
