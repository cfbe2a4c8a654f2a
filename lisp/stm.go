package lisp

import (
	"errors"
	"slices"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
)

// Refs and transactions: Clojure's (ref x), (dosync ...), alter, commute,
// ref-set and ensure.
//
// A ref is a Cell of kind refCell, written only inside a transaction. A
// transaction is optimistic, as Clojure's: the body runs against the
// states of the refs it touches as it first met them (reads are kept
// consistent: when another transaction of the run has committed since,
// the refs already read are checked again before a new one is read), and
// its writes stay in the transaction until the body returns. The commit
// then locks the refs it read or wrote, in the order of their ids (two
// commits cannot wait on each other), checks that none changed since the
// body saw it, and installs the new values; if one had changed, the body
// runs again from the start, as Clojure retries it. Nothing is evaluated
// while a ref is locked: validators run before, watches after. A
// transaction lives on one thread: a pmap branch or a future's body runs
// outside it, as a JVM thread does, and a dosync inside a dosync joins
// the outer one.
//
// commute is alter here: the ref joins the refs the commit checks, so a
// concurrent write makes the body run again where Clojure would apply the
// function once more to the newer value. For the commutative functions
// commute is made for, the values are the same.

// transaction is one running dosync: what its body read and wrote.
type transaction struct {
	// seen is the state of each ref when the transaction first read or
	// wrote it: what the commit checks.
	seen map[*Cell]*cellState
	// vals are the values the transaction gave refs, not yet committed.
	vals map[*Cell]Value
	// written are the refs in vals, in the order of their first write.
	written []*Cell
	// commuted are the refs commute changed: ref-set and alter refuse
	// them afterwards, as Clojure does.
	commuted map[*Cell]bool
	// commits is the run's count of commits when the transaction last
	// knew its reads to be current.
	commits uint64
	// sends are the agent actions sent in the transaction: they go out
	// when it commits (agents.go).
	sends []agentAction
}

// errTxRetry ends a transaction's body early to run it again: a ref it
// read changed under it. It is not an *Error, so no catch clause takes it.
var errTxRetry = errors.New("transaction retry: a ref changed during the transaction")

// txRetryLimit is how many times a transaction runs before it fails, as
// Clojure's LockingTransaction.RETRY_LIMIT.
const txRetryLimit = 10000

// refArg is argument i of fn as a ref.
func refArg(fn string, args []Value, i int) (*Cell, error) {
	if c, ok := args[i].(*Cell); ok && c.kind == refCell {
		return c, nil
	}
	return nil, argError(fn, i, "a ref", args[i])
}

// inTx is the running transaction of th, or Clojure's error for a write
// outside one.
func (th *thread) inTx() (*transaction, error) {
	if th.tx == nil {
		return nil, classError(InvalidArgument, classIllegalState, "No transaction running: change a ref inside (dosync ...)")
	}
	return th.tx, nil
}

// txRead is the value of c in th's transaction: the value it wrote, else
// the state it saw first, else the current one, which it remembers.
func (th *thread) txRead(tx *transaction, c *Cell) (Value, error) {
	if v, ok := tx.vals[c]; ok {
		return v, nil
	}
	if s, ok := tx.seen[c]; ok {
		return s.val, nil
	}
	if err := th.txSee(tx, c); err != nil {
		return nil, err
	}
	return tx.seen[c].val, nil
}

// txSee adds c to the refs tx has seen, after making sure those it saw are
// still current (so that what the body reads is one moment's state).
func (th *thread) txSee(tx *transaction, c *Cell) error {
	if err := th.charge(3); err != nil {
		return err
	}
	if n := th.run.txCommits.Load(); n != tx.commits {
		if err := th.ticks(len(tx.seen)); err != nil {
			return err
		}
		for r, s := range tx.seen {
			if r.load() != s {
				return errTxRetry
			}
		}
		tx.commits = n
	}
	tx.seen[c] = c.load()
	return nil
}

// txWrite gives c the value v in th's transaction.
func (th *thread) txWrite(tx *transaction, c *Cell, v Value) error {
	if _, ok := tx.seen[c]; !ok {
		if err := th.txSee(tx, c); err != nil {
			return err
		}
	}
	if _, ok := tx.vals[c]; !ok {
		tx.written = append(tx.written, c)
	}
	tx.vals[c] = v
	return nil
}

// txSet is ref-set and alter's write: refused after a commute of the ref.
func (th *thread) txSet(c *Cell, f func(tx *transaction) (Value, error)) (Value, error) {
	tx, err := th.inTx()
	if err != nil {
		return nil, err
	}
	if tx.commuted[c] {
		return nil, classError(InvalidArgument, classIllegalState, "Can't set after commute: this transaction commuted the ref")
	}
	v, err := f(tx)
	if err != nil {
		return nil, err
	}
	return v, th.txWrite(tx, c, v)
}

// alterRef is (alter r f args...) and (commute r f args...): f of the
// ref's value in the transaction, and the args, becomes its value.
func (th *thread) alterRef(tx *transaction, c *Cell, f Value, extra []Value) (Value, error) {
	old, err := th.txRead(tx, c)
	if err != nil {
		return nil, err
	}
	args := make([]Value, 1+len(extra))
	args[0] = old
	copy(args[1:], extra)
	return th.call(f, args)
}

