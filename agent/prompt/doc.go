// Package prompt holds what shapes the text an agent's LLM is shown: the
// system prompt's sections and bounds, the feedback of each turn, and the
// built-in language references. An agent takes them as
// agent.Config.Presentation; Agent.Preview returns the prompts of turn 1
// as a Preview. ExtractProgram reads the other way: it finds the program
// in an LLM's reply, in the output format the prompts ask for, as an
// agent's turn does. The package has no agent types, so it can be used
// (and read) on its own. docs/agents.md, "System prompt", tells the
// details.
package prompt
