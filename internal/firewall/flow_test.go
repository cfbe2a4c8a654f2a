package firewall

import (
	"context"
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/ptc-go/ptc/lisp"
)

// A surrogate differs from the value at every position, in every case form,
// and keeps its type and size.
func TestSurrogateText(t *testing.T) {
	for _, s := range []string{"tok-3f9a1c7e", "Hello, World 2024!", "geheimes-wört-ß-秘密-κλειδί", "ĀāĂă İı ǅ", "\t\n\x00~`@[{"} {
		for variant := range Variants {
			checkSurrogateText(t, s, surrogateText(s, variant))
		}
	}
	// A letter's code point grows by amounts that share no factor, one per
	// variant (the package's doc says 975 and 848).
	d0, d1 := surrogateRune('a', 0)-'a', surrogateRune('a', 1)-'a'
	if d0 != 975 || d1 != 848 || surrogateRune('Z', 0)-'Z' != 975 || surrogateRune('Z', 1)-'Z' != 848 {
		t.Errorf("letters move by %d and %d", d0, d1)
	}
}

func checkSurrogateText(t *testing.T, s, sur string) {
	t.Helper()
	{
		rs, rt := []rune(s), []rune(sur)
		if len(rs) != len(rt) {
			t.Fatalf("%q: surrogate %q has %d characters, want %d", s, sur, len(rt), len(rs))
		}
		for i := range rs {
			a, b := rs[i], rt[i]
			if a == b || unicode.ToUpper(a) == unicode.ToUpper(b) || unicode.ToLower(a) == unicode.ToLower(b) || caseForms(a, b) {
				t.Errorf("%q: character %d %q and its surrogate %q are alike", s, i, a, b)
			}
		}
		if strings.EqualFold(s, sur) {
			t.Errorf("%q: the surrogate %q equals it folded", s, sur)
		}
	}
}

func TestSurrogateScalars(t *testing.T) {
	for _, v := range []lisp.Value{int64(0), int64(7), int64(-5), int64(math.MaxInt64), int64(math.MinInt64), 0.0, 2.5, 1e300, math.Inf(1), math.NaN(),
		true, false, lisp.Keyword("gold"), lisp.Date{Y: 2024, M: 2, D: 29}, lisp.Date{Y: 2024, M: 12, D: 31}} {
		for variant := range Variants {
			s := surrogateScalar(v, variant)
			if same(s, v) || lisp.Print(s, lisp.PrintOptions{}) == lisp.Print(v, lisp.PrintOptions{}) {
				t.Errorf("the surrogate of %v is %v", v, s)
			}
			if lisp.TypeName(s) != lisp.TypeName(v) {
				t.Errorf("the surrogate of %v is a %s", v, lisp.TypeName(s))
			}
		}
	}
	// Sums, products, quotients and the last digits of a number change.
	for _, x := range []int64{0, 1, 9, 120000, 999999} {
		for variant := range Variants {
			y := surrogateScalar(x, variant).(int64)
			if x%2 == y%2 || x%10 == y%10 || x/1000 == y/1000 || 3*x == 3*y {
				t.Errorf("%d and its surrogate %d agree on parity, last digit or thousands", x, y)
			}
		}
		// A residue one variant keeps, the other changes.
		for k := int64(2); k <= 1000; k++ {
			if surrogateScalar(x, 0).(int64)%k == x%k && surrogateScalar(x, 1).(int64)%k == x%k {
				t.Errorf("%d mod %d: both surrogates agree", x, k)
			}
		}
	}
}

