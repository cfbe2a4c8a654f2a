package prompt

import "testing"

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
