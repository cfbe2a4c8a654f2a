package devcmd

import (
	"encoding/json"
	"testing"
)

func TestDevEditText(t *testing.T) {
	for _, c := range []struct {
		name, in string
		edit     devEdit
		want     string
	}{
		{"no front matter", "Hi.\n", devEdit{MaxTurns: 2}, "---\nmax-turns: 2\n---\nHi.\n"},
		{"new limits", "---\nmax-turns: 1\n---\n\nHi.\n", devEdit{Limits: map[string]json.RawMessage{"max_steps": json.RawMessage("5")}},
			"---\nmax-turns: 1\nlimits:\n  max-steps: 5\n---\n\nHi.\n"},
		{"replace a limit", "---\nlimits:\n    timeout: 1s # slow\n    max-depth: 3\n---\nHi.", devEdit{Limits: map[string]json.RawMessage{"timeout": json.RawMessage(`"3s"`)}},
			"---\nlimits:\n    timeout: 3s\n    max-depth: 3\n---\nHi."},
		{"body prompt", "---\nmax-turns: 1\n---\n\nOld\nprompt\n\n", devEdit{Prompt: "New"}, "---\nmax-turns: 1\n---\n\nNew\n"},
		{"CRLF", "---\r\nmax-turns: 1\r\n---\r\nOld\r\n", devEdit{MaxTurns: 4}, "---\r\nmax-turns: 4\r\n---\r\nOld\r\n"},
		{"block max-turns", "---\nmax-turns: |\n  3\n---\nHi.\n", devEdit{MaxTurns: 4}, "---\nmax-turns: 4\n---\nHi.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := c.edit.apply("a.md", ".", []byte(c.in))
			if err != nil || string(out) != c.want {
				t.Errorf("got %q, %v; want %q", out, err, c.want)
			}
		})
	}
}
