// Package evaltest runs an evaluation (package eval) inside go test: each
// case of each task is a subtest, a case whose run fails fails its
// subtest with the reasons, and the report "ptc test" prints is logged
// once. With a recording it runs offline, for CI.
//
//	func TestEvals(t *testing.T) {
//		evaltest.Run(t, tasks, evaltest.Options{Dir: "testdata/evals", Model: liveModel()})
//	}
//
// It runs in one of four modes:
//
//   - replay, the default when Options.Dir holds a recording: every model
//     request is answered from the recording, and every call of a task's
//     tool that the recording holds results for, offline; a request or a
//     tool call the recording has no answer for (the agent changed since)
//     fails its run and says to record again;
//   - record, when the environment has PTC_EVAL_RECORD=1 (or
//     Options.Record is set): Options.Model runs live and every run's
//     model replies and tool results are written under Options.Dir;
//   - live, with Options.Model and no recording: the model runs, nothing
//     is written;
//   - skip, with no recording and no model: the test is skipped with a
//     message that says how to record.
//
// The recording is laid out as "ptc test --record" lays it out
// (DIR/index.json, DIR/MODEL/TASK/CASE.RUN.json, each run a ptc-trace
// recording, docs/trace-format.md; an older ptc-eval-recording is read
// too), so that either reads what the other wrote. go test -run selects cases
// (-run 'TestEvals/orders/alice'), in every mode: re-recording one case
// calls the model for that case alone.
//
// The package imports only the standard library (testing included) and
// ptc-go's core packages.
package evaltest