// Surrogate replaces what is under "_" keys, keeps keys, and shares the
// rest.
func TestSurrogateSharesPublicParts(t *testing.T) {
	public := lisp.NewVector([]lisp.Value{int64(1), "two"})
	hidden := lisp.NewMap(lisp.Keyword("pin"), int64(1234), lisp.Keyword("tags"), lisp.NewVector([]lisp.Value{"a", "b"}))
	v := lisp.NewMap(lisp.Keyword("rows"), public, lisp.Keyword("_card"), hidden, "_id", "abc-123")
	out, ok := Surrogate(v, 0)
	if !ok {
		t.Fatal("not ok")
	}
	m := out.(*lisp.Map)
	if rows, _ := m.Get(lisp.Keyword("rows")); rows != lisp.Value(public) {
		t.Error("the public vector was copied")
	}
	card, _ := m.Get(lisp.Keyword("_card"))
	cm, ok := card.(*lisp.Map)
	if !ok || cm.Len() != 2 {
		t.Fatalf("the hidden map became %v", card)
	}
	if pin, _ := cm.Get(lisp.Keyword("pin")); pin == int64(1234) {
		t.Error("the hidden number was kept")
	}
	if tags, _ := cm.Get(lisp.Keyword("tags")); lisp.Print(tags, lisp.PrintOptions{}) == `["a" "b"]` {
		t.Error("the hidden vector was kept")
	}
	if id, _ := m.Get("_id"); id == "abc-123" || len([]rune(id.(string))) != 7 {
		t.Errorf("the hidden string became %q", id)
	}
	// A value without firewalled parts is returned as it is.
	if out, _ := Surrogate(lisp.NewMap(lisp.Keyword("rows"), public), 1); lisp.Print(out, lisp.PrintOptions{}) != `{:rows [1 "two"]}` {
		t.Errorf("got %v", out)
	}
}

// Derive hides the elements that differ by their place, a collection of
// another shape whole, and reports a scalar that differs.
func TestDerivePlaces(t *testing.T) {
	vec := func(xs ...lisp.Value) *lisp.Vector { return lisp.NewVector(xs) }
	kw := func(s string) lisp.Keyword { return lisp.Keyword(s) }
	cases := []struct {
		name string
		r, s lisp.Value
		want string
		top  bool
	}{
		{"same", lisp.NewMap(kw("a"), int64(1)), lisp.NewMap(kw("a"), int64(1)), "{:a 1}", false},
		{"map entry", lisp.NewMap(kw("a"), int64(1), kw("b"), "x"), lisp.NewMap(kw("a"), int64(1), kw("b"), "y"), "{:a 1, :b <Firewalled>}", false},
		{"vector element", vec(int64(1), int64(2), int64(3)), vec(int64(1), int64(9), int64(3)), "[1 <Firewalled> 3]", false},
		{"nested", lisp.NewMap(kw("v"), vec(int64(1), "s")), lisp.NewMap(kw("v"), vec(int64(1), "t")), "{:v [1 <Firewalled>]}", false},
		{"another length", vec(int64(1), int64(2)), vec(int64(1)), "<Firewalled>", false},
		{"another key", lisp.NewMap(kw("a"), int64(1)), lisp.NewMap(kw("b"), int64(1)), "<Firewalled>", false},
		{"1 and 1.0", vec(int64(1)), vec(1.0), "[<Firewalled>]", false},
		{"scalar", int64(5), int64(6), "5", true},
		{"set", lisp.NewSet(int64(1)), lisp.NewSet(int64(2)), "<Firewalled>", false},
	}
	for _, c := range cases {
		fw := New(nil, nil)
		if top := fw.Derive(c.r, c.s); top != c.top {
			t.Errorf("%s: Derive reports %v", c.name, top)
		}
		if got := lisp.Print(c.r, lisp.PrintOptions{Redact: fw.Redaction()}); got != c.want {
			t.Errorf("%s: prints %s, want %s", c.name, got, c.want)
		}
		// As JSON and through a Veil alike.
		if got := (Veil{fw}).Format(c.r, lisp.PrintOptions{}); got != c.want {
			t.Errorf("%s: the veil prints %s, want %s", c.name, got, c.want)
		}
	}
	fw := New(nil, nil)
	r := lisp.NewMap(kw("a"), int64(1), kw("b"), vec("x", int64(2)))
	fw.Derive(r, lisp.NewMap(kw("a"), int64(1), kw("b"), vec("y", int64(2))))
	if j, err := lisp.ToJSON(r, fw.Redaction()); err != nil || string(j) != `{"a":1,"b":["<Firewalled>",2]}` {
		t.Errorf("JSON %s (%v)", j, err)
	}
}

