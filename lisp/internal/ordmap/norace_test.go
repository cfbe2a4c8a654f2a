//go:build !race

package ordmap

const raceEnabled = false
