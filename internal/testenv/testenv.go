package testenv

import (
	"os"
	"strconv"
)

// LongVar is the environment variable that asks for the long runs.
const LongVar = "PTC_LONG_TESTS"

// Long reports whether the tests run at full scale: PTC_LONG_TESTS is set
// to a true value (1, true, …, as strconv.ParseBool reads it).
func Long() bool {
	v, err := strconv.ParseBool(os.Getenv(LongVar))
	return err == nil && v
}

// Scale returns n for a long run and short otherwise: the size of an
// input, a count of seeds or steps.
func Scale(short, n int) int {
	if Long() {
		return n
	}
	return short
}
