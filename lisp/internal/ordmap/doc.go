// Package ordmap implements a persistent (immutable, structurally shared)
// ordered map as a B+tree with path copying, plus transients (Builders) for
// building a map by in-place mutation, in the manner of Clojure's transients.
// It is the representation behind the interpreter's maps and sets, which
// iterate in sorted key order at every size.
//
// # Ordering
//
// Keys are ordered by a caller-supplied comparison function
// cmp(a, b) int (negative, zero, positive: a total order). The tree does not
// store it: every operation that compares keys takes it as an argument, and
// all operations on one tree (and on trees derived from it) must use the same
// order. Values are opaque. When Set meets a key that compares equal to a
// stored one it replaces the value and keeps the stored key.
//
// # Structure
//
// Leaves hold up to 32 entries in key order; internal nodes hold up to 32
// children together with each child's smallest key and entry count. All
// leaves are at the same depth. A map of up to 32 entries is a single leaf.
// A Tree value is a root pointer and an entry count; the zero Tree is empty.
//
// Set copies only the nodes on the root-to-leaf path; everything else is
// shared with the old version. A full node splits in half, except that a
// full node on the right edge of the tree that overflows because of an
// append at its end stays full and the new entry starts a new node (as in
// SQLite's and LMDB's append mode), so maps built by ascending insertion, the
// common case, end with full nodes. Delete removes emptied nodes and
// collapses a root with one child but does not merge under-full nodes.
//
// # Complexity (n entries)
//
//	Len, Same, NewBuilder, Builder.Tree, Builder.Len   O(1)
//	Get, Builder.Get                                  O(log n)
//	At, Min, Max, Iter                                O(log n)
//	Set, Delete (persistent)                          O(log n) time, O(log n) new nodes
//	Builder.Set, Builder.Delete                       O(log n), allocation-free on owned paths (amortized)
//	All, Backward, a full Iterator pass               O(n)
//	FromSorted                                        O(n)
//
// The base of the logarithms is between 16 and 32 for trees built by
// insertion. Deletion without merging keeps the height at most what the tree
// had before, so it stays logarithmic in the largest size the tree has had.
//
// # Transients and ownership
//
// Every node carries an owner token pointer. Nodes of persistent trees
// carry nil or the token of a builder that has been frozen. NewBuilder
// creates a fresh token; the builder mutates in place exactly the nodes whose
// owner is its own token, and copies every other node (giving the copy its
// token) before the first write to it. Starting a builder from an existing
// tree is therefore O(1), and only the paths it touches are copied.
// Builder.Tree marks the token dead (as Clojure clears a transient's edit
// thread): it returns the nodes as a persistent tree, later persistent Sets
// copy them as usual, a new builder on the result has a different token, and
// any further use of the frozen builder panics.
//
// Nothing ever writes to a node that a persistent tree can reach, so frozen
// trees may be read by any number of goroutines while other goroutines derive
// new trees from them, persistently or with their own builders. A single
// Builder must not be used by several goroutines at once.
//
// The package has no package-level mutable state and does not use unsafe.
package ordmap
