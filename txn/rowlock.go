package txn

import (
	"context"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/memtable"
)

// LockMode is the strength of a row lock, weakest first: PostgreSQL's FOR
// KEY SHARE, FOR SHARE, FOR NO KEY UPDATE and FOR UPDATE.
type LockMode uint8

const (
	LockKeyShare LockMode = iota + 1
	LockShare
	LockNoKeyUpdate
	LockUpdate
)

// conflicts reports whether a lock of mode m held by one transaction keeps
// another from taking mode o, as PostgreSQL's table of row lock conflicts
// has it: KEY SHARE conflicts only with UPDATE, SHARE with the two update
// modes, NO KEY UPDATE with all but KEY SHARE, and UPDATE with all.
func (m LockMode) conflicts(o LockMode) bool {
	return int(m)+int(o) > int(LockUpdate)
}

// ErrLockNotAvailable is LockRow's answer, with nowait, for a row that
// another transaction holds.
var ErrLockNotAvailable = errors.New("txn: row is locked by another transaction")

// Locked is what LockRow found.
type Locked struct {
	// Value is the row's newest committed value (or tx's own newest
	// write), which under READ COMMITTED may be newer than tx's snapshot.
	Value []byte
	// Exists is false if the row has been deleted: nothing was locked.
	Exists bool
	// Changed says that Value is newer than tx's snapshot: the caller
	// re-checks its condition on it, as an UPDATE would.
	Changed bool
	// ByStatement says another part of the statement in progress (see
	// StatementPart) wrote the row, which the caller passes over, as
	// PostgreSQL's locking clause does a row its command modified. The
	// row is locked all the same: tx wrote it.
	ByStatement bool
}

// LockRow locks the row at key for tx until tx ends, as SELECT ... FOR
// UPDATE and its kin do. A row lock keeps every writer of the row waiting,
// and lockers whose mode conflicts with it.
//
// If another transaction holds the row in a conflicting mode, or has a
// provisional version of it, LockRow waits for that transaction to end
// (failing with ErrDeadlock rather than closing a cycle), or with nowait
// fails with ErrLockNotAvailable at once. Under REPEATABLE READ, a row
// changed since the snapshot fails with ErrSerialization.
//
// A lock is a version with no value, held while its transaction is in
// progress; it costs no log record, since no lock outlives a crash.
func (tx *Tx) LockRow(ctx context.Context, key []byte, mode LockMode, nowait bool) (Locked, error) {
	if tx.ended {
		return Locked{}, ErrDone
	}
	if tx.holds(key) {
		return Locked{}, ErrRowHeld
	}
	s := tx.s
	for {
		s.memMu.RLock()
		rs := s.state.Load()
		row := rs.mem.Lock(key)
		var w walker
		w.startPoint(rs, key, row)
		base, held, holder := tx.lockState(&w, mode)
		if w.err != nil {
			leaveRow(row)
			s.memMu.RUnlock()
			return Locked{}, w.err
		}
		if holder != 0 {
			leaveRow(row)
			s.memMu.RUnlock()
			if nowait {
				return Locked{}, ErrLockNotAvailable
			}
			if err := s.waitFor(ctx, tx, holder, true); err != nil {
				return Locked{}, err
			}
			continue
		}
		if base != nil && base.tombstone() && !tx.owns(base.status()) && tx.iso != ReadCommitted {
			if ts, _ := base.commitTS(); ts > tx.snap {
				leaveRow(row)
				s.memMu.RUnlock()
				return Locked{}, ErrSerialization // deleted since the snapshot
			}
		}
		if base == nil || base.tombstone() {
			leaveRow(row)
			s.memMu.RUnlock()
			return Locked{}, nil
		}
		out := Locked{Value: base.value(), Exists: true}
		if tx.owns(base.status()) {
			out.ByStatement = base.cmdNo() >= tx.stmtCmd && base.cmdNo() != tx.cmd
		} else {
			ts, _ := base.commitTS()
			out.Changed = ts > tx.snap
		}
		if out.Changed && tx.iso != ReadCommitted {
			leaveRow(row)
			s.memMu.RUnlock()
			return Locked{}, ErrSerialization
		}
		if !held {
			v := &memtable.Version{Status: tx.cur, Cmd: tx.cmd, Lock: uint8(mode)}
			row.Push(v)
			tx.locks.add(v)
		}
		row.Unlock()
		s.memMu.RUnlock()
		if rs.mem.Size() >= s.opts.MemtableSize {
			s.requestRotate()
		}
		return out, nil
	}
}

// lockState reads a key's versions for a lock of mode: base is the newest
// value (committed, or tx's own), held says tx already holds the row at
// least that strongly, and holder, if not 0, is a transaction that must
// end first. base is valid until w steps again.
func (tx *Tx) lockState(w *walker, mode LockMode) (base *ver, held bool, holder uint64) {
	for v := w.step(); v != nil; v = w.step() {
		switch {
		case v.aborted():
		case v.lock() != 0:
			switch {
			case !v.inProgress():
			case tx.owns(v.status()):
				held = held || LockMode(v.lock()) >= mode
			case LockMode(v.lock()).conflicts(mode):
				return nil, false, v.topID()
			}
		case tx.owns(v.status()):
			return v, true, 0 // a write holds the row more strongly than any lock
		default:
			if _, committed := v.commitTS(); !committed {
				if mode == LockKeyShare && v.keepsKey() {
					continue // it keeps the key KEY SHARE protects: lock what it builds on
				}
				return nil, false, v.topID()
			}
			return v, held, 0
		}
	}
	return nil, held, 0
}

// writeBase finds what a write of a key builds on: its newest value, and,
// if another transaction holds a row lock or a provisional version of it,
// the transaction to wait for. locked says the holder has only a row
// lock, above base; a provisional version of another transaction is no
// base. tx's own locks and aborted versions are passed over. base is valid
// until w steps again.
func (tx *Tx) writeBase(w *walker) (base *ver, holder uint64, locked bool) {
	for v := w.step(); v != nil; v = w.step() {
		switch {
		case v.aborted():
		case v.lock() != 0:
			keyShare := LockMode(v.lock()) == LockKeyShare
			if holder == 0 && v.inProgress() && !tx.owns(v.status()) && !(keyShare && tx.keysKept) {
				holder, locked = v.topID(), true
			}
		case holder != 0:
			if _, committed := v.commitTS(); !committed && !tx.owns(v.status()) {
				return nil, v.topID(), false
			}
			return v, holder, true
		default:
			return v, 0, false
		}
	}
	return nil, holder, locked
}

// retireLocks hands tx's lock versions to reclaim once tx has ended and
// they mean nothing: a reader may still be stepping over them.
func (tx *Tx) retireLocks() {
	if len(tx.locks.vs) == 0 {
		tx.locks.reset()
		return
	}
	now := tx.s.epochs.Current()
	for _, v := range tx.locks.vs {
		tx.s.retire(v, now)
	}
	tx.locks.reset()
}

// KeepKeys says whether tx's writes from now on leave the key columns of
// the rows they write as they were, as an UPDATE of other columns does
// (PostgreSQL's FOR NO KEY UPDATE). Such a write does not wait for FOR
// KEY SHARE locks, which foreign key checks take on the rows they
// reference, and a FOR KEY SHARE lock does not wait for it: a child row
// may be added while its parent's other columns change.
func (tx *Tx) KeepKeys(on bool) { tx.keysKept = on }
