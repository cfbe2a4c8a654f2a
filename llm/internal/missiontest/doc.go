// Package missiontest holds the agent missions every provider adapter's
// tests run through its fake server: one mission of two turns with a Go
// tool, a rate limit the agent retries, a misspelt option. The adapter's
// test plays the model in its own wire format and checks the requests it
// sent; this package builds the agents and checks the Steps, so that the
// three adapters assert the same things in one place.
//
// It is test support: only the adapters' tests import it.
package missiontest
