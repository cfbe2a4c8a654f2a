// Package transcript records a mission's conversation with its model and
// replays it offline: the recordings of "ptc run --record" and of ptc
// dev's runs (package workbench), which "ptc run --replay" and the
// workbench's replay read.
//
// A recording is a ptc-trace (docs/trace-format.md) that is also a
// trace.Recording. A Recorder wraps a model and keeps every call; its
// Transcript method makes the recording of the run, redacted as a trace
// unless Shown says raw. ReadRecording reads one back. A Replayer answers
// the agent's calls with the recorded replies and ends the mission at
// the first difference (a Mismatch, with a LineDiff of the texts);
// Finish compares the mission's end with the recorded one.
//
// These replay in order; the recordings of "ptc test" and eval/evaltest,
// the same format, replay by key (package internal/evalrec).
//
// It imports only the standard library and the core packages; reading
// and writing the files, and making error messages safe for a terminal,
// are its callers' (cmd/ptc's run command, the workbench).
package transcript
