package catalog

import (
	"context"
	"strconv"
	"sync"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

// Sequence describes a sequence.
type Sequence struct {
	ID        uint32 `json:"id"`
	Name      string `json:"name"`
	Schema    uint32 `json:"schema,omitempty"`
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	// Owner is the table whose serial column (or hidden row id) it feeds;
	// DROP TABLE drops it too.
	Owner uint32 `json:"owner,omitempty"`
	// Block is how many values one durable reservation claims (0: seqBlock).
	Block int64 `json:"block,omitempty"`
	// Storage, when set, is the id its state is kept under instead of ID:
	// TRUNCATE ... RESTART IDENTITY gives a sequence new state in its own
	// transaction, as PostgreSQL gives it a new relfilenode, so that a
	// rollback keeps the old.
	Storage uint32 `json:"storage,omitempty"`
	// First, when set, is where new state starts instead of Start: ALTER
	// SEQUENCE ... RESTART WITH n.
	First *int64 `json:"first,omitempty"`
	// Type is the sequence's integer type (AS), and Cache and Cycle its
	// options as the catalogs show them. A descriptor without Type takes
	// it from its bounds (see sequenceType).
	Type  types.Oid `json:"type,omitempty"`
	Cache int64     `json:"cache,omitempty"`
	Cycle bool      `json:"cycle,omitempty"`
}

// StorageID is the id s's state is kept under.
func (s *Sequence) StorageID() uint32 {
	if s.Storage != 0 {
		return s.Storage
	}
	return s.ID
}

// Sequences hands out sequence values. PostgreSQL's nextval is not
// transactional: a value once handed out is never handed out again, even if
// the transaction that took it rolls back. So values come from blocks
// reserved by short transactions of their own (one fsync per block of
// SeqBlock values), and a crash skips the rest of a block, as PostgreSQL's
// sequences skip up to 32 values.
type Sequences struct {
	Store *txn.Store
	mu    sync.Mutex
	State map[uint32]*SeqState
}

type SeqState struct {
	mu sync.Mutex // serialises one sequence's users, and its reservations
	// next and the left-1 values after it, a step apart, are reserved and
	// unused. A count, not an end, since the end of a block at the
	// sequence's bound may not fit an int64.
	next, left int64
	// uncalled is set while next is a setval(next, false) no nextval has
	// taken yet, which reads back as last_value next, is_called false.
	uncalled bool
}

const SeqBlock = 32

// RowIDBlock is the block size of the hidden row-id sequences of tables
// without a primary key. Their values are never shown, so a crash may skip
// many, and a reservation (one fsync) per 32 rows would throttle inserts.
const RowIDBlock = 1 << 16

// BlockSize is how many values one reservation of s claims.
func BlockSize(s *Sequence) int64 {
	if s.Block > 0 {
		return s.Block
	}
	return SeqBlock
}

// Nextval returns the next value of s.
func (sq *Sequences) Nextval(ctx context.Context, s *Sequence) (int64, error) {
	st := sq.StateOf(s.StorageID())
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.left == 0 {
		if err := sq.Reserve(ctx, s, st); err != nil {
			return 0, err
		}
	}
	v := st.next
	if st.left--; st.left > 0 {
		st.next += s.Increment
	}
	st.uncalled = false
	return v, nil
}

// StateOf returns a sequence's state. The map's lock is held only to find
// it: a reservation that waits (for the fsync, or for a transaction that
// holds the sequence's key) stops the users of that sequence alone.
func (sq *Sequences) StateOf(id uint32) *SeqState {
	sq.mu.Lock()
	defer sq.mu.Unlock()
	st := sq.State[id]
	if st == nil {
		st = &SeqState{}
		sq.State[id] = st
	}
	return st
}

// SeqExhausted is the stored state of a sequence whose last block ended
// at its bound, where the next value would not fit an int64.
const SeqExhausted = "end"

// Reserve durably claims the next block of values. The stored state is
// the value the block after it starts from: past the bound once the
// sequence is used up, which the next reservation fails on, or with
// CYCLE starts over from.
func (sq *Sequences) Reserve(ctx context.Context, s *Sequence, st *SeqState) error {
	tx := sq.Store.Begin(txn.ReadCommitted)
	var from, n int64
	err := tx.Mutate(ctx, SeqKey(s.StorageID()), func(cur []byte, ok bool) ([]byte, txn.Op, error) {
		from = s.Start
		if s.First != nil {
			from = *s.First
		}
		exhausted := false
		if ok {
			if string(cur) == SeqExhausted {
				exhausted = true
			} else {
				from, _ = strconv.ParseInt(string(cur), 10, 64)
			}
		}
		up := s.Increment > 0
		if exhausted || up && from > s.Max || !up && from < s.Min {
			switch {
			case s.Cycle && up:
				from = s.Min
			case s.Cycle:
				from = s.Max
			case up:
				return nil, txn.Keep, pgerr.New(pgerr.SequenceGeneratorLimitExceeded,
					"nextval: reached maximum value of sequence %q (%d)", s.Name, s.Max)
			default:
				return nil, txn.Keep, pgerr.New(pgerr.SequenceGeneratorLimitExceeded,
					"nextval: reached minimum value of sequence %q (%d)", s.Name, s.Min)
			}
		}
		// How many values are left before the bound, in unsigned
		// arithmetic: the span may exceed an int64.
		var avail uint64
		if up {
			avail = (uint64(s.Max)-uint64(from))/uint64(s.Increment) + 1
		} else {
			avail = (uint64(from)-uint64(s.Min))/uint64(-s.Increment) + 1
		}
		n = BlockSize(s)
		if uint64(n) >= avail {
			n = int64(avail)
			next := from + (n-1)*s.Increment // the last value, within the bound
			if after := next + s.Increment; (after > next) == up {
				return strconv.AppendInt(nil, after, 10), txn.Put, nil
			}
			return []byte(SeqExhausted), txn.Put, nil
		}
		return strconv.AppendInt(nil, from+n*s.Increment, 10), txn.Put, nil
	})
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	st.next, st.left = from, n
	return nil
}

// Setval makes next the value the sequence's next nextval returns. Like
// nextval, it takes effect at once and outlives a rollback.
func (sq *Sequences) Setval(ctx context.Context, s *Sequence, next int64, called bool) error {
	st := sq.StateOf(s.StorageID())
	st.mu.Lock()
	defer st.mu.Unlock()
	tx := sq.Store.Begin(txn.ReadCommitted)
	err := tx.Mutate(ctx, SeqKey(s.StorageID()), func([]byte, bool) ([]byte, txn.Op, error) {
		return strconv.AppendInt(nil, next, 10), txn.Put, nil
	})
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	st.next, st.left, st.uncalled = next, 0, !called
	return nil
}

// Forget drops cached state, after DROP or TRUNCATE ... RESTART IDENTITY.
func (sq *Sequences) Forget(id uint32) {
	sq.mu.Lock()
	delete(sq.State, id)
	sq.mu.Unlock()
}

// Peek reads a sequence's state as PostgreSQL keeps it: the last value
// handed out and is_called, or, before any, the first value and false.
// It takes nothing, so it does not change what nextval returns next.
func (sq *Sequences) Peek(s *Sequence) (last int64, called bool, err error) {
	st := sq.StateOf(s.StorageID())
	st.mu.Lock()
	defer st.mu.Unlock()
	next := st.next
	if st.uncalled {
		return next, false, nil
	}
	if st.left == 0 {
		// No reserved values are left: the stored state is what the next
		// nextval starts from, as reserve and setval left it.
		tx := sq.Store.Begin(txn.ReadCommitted)
		cur, ok, err := tx.Get(SeqKey(s.StorageID()))
		_ = tx.Rollback()
		if err != nil {
			return 0, false, err
		}
		switch {
		case !ok && s.First != nil:
			return *s.First, false, nil
		case !ok:
			return s.Start, false, nil
		case string(cur) == SeqExhausted:
			// Used up to the bound, which was the last value.
			if s.Increment > 0 {
				return s.Max, true, nil
			}
			return s.Min, true, nil
		}
		if next, err = strconv.ParseInt(string(cur), 10, 64); err != nil {
			return 0, false, err
		}
	}
	last = next - s.Increment
	if last < s.Min || last > s.Max || (last < next) != (s.Increment > 0) {
		// setval(v, false) at the bound: the next value is not after one.
		return next, false, nil
	}
	return last, true, nil
}
