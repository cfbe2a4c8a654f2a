// Package archtest holds the tests of the module's architecture: the core
// packages (lisp, signature, template, agent, llm) import only the standard
// library and each other, and never an integration at the edges (provider
// adapters, the CLI).
package archtest
