package agent

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/internal/typeinfer"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// The data inventory: one entry per top-level context entry, with its
// type, its size, its description and a sample of its value. It is built
// from a bounded prefix of the data (a few rows for types, ListItems items
// for samples), so a context of a million rows costs what one of ten does.
//
// Firewalled entries (names starting with "_") are listed by name and type
// only: programs need to know they exist to pass them on (the seeds'
// chained ctx/_email_ids), and a name or a type is not data. Their types
// are coarse (records become :map) because the keys of a map can be data
// themselves. Everywhere else, values under "_" keys, and values the
// firewall knows to hide, print as <Firewalled>, and the inventory text is
// scrubbed of firewalled strings like any other LLM-bound text.

const (
	// defaultListItems and defaultStringChars are the seeds' prompt_limit
	// (list: 5, string: 1000); docs/deviations.md has the figures that
	// weighed them against 3 and 200.
	defaultListItems   = 5
	defaultStringChars = 1000
	// inventoryEntries bounds the entries described in full; later ones
	// are listed by name, up to inventoryNames, then counted.
	inventoryEntries = 40
	inventoryNames   = 60
	// typeRows is how many elements of a list its element type is
	// inferred from.
	typeRows = 5
	// typeDepth bounds the nesting of inferred types; deeper values are
	// :map or [:any].
	typeDepth = 4
	// recordFields is the most keys a map may have to be shown as a
	// record type; larger maps are :map (their keys are likely data).
	recordFields = 16
	// sampleMapEntries is the most entries shown of a map in a sample.
	sampleMapEntries = 10
	// sampleDepth bounds the nesting of samples.
	sampleDepth = 6
	// sampleExtraChars is added to StringChars to bound one entry's sample.
	sampleExtraChars = 100
	// sampleNodes bounds the values copied for one sample, whatever the
	// nesting: a sample is cut at maxChars anyway.
	sampleNodes = 200
	// maxInventoryName is the longest context name listed.
	maxInventoryName = 200
)

// inventory renders the data section ("" when the context is empty) and
// reports whether it lists firewalled entries.
func (m *mission) inventory() (text string, hidden bool) {
	ctx := m.context
	if ctx == nil || ctx.Len() == 0 {
		return "", false
	}
	items, chars := m.sampleLimits()
	s := &sampler{fw: m.fw, items: items, chars: chars,
		maxChars: chars + sampleExtraChars, floats: max(m.a.cfg.Presentation.FloatPrecision, 0)}

	var sb strings.Builder
	sb.WriteString("## Data\nRead with ctx/name. Lines: name type (size) ; description, then the value")
	if items > 0 {
		fmt.Fprintf(&sb, " (collections: first %d items)", items)
	}
	sb.WriteString(".\n")
	described, listed, rest := 0, []string{}, 0
	for k, v := range ctx.All() {
		name, ok := ctxName(k)
		if !ok {
			continue // no ctx/... form reads it
		}
		if len(name) > maxInventoryName {
			rest++ // a name that long is data, not a name to list
			continue
		}
		if described >= inventoryEntries {
			if len(listed) < inventoryNames {
				listed = append(listed, "ctx/"+name)
			} else {
				rest++
			}
			continue
		}
		described++
		fw := strings.HasPrefix(name, "_")
		hidden = hidden || fw
		// An entry computed from firewalled data (a chained Step's
		// return value) keeps its name and type, not its value.
		m.inventoryEntry(&sb, s, name, v, fw, m.fw.HidesMember(ctx, k))
	}
	switch {
	case len(listed) > 0:
		sb.WriteString("Also: " + strings.Join(listed, " "))
		if rest > 0 {
			fmt.Fprintf(&sb, " and %d more", rest)
		}
		sb.WriteString("\n")
	case rest > 0:
		fmt.Fprintf(&sb, "Also: %d more entries\n", rest)
	}
	if hidden {
		sb.WriteString("Names starting with _ are firewalled: programs read, compute with, pass on and return them like any value; only their values are never shown to you.\n")
	}
	return m.fw.Scrub(strings.TrimRight(sb.String(), "\n")), hidden
}

// sampleLimits returns Presentation.InputItems and InputChars, whose
// defaults New filled in (a negative InputItems: no samples).
func (m *mission) sampleLimits() (items, chars int) {
	pl := m.a.cfg.Presentation
	return max(pl.InputItems, 0), pl.InputChars
}

