package evaltest_test

import (
	"os"
	"testing"

	"github.com/ptc-go/ptc/eval/evaltest"
)

// TestMain keeps the tests of this package from recording when they are
// run with PTC_EVAL_RECORD=1 (go test ./... recording a repository's
// evaluations): each sets the mode it tests. A child process (runChild)
// keeps the environment it was given.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "" {
		os.Unsetenv(evaltest.RecordEnv)
	}
	os.Exit(m.Run())
}
