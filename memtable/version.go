package memtable

import (
	"math"
	"sync/atomic"
)

// Version is one value of a key written by one transaction. Its fields are
// immutable once it is pushed, except Born, which txn sets before the commit
// flip and reads only after it.
type Version struct {
	Status    *Status
	Value     []byte
	Tombstone bool
	// Cmd is the writing statement's number within its transaction: the
	// transaction's own reads see the version only from later statements.
	Cmd uint32
	// Born is the reclaim epoch read just before the writer's commit flip:
	// the earliest epoch in which a reader could see this version.
	Born uint64
	// Lock, when not zero, makes the version a row lock rather than a
	// value: its strength (txn's LockMode), held while Status is in
	// progress. Readers pass over it; once its transaction has ended it
	// means nothing.
	Lock uint8
	// NoKey marks a write that leaves the row's key columns as they were,
	// as an UPDATE of other columns does: FOR KEY SHARE locks and it do
	// not wait for each other.
	NoKey bool

	next atomic.Pointer[Version]
	row  *Row
}

// Next is the next older version, or nil.
func (v *Version) Next() *Version { return v.next.Load() }

// Row is the row the version was pushed on.
func (v *Version) Row() *Row { return v.row }

// Size is what the version adds to the memtable's byte accounting.
func (v *Version) Size() int64 { return allocated(len(v.Value)) + versionOverhead }

// Status is the fate of one transaction: the entry of the status table that
// every version it wrote points to. Its word moves once, from in progress to
// committed(ts) or aborted, and that one store decides the visibility of
// every version at once. txn owns the transitions.
type Status struct {
	ID uint64
	// Top is the transaction a subtransaction (savepoint) belongs to, or
	// nil. A subtransaction either aborts on its own (ROLLBACK TO) or
	// commits with its top transaction, at the same timestamp.
	Top  *Status
	word atomic.Uint64
}

const (
	inProgress = 0
	aborted    = math.MaxUint64
)

// NewStatus returns the status of a transaction in progress.
func NewStatus(id uint64) *Status { return &Status{ID: id} }

// TopID is the id of the top-level transaction: the one whose row locks
// the version holds and whose end a waiter waits for.
func (s *Status) TopID() uint64 {
	if s.Top != nil {
		return s.Top.ID
	}
	return s.ID
}

// CommitTS returns the commit timestamp and true once committed.
func (s *Status) CommitTS() (uint64, bool) {
	w := s.word.Load()
	return w, w != inProgress && w != aborted
}

// InProgress reports whether the transaction has not ended.
func (s *Status) InProgress() bool { return s.word.Load() == inProgress }

// Aborted reports whether the transaction rolled back.
func (s *Status) Aborted() bool { return s.word.Load() == aborted }

// Commit flips the status to committed at ts (ts must be neither 0 nor
// MaxUint64). This is the single store that publishes the transaction.
func (s *Status) Commit(ts uint64) { s.word.Store(ts) }

// Abort flips the status to aborted.
func (s *Status) Abort() { s.word.Store(aborted) }
