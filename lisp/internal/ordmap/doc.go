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
// Leaves hold up to 16 entries in key order; internal nodes hold up to 16
// children together with each child's smallest key and entry count. All
// leaves are at the same depth. The rightmost leaf, the tail, is kept outside
// the tree, next to the root pointer (as in Clojure's vectors): a Tree value
// is a root pointer, a tail pointer and an entry count, and the zero Tree is
// empty. A map of up to 16 entries is a single leaf, the tail.
//
// Set copies only the nodes on the root-to-leaf path (a persistent Set
// allocates one node per level); everything else is shared with the old
// version. A Set after the largest key copies only the tail, and once every
// 16 such appends the full tail moves into the tree. A full node splits in
// half, except that a full node on the right edge that overflows because of
// an append at its end stays full and the new entry starts a new node (as in
// SQLite's and LMDB's append mode), so maps built by ascending insertion, the
// common case, end with full leaves and internal nodes. Delete removes
// emptied nodes, merges a node that has shrunk below a quarter of the width
// with a neighbour when both fit in three quarters of it, and collapses a root
// with one child; it does not otherwise rebalance.
//
// # Complexity (n entries)
//
//	Len, Same, NewBuilder, Builder.Tree, Builder.Len   O(1)
//	Get, Builder.Get                                  O(log n)
//	At, Min, Max, Iter                                O(log n)
//	Set, Delete (persistent)                          O(log n): one new node per level
//	Set after the largest key (persistent)            O(1) amortized: one new leaf
//	Builder.Set, Builder.Delete                       O(log n); no allocation on owned paths (amortized)
//	All, Backward, a full Iterator pass               O(n), no allocation
//	FromSorted                                        O(n)
//
// Logarithms are base 8 to 16 for trees built by insertion. Without full
// rebalancing, heavy deletion can leave nodes under-full, so the height is
// logarithmic in the number of insertions the tree has seen rather than in
// its current size; merging keeps shrinking maps compact in practice.
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