// inventoryEntry writes the lines of one entry.
func (m *mission) inventoryEntry(sb *strings.Builder, s *sampler, name string, v lisp.Value, firewalled, derived bool) {
	sb.WriteString("ctx/")
	sb.WriteString(name)
	sb.WriteByte(' ')
	if t, ok := m.declaredType(name); ok {
		if firewalled {
			t = coarse(t)
		}
		sb.WriteString(t.String())
	} else {
		sb.WriteString(typeinfer.Of(v, typeinfer.Limits{Rows: typeRows, Depth: typeDepth,
			Fields: recordFields, Coarse: firewalled}).String())
	}
	if !firewalled {
		if size := sizeNote(v, s.chars); size != "" {
			sb.WriteString(" (" + size + ")")
		}
	}
	if d := m.contextDescription(name); d != "" {
		sb.WriteString(" ; ")
		sb.WriteString(d)
	}
	sb.WriteByte('\n')
	if firewalled || s.items == 0 && isCollection(v) {
		return
	}
	sb.WriteString("  ")
	if derived {
		sb.WriteString(Firewalled)
	} else {
		sb.WriteString(s.sample(v))
	}
	sb.WriteByte('\n')
}

// declaredType returns the type of a context entry declared by the context
// signature (Options.InputSignature or a chained Step's), else by the
// agent's own parameters.
func (m *mission) declaredType(name string) (signature.Type, bool) {
	if f, ok := m.ctxField(name); ok {
		return f.Type, true
	}
	if m.a.sig != nil {
		if p, ok := m.a.sig.Param(name); ok {
			return p.Type, true
		}
	}
	return signature.Type{}, false
}

func (m *mission) ctxField(name string) (signature.Field, bool) {
	if m.ctxSig == nil || m.ctxSig.Output.Kind != signature.Record {
		return signature.Field{}, false
	}
	return m.ctxSig.Output.Field(name)
}

// contextDescription is the description of an entry: the agent's
// InputDescriptions first, then the chained step's field descriptions,
// then those of the context signature and of the agent's parameters.
func (m *mission) contextDescription(name string) string {
	d := m.a.cfg.Presentation.InputDescriptions[name]
	if d == "" {
		d = m.fieldDocs[name]
	}
	if d == "" {
		if f, ok := m.ctxField(name); ok {
			d = f.Description
		}
	}
	if d == "" && m.a.sig != nil {
		if p, ok := m.a.sig.Param(name); ok {
			d = p.Description
		}
	}
	return textutil.OneLine(d)
}

// ctxName returns the name a context key is read by, ctx/name: keywords
// and strings that read back as one symbol.
func ctxName(k lisp.Value) (string, bool) { return keyName(k) }

// keyName returns the text of a keyword or string key that reads back as
// one symbol.
func keyName(k lisp.Value) (string, bool) {
	var s string
	switch k := k.(type) {
	case lisp.Keyword:
		s = string(k)
	case string:
		s = k
	default:
		return "", false
	}
	if s == "" || strings.ContainsAny(s, " \t\r\n()[]{}\"';,@^`~\\") || strings.ContainsRune(":#", rune(s[0])) {
		return "", false
	}
	return s, true
}

// sizeNote gives the size of collections and of strings that the sample
// cuts.
func sizeNote(v lisp.Value, chars int) string {
	switch x := v.(type) {
	case *lisp.Vector:
		return plural(x.Len(), "item")
	case *lisp.Set:
		return plural(x.Len(), "item")
	case *lisp.Map:
		return plural(x.Len(), "key")
	case string:
		if n := utf8.RuneCountInString(x); n > chars {
			return plural(n, "char")
		}
	}
	return ""
}

func plural(n int, what string) string { return textutil.Plural(n, what) }

func isCollection(v lisp.Value) bool {
	switch v.(type) {
	case *lisp.Vector, *lisp.Map, *lisp.Set:
		return true
	}
	return false
}

// coarse drops the fields of the records of a declared type, for
// firewalled entries.
func coarse(t signature.Type) signature.Type {
	switch t.Kind {
	case signature.Record:
		return signature.Type{Kind: signature.Map, Optional: t.Optional}
	case signature.List, signature.Map:
		if t.Elem != nil { // [:t], {:string :t}
			e := coarse(*t.Elem)
			return signature.Type{Kind: t.Kind, Optional: t.Optional, Elem: &e}
		}
	}
	return t
}

// --- Samples ---

// sampler prints bounded samples of context values. It copies the prefix
// of a value it shows (the first items of lists and sets, the first
// entries of maps, strings cut to chars), replacing what the firewall
// hides by a marker, and prints the copy with lisp.Print. Markers
// are strings that start with a character data cannot start with in
// practice (U+10FFFF) and are replaced in the printed text.
type sampler struct {
	fw       *firewall
	items    int // elements of lists and sets
	chars    int // characters of strings
	maxChars int // characters of a whole sample
	floats   int // float precision
	nodes    int // values the copy may still hold
}

