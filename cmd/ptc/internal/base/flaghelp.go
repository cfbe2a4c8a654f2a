package base

import (
	"fmt"

	"github.com/ptc-go/ptc/agent"
)

// TurnTimeoutUsage is the --timeout help of the commands whose programs
// run as an agent's turns, where the default is agent.DefaultTurnTimeout.
func TurnTimeoutUsage() string {
	return fmt.Sprintf("wall-clock limit per program, as 500ms or 2s (default %s; -1: none)", agent.DefaultTurnTimeout)
}
