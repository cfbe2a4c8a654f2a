//go:build darwin

package temporal

// rssUnit is the unit of Rusage.Maxrss: bytes on macOS.
const rssUnit = 1
