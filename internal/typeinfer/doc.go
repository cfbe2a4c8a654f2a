// Package typeinfer infers the signature type of a PTC-Lisp value from a
// bounded prefix of it: the shape of data an agent is shown of its
// context and memory (agent's inventory), not a contract.
package typeinfer
