package base

import (
	"fmt"

	"github.com/ptc-go/ptc/agent"
)

// TurnTimeoutUsage is the --timeout help of the commands whose programs
// run as an agent's turns, where the default is an agent's turn timeout
// (the Limits.Timeout a zero agent.Config gets).
func TurnTimeoutUsage() string {
	d := agent.MustNew(agent.Config{Prompt: "-"}).Config().Limits.Timeout
	return fmt.Sprintf("wall-clock limit per program, as 500ms or 2s (default %s; -1: none)", d)
}
