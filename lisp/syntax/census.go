package syntax

// censusWindow is how much of the source the census looks at: all of a
// short program. Past it the slabs grow at the density seen so far, which
// sizes them about as well: counting the first 4 KB of W6 (a 17 KB
// program) cost 78,000 instructions, 6% of reading it, and saved none of
// that back. Bounding it bounds both the census's time and what its
// counts can make Read allocate before reading.
const censusWindow = 1 << 10

// censusSample is how much of a longer source the census looks at: enough
// to size the first chunks at the density of its start, the later ones
// growing at the density seen so far (counting 1 KB of W6 cost 19,000
// instructions, 256 bytes 4,700, for the same allocations).
const censusSample = 256

// census is a count of the nodes of each kind a text will need, from one
// quick lexical pass over it, so that each slab's first chunk has the right
// size: a small program then costs one allocation per kind of node it uses.
// The counts are exact for a text without errors, otherwise estimates: a
// shortfall costs one more chunk, an excess some unused elements.
type census struct {
	nils, bools, ints, floats, strs, keywords, symbols, lists, vectors, maps int
	forms                                                                    int // every node: the slots of Items and of the top-level forms
	// The slots of forms at each depth of nesting in collections (the
	// top-level forms at 0, those deeper than the last depth at the last),
	// which the first runs of items of each depth hold.
	depths [censusDepths]int
}

// censusDepths is how many depths the census counts the forms of.
const censusDepths = 8

// Census classes of bytes; 0 is white space and what the census skips
// (closers, and characters the reader rejects).
const (
	ccSkip = iota
	ccToken
	ccList
	ccVector
	ccMap
	ccString
	ccComment
	ccQuote
	ccChar
	ccDispatch
	ccClose
)

var censusClass = func() (t [256]uint8) {
	for i, c := range byteClass {
		if c == clTok || c == clHigh {
			t[i] = ccToken
		}
	}
	for b, cc := range map[byte]uint8{'(': ccList, '[': ccVector, '{': ccMap, '"': ccString,
		';': ccComment, '\'': ccQuote, '\\': ccChar, '#': ccDispatch, '@': ccQuote, '`': ccQuote, '~': ccQuote,
		')': ccClose, ']': ccClose, '}': ccClose} {
		t[b] = cc
	}
	return t
}()

// Indexes of take's counts.
const (
	nTokens = iota
	nKeywords
	nNumbers
	nStrings
	nLists
	nVectors
	nMaps
	nOthers // quotes, derefs, short fns, sets, var quotes, regexes
	nCounts
)

// take counts the nodes of src, or of its start if it is longer than
// censusWindow. It is on the path of every Read, so its loops are tight:
// blanks and token bytes in inner loops, most counts in an array (locals
// would not all fit in registers).
func (c *census) take(src string) {
	s := src
	if len(s) > censusWindow {
		s = s[:censusSample]
	}
	var n [nCounts]int
	var floats, bigs, decs, nils, bools int
	// d is the depth, at the index of its count in c.depths.
	d, at := 0, 0
	i := 0
	for {
		for i < len(s) && censusClass[s[i]] == ccSkip {
			i++
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		cc := censusClass[b]
		if cc == ccToken {
			j := i + 1
			for j < len(s) && tokenByte[s[j]] {
				j++
			}
			n[nTokens]++
			c.depths[at]++
			switch {
			case b == ':':
				n[nKeywords]++
			case isDigit(b) || (b == '+' || b == '-') && j > i+1 && isDigit(s[i+1]):
				n[nNumbers]++
				if s[j-1] == 'M' {
					decs++ // a Decimal node, neither an Int nor a Float
				} else if isFloatToken(s[i:j]) {
					floats++
				} else if (s[j-1] == 'N' || j-i >= 18) && isBigToken(s[i:j]) {
					bigs++ // a BigInt node, not an Int
				}
			case b == 'n' && s[i:j] == "nil":
				nils++
			case b == 't' && s[i:j] == "true" || b == 'f' && s[i:j] == "false":
				bools++
			}
			i = j
			continue
		}
		if cc == ccClose {
			d = max(d-1, 0)
			at = min(d, censusDepths-1)
			i++
			continue
		}
		c.depths[at]++ // a form, unless a comment (below)
		switch cc {
		case ccList:
			n[nLists]++
			d++
			at = min(d, censusDepths-1)
			i++
		case ccVector:
			n[nVectors]++
			d++
			at = min(d, censusDepths-1)
			i++
		case ccMap:
			n[nMaps]++
			d++
			at = min(d, censusDepths-1)
			i++
		case ccQuote:
			n[nOthers]++
			i++
			if s[i-1] == '~' && i < len(s) && s[i] == '@' {
				i++ // ~@ is one node
			}
		case ccString:
			n[nStrings]++
			i = skipQuoted(s, i+1)
		case ccComment:
			c.depths[at]--
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case ccChar:
			// A character literal: the character after the backslash
			// belongs to it even if it is a delimiter.
			n[nStrings]++
			i = tokenSpan(s, i+2)
		default: // '#'
			var next byte
			if i+1 < len(s) {
				next = s[i+1]
			}
			switch next {
			case '(', '{':
				n[nOthers]++ // a short fn or set
				d++
				at = min(d, censusDepths-1)
				i += 2
			case '\'':
				n[nOthers]++ // a var quote
				i += 2
			case '"':
				n[nOthers]++
				i = skipQuoted(s, i+2)
			case '_':
				c.depths[at]--
				i += 2
			case '#':
				floats++
				n[nNumbers]++
				n[nTokens]++
				i = tokenSpan(s, i+2)
			default:
				c.depths[at]--
				i = tokenSpan(s, i+1)
			}
		}
	}
	keywords, numbers := n[nKeywords], n[nNumbers]
	c.keywords, c.ints, c.floats, c.nils, c.bools = keywords, numbers-floats-bigs-decs, floats, nils, bools
	c.symbols = n[nTokens] - keywords - numbers - nils - bools
	c.strs, c.lists, c.vectors, c.maps = n[nStrings], n[nLists], n[nVectors], n[nMaps]
	c.forms = n[nTokens] + n[nStrings] + n[nLists] + n[nVectors] + n[nMaps] + n[nOthers]
}

// isFloatToken reports whether a token that starts like a number reads as
// a float (a decimal point, an exponent, a ratio or the M suffix).
func isFloatToken(tok string) bool {
	if len(tok) > 2 && (tok[1] == 'x' || tok[1] == 'X' || tok[2] == 'x' || tok[2] == 'X') {
		return false // hex digits include e and E
	}
	for k := 1; k < len(tok); k++ {
		switch tok[k] {
		case '.', 'e', 'E', '/', 'M':
			return true
		}
	}
	return false
}

// tokenByte tells the bytes that continue a token, counting every
// non-ASCII byte as one.
var tokenByte = func() (t [256]bool) {
	for i, c := range byteClass {
		t[i] = c <= clSpecial || c == clHigh
	}
	return t
}()

// tokenSpan returns the end of the run of token bytes at s[i:].
func tokenSpan(s string, i int) int {
	for i < len(s) && tokenByte[s[i]] {
		i++
	}
	return min(i, len(s))
}

// skipQuoted returns the offset after the '"' that closes the string or
// regex literal whose body starts at s[i:], or len(s).
func skipQuoted(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(s)
}

// isBigToken reports whether a number token reads as a BigInt (an N
// literal, or an integer past 64 bits).
func isBigToken(tok string) bool {
	num, msg := parseNumber(tok)
	return msg == "" && num.big != nil
}
