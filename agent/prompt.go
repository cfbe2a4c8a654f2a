package agent

import (
	"fmt"
	"strings"

	"github.com/ptc-go/ptc/template"
)

// templateOptions are the options of the mission prompt's expansion.
func (a *Agent) templateOptions() []template.Option {
	return []template.Option{template.WithFloatPrecision(max(a.cfg.FloatPrecision, 0))}
}

// resolveLanguage checks SystemPrompt.Language: a profile name or a text.
func resolveLanguage(lang string) (string, error) {
	switch lang {
	case "", "default":
		return "default", nil
	case "compact":
		return "compact", nil
	}
	if !strings.ContainsAny(lang, " \n") {
		return "", configErr("SystemPrompt.Language", fmt.Sprintf("unknown profile %q (the profiles are default and compact; longer text is used as it is)", lang))
	}
	return lang, nil
}

// systemPrompt builds the system prompt of the current turn.
func (m *mission) systemPrompt() string {
	return "You write PTC-Lisp programs."
}
