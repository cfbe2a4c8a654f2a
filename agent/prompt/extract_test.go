package prompt

import (
	"strings"
	"testing"
)

// TestExtractProgram: the three places a program is found, in order.
func TestExtractProgram(t *testing.T) {
	tests := []struct{ reply, want string }{
		{"Here:\n```clojure\n(+ 1 2)\n```\nDone.", "(+ 1 2)"},
		{"```\n(inc 1)\n```", "(inc 1)"},
		{"Let me see.\n(count ctx/x)\n", "(count ctx/x)"},
		{"```clojure\n(def a 1)\n```\n```\n(+ 2 3)\n```\n```lisp\n(inc a)\n```", "(def a 1)\n(inc a)"},
		{"No code here.", ""},
	}
	for _, tt := range tests {
		if got := ExtractProgram(tt.reply); got != tt.want {
			t.Errorf("ExtractProgram(%q) = %q, want %q", tt.reply, got, tt.want)
		}
	}
}

// Programs whose string literals span lines (Clojure allows it, and LLMs
// write data that way) come out of a reply whole.
func TestExtractMultiLineStrings(t *testing.T) {
	tests := []struct{ name, reply, want string }{
		{"fenced", "Here:\n```clojure\n(def csv \"a,b\n1,2\n(x)\")\n(count csv)\n```\nDone.",
			"(def csv \"a,b\n1,2\n(x)\")\n(count csv)"},
		{"bare forms, code-like and prose lines inside the string",
			"Let me see.\n(def log \"ERROR disk\nnot code )] at all\n  (x\")\n(count log)\nThat counts it.",
			"(def log \"ERROR disk\nnot code )] at all\n  (x\")\n(count log)"},
		{"bare forms, a string open at depth 0",
			"(def a 1) \"a note\nsecond line\"\n(+ a 1)\nDone.",
			"(def a 1) \"a note\nsecond line\"\n(+ a 1)"},
	}
	for _, tt := range tests {
		if got := ExtractProgram(tt.reply); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Typographic quotes and invisible characters are cleaned out of the code
// but never out of its string literals: text in a literal is data.
func TestExtractCleansOutsideStrings(t *testing.T) {
	tests := []struct{ name, reply, want string }{
		{"curly quotes as delimiters", "```clojure\n(str/includes? s \u201chi\u201d)\n```", `(str/includes? s "hi")`},
		{"curly quotes inside a literal stay", "```clojure\n(return \"He said \u201chi\u201d, don\u2019t\")\n```",
			"(return \"He said \u201chi\u201d, don\u2019t\")"},
		{"a straight quote closes a curly-opened literal", "(count \u201cabc\")", `(count "abc")`},
		{"an emoji joined by zero-width joiners stays whole", "```clojure\n(count \"\U0001F468\u200d\U0001F469\u200d\U0001F467\")\n```",
			"(count \"\U0001F468\u200d\U0001F469\u200d\U0001F467\")"},
		{"zero-width space and nbsp in code", "\ufeff(+\u00a01\u200b 2)", "(+ 1 2)"},
		{"escaped quote in a literal", "```clojure\n(str \"a\\\"\u201c\" \u201cb\u201d)\n```", "(str \"a\\\"\u201c\" \"b\")"},
		{"character literal of a quote", "```clojure\n(= \\\" (str \u201cx\u201d))\n```", "(= \\\" (str \"x\"))"},
		{"comment with a quote opens nothing", "```clojure\n; it\u2019s \"\n(str \u201cx\u201d)\n```", "; it's \"\n(str \"x\")"},
		{"CRLF line ends", "```clojure\r\n(def s \"a\r\nb\")\r\n```", "(def s \"a\nb\")"},
	}
	for _, tt := range tests {
		if got := ExtractProgram(tt.reply); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestProgramClosed(t *testing.T) {
	for _, tt := range []struct {
		reply  string
		closed bool
	}{
		{"", false},
		{"```clojure\n(+ 1 2)\n```", true},
		{"```clojure\n(+ 1 2)\n```\nThe sum.", true},
		{"```clojure\n(+ 1 2)\n", false},                      // still open
		{"```clojure\n(+ 1 2)\n``", false},                    // the fence is being written
		{"```clojure\n(let [x 1]\n```", false},                // unbalanced
		{"```clojure\n(str \"a)\" \"b\")\n```", true},         // a bracket in a string
		{"```clojure\n(str \"an open\n```", false},            // an open string
		{"```clojure\n(+ 1 2) ; a comment (\n```", true},      // a bracket in a comment
		{"```\n(+ 1 2)\n```", false},                          // untagged: the tagged block may follow
		{"```text\nhello\n```\n```clj\n(inc 1)\n```", true},   // the second block is code
		{"```clojure\n   \n```", false},                       // blank
		{"Here:\n\n```ptc\n(return {:a [1 2]})\n```\n", true}, // another tag
		{"```clojure\n(+ 1 2)\n```", true},
	} {
		if got := ProgramClosed(tt.reply); got != tt.closed {
			t.Errorf("ProgramClosed(%q) = %v, want %v", tt.reply, got, tt.closed)
		}
	}
}

// ProgramWatch agrees with ProgramClosed on the reply so far, whatever
// the pieces it is written in (a fence cut between pieces included).
func TestProgramWatch(t *testing.T) {
	reply := "Let me count.\n```clojure\n(count (str \"``\" ctx/items))\n```\nThat counts them.\n"
	for size := 1; size <= 7; size++ {
		var w ProgramWatch
		stopped := -1
		for i := 0; i < len(reply); i += size {
			piece := reply[i:min(i+size, len(reply))]
			if w.Write(piece) {
				stopped = i + len(piece)
				break
			}
		}
		want := strings.Index(reply, "```\nThat") + 3
		if stopped < want || stopped > want+size || !ProgramClosed(w.Text()) || ProgramClosed(reply[:want-1]) {
			t.Errorf("pieces of %d bytes: stopped at %d, want %d", size, stopped, want)
		}
	}
}
