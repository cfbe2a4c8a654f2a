//go:build race

package ordmap

const raceEnabled = true
