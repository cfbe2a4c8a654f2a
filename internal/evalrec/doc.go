// Package evalrec records the runs of an evaluation (package eval) and
// replays them offline: the recordings of "ptc test --record" and of
// eval/evaltest's record mode, which "ptc test --replay" and evaltest's
// replay mode read.
//
// A run's recording is a ptc-trace recording (docs/trace-format.md), the
// one record/replay format of ptc-go, replayed by key: a Replayer answers
// each model request with the reply recorded for the same mission prompt
// and turn, whatever order parallel calls come in, and each recorded tool
// call by its tool and arguments. The older ptc-eval-recording files are
// still read (Read converts them on load) and no longer written.
//
// The recordings are laid out as DIR/index.json (the models, so that a
// replay needs none) and DIR/MODEL/TASK/CASE.RUN.json (Path).
//
// It imports only the standard library and the core packages.
package evalrec
