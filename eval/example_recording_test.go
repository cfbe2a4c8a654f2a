package eval_test

import (
	"fmt"
	"path/filepath"

	"github.com/ptc-go/ptc/eval"
)

// Where a run's recording lives, as ptc test --record and eval/evaltest
// write it.
func ExampleRecordingPath() {
	k := eval.RunKey{Variant: "openai:gpt-4.1-mini", Task: "orders", Case: "big spender", Run: 1}
	fmt.Println(filepath.ToSlash(eval.RecordingPath("testdata/evals", k)))
	// Output:
	// testdata/evals/openai_gpt-4.1-mini/orders/big_spender.1.json
}
