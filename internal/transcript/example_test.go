package transcript_test

import (
	"fmt"

	"github.com/ptc-go/ptc/internal/transcript"
)

// LineDiff shows where two texts differ: one line of context each side,
// the rest left out, and the column of the first difference.
func ExampleLineDiff() {
	fmt.Println(transcript.LineDiff("a\nb\nc\nd\ne", "a\nb\nX\nd\ne"))
	// Output:
	//   … (1 same line)
	//   b
	// - c
	// + X
	//   d
	//   … (1 same line)
	// (first difference: line 3, column 1)
}
