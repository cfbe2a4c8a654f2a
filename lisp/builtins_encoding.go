package lisp

import (
	"encoding/base64"
	"strings"
)

// The encodings models reach for with API data: java.util.Base64's
// encoders and decoders ((.encodeToString (Base64/getEncoder) bytes),
// (String. (.decode (Base64/getDecoder) s) "UTF-8")), java.net's
// URLEncoder and URLDecoder (form encoding: a space is "+"), and
// StandardCharsets. An encoder or decoder is a keyword naming it
// (:base64-encoder, :base64-url-decoder …): no host objects.

// base64Variants are the encodings of the Base64 factories.
var base64Variants = map[string]*base64.Encoding{
	"base64":      base64.StdEncoding,
	"base64-url":  base64.URLEncoding,
	"base64-mime": base64.StdEncoding, // MIME's line breaks: decoders skip them, encoders here write none
}

// base64Coder reads a[i] as an encoder or a decoder keyword: its encoding
// and whether it pads.
func base64Coder(fn string, a []Value, i int, want string) (*base64.Encoding, error) {
	k, ok := a[i].(Keyword)
	name := string(k)
	nopad := strings.HasSuffix(name, "-nopad")
	name = strings.TrimSuffix(name, "-nopad")
	if ok && strings.HasSuffix(name, "-"+want) {
		if enc, known := base64Variants[strings.TrimSuffix(name, "-"+want)]; known {
			if nopad {
				return enc.WithPadding(base64.NoPadding), nil
			}
			return enc, nil
		}
	}
	return nil, argError(fn, i, "a Base64 "+want+" (Base64/get"+strings.ToUpper(want[:1])+want[1:]+")", a[i])
}

// bytesOf reads a byte array (or a string, as its UTF-8 bytes).
func (th *thread) bytesOf(fn string, a []Value, i int) ([]byte, error) {
	if s, ok := a[i].(string); ok {
		return []byte(s), nil
	}
	c, ok := a[i].(*Cell)
	if !ok || c.kind != arrayCell {
		return nil, argError(fn, i, "a byte array ((.getBytes s)) or a string", a[i])
	}
	xs, err := th.arrayItems(c)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(xs))
	for j, x := range xs {
		n, isInt := x.(int64)
		if !isInt {
			return nil, argError(fn, i, "a byte array", a[i])
		}
		out[j] = byte(n)
	}
	return out, nil
}

func (th *thread) byteArray(b []byte) (Value, error) {
	xs := make([]Value, len(b))
	for i, c := range b {
		xs[i] = int64(int8(c))
	}
	return th.newArray("B", xs)
}

func registerEncoding(t *builtinTable) {
	for java, name := range map[string]string{"": "base64", "Url": "base64-url", "Mime": "base64-mime"} {
		t.add("Base64/get"+java+"Encoder", 0, 0, func(*thread, []Value) (Value, error) { return Keyword(name + "-encoder"), nil })
		t.add("Base64/get"+java+"Decoder", 0, 0, func(*thread, []Value) (Value, error) { return Keyword(name + "-decoder"), nil })
	}
	t.add(".withoutPadding", 1, 1, func(_ *thread, a []Value) (Value, error) {
		if _, err := base64Coder(".withoutPadding", a, 0, "encoder"); err != nil {
			return nil, err
		}
		return Keyword(strings.TrimSuffix(string(a[0].(Keyword)), "-nopad") + "-nopad"), nil
	})
	encode := func(th *thread, fn string, a []Value) (string, error) {
		enc, err := base64Coder(fn, a, 0, "encoder")
		if err != nil {
			return "", err
		}
		b, err := th.bytesOf(fn, a, 1)
		if err != nil {
			return "", err
		}
		if err := th.chargeString(enc.EncodedLen(len(b))); err != nil {
			return "", err
		}
		return enc.EncodeToString(b), th.ticks(len(b) / 64)
	}
	t.add(".encodeToString", 2, 2, func(th *thread, a []Value) (Value, error) {
		return encode(th, ".encodeToString", a)
	})
	t.add(".encode", 2, 2, func(th *thread, a []Value) (Value, error) {
		s, err := encode(th, ".encode", a)
		if err != nil {
			return nil, err
		}
		return th.byteArray([]byte(s))
	})
	t.add(".decode", 2, 2, func(th *thread, a []Value) (Value, error) {
		k, _ := a[0].(Keyword)
		enc, err := base64Coder(".decode", a, 0, "decoder")
		if err != nil {
			return nil, err
		}
		b, err := th.bytesOf(".decode", a, 1)
		if err != nil {
			return nil, err
		}
		text := string(b)
		if strings.HasPrefix(string(k), "base64-mime") {
			text = strings.Map(func(r rune) rune {
				if r == '\r' || r == '\n' {
					return -1
				}
				return r
			}, text)
		}
		// Java's decoders take the text with or without its padding.
		out, err := enc.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(text, "="))
		if err != nil {
			return nil, classError(InvalidArgument, classIllegalArgument, "Illegal base64 text: %s", err.Error())
		}
		if err := th.charge(int64(len(out))); err != nil {
			return nil, err
		}
		return th.byteArray(out)
	})

	charset := func(fn string, a []Value) error {
		if len(a) == 2 {
			if cs, ok := a[1].(string); !ok || !strings.EqualFold(strings.ReplaceAll(cs, "-", ""), "utf8") {
				return argError(fn, 1, `the charset "UTF-8" (StandardCharsets/UTF_8)`, a[1])
			}
		}
		return nil
	}
	t.add("URLEncoder/encode", 1, 2, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("URLEncoder/encode", a, 0)
		if err != nil {
			return nil, err
		}
		if err := charset("URLEncoder/encode", a); err != nil {
			return nil, err
		}
		var sb strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-', c == '*', c == '_':
				sb.WriteByte(c)
			case c == ' ':
				sb.WriteByte('+')
			default:
				sb.WriteByte('%')
				sb.WriteByte("0123456789ABCDEF"[c>>4])
				sb.WriteByte("0123456789ABCDEF"[c&15])
			}
		}
		return sb.String(), th.chargeString(sb.Len())
	})
	t.add("URLDecoder/decode", 1, 2, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("URLDecoder/decode", a, 0)
		if err != nil {
			return nil, err
		}
		if err := charset("URLDecoder/decode", a); err != nil {
			return nil, err
		}
		var sb strings.Builder
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '+':
				sb.WriteByte(' ')
			case c == '%':
				if i+2 >= len(s) || !isHex(s[i+1:i+3]) {
					return nil, classError(InvalidArgument, classIllegalArgument, "URLDecoder: Illegal hex characters in escape (%%) pattern at %d", i)
				}
				sb.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
				i += 2
			default:
				sb.WriteByte(c)
			}
		}
		return strings.ToValidUTF8(sb.String(), "\uFFFD"), th.chargeString(sb.Len())
	})
	for name, cs := range map[string]string{"UTF_8": "UTF-8", "US_ASCII": "US-ASCII", "ISO_8859_1": "ISO-8859-1", "UTF_16": "UTF-16"} {
		t.set("StandardCharsets/"+name, cs)
	}
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
