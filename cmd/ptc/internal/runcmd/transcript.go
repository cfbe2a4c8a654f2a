package runcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/lisp"
)

// The recording of "ptc run --record", which "--replay" reads: a ptc-trace
// (docs/trace-format.md) that is also a trace.Recording, so that it holds
// everything needed to run the mission again offline and to tell whether
// it went the same way. --replay still reads the transcripts of older ptc
// versions (legacyFormat), converted on reading. docs/cli.md describes it.
const (
	TranscriptFormat  = trace.Format
	transcriptVersion = trace.Version
	legacyFormat      = "ptc-run-transcript"
)

// SaveTranscript writes the recording as recorded, through a temporary
// file so that a failed write leaves no half file.
func SaveTranscript(t *transcript.Transcript, path string) error {
	return base.WriteFileAtomic(path, append(t.Doc, '\n'), 0o644)
}

// LoadTranscript reads a recording: a ptc-trace, or a transcript of an
// older ptc.
func LoadTranscript(path string) (*transcript.Transcript, error) {
	b, err := base.ReadBounded(path, base.KindTranscript)
	if err != nil {
		return nil, err
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		if _, derr := base.ReadData(b, false); derr != nil {
			var de *base.DataError
			if errors.As(derr, &de) && de.Pos.IsValid() {
				return nil, fmt.Errorf("%s:%d:%d (byte %d): %s", path, de.Pos.Line, de.Pos.Col, de.Pos.Offset, de.Msg)
			}
		}
		return nil, fmt.Errorf("%s: not a recording: %s", path, base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	var t *transcript.Transcript
	switch head.Format {
	case trace.Format:
		if head.Version > transcriptVersion {
			return nil, fmt.Errorf("%s: recording version %d, newer than this ptc reads (%d): update ptc", path, head.Version, transcriptVersion)
		}
		t, err = transcript.ReadRecording(b)
	case legacyFormat:
		t, err = readLegacy(b)
	default:
		return nil, fmt.Errorf("%s: not a transcript of ptc run (format %s, want %q)", path, base.QuoteShort(head.Format), TranscriptFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	// Shown, never compared: a name, not a page.
	t.Agent.File, t.Model = base.ClipText(t.Agent.File, 100), base.ClipText(t.Model, 100)
	return t, nil
}

// readLegacy reads a transcript of a ptc older than the ptc-trace
// recordings (format "ptc-run-transcript", version 1).
func readLegacy(b []byte) (*transcript.Transcript, error) {
	var t transcript.Transcript
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("not a transcript: %s", base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	switch {
	case t.Version > 1:
		return nil, fmt.Errorf("transcript version %d, newer than this ptc reads (1): update ptc", t.Version)
	case t.Version < 1:
		return nil, fmt.Errorf("transcript version %d is not valid", t.Version)
	}
	return &t, nil
}

// contextMap is the recorded context (transcript.Transcript.ContextMap),
// its error safe for a terminal.
func contextMap(t *transcript.Transcript) (*lisp.Map, error) {
	m, err := t.ContextMap()
	if err != nil {
		return nil, errors.New(base.TermLine(err.Error()))
	}
	return m, nil
}
