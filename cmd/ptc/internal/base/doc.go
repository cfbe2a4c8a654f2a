// Package base is the plumbing every ptc command shares, as
// cmd/go/internal/base is the go command's: the environment a command
// runs in (Env: context, environment variables, how models open, build
// information), the exit statuses, the flag helpers (ParseFlags,
// NewFlagSet, the one-line usage errors, the sandbox limit flags), the
// bounded reads and atomic writes of files (ReadBounded, WriteFileAtomic),
// the escaping of text bound for a terminal (TermLine, TermSafe,
// TermWrapped), and the small helpers the commands print with.
//
// Package main of ptc keeps the dispatch from a command's name to the
// package that implements it; each command's package imports this one.
package base
