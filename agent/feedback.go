package agent

import (
	"fmt"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// What the LLM is told after each turn. Every text here goes through the
// firewall: values print with firewalled parts as <Firewalled>, and text
// is scrubbed of firewalled strings.

// turnInfo says how many turns are left: for a single-shot mission with
// retries (an LLM tool), how many more replies it may send.
func (m *mission) turnInfo() string {
	if m.a.SingleShot() {
		switch left := m.a.retries + 1 - m.turn; {
		case left <= 0:
			return ""
		case left == 1:
			return "\n\nThis is your last try."
		default:
			return fmt.Sprintf("\n\n%d tries left.", left)
		}
	}
	left := m.a.cfg.MaxTurns - m.turn
	switch {
	case m.a.cfg.MaxTurns == 1:
		return ""
	case left <= 1:
		return "\n\nLast turn: end it with (return value) or (fail {:reason :keyword :message \"...\"})."
	}
	return fmt.Sprintf("\n\nTurn %d of %d is next (%d left).", m.turn+1, m.a.cfg.MaxTurns, left)
}

// show prints a value for the LLM within the feedback bounds. The text is
// scrubbed before it is cut, so that no firewalled text straddles the cut.
func (m *mission) show(v lisp.Value, items, chars int) string {
	s := lisp.Print(v, lisp.PrintOptions{
		MaxItems:       items,
		MaxChars:       4*chars + 64, // bounds the work; cut to chars below
		FloatPrecision: max(m.a.cfg.Presentation.FloatPrecision, 0),
		Redact:         m.fw.Redaction(),
	})

	return m.clip(s, chars)
}

// clip readies a text for the LLM: cut to a few times chars (so that the
// work of scrubbing a huge text stays bounded), scrubbed by the firewall,
// then cut to chars characters. Scrubbing before the final cut leaves no
// firewalled text straddling it.
func (m *mission) clip(text string, chars int) string {
	text = m.fw.Scrub(textutil.TruncateBytes(text, 4*chars+64))
	if utf8.RuneCountInString(text) > chars {
		text = textutil.TruncateRunes(text, chars) + "..."
	}
	return text
}

// outputBlock renders println output, scrubbed as a whole (a firewalled
// text may span lines) and then cut to FeedbackMaxChars.
func (m *mission) outputBlock(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	text := m.fw.Scrub(strings.Join(lines, "\n"))
	if limit := m.a.format.FeedbackMaxChars; utf8.RuneCountInString(text) > limit {
		total, lineCount := utf8.RuneCountInString(text), strings.Count(text, "\n")+1
		text = textutil.TruncateRunes(text, limit)
		shown := strings.Count(text, "\n") + 1
		text += fmt.Sprintf("\n... (output cut at %s of %s chars, in line %s of %s: print less, or print counts and samples)",
			textutil.Thousands(limit), textutil.Thousands(total), textutil.Thousands(shown), textutil.Thousands(lineCount))
	}
	return "Output:\n" + text
}

// correctedProgram asks a single-shot mission with retries (an LLM tool)
// for another reply: one program again, whose value is the answer.
const correctedProgram = "Reply with a corrected program; its last value is the answer."

// valueFeedback is the message after a turn that ran to its end.
func (m *mission) valueFeedback(v lisp.Value, output []string, stored, warnings string) string {
	var parts []string
	items, chars := m.nested.bounds(v, m.a.format.FeedbackLimit, m.a.format.FeedbackMaxChars)
	parts = append(parts, "Value: "+m.show(v, items, chars))
	if out := m.outputBlock(output); out != "" {
		parts = append(parts, out)
	}
	if names := m.memory.Names(); len(names) > 0 {
		// Names are data too: (memory/put (keyword s) 1) stores under one.
		parts = append(parts, m.clip("Memory: "+strings.Join(m.memoryEntries(names), ", "), m.a.format.FeedbackMaxChars))
	}
	if stored != "" {
		parts = append(parts, m.clip(stored, m.a.format.FeedbackMaxChars))
	}
	return strings.Join(parts, "\n") + warnings + m.turnInfo()
}

// Bounds of the value shown beside a memory var that holds a cell.
const (
	cellShownItems = 5
	cellShownChars = 80
	cellsShown     = 10
)

// memoryEntries are the memory's names for the feedback; a var that holds
// an atom, a volatile or a transient shows what it holds now
// ("counter #atom[3]"), which turns change without a def: the model keeps
// track of its state without spending a turn to print it.
func (m *mission) memoryEntries(names []string) []string {
	out := m.shownNames(names) // names itself when none is hidden
	shown := 0
	for i, name := range names {
		v, _ := m.memory.Get(name)
		c, ok := v.(*lisp.Cell)
		if !ok || shown == cellsShown {
			continue
		}
		if shown == 0 {
			out = slices.Clone(out) // never the caller's names
		}
		shown++
		out[i] += " " + m.show(c, cellShownItems, cellShownChars)
	}
	return out
}

// shownNames are memory names as the LLM may see them: a name computed
// from firewalled data ((memory/put (keyword s) 1), a map's derived key)
// is the placeholder. It is names itself when none is hidden.
func (m *mission) shownNames(names []string) []string {
	var out []string
	for i, name := range names {
		if !m.derivedName(name) {
			continue
		}
		if out == nil {
			out = slices.Clone(names)
		}
		out[i] = Firewalled
	}
	if out == nil {
		return names
	}
	return out
}

// errorFeedback is the message after a turn that failed. The error is cut
// at twice FeedbackMaxChars: a tool's error can be as long as it likes.
func (m *mission) errorFeedback(msg string, output []string, warnings string) string {
	text := "Error: " + m.clip(msg, 2*m.a.format.FeedbackMaxChars)
	if out := m.outputBlock(output); out != "" {
		text += "\n" + out
	}
	if m.a.SingleShot() { // a retry: no memory, no turns
		return text + "\n" + correctedProgram + warnings + m.turnInfo()
	}
	return text + "\nThe error is also in ctx/fail. Memory is as it was before this turn." + warnings + m.turnInfo()
}

// validationFeedback explains a return value that breaks the signature.
func (m *mission) validationFeedback(v lisp.Value, err error) string {
	var sb strings.Builder
	single := m.a.SingleShot() // its value is the answer, returned or not
	if single {
		sb.WriteString("Your program's value does not match the signature.\n")
	} else {
		sb.WriteString("Your (return ...) value does not match the signature, so the mission goes on.\n")
	}
	sb.WriteString("Expected: ")
	sb.WriteString(m.a.sig.Output.String())
	sb.WriteString("\nGot: ")
	sb.WriteString(m.show(v, 10, 300))
	sb.WriteString("\nProblems:")
	var ve *signature.ValidationError
	if asValidation(err, &ve) {
		for i, is := range ve.Issues {
			if i == 10 {
				fmt.Fprintf(&sb, "\n- ... and %d more", len(ve.Issues)-10)
				break
			}
			sb.WriteString("\n- ")
			sb.WriteString(m.clip(is.String(), m.a.format.FeedbackMaxChars))
		}
	} else {
		sb.WriteString("\n- ")
		sb.WriteString(m.clip(err.Error(), m.a.format.FeedbackMaxChars))
	}
	if single {
		sb.WriteString("\n" + correctedProgram)
	} else {
		sb.WriteString("\nFix the value and call (return ...) again.")
	}
	return sb.String()
}

func asValidation(err error, ve **signature.ValidationError) bool {
	v, ok := err.(*signature.ValidationError)
	if ok {
		*ve = v
	}
	return ok
}

// applyMapResult applies the memory contract to a turn's value and returns
// what the LLM is shown of it: unless KeepMaps, a map's entries go into
// memory (but :return), and the :return entry, when present, is shown
// instead of the map.
func (m *mission) applyMapResult(v lisp.Value) (shownValue lisp.Value, stored []string) {
	vars := map[string]lisp.Value{} // on the stack: WithVars copies it
	shown, stored := m.mapResult(v, vars)
	for _, name := range stored {
		delete(m.memSizes, name)
	}
	if len(vars) > 0 {
		// Stored as data: an entry named like a builtin ({:count 3}) is
		// memory/count, and count stays the builtin.
		m.memory = m.memory.WithVars(vars)
	}
	return shown, stored
}

// mapResult is the memory contract applied to a turn's value v: what the
// LLM is shown of it, and the vars its entries store, added to vars and
// named in stored in order (none for a value that is not a map, or under
// KeepMaps).
func (m *mission) mapResult(v lisp.Value, vars map[string]lisp.Value) (shown lisp.Value, stored []string) {
	mv, ok := v.(*lisp.Map)
	if !ok || m.a.cfg.KeepMaps || mv.Len() == 0 {
		return v, nil
	}
	shown = v
	for k, x := range mv.All() {
		name, ok := memoryName(k)
		if !ok {
			continue
		}
		if name == "return" {
			shown = x
			continue
		}
		vars[name] = x
		stored = append(stored, name)
	}
	return shown, stored
}

// storedNote says what a turn stored in memory: the names its program
// defined, new or changed, and those the entries of its map value stored,
// which a model does not always mean to keep.
func (m *mission) storedNote(before *lisp.Namespace, defined, fromMap []string) string {
	var added, changed []string
	for _, name := range defined {
		if _, had := before.Get(name); had {
			changed = append(changed, name)
		} else {
			added = append(added, name)
		}
	}
	var parts []string
	list := func(label string, names []string) {
		if len(names) == 0 {
			return
		}
		if len(names) > 8 {
			names = append(names[:8:8], fmt.Sprintf("… %d more", len(names)-8))
		}
		parts = append(parts, label+strings.Join(names, ", "))
	}
	list("new ", m.shownNames(added))
	list("changed ", m.shownNames(changed))
	list("from the keys of the map it ended with: ", m.shownNames(fromMap))
	if len(parts) == 0 {
		return ""
	}
	return "Stored this turn: " + strings.Join(parts, "; ") + "."
}

// shadowNotes tells the LLM which builtin names its program redefined, so
// that a later surprise ((count xs) calling its own count) explains itself.
func (m *mission) shadowNotes(names []string) string {
	still := m.memory.Shadowed()
	var lines []string
	for _, name := range names {
		if _, ok := slices.BinarySearch(still, name); !ok {
			continue // a map result stored over it: the builtin is back
		}
		if len(lines) == 5 {
			lines = append(lines, "...")
			break
		}
		lines = append(lines, "`"+name+"` now names your value (it was a builtin; the builtin is still clojure.core/"+name+")")
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n" + m.clip(strings.Join(lines, "\n"), m.a.format.FeedbackMaxChars)
}

// programNotes passes on the interpreter's hints about results that are
// valid Clojure but usually a slip (lisp.Result.Notes).
func (m *mission) programNotes(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return "\nNote: " + m.clip(strings.Join(notes, "\nNote: "), m.a.format.FeedbackMaxChars)
}

// memoryName returns the var name a map key is stored under: keywords and
// strings that are PTC-Lisp names (no namespace, not starting with a digit).
func memoryName(k lisp.Value) (string, bool) {
	s, ok := keyName(k)
	if !ok || strings.ContainsRune(s, '/') || (s[0] >= '0' && s[0] <= '9') {
		return "", false
	}
	return s, true
}

// pushHistory records a turn's value for *1 *2 *3, cut to HistoryMaxBytes.
func (m *mission) pushHistory(v lisp.Value) {
	v = truncateValue(v, m.a.format.HistoryMaxBytes)
	m.history = append([]lisp.Value{v}, m.history...)
	if len(m.history) > 3 {
		m.history = m.history[:3]
	}
}

// truncateValue returns v, or a smaller value of the same kind whose
// printed form fits in about limit bytes: a string cut and ending in
// "...", a collection's first elements.
func truncateValue(v lisp.Value, limit int) lisp.Value {
	if valueSize(v, limit) <= limit {
		return v
	}
	switch x := v.(type) {
	case string:
		return textutil.TruncateBytes(x, max(limit-5, 0)) + "..."
	case *lisp.Vector:
		var out []lisp.Value
		used := 2
		for _, e := range x.Items() {
			n := valueSize(e, limit)
			if used+n+1 > limit {
				break
			}
			out = append(out, e)
			used += n + 1
		}
		if x.IsList() {
			return lisp.NewList(out)
		}
		return lisp.NewVector(out)
	case *lisp.Map:
		b := lisp.NewMapBuilder(nil)
		used := 2
		for k, e := range x.All() {
			n := valueSize(k, limit) + valueSize(e, limit) + 2
			if used+n > limit {
				break
			}
			b.Set(k, e)
			used += n
		}
		return b.Map()
	case *lisp.Set:
		var out []lisp.Value
		used := 3
		for e := range x.All() {
			n := valueSize(e, limit)
			if used+n+1 > limit {
				break
			}
			out = append(out, e)
			used += n + 1
		}
		return lisp.NewSet(out...)
	}
	return v
}

// roundFloats rounds every float in v to prec decimals (prec < 0: v as is).
// A collection that may be costly to walk again (see walkOnce) is rounded
// once however often it appears: values can share structure, and a walk of
// every path through [v v] doubled sixty times would never end.
func roundFloats(v lisp.Value, prec int) lisp.Value {
	if prec < 0 {
		return v
	}
	r := rounder{scale: math.Pow(10, float64(prec))}
	return r.walk(v, 0)
}

type rounder struct {
	scale float64
	done  map[any]lisp.Value // shared collections, rounded
}

func (r *rounder) walk(v lisp.Value, depth int) lisp.Value {
	if depth > 1000 {
		return v
	}
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return x
		}
		y := math.Round(x*r.scale) / r.scale
		if math.IsInf(y, 0) || math.IsNaN(y) {
			return x
		}
		return y
	case *lisp.Vector, *lisp.Map, *lisp.Set:
	default:
		return v
	}
	shared := fwall.WalkOnce(v)
	if shared {
		if out, ok := r.done[v]; ok {
			return out
		}
	}
	out := r.collection(v, depth)
	if shared {
		if r.done == nil {
			r.done = map[any]lisp.Value{}
		}
		r.done[v] = out
	}
	return out
}

