package lisp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// formatJava implements clojure.core/format, which is Java's
// String.format: %[index$][flags][width][.precision]conversion with the
// conversions s S d f e E g x X o c b B n %.
func (th *thread) formatJava(f string, args []Value) (Value, error) {
	var sb strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		j := i + 1
		// argument index
		argIdx := -1
		k := j
		for k < len(f) && f[k] >= '0' && f[k] <= '9' {
			k++
		}
		if k < len(f) && f[k] == '$' && k > j {
			n, _ := strconv.Atoi(f[j:k])
			argIdx = n - 1
			j = k + 1
		}
		flagStart := j
		for j < len(f) && strings.IndexByte("-#+ 0,(", f[j]) >= 0 {
			j++
		}
		flags := f[flagStart:j]
		widthStart := j
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		width := f[widthStart:j]
		prec := ""
		if j < len(f) && f[j] == '.' {
			ps := j + 1
			j++
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			prec = f[ps:j]
			if prec == "" {
				return nil, errorf(InvalidArgument, "format: missing precision after '.' in %q", f[i:j])
			}
		}
		if j >= len(f) {
			return nil, errorf(InvalidArgument, "format: incomplete directive %q at the end", f[i:])
		}
		conv := f[j]
		i = j
		switch conv {
		case '%':
			sb.WriteString(pad("%", flags, width))
			continue
		case 'n':
			sb.WriteByte('\n')
			continue
		}
		var arg Value
		idx := argIdx
		if idx < 0 {
			idx = next
			next++
		}
		if idx >= len(args) {
			return nil, errorf(InvalidArgument, "format: directive %%%c has no argument (%d given)", conv, len(args))
		}
		arg = args[idx]
		if w, _ := strconv.Atoi(width); w > 0 {
			if err := th.chargeString(w); err != nil {
				return nil, err
			}
		}
		s, err := th.formatOne(conv, flags, prec, arg)
		if err != nil {
			return nil, err
		}
		if err := th.chargeString(len(s)); err != nil {
			return nil, err
		}
		sb.WriteString(pad(s, flags, width))
	}
	return sb.String(), nil
}

func pad(s, flags, width string) string {
	w, _ := strconv.Atoi(width)
	n := len([]rune(s))
	if w <= n {
		return s
	}
	fill := strings.Repeat(" ", w-n)
	switch {
	case strings.Contains(flags, "-"):
		return s + fill
	case strings.Contains(flags, "0"):
		zeros := strings.Repeat("0", w-n)
		if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
			return s[:1] + zeros + s[1:]
		}
		return zeros + s
	}
	return fill + s
}

func (th *thread) formatOne(conv byte, flags, prec string, arg Value) (string, error) {
	bad := func(want string) (string, error) {
		return "", errorf(TypeError, "format: %%%c expects %s, got %s", conv, want, describe(arg))
	}
	switch conv {
	case 's', 'S':
		s := "null"
		if arg != nil {
			var err error
			if s, err = th.render(arg, false); err != nil {
				return "", err
			}
		}
		if prec != "" {
			p, _ := strconv.Atoi(prec)
			s = truncateRunes(s, p)
		}
		if conv == 'S' {
			s = strings.ToUpper(s)
		}
		return s, nil
	case 'd':
		i, ok := arg.(int64)
		if !ok {
			return bad("an integer")
		}
		s := strconv.FormatInt(absInt(i), 10)
		if i == math.MinInt64 {
			s = strconv.FormatInt(i, 10)[1:]
		}
		if strings.Contains(flags, ",") {
			s = groupThousands(s)
		}
		return signed(s, i < 0, flags), nil
	case 'x', 'X', 'o':
		i, ok := arg.(int64)
		if !ok {
			return bad("an integer")
		}
		base := 16
		if conv == 'o' {
			base = 8
		}
		s := strconv.FormatUint(uint64(i), base)
		if conv == 'X' {
			s = strings.ToUpper(s)
		}
		return s, nil
	case 'f', 'e', 'E', 'g':
		x, ok := toFloat(arg)
		if !ok {
			return bad("a number")
		}
		if math.IsNaN(x) {
			return "NaN", nil
		}
		if math.IsInf(x, 0) {
			return signed("Infinity", x < 0, flags), nil
		}
		p := 6
		if prec != "" {
			p, _ = strconv.Atoi(prec)
		}
		var s string
		switch conv {
		case 'f':
			s = strconv.FormatFloat(math.Abs(x), 'f', p, 64)
			if strings.Contains(flags, ",") {
				intPart, frac, _ := strings.Cut(s, ".")
				s = groupThousands(intPart)
				if frac != "" {
					s += "." + frac
				}
			}
		case 'e', 'E':
			s = strconv.FormatFloat(math.Abs(x), 'e', p, 64)
			if conv == 'E' {
				s = strings.ToUpper(s)
			}
		case 'g':
			s = fmt.Sprintf("%."+strconv.Itoa(max(p, 1))+"g", math.Abs(x))
		}
		return signed(s, x < 0 || (x == 0 && math.Signbit(x)), flags), nil
	case 'c':
		switch v := arg.(type) {
		case string:
			return v, nil
		case int64:
			return string(rune(v)), nil
		}
		return bad("a character")
	case 'b', 'B':
		s := "true"
		switch v := arg.(type) {
		case nil:
			s = "false"
		case bool:
			s = strconv.FormatBool(v)
		}
		if conv == 'B' {
			s = strings.ToUpper(s)
		}
		return s, nil
	}
	return "", errorf(InvalidArgument, "format: unknown conversion %%%c", conv)
}

func signed(s string, neg bool, flags string) string {
	switch {
	case neg && strings.Contains(flags, "("):
		return "(" + s + ")"
	case neg:
		return "-" + s
	case strings.Contains(flags, "+"):
		return "+" + s
	case strings.Contains(flags, " "):
		return " " + s
	}
	return s
}

func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var sb strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		sb.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(digits[i : i+3])
	}
	return sb.String()
}
