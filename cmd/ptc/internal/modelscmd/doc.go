// Package modelscmd implements ptc models: it lists the providers a
// --model reference can name, which of their key variables are set
// (never their values) and the servers they reach.
package modelscmd
