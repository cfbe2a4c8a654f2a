package agentfile

import (
	"strings"
	"testing"
)

// TestAgentFileParseLinear: the parser's work (the bytes of lines it looks
// at) is within a constant factor of the file's size, whatever its shape:
// deep indentation took quadratic time (4 MB in 8.5 s) when each level of
// nesting was parsed, going over the lines below it again. The work is
// counted, not timed.
func TestAgentFileParseLinear(t *testing.T) {
	deep := func(head string) func(n int) string {
		return func(n int) string {
			var sb strings.Builder
			sb.WriteString("---\n" + head + "\n")
			for k := 1; k <= n; k++ {
				sb.WriteString(strings.Repeat(" ", k) + "a:\n")
			}
			sb.WriteString("---\nP\n")
			return sb.String()
		}
	}
	repeat := func(head, line, tail string) func(n int) string {
		return func(n int) string {
			return "---\n" + head + strings.Repeat(line, n) + tail + "---\nP\n"
		}
	}
	shapes := []struct {
		name string
		text func(n int) string
	}{
		{"deep under limits", deep("limits:")},
		{"deep under a scalar key", deep("description:")},
		{"deep in steps of two", func(n int) string {
			var sb strings.Builder
			sb.WriteString("---\nlimits:\n")
			for k := 1; k <= n; k++ {
				sb.WriteString(strings.Repeat("  ", k) + "timeout:\n\n")
			}
			sb.WriteString("---\nP\n")
			return sb.String()
		}},
		{"many limits", repeat("limits:\n", "  max-steps: 1\n", "")},
		{"a long block", repeat("system-prefix: |\n", "  some text of the prefix\n", "")},
		{"blank lines before a nested key", repeat("description:\n", "\n", "  a: b\n")},
		{"many keys with nested lines", repeat("", "k:\n  a: b\n", "")},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			for _, n := range []int{250, 500, 1000} {
				text := sh.text(n)
				_, work, _ := parse("agent.md", []byte(text))
				if work > 4*len(text) {
					t.Errorf("n=%d: the parser looked at %d bytes for a file of %d (%.1f times)", n, work, len(text), float64(work)/float64(len(text)))
				}
			}
		})
	}
}
