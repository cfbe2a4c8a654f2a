// Package testenv tells the project's tests how much work to do.
//
// A plain `go test ./...` runs every test at a scale that proves what it
// claims in seconds: big inputs big enough to cross every chunk and limit,
// random model runs over every key space. Long runs the same tests at the
// scale they were first written for (a hundred thousand JSON rows, every
// random seed, the whole corpus through the cache): set PTC_LONG_TESTS=1.
// CI does, in a run of its own (.ci/run).
package testenv