// Derive's work is linear in the values, however shared their structure.
func TestDeriveBounded(t *testing.T) {
	build := func(leaf lisp.Value) lisp.Value {
		v := lisp.NewVector([]lisp.Value{leaf, leaf})
		for range 60 {
			v = lisp.NewVector([]lisp.Value{v, v, lisp.NewVector(make([]lisp.Value, 40))})
		}
		return v
	}
	r, s := build("a"), build("b")
	d := &deriver{fw: New(nil, nil), budget: maxDeriveVisits}
	d.diff(r, s, 0)
	if used := maxDeriveVisits - d.budget; used > 10_000 {
		t.Errorf("Derive visited %d values of a 2^60-path value", used)
	}
	d.commit()
	if p := lisp.Print(r, lisp.PrintOptions{Redact: d.fw.Redaction(), MaxChars: 200}); !strings.Contains(p, "<Firewalled>") {
		t.Errorf("the differing leaf is shown: %s", p)
	}
}

func TestDeriveLines(t *testing.T) {
	cases := []struct{ r, s, want []string }{
		{[]string{"a", "b"}, []string{"a", "b"}, []string{"a", "b"}},
		{[]string{"total: 360000 rows"}, []string{"total: 3703701 rows"}, []string{"total: <Firewalled> rows"}},
		{[]string{"key LCTXSECRET-alpha-1234"}, []string{"key LPGKFRPERG,nycun+6789"}, []string{"key <Firewalled>"}},
		{[]string{"key L<Firewalled>"}, []string{"key L=Psvertnyyrq?"}, []string{"key <Firewalled>"}},
		{[]string{"start", "secret 1", "end"}, []string{"start", "end"}, []string{"start", "<Firewalled>", "end"}},
		{[]string{"start", "x 1", "end"}, []string{"start", "x 2", "extra", "end"}, []string{"start", "x <Firewalled>", "end"}},
		{[]string{"", "a"}, nil, []string{"", "<Firewalled>"}},
	}
	for _, c := range cases {
		if got := DeriveLines(c.r, c.s); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("DeriveLines(%q, %q) = %q, want %q", c.r, c.s, got, c.want)
		}
	}
	if got := DeriveText("a\nb 1", "a\nb 2"); got != "a\nb <Firewalled>" {
		t.Errorf("DeriveText: %q", got)
	}
}

