// Package shared locates the project's shared materials (the conformance
// vectors and the benchmark workloads), which live next to the repository in
// ../shared, for tests and benchmarks.
package shared
