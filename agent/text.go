package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// An agent in text mode (Config.Mode "text") asks its model for the
// answer itself, as one JSON value, instead of a program: for tasks with no
// tools, and models that write JSON better than PTC-Lisp. Each reply is
// read as JSON and checked against the signature's output, as a returned
// value is; a reply that is not JSON, or does not match, is explained to
// the model, which tries again while it has turns.

// textPrompt is a text-mode agent's system prompt: the task, the data, and
// the answer's JSON Schema.
func (m *mission) textPrompt() string {
	sp := m.a.cfg.Presentation
	role := "You answer the user's task with one JSON value, computed from the data below."
	if m.a.inputInMessage {
		role = "You answer the user's task with one JSON value, computed from the data of the user's message."
	}
	var inventory string
	if !m.a.inputInMessage {
		inventory = m.textData()
	}
	reply := "## Reply\nReply with the answer as one JSON value in a ```json block, and nothing else."
	if sig := m.a.sig; sig != nil && sig.Output.Kind != signature.Any {
		if schema, err := json.Marshal(sig.OutputSchema()); err == nil {
			reply += "\nIts JSON Schema: " + string(schema)
		}
	}
	if f := sp.OutputFormat; f != "" {
		reply = f
	}
	var parts []string
	for _, s := range []string{sp.Prefix, role, inventory, reply, sp.Suffix} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// textDataBytes bounds the data a model in text or tool-calling mode is
// shown at once: the input, a tool's result.
const textDataBytes = 64 << 10

// textData is the input as the model of a text mode agent reads it: whole,
// as JSON, firewalled values hidden (as "<Firewalled>"), cut past
// textDataBytes.
func (m *mission) textData() string {
	ctx := m.context
	if ctx == nil || ctx.Len() == 0 {
		return ""
	}
	redact := &lisp.Redaction{Placeholder: Firewalled, Key: fwall.HiddenKey}
	if m.fw != nil {
		redact = m.fw.Redaction()
	}
	data, err := lisp.ToJSON(ctx, redact)
	if err != nil {
		return ""
	}
	return "## Data\n```json\n" + cutData(m.fw.Scrub(string(data)), "data") + "\n```"
}

// cutData bounds the JSON a model that does not write programs is shown
// (the input, a tool's result): it sees the data itself, so the bound is
// textDataBytes, far above a program's feedback, and a cut says where.
func cutData(text, what string) string {
	if len(text) <= textDataBytes {
		return text
	}
	return strings.ToValidUTF8(text[:textDataBytes], "") + "\n[... the " + what + " is cut here: it has " +
		fmt.Sprint(len(text)) + " bytes]"
}

// textTurn reads a text-mode reply: its JSON value ends the mission when it
// matches the signature; otherwise the model is told why and the mission
// goes on (the turns' limit ends it, as it ends a program mission).
func (m *mission) textTurn(tr *Turn, reply string) *ending {
	v, err := readAnswer(reply)
	if err != nil {
		tr.Error = "Your reply is not one JSON value: " + err.Error() + "."
		m.feedback(tr, reply, tr.Error+" Reply with the answer as one JSON value in a ```json block."+m.textTurnInfo())
		return nil
	}
	tr.Result = v
	if issues := m.validateReturn(v); issues != nil {
		tr.Error = m.textValidationFeedback(v, issues)
		m.feedback(tr, reply, tr.Error+m.textTurnInfo())
		return nil
	}
	return &ending{value: v}
}

// textTurnInfo says how many turns are left, in text mode's words.
func (m *mission) textTurnInfo() string {
	switch left := m.a.cfg.MaxTurns - m.turn; {
	case left <= 0:
		return ""
	case left == 1:
		return "\n\nThis is your last try."
	default:
		return fmt.Sprintf("\n\n%d tries left.", left)
	}
}

// textValidationFeedback explains an answer that breaks the signature.
func (m *mission) textValidationFeedback(v lisp.Value, err error) string {
	text := m.validationFeedback(v, err)
	_, rest, _ := strings.Cut(text, "\n")
	return "Your answer does not match the signature.\n" + rest
}

// readAnswer reads the JSON value of a reply: the first ```json (or
// untagged) block's, else the whole reply's.
func readAnswer(reply string) (lisp.Value, error) {
	text := strings.TrimSpace(reply)
	if block, ok := fencedJSON(text); ok {
		text = block
	}
	if text == "" {
		return nil, fmt.Errorf("it is empty")
	}
	v, err := lisp.Read(text, lisp.ReadOptions{Format: lisp.ReadJSON})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// fencedJSON is the content of the first fenced block tagged json, or
// untagged, of text.
func fencedJSON(text string) (string, bool) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "```") {
			continue
		}
		tag := strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "`")))
		if tag != "" && tag != "json" && tag != "jsonc" {
			continue
		}
		var body []string
		for _, b := range lines[i+1:] {
			if strings.HasPrefix(strings.TrimSpace(b), "```") {
				break
			}
			body = append(body, b)
		}
		return strings.Join(body, "\n"), true
	}
	return "", false
}