// dosync runs body in a transaction and commits it, running it again
// while a ref it read changes under it. Inside a transaction it joins it.
func (th *thread) dosync(body Value) (Value, error) {
	if th.tx != nil {
		return th.call(body, nil)
	}
	for try := 0; ; try++ {
		if try == txRetryLimit {
			return nil, classError(InvalidArgument, classRuntime, "Transaction failed after reaching retry limit (%d runs): other branches keep changing its refs", txRetryLimit)
		}
		if err := th.tick(); err != nil {
			return nil, err
		}
		tx := &transaction{seen: map[*Cell]*cellState{}, vals: map[*Cell]Value{}, commits: th.run.txCommits.Load()}
		th.tx = tx
		v, err := th.call(body, nil)
		th.tx = nil
		if err == errTxRetry {
			continue
		}
		if err != nil {
			return nil, err
		}
		done, err := th.commit(tx)
		if err != nil {
			return nil, err
		}
		if done {
			for _, act := range tx.sends {
				if err := th.send(act); err != nil {
					return nil, err
				}
			}
			return v, nil
		}
	}
}

// commit installs tx's writes if no ref it saw has changed, and reports
// whether it did. The refs' validators run first, their watches after.
func (th *thread) commit(tx *transaction) (bool, error) {
	if len(tx.written) == 0 {
		return true, nil // read only: its reads were consistent as they were made
	}
	for _, c := range tx.written {
		if err := th.validate(c, tx.vals[c]); err != nil {
			return false, err
		}
	}
	refs := make([]*Cell, 0, len(tx.seen))
	for c := range tx.seen {
		refs = append(refs, c)
	}
	if err := th.ticks(len(refs)); err != nil {
		return false, err
	}
	slices.SortFunc(refs, func(a, b *Cell) int { return compareKeys(a, b) }) // by id: the same order in every commit
	for _, c := range refs {
		c.mu.Lock()
	}
	ok := true
	for _, c := range refs {
		if c.load() != tx.seen[c] {
			ok = false
			break
		}
	}
	var err error
	if ok {
		for _, c := range tx.written {
			// Each CAS wins: every write of a ref is a commit, and this
			// one holds the ref's lock.
			if _, e := th.casCell(c, tx.seen[c], tx.vals[c], false); e != nil && err == nil {
				err = e
			}
		}
		th.run.txCommits.Add(1)
	}
	for _, c := range refs {
		c.mu.Unlock()
	}
	if !ok || err != nil {
		return false, err
	}
	for _, c := range tx.written {
		if err := th.notifyWatches(c, tx.seen[c], tx.vals[c]); err != nil {
			return false, err
		}
	}
	return true, nil
}

func registerSTM(t *builtinTable) {
	t.add("ref", 1, -1, func(th *thread, a []Value) (Value, error) {
		validator, err := cellOptions("ref", a, "min-history", "max-history")
		if err != nil {
			return nil, err
		}
		c, err := th.newCell(refCell, a[0], validator)
		if err != nil {
			return nil, err
		}
		return c, th.validate(c, a[0])
	})
	// What (dosync body...) calls with (fn [] body...).
	t.set(analyze.DosyncFn, &Builtin{Name: "dosync", MinArgs: 1, MaxArgs: 1, fn: func(th *thread, a []Value) (Value, error) {
		return th.dosync(a[0])
	}})
	t.add("ref-set", 2, 2, func(th *thread, a []Value) (Value, error) {
		c, err := refArg("ref-set", a, 0)
		if err != nil {
			return nil, err
		}
		return th.txSet(c, func(*transaction) (Value, error) { return a[1], nil })
	})
	t.add("alter", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, err := refArg("alter", a, 0)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("alter", a, 1)
		if err != nil {
			return nil, err
		}
		return th.txSet(c, func(tx *transaction) (Value, error) { return th.alterRef(tx, c, f, a[2:]) })
	})
	t.add("commute", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, err := refArg("commute", a, 0)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("commute", a, 1)
		if err != nil {
			return nil, err
		}
		tx, err := th.inTx()
		if err != nil {
			return nil, err
		}
		v, err := th.alterRef(tx, c, f, a[2:])
		if err != nil {
			return nil, err
		}
		if tx.commuted == nil {
			tx.commuted = map[*Cell]bool{}
		}
		tx.commuted[c] = true
		return v, th.txWrite(tx, c, v)
	})
	t.add("ensure", 1, 1, func(th *thread, a []Value) (Value, error) {
		c, err := refArg("ensure", a, 0)
		if err != nil {
			return nil, err
		}
		tx, err := th.inTx()
		if err != nil {
			return nil, err
		}
		return th.txRead(tx, c)
	})
}

// derefRefCell is @r: the value in the running transaction, else the
// committed one.
func (th *thread) derefRefCell(c *Cell) (Value, error) {
	if th.tx != nil {
		return th.txRead(th.tx, c)
	}
	return c.load().val, nil
}
