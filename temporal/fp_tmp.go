package temporal

import (
	"fmt"

	"github.com/ptc-go/ptc/agent"
)

// TEMPORARY until agent.Fingerprint lands.
func fingerprintOf(a *agent.Agent) string {
	c := a.Config()
	names := sortedKeys(c.Tools)
	return traceID(fmt.Sprint(c.Prompt, c.Signature, names, c.MaxTurns))
}
