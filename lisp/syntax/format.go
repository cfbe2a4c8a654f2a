package syntax

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Format prints n as canonical source text: single spaces between items,
// strings re-escaped, floats always with a '.' or an exponent, and ##Inf,
// ##-Inf, ##NaN for the special floats. Reading the result gives back a node
// of the same structure for any node Read returns without error.
// A nil node prints as "<nil>".
func Format(n Node) string {
	var b strings.Builder
	format(&b, n)
	return b.String()
}

func format(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case *Nil:
		if n != nil {
			b.WriteString("nil")
			return
		}
	case *Bool:
		if n != nil {
			b.WriteString(strconv.FormatBool(n.Value))
			return
		}
	case *Int:
		if n != nil {
			b.WriteString(strconv.FormatInt(n.Value, 10))
			return
		}
	case *BigInt:
		if n != nil {
			b.WriteString(n.Value.String())
			b.WriteByte('N')
			return
		}
	case *Decimal:
		if n != nil {
			b.WriteString(n.Text)
			b.WriteByte('M')
			return
		}
	case *Float:
		if n != nil {
			b.WriteString(formatFloat(n.Value))
			return
		}
	case *String:
		if n != nil {
			if n.Char && formatChar(b, n.Value) {
				return
			}
			quote(b, n.Value)
			return
		}
	case *Keyword:
		if n != nil {
			b.WriteByte(':')
			b.WriteString(n.Name)
			return
		}
	case *Symbol:
		if n != nil {
			formatSymbol(b, n)
			return
		}
	case *List:
		if n != nil {
			formatItems(b, "(", n.Items, ")")
			return
		}
	case *Vector:
		if n != nil {
			formatItems(b, "[", n.Items, "]")
			return
		}
	case *Map:
		if n != nil {
			formatItems(b, "{", n.Items, "}")
			return
		}
	case *Set:
		if n != nil {
			formatItems(b, "#{", n.Items, "}")
			return
		}
	case *ShortFn:
		if n != nil {
			formatItems(b, "#(", n.Items, ")")
			return
		}
	case *Quote:
		if n != nil {
			b.WriteByte('\'')
			format(b, n.Form)
			return
		}
	case *Deref:
		if n != nil {
			b.WriteByte('@')
			format(b, n.Form)
			return
		}
	case *SyntaxQuote:
		if n != nil {
			b.WriteByte('`')
			format(b, n.Form)
			return
		}
	case *Unquote:
		if n != nil {
			b.WriteByte('~')
			format(b, n.Form)
			return
		}
	case *UnquoteSplicing:
		if n != nil {
			b.WriteString("~@")
			format(b, n.Form)
			return
		}
	case *VarQuote:
		if n != nil {
			b.WriteString("#'")
			if n.Sym == nil {
				b.WriteString("<nil>")
			} else {
				formatSymbol(b, n.Sym)
			}
			return
		}
	case *Regex:
		if n != nil {
			formatRegex(b, n.Pattern)
			return
		}
	case *Inst:
		if n != nil {
			b.WriteString("#inst ")
			quote(b, n.Text)
			return
		}
	case *UUID:
		if n != nil {
			b.WriteString("#uuid ")
			quote(b, n.Value)
			return
		}
	}
	b.WriteString("<nil>") // a nil interface or a nil pointer
}

func formatItems(b *strings.Builder, open string, items []Node, close string) {
	b.WriteString(open)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		format(b, it)
	}
	b.WriteString(close)
}

func formatSymbol(b *strings.Builder, s *Symbol) {
	if s.Ns != "" {
		b.WriteString(s.Ns)
		b.WriteByte('/')
	}
	b.WriteString(s.Name)
}

// formatFloat prints like Clojure: plain decimals for 1e-3 <= |f| < 1e7,
// otherwise an exponent, and always a '.' so the text reads as a float.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "##Inf"
	case math.IsInf(f, -1):
		return "##-Inf"
	case math.IsNaN(f):
		return "##NaN"
	}
	if a := math.Abs(f); a == 0 || 1e-3 <= a && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // like 1.5e-07 or 1e+21
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	neg := exp[0] == '-'
	exp = strings.TrimLeft(exp[1:], "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "e" + exp
}

// quote writes s as a string literal.
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 || c == 0x7f {
					fmt.Fprintf(b, `\u%04X`, c)
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\uFFFD`)
		case unicode.IsControl(r):
			fmt.Fprintf(b, `\u%04X`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

var charNamesByValue = map[string]string{
	"\n": `\newline`,
	" ":  `\space`,
	"\t": `\tab`,
	"\r": `\return`,
	"\b": `\backspace`,
	"\f": `\formfeed`,
}

// formatChar writes v as a character literal, reporting false (writing
// nothing) if v is not one character.
func formatChar(b *strings.Builder, v string) bool {
	if name, ok := charNamesByValue[v]; ok {
		b.WriteString(name)
		return true
	}
	if !oneGrapheme(v) {
		return false
	}
	r, size := utf8.DecodeRuneInString(v)
	if size == len(v) && r != ',' && (unicode.IsControl(r) || unicode.IsSpace(r)) {
		fmt.Fprintf(b, `\u%04X`, r)
		return true
	}
	b.WriteByte('\\')
	b.WriteString(v)
	return true
}

// formatRegex writes #"pattern", escaping only what would otherwise end the
// literal; a backslash keeps the character after it. Line breaks are kept
// as they are: a regex literal may span lines, and its pattern is verbatim.
func formatRegex(b *strings.Builder, p string) {
	b.WriteString(`#"`)
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			b.WriteByte('\\')
			switch {
			case i+1 == len(p):
				b.WriteByte('\\') // a lone trailing backslash, as a literal backslash
			case p[i+1] != '\n': // the reader does not pair a backslash with a LF
				i++
				b.WriteByte(p[i])
			}
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
