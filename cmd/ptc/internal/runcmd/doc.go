// Package runcmd implements ptc run: it runs the agent an agent file
// defines with a model, prints each turn as it happens and the
// outcome, and records and replays conversations with the Recorder and
// Replayer of internal/transcript; it reads and writes the recordings
// (LoadTranscript, SaveTranscript), older transcripts too, its errors
// safe for a terminal. docs/cli.md describes the command and the
// transcripts.
//
// ptc dev's runs are recorded by the same package internal/transcript:
// the recordings it saves are those of ptc run --record.
package runcmd
