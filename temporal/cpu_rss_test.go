//go:build unix && !darwin

package temporal

// rssUnit is the unit of Rusage.Maxrss: kilobytes.
const rssUnit = 1024
