package doctest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"ptc eval -e '(+ 1 2)'", []string{"ptc", "eval", "-e", "(+ 1 2)"}, false},
		{`ptc eval -e "(str \"a\" 1)"  # a comment`, []string{"ptc", "eval", "-e", `(str "a" 1)`}, false},
		{"ptc eval -e '(let [x 1]\n  (+ x \"a\"))'", []string{"ptc", "eval", "-e", "(let [x 1]\n  (+ x \"a\"))"}, false},
		{`ptc a\ b c#d`, []string{"ptc", "a b", "c#d"}, false},
		{"ptc test   ", []string{"ptc", "test"}, false},
		{"export X=$(openssl rand -hex 32)", nil, true},
		{"ptc eval -e x | jq", nil, true},
		{`ptc eval -e "$X"`, nil, true},
		{"ptc eval -e 'open", nil, true},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := Split("a | b"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a pipe: %v, want ErrUnsupported", err)
	}
}

func TestMatch(t *testing.T) {
	got := []string{"turn 1", "a", "b took 3.2ms", "c", "d", "end"}
	tests := []struct {
		shown []string
		ok    bool
	}{
		{[]string{"a", "b took 1ms", "c"}, true},
		{[]string{"a", "…", "d", "end"}, true},
		{[]string{"  …", "end"}, true},
		{[]string{"a", "c"}, false}, // not consecutive
		{[]string{"c", "…", "a"}, false},
		{[]string{"end", "more"}, false},
		{nil, true},
	}
	for _, tt := range tests {
		err := Match(tt.shown, got, MaskDurations)
		if (err == nil) != tt.ok {
			t.Errorf("Match(%q): %v, want ok %v", tt.shown, err, tt.ok)
		}
	}
	err := Match([]string{"a", "b took 1ms", "X"}, got, MaskDurations)
	if err == nil || !strings.Contains(err.Error(), `the doc shows "X" where the output has "c"`) {
		t.Errorf("the error names the line: %v", err)
	}
}

func TestMasks(t *testing.T) {
	if got := MaskDurations("5 turns, 691µs, LLM 2.1s, 3ms (1m2s)"); got != "5 turns, ⏱, LLM ⏱, ⏱ (⏱)" {
		t.Errorf("MaskDurations: %q", got)
	}
	if got := MaskDurations("  p50   672µs / 5ms      770µs"); got != "  p50 ⏱ / ⏱ ⏱" {
		t.Errorf("MaskDurations of a table row: %q", got)
	}
	if got := MaskNumbers("200 runs, median 1.48ms, 2,190 allocs"); got != "# runs, median #ms, # allocs" {
		t.Errorf("MaskNumbers: %q", got)
	}
}

func TestParseCommandsReplace(t *testing.T) {
	md := "# Title\n\nRun `go run ./cmd/ptc eval -e 1` and `go build`.\n\n" +
		"```\n$ ptc eval -e '(let [x 1]\n  x)'\n1\n$ ptc run\nptc run: missing\n```\n\n" +
		"```sh\nptc test                # offline\nptc bench \\\n  -e 1\n# a comment\n```\n\n" +
		"```\nptc eval [-c FILE] (-e SRC | FILE)\n```\n\n" +
		"<!-- output of: go run ./examples/agent -->\n```\nold\nlines\n```\nafter\n"
	file := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(file, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	isPTC := func(l string) bool {
		return strings.HasPrefix(l, "ptc ") || l == "ptc" || strings.HasPrefix(l, "go run ./cmd/ptc ")
	}
	var cmds []Command
	for _, b := range d.Blocks {
		cmds = append(cmds, Commands(b, isPTC)...)
	}
	var texts []string
	for _, c := range cmds {
		texts = append(texts, c.Text+" => "+strings.Join(c.Output, "|"))
	}
	want := []string{"ptc eval -e '(let [x 1]\n  x)' => 1", "ptc run => ptc run: missing", "ptc test                # offline => ", "ptc bench  -e 1 => "}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("commands:\n%q\nwant\n%q", texts, want)
	}
	if cmds[1].Line != 9 {
		t.Errorf("the second command is on line %d, want 9", cmds[1].Line)
	}
	inline := InlineCommands(d, isPTC)
	if len(inline) != 1 || inline[0].Text != "go run ./cmd/ptc eval -e 1" || inline[0].Line != 3 {
		t.Errorf("inline commands: %+v", inline)
	}
	b, ok := d.Marked("go run ./examples/agent")
	if !ok || strings.Join(b.Lines, "|") != "old|lines" {
		t.Fatalf("marked block: %+v %v", b, ok)
	}
	if err := d.Replace(b, []string{"new", "three", "lines"}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(file)
	if want := strings.Replace(md, "old\nlines\n", "new\nthree\nlines\n", 1); string(after) != want {
		t.Errorf("after Replace:\n%s\nwant\n%s", after, want)
	}
}

func TestRefresh(t *testing.T) {
	got := []string{"head", "5 turns, 9.1ms, tokens 6472 in", "x", "system prompt ≈ 1093 tokens", "tail"}
	shown := []string{"5 turns, 691µs, tokens 5972 in", "…", "system prompt ≈ 993 tokens"}
	out, err := Refresh(shown, got)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"5 turns, 9.1ms, tokens 6472 in", "…", "system prompt ≈ 1093 tokens"}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("Refresh = %q, want %q", out, want)
	}
	if _, err := Refresh([]string{"a line the output lacks"}, got); err == nil {
		t.Error("Refresh of a line the output lacks: no error")
	}
}