// Elements hidden by their place travel with a moved firewall.
func TestMembersMoved(t *testing.T) {
	kw := func(s string) lisp.Keyword { return lisp.Keyword(s) }
	r := lisp.NewMap(kw("a"), int64(1), kw("b"), lisp.NewVector([]lisp.Value{"x", int64(2)}), "k", "v")
	fw := New(nil, nil)
	fw.Derive(r, lisp.NewMap(kw("a"), int64(1), kw("b"), lisp.NewVector([]lisp.Value{"y", int64(2)}), "k", "w"))
	want := `{:a 1, :b [<Firewalled> 2], "k" <Firewalled>}`
	if got := lisp.Print(r, lisp.PrintOptions{Redact: fw.Redaction()}); got != want {
		t.Fatalf("prints %s", got)
	}
	for _, data := range [][]byte{Marshal(fw, r, false), MarshalVeil(Veil{fw}, r)} {
		// The value read back elsewhere: equal, not the same objects.
		back, err := lisp.Read(lisp.Print(r, lisp.PrintOptions{Exact: true}), lisp.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		moved, err := Unmarshal(data, back)
		if err != nil {
			t.Fatal(err)
		}
		if got := lisp.Print(back, lisp.PrintOptions{Redact: moved.Redaction()}); got != want {
			t.Errorf("moved (%s): prints %s, want %s", data, got, want)
		}
		// A value that lost the place hides the innermost collection.
		other := lisp.NewMap(kw("a"), int64(1), kw("b"), "no longer a vector", "k", "v")
		moved, err = Unmarshal(data, other)
		if err != nil {
			t.Fatal(err)
		}
		if got := lisp.Print(other, lisp.PrintOptions{Redact: moved.Redaction()}); got != "<Firewalled>" {
			t.Errorf("moved onto another value: prints %s", got)
		}
	}
}

// A cell that holds itself is copied in bounded work: the copy is a new
// cell, and the occurrence that closes the cycle a stand-in.
func TestSurrogateCyclicCell(t *testing.T) {
	res, err := lisp.Run(context.Background(), `(let [a (atom nil)] (reset! a [a a {:self a} "private"]) a)`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for variant := range Variants {
		out, ok := SurrogateAll(res.Value, variant)
		c, isCell := out.(*lisp.Cell)
		if !ok || !isCell || c == res.Value {
			t.Fatalf("variant %d: got %v (%v)", variant, out, ok)
		}
		if p := lisp.Print(c, lisp.PrintOptions{}); strings.Contains(p, "private") {
			t.Errorf("variant %d: the copy holds the real text: %s", variant, p)
		}
	}
}

// A large map is compared in its order, not by a lookup per key.
func TestDeriveBigMap(t *testing.T) {
	build := func(at int, v lisp.Value) *lisp.Map {
		b := lisp.NewMapBuilder(nil)
		for i := range 40 {
			if i == at {
				b.Set(int64(i), v)
			} else {
				b.Set(int64(i), int64(i*i))
			}
		}
		return b.Map()
	}
	r := build(7, "real")
	fw := New(nil, nil)
	fw.Derive(r, build(7, "shadow"))
	p := lisp.Print(r, lisp.PrintOptions{Redact: fw.Redaction()})
	if !strings.Contains(p, "7 <Firewalled>, 8 64") || !strings.Contains(p, "6 36") || strings.Contains(p, "real") {
		t.Errorf("prints %s", p)
	}
	// Another key at the same place: the map whole.
	other := lisp.NewMapBuilder(nil)
	for i := range 40 {
		other.Set(int64(i+1), int64(0))
	}
	fw = New(nil, nil)
	fw.Derive(r, other.Map())
	if p := lisp.Print(r, lisp.PrintOptions{Redact: fw.Redaction()}); p != "<Firewalled>" {
		t.Errorf("prints %s", p)
	}
}

// TestHideScalar: a scalar hidden by value prints as the placeholder
// wherever it occurs, moves with the firewall (Absorb, Marshal and
// Unmarshal), and is replaced in a shadow run's replayed values; nil and
// booleans are never hidden by value.
func TestHideScalar(t *testing.T) {
	fw := New(nil, nil)
	hidden := []lisp.Value{"tok-3", int64(370368), 2.5, lisp.Keyword("3f9a")}
	for _, v := range append(hidden, true, nil, false) {
		fw.HideScalar(v)
	}
	v := lisp.NewVector([]lisp.Value{"tok-3", int64(370368), 2.5, lisp.Keyword("3f9a"), true, nil, "tok-4", int64(7)})
	const want = `[<Firewalled> <Firewalled> <Firewalled> <Firewalled> true nil "tok-4" 7]`
	if got := lisp.Print(v, lisp.PrintOptions{Redact: fw.Redaction()}); got != want {
		t.Errorf("printed %s, want %s", got, want)
	}
	up := New(nil, nil)
	up.Absorb(fw)
	moved, err := Unmarshal(Marshal(fw, nil, false), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*Firewall{"absorbed": up, "moved": moved} {
		if got := lisp.Print(v, lisp.PrintOptions{Redact: f.Redaction()}); got != want {
			t.Errorf("%s: printed %s, want %s", name, got, want)
		}
	}
	s, _ := fw.SurrogateHidden(v, 0)
	items := s.(*lisp.Vector).Items()
	for i, h := range hidden {
		if lisp.Equal(items[i], h) {
			t.Errorf("the surrogate keeps hidden %v", h)
		}
	}
	if !lisp.Equal(items[6], "tok-4") || !lisp.Equal(items[7], int64(7)) || items[4] != true {
		t.Errorf("the surrogate changed public values: %v", s)
	}
}
