package lisp

import (
	"strings"
	"unicode/utf8"
)

// clojure.pprint's printers of data, as models use them to look at what
// they fetched: pprint prints as prn does (on one line: no pretty layout,
// docs/deviations.md), print-table as Clojure draws a table. Both write the
// run's output, redacted as println's is.

func registerPprint(t *builtinTable) {
	t.add("clojure.pprint/pprint", 1, 1, func(th *thread, a []Value) (Value, error) {
		return nil, th.printValues(a, true, true)
	})
	t.add("clojure.pprint/print-table", 1, 2, func(th *thread, a []Value) (Value, error) {
		rows := a[len(a)-1]
		items, err := th.items(rows, "print-table")
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, nil
		}
		var ks []Value
		if len(a) == 2 {
			if ks, err = th.items(a[0], "print-table"); err != nil {
				return nil, err
			}
		} else {
			first, ok := items[0].(*Map)
			if !ok {
				return nil, argError("print-table", 0, "a sequence of maps", items[0])
			}
			ks = first.Keys()
		}
		// Every cell as str gives it (a hidden value as the placeholder,
		// as println prints it), right-aligned in its column's width.
		if th.run.redact != nil {
			th.printing = true
			defer func() { th.printing = false }()
		}
		cell := func(v Value) (string, error) {
			if s, ok := v.(string); ok && th.run.redact.hidesValue(s) {
				return th.run.redact.Placeholder, nil
			}
			if th.run.redact != nil && th.run.redact.hidesValue(v) {
				return th.run.redact.Placeholder, nil
			}
			return th.render(v, false)
		}
		header := make([]string, len(ks))
		widths := make([]int, len(ks))
		for j, k := range ks {
			if header[j], err = cell(k); err != nil {
				return nil, err
			}
			widths[j] = utf8.RuneCountInString(header[j])
		}
		cells := make([][]string, len(items))
		for i, row := range items {
			m, ok := row.(*Map)
			if !ok && row != nil {
				return nil, argError("print-table", len(a)-1, "a sequence of maps", row)
			}
			cells[i] = make([]string, len(ks))
			for j, k := range ks {
				var v Value
				if m != nil {
					v, _ = m.Get(k)
				}
				if r := th.run.redact; r.hidesKey(k) {
					cells[i][j] = r.Placeholder // a hidden key's value
				} else if cells[i][j], err = cell(v); err != nil {
					return nil, err
				}
				widths[j] = max(widths[j], utf8.RuneCountInString(cells[i][j]))
			}
		}
		line := func(lead, sep, trail string, texts []string, fill byte) string {
			var sb strings.Builder
			sb.WriteString(lead)
			for j, s := range texts {
				if j > 0 {
					sb.WriteString(sep)
				}
				for n := utf8.RuneCountInString(s); n < widths[j]; n++ {
					sb.WriteByte(fill)
				}
				sb.WriteString(s)
			}
			sb.WriteString(trail)
			return sb.String()
		}
		dashes := make([]string, len(ks))
		if err := th.printLine("", true); err != nil {
			return nil, err
		}
		if err := th.printLine(line("| ", " | ", " |", header, ' '), true); err != nil {
			return nil, err
		}
		if err := th.printLine(line("|-", "-+-", "-|", dashes, '-'), true); err != nil {
			return nil, err
		}
		for _, r := range cells {
			if err := th.printLine(line("| ", " | ", " |", r, ' '), true); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
}
