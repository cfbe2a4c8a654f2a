// Package runcmd implements ptc run: it runs the agent an agent file
// defines with a model, prints each turn as it happens and the
// outcome, and records and replays conversations (Recorder, Replayer,
// Transcript). docs/cli.md describes the command and the transcripts.
//
// ptc dev reuses the recording and replay: the transcripts it saves are
// those of ptc run --record.
package runcmd