const markerRune = "\U0010FFFF"

// hiddenMarker stands for a firewalled value in a sample copy.
const hiddenMarker = markerRune + "firewalled"

// moreMarker stands for the n elements a sample leaves out; cutMarker for
// a part it does not show.
func moreMarker(n int) string { return markerRune + "more " + strconv.Itoa(n) }

const cutMarker = markerRune + "cut"

// sample returns the printed sample of v, at most maxChars characters.
func (s *sampler) sample(v lisp.Value) string {
	s.nodes = sampleNodes
	c := s.copy(v, 0, false)
	redact := s.fw.Redaction()
	hides := redact.Value
	redact.Value = func(x lisp.Value) bool {
		if str, ok := x.(string); ok && str == hiddenMarker {
			return true
		}
		return hides != nil && hides(x)
	}
	// The copy is small (sampleNodes values, strings cut), so it is
	// printed whole, and cut once its markers are replaced; but for an
	// atom a caller passed in, which is not copied (it prints as #atom[…],
	// telling the model to deref it) and may hold much: MaxChars bounds
	// that work, far beyond what the cut keeps.
	out := s.unmark(lisp.Print(c, lisp.PrintOptions{FloatPrecision: s.floats, Redact: redact, MaxChars: 4*s.maxChars + 256}))
	if utf8.RuneCountInString(out) > s.maxChars {
		out = textutil.TruncateRunes(out, max(s.maxChars-3, 0)) + "..."
	}
	return out
}

// unmark replaces the printed markers: a hidden value by <Firewalled>, a
// left-out part by "... (n more)" or "...".
func (s *sampler) unmark(out string) string {
	if !strings.Contains(out, markerRune) {
		return out
	}
	out = strings.ReplaceAll(out, lisp.Print(hiddenMarker, lisp.PrintOptions{}), Firewalled)
	quotedRune := strings.TrimSuffix(lisp.Print(markerRune, lisp.PrintOptions{}), `"`) // `"` + the rune as printed
	for {
		i := strings.Index(out, quotedRune)
		if i < 0 {
			return out
		}
		rest := out[i+len(quotedRune):]
		end := strings.IndexByte(rest, '"')
		if end < 0 { // cannot happen: markers hold no quotes
			return out[:i] + "..."
		}
		repl := "..."
		if n, ok := strings.CutPrefix(rest[:end], "more "); ok {
			repl = "... (" + n + " more)"
		}
		tail := rest[end+1:]
		// A map's marker entry is a key and an empty value: drop the value.
		tail = strings.TrimPrefix(tail, ` ""`)
		out = out[:i] + repl + tail
	}
}

// copy returns the bounded copy of v that a sample prints.
func (s *sampler) copy(v lisp.Value, depth int, hidden bool) lisp.Value {
	if hidden || s.fw.Hides(v) {
		return hiddenMarker
	}
	if isCollection(v) && (depth >= sampleDepth || s.nodes <= 0) {
		return cutMarker
	}
	s.nodes--
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > s.chars {
			return textutil.TruncateRunes(x, s.chars) + "..."
		}
		return x
	case *lisp.Vector:
		items := x.Items()
		n := min(len(items), s.items)
		out := make([]lisp.Value, 0, n+1)
		for i, e := range items[:n] {
			out = append(out, s.copy(e, depth+1, s.fw.HidesMember(x, int64(i))))
		}
		if len(items) > n {
			out = append(out, moreMarker(len(items)-n))
		}
		if x.IsList() {
			return lisp.NewList(out)
		}
		return lisp.NewVector(out)
	case *lisp.Set:
		out := make([]lisp.Value, 0, min(x.Len(), s.items)+1)
		for e := range x.All() {
			if len(out) == s.items {
				break
			}
			out = append(out, s.copy(e, depth+1, false))
		}
		if x.Len() > len(out) {
			// Strings sort last in a set, and the marker after them.
			out = append(out, moreMarker(x.Len()-len(out)))
		}
		return lisp.NewSet(out...)
	case *lisp.Map:
		b := lisp.NewMapBuilder(nil)
		n := 0
		for k, e := range x.All() {
			if n == sampleMapEntries {
				break
			}
			b.Set(k, s.copy(e, depth+1, fwall.HiddenKey(k) || s.fw.HidesMember(x, k)))
			n++
		}
		if x.Len() > n {
			// Strings sort last, and the marker after every other
			// string, so the marker entry prints at the end.
			b.Set(moreMarker(x.Len()-n), "")
		}
		return b.Map()
	}
	return v
}
