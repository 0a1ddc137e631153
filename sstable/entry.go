package sstable

import (
	"bytes"
	"strconv"

	"github.com/cockroachdb/errors"
)

// Kind says what an entry is.
type Kind uint8

// The entry kinds. Zero is never written, so a zeroed entry never decodes.
const (
	KindValue     Kind = 1
	KindTombstone Kind = 2
	KindLock      Kind = 3 // a row lock of a transaction in progress; no value
)

func (k Kind) String() string {
	switch k {
	case KindValue:
		return "value"
	case KindTombstone:
		return "tombstone"
	case KindLock:
		return "lock"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Entry is one version of one key.
type Entry struct {
	Key []byte // the user key
	// Seq orders the versions of one key: higher is newer. It is unique per
	// key within a file.
	Seq  uint64
	Kind Kind
	// A resolved version has the writer's commit timestamp in TS (>0), and
	// Txn and Cmd are 0. An unresolved (provisional) version has the writing
	// (sub)transaction id in Txn (>0) and its statement number in Cmd, and TS
	// is 0. Exactly one of TS and Txn is non-zero.
	TS    uint64
	Txn   uint64
	Cmd   uint32
	Flags uint8  // opaque to sstable
	Value []byte // empty for tombstones and locks
	// Step says how the Next that reached the entry changed the key, where
	// the iterator knows it without comparing keys; any other move leaves
	// StepUnknown. A scan uses it to group a key's versions.
	Step KeyStep
}

// KeyStep is how a move forward changed an iterator's key.
type KeyStep uint8

const (
	StepUnknown KeyStep = iota
	StepSameKey         // another, older version of the key before
	StepNewKey          // a greater key
)

// Resolved reports whether the entry carries a commit timestamp rather than
// a transaction id.
func (e *Entry) Resolved() bool { return e.Txn == 0 }

// maxEntrySize bounds an entry's key and value together (PostgreSQL bounds a
// field at 1 GiB too). With BlockSize bounded by the same, a block stays
// below 4 GiB, so that its restart offsets fit in 32 bits.
const maxEntrySize = 1 << 30

// validate rejects an entry that the format cannot represent faithfully, so
// that a round trip never silently changes one.
func (e *Entry) validate() error {
	if len(e.Key)+len(e.Value) > maxEntrySize {
		return errors.Newf("sstable: entry of %d bytes exceeds the limit of %d", len(e.Key)+len(e.Value), maxEntrySize)
	}
	switch e.Kind {
	case KindValue:
	case KindTombstone, KindLock:
		if len(e.Value) != 0 {
			return errors.Newf("sstable: %s entry with a %d-byte value", e.Kind, len(e.Value))
		}
	default:
		return errors.Newf("sstable: invalid entry %s", e.Kind)
	}
	switch {
	case (e.TS == 0) == (e.Txn == 0):
		return errors.Newf("sstable: entry needs exactly one of TS (%d) and Txn (%d)", e.TS, e.Txn)
	case e.Txn == 0 && e.Cmd != 0:
		return errors.Newf("sstable: resolved entry with Cmd %d", e.Cmd)
	}
	return nil
}

// compareEntries orders entries as a file does: Key ascending, then Seq
// descending (the newest version of a key first).
func compareEntries(aKey []byte, aSeq uint64, bKey []byte, bSeq uint64) int {
	if c := bytes.Compare(aKey, bKey); c != 0 {
		return c
	}
	switch {
	case aSeq > bSeq:
		return -1
	case aSeq < bSeq:
		return 1
	}
	return 0
}