func (r *rounder) collection(v lisp.Value, depth int) lisp.Value {
	switch x := v.(type) {
	case *lisp.Vector:
		var out []lisp.Value
		for i, e := range x.Items() {
			y := r.walk(e, depth+1)
			if out == nil && !same(y, e) {
				out = append(make([]lisp.Value, 0, x.Len()), x.Items()[:i]...)
			}
			if out != nil {
				out = append(out, y)
			}
		}
		if out == nil {
			return x
		}
		if x.IsList() {
			return lisp.NewList(out)
		}
		return lisp.NewVector(out)
	case *lisp.Map:
		var b *lisp.MapBuilder
		for k, e := range x.All() {
			y := r.walk(e, depth+1)
			if !same(y, e) {
				if b == nil {
					b = lisp.NewMapBuilder(x)
				}
				b.Set(k, y)
			}
		}
		if b == nil {
			return x
		}
		return b.Map()
	case *lisp.Set:
		changed := false
		var out []lisp.Value
		for e := range x.All() {
			y := r.walk(e, depth+1)
			changed = changed || !same(y, e)
			out = append(out, y)
		}
		if !changed {
			return x
		}
		return lisp.NewSet(out...)
	}
	return v
}

// same reports whether two values are the same object (or equal scalars).
func same(a, b lisp.Value) bool {
	switch a.(type) {
	case *lisp.Vector, *lisp.Map, *lisp.Set:
		return a == b
	case float64:
		fa, fb := a.(float64), b.(float64)
		return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
	}
	return true
}
