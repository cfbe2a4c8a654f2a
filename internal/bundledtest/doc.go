// Package bundledtest runs the bundled eval suite in tool-calling mode on a
// model, for the tests of the adapters: each puts the suite's
// reference (which answers tool-calling requests with tool calls) behind a fake server speaking its provider's
// tool-call format and checks that every task still passes through it.
package bundledtest
