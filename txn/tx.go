package txn

import (
	"bytes"
	"context"
	"slices"
	"sort"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/memtable"
	"github.com/epochdb/epochdb/reclaim"
	"github.com/epochdb/epochdb/wal"
)

// Isolation is a transaction isolation level.
type Isolation int

// The isolation levels, with PostgreSQL's meanings.
const (
	ReadCommitted Isolation = iota
	RepeatableRead
	// Serializable is REPEATABLE READ whose writing transactions also
	// check, as they commit, that nothing they read has changed since
	// their snapshot (see Commit).
	Serializable
)

func (i Isolation) String() string {
	switch i {
	case RepeatableRead:
		return "repeatable read"
	case Serializable:
		return "serializable"
	}
	return "read committed"
}

// Op is what a Mutate callback asks for.
type Op int

const (
	// Keep writes nothing: for example, the row no longer matches the
	// statement's WHERE clause.
	Keep Op = iota
	// Put writes the returned value.
	Put
	// Delete writes a tombstone.
	Delete
)

// Tx is a transaction. It is not safe for concurrent use.
type Tx struct {
	s *Store
	// held are the keys whose rows tx has locked while a Mutate callback
	// computes their value, innermost last: a write of one of them from
	// inside the callback fails with ErrRowHeld.
	held   [][]byte
	iso    Isolation
	id     uint64
	status *memtable.Status
	// owner, if not nil, is the session that runs tx (see advisory.go).
	owner *Owner
	// done, made by the first waiter and guarded by the store's lockMu,
	// is closed when the transaction ends: its row locks are free. Most
	// transactions are waited for by no one, and make no channel.
	done chan struct{}
	// rolledBack, made by a waiter and guarded by the store's lockMu, is
	// closed when ROLLBACK TO frees rows the transaction held, so that
	// their waiters look again instead of waiting for its end.
	rolledBack chan struct{}

	// Savepoints. cur is the status new versions are written under: the
	// innermost open savepoint's subtransaction, or status. savepoints
	// holds the open ones, innermost last; subs holds every subtransaction
	// not rolled back, which commit with the transaction.
	cur        *memtable.Status
	savepoints []savepoint
	subs       []*memtable.Status

	snap  uint64
	guard *reclaim.Guard
	// cmd tags the versions tx writes: the number of the statement in
	// progress, or of the part of it that runs (see NextStatement and
	// StatementPart). stmtCmd is the first number of the statement in
	// progress, lastCmd the highest number handed out.
	cmd, stmtCmd, lastCmd uint32
	// nested are the numbers the statements nested in the top-level one
	// in progress took (Nested): spans [from, to], ascending, adjacent
	// ones merged. A row written under one of them was written by an
	// operation the statement triggered (see ErrWrittenByTrigger).
	nested []cmdSpan

	writes pushed // the versions this transaction pushed
	locks  pushed // its row locks (see LockRow)
	// advisory are its transaction-level advisory locks, in the order it
	// took them; they change under the store's lockMu.
	advisory []advisoryGrant
	keysKept bool   // its writes keep their rows' keys (see KeepKeys)
	walBuf   []byte // entries not yet handed to the log
	streamed bool   // some entries went to the log before the commit record
	commitTS uint64 // set in the log's build hook
	ended    bool
	// drops are the ranges given up by DropRange.
	drops []droppedRange
	// blind is set while a blind Put looks for what it writes over.
	blind bool
	// reads are the key ranges a SERIALIZABLE transaction read through
	// its snapshot, for Commit to check, except while untracked.
	reads     []readRange
	untracked bool
}

// readRange is the key range [start, end) that a transaction read; a nil
// end has no bound.
type readRange struct{ start, end []byte }

// ID is the transaction id, as written in the log.
func (tx *Tx) ID() uint64 { return tx.id }

// Isolation is the transaction's isolation level.
func (tx *Tx) Isolation() Isolation { return tx.iso }

// Snapshot is the commit timestamp the transaction currently reads at.
func (tx *Tx) Snapshot() uint64 { return tx.snap }

// takeSnapshot pins the reclaim epoch, then reads the visible timestamp, then
// seals the pin: every version the snapshot can see is born within the pin's
// span, and every version it may need is retired at or after the pin.
func (tx *Tx) takeSnapshot() {
	if tx.guard != nil {
		tx.guard.Unpin()
	}
	tx.guard = tx.s.epochs.PinAt(tx.id, max(tx.s.visible.Load(), 1))
	tx.snap = tx.s.visible.Load()
	tx.guard.SealAt(max(tx.snap, 1))
}

// NextStatement starts a new statement. Under READ COMMITTED it takes a new
// snapshot, so the statement sees every commit acknowledged before it began;
// under REPEATABLE READ the snapshot stays.
//
// It also ends the statement in progress: reads see the transaction's
// writes of earlier statements, never those of the current one, as
// PostgreSQL's command ids arrange, so that an UPDATE's subquery or an
// INSERT ... SELECT of a table does not see the rows it is writing. Writes
// (Mutate) always see the newest version, the statement's own included.
func (tx *Tx) NextStatement() {
	if tx.ended {
		return
	}
	tx.lastCmd++
	tx.cmd, tx.stmtCmd = tx.lastCmd, tx.lastCmd
	tx.nested = tx.nested[:0]
	if tx.iso == ReadCommitted {
		tx.takeSnapshot()
	}
}

// Nested starts a statement inside the one in progress, as a routine's
// statements and a trigger's run, and returns the function that goes back
// to the enclosing one. The nested statement reads, under the enclosing
// statement's snapshot, every write of the transaction so far, the
// enclosing statement's own included; the enclosing statement, once back,
// still reads neither those nor the nested statement's, as PostgreSQL's
// command ids have it.
func (tx *Tx) Nested() (end func()) {
	cmd, stmt := tx.cmd, tx.stmtCmd
	tx.lastCmd++
	tx.cmd, tx.stmtCmd = tx.lastCmd, tx.lastCmd
	from := tx.lastCmd
	return func() {
		tx.cmd, tx.stmtCmd = cmd, stmt
		// The span takes in those of the statements nested in this one,
		// and of the one before it if they touch (a trigger per row: one
		// span for the statement).
		sp := cmdSpan{from, tx.lastCmd}
		for n := len(tx.nested); n > 0 && tx.nested[n-1].to+1 >= sp.from; n-- {
			sp.from = min(sp.from, tx.nested[n-1].from)
			tx.nested = tx.nested[:n-1]
		}
		tx.nested = append(tx.nested, sp)
	}
}

// cmdSpan is a run of statement numbers, from and to included.
type cmdSpan struct{ from, to uint32 }

// triggered reports whether statement number cmd was a nested statement's.
func (tx *Tx) triggered(cmd uint32) bool {
	for _, sp := range tx.nested {
		if sp.from <= cmd && cmd <= sp.to {
			return true
		}
	}
	return false
}

// StatementPart starts a part of the statement in progress that writes
// rows on its own, such as a data-modifying WITH query, and returns the
// function that ends it. The part reads what the statement reads; its
// writes get a number of their own, so that MutateOnce can tell them from
// the writes of the other parts.
func (tx *Tx) StatementPart() (end func()) {
	prev := tx.cmd
	tx.lastCmd++
	tx.cmd = tx.lastCmd
	return func() { tx.cmd = prev }
}

// visibleIn steps w to the version that tx's snapshot sees: its own
// newest write of an earlier statement, or the newest version committed at
// or before the snapshot. It returns nil if there is none, or if a file
// could not be read (w.err).
func (tx *Tx) visibleIn(w *walker) *ver {
	for v := w.step(); v != nil; v = w.step() {
		if v.lock() != 0 {
			continue
		}
		if st := v.status(); tx.owns(st) {
			if v.cmdNo() < tx.stmtCmd {
				return v
			}
			continue // written by the statement in progress
		}
		if ts, ok := v.commitTS(); ok && ts <= tx.snap {
			return v
		}
	}
	return nil
}

// Get returns the value of key in tx's snapshot. The returned slice must not
// be modified.
func (tx *Tx) Get(key []byte) ([]byte, bool, error) {
	if tx.ended {
		return nil, false, ErrDone
	}
	if tx.iso == Serializable {
		tx.noteRead(key, append(key[:len(key):len(key)], 0))
	}
	rs := tx.s.state.Load()
	var w walker
	w.startPoint(rs, key, rs.mem.Get(key))
	v := tx.visibleIn(&w)
	if w.err != nil {
		return nil, false, w.err
	}
	if v == nil || v.tombstone() {
		return nil, false, nil
	}
	return v.value(), true, nil
}

// ChangedAfterSnapshot reports whether any key in [start, end) has a version
// that tx's snapshot cannot see and tx did not write: one committed after
// the snapshot, or another transaction's provisional one. A REPEATABLE READ
// transaction about to rewrite a whole range asks it, since what it would
// read is not what is there.
func (tx *Tx) ChangedAfterSnapshot(start, end []byte) (bool, error) {
	sc := newScanner(tx.s.state.Load(), start, end)
	defer sc.close()
	for w := sc.next(); w != nil; w = sc.next() {
		for v := w.step(); v != nil; v = w.step() {
			if v.lock() != 0 || tx.owns(v.status()) || v.aborted() {
				continue
			}
			if ts, ok := v.commitTS(); ok && ts <= tx.snap {
				break // the newest other version is in the snapshot
			}
			return true, nil
		}
		if w.err != nil {
			return false, w.err
		}
	}
	return false, sc.err
}

// Scan calls fn, in key order, for each key in [start, end) that has a value
// in tx's snapshot (a nil end means no upper bound), until fn returns false.
// The slices passed to fn must not be modified.
func (tx *Tx) Scan(start, end []byte, fn func(key, value []byte) bool) error {
	if tx.ended {
		return ErrDone
	}
	stopped, err := tx.scan(tx.s.state.Load(), start, end, fn)
	if err != nil {
		return err
	}
	if tx.iso == Serializable {
		if stopped != nil {
			// What lies past the row fn stopped at was not read.
			end = append(stopped[:len(stopped):len(stopped)], 0)
		}
		tx.noteRead(start, end)
	}
	return nil
}

// scan is Scan in read state rs without noting the read; it returns the
// key fn stopped at, if it did. It changes nothing in tx, so that
// ScanChunks runs it on several goroutines at once.
func (tx *Tx) scan(rs *readState, start, end []byte, fn func(key, value []byte) bool) (stopped []byte, err error) {
	sc := newScanner(rs, start, end)
	defer sc.close()
	for w := sc.next(); w != nil; w = sc.next() {
		v := tx.visibleIn(w)
		if w.err != nil {
			return nil, w.err
		}
		if v == nil || v.tombstone() {
			continue
		}
		if !fn(w.key, v.value()) {
			return w.key, nil
		}
	}
	return nil, sc.err
}

// noteRead records that a SERIALIZABLE tx read [start, end).
func (tx *Tx) noteRead(start, end []byte) {
	if tx.untracked {
		return
	}
	tx.reads = append(tx.reads, readRange{bytes.Clone(start), bytes.Clone(end)})
}

// mergeRanges sorts ranges by start and merges those that overlap or
// touch, so that a key read many times (an inner index scan run per outer
// row) is checked once.
func mergeRanges(rs []readRange) []readRange {
	slices.SortFunc(rs, func(a, b readRange) int { return bytes.Compare(a.start, b.start) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.end == nil || bytes.Compare(r.start, last.end) <= 0 {
				if last.end != nil && (r.end == nil || bytes.Compare(r.end, last.end) > 0) {
					last.end = r.end
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// Untracked runs fn, whose reads through tx do not count toward a
// SERIALIZABLE tx's commit check: reads of metadata, such as the SQL
// layer's catalog, that decide how to read rows but are no part of what
// a query returns. Concurrent DDL then does not fail the transaction.
func (tx *Tx) Untracked(fn func() error) error {
	prev := tx.untracked
	tx.untracked = true
	defer func() { tx.untracked = prev }()
	return fn()
}

// readsChanged reports whether another transaction committed a version
// into a range tx read after tx's snapshot was taken: then what tx read is
// no longer what is there, and tx cannot commit as if it ran alone at its
// commit. Provisional versions do not count; their writers commit after
// tx, or not at all.
func (tx *Tx) readsChanged() (bool, error) {
	rs := tx.s.state.Load()
	for _, r := range mergeRanges(tx.reads) {
		sc := newScanner(rs, r.start, r.end)
		for w := sc.next(); w != nil; w = sc.next() {
			for v := w.step(); v != nil; v = w.step() {
				if v.lock() != 0 || tx.owns(v.status()) || v.aborted() {
					continue
				}
				if ts, committed := v.commitTS(); committed {
					if ts > tx.snap {
						sc.close()
						return true, nil
					}
					break
				}
			}
			if w.err != nil {
				sc.close()
				return false, w.err
			}
		}
		sc.close()
		if sc.err != nil {
			return false, sc.err
		}
	}
	return false, nil
}

// ScanLatest is Scan over the newest committed value of each key, or tx's
// own newest write (of any statement), rather than tx's snapshot; other
// transactions' provisional versions are passed over. A foreign key check
// reads so: whether a row references a key must not depend on when the
// snapshot was taken.
func (tx *Tx) ScanLatest(start, end []byte, fn func(key, value []byte) bool) error {
	if tx.ended {
		return ErrDone
	}
	sc := newScanner(tx.s.state.Load(), start, end)
	defer sc.close()
	for w := sc.next(); w != nil; w = sc.next() {
		v := tx.latestIn(w)
		if w.err != nil {
			return w.err
		}
		if v != nil && !v.tombstone() && !fn(w.key, v.value()) {
			return nil
		}
	}
	return sc.err
}

// latestIn steps w to the newest committed version, or tx's own newest
// write; nil if there is neither.
func (tx *Tx) latestIn(w *walker) *ver {
	for v := w.step(); v != nil; v = w.step() {
		if v.lock() != 0 || v.aborted() {
			continue
		}
		if _, committed := v.commitTS(); committed || tx.owns(v.status()) {
			return v
		}
	}
	return nil
}

// WaitFor blocks until transaction holder ends, for a lock that holder
// keeps until then outside the store (the SQL layer's table locks). Like a
// wait for a row lock, it fails with ErrDeadlock instead of closing a cycle
// of waiting transactions, row locks and other WaitFors alike.
func (tx *Tx) WaitFor(ctx context.Context, holder uint64) error {
	if holder == tx.id {
		return nil
	}
	return tx.s.waitFor(ctx, tx, holder, false)
}

// Put writes value at key, waiting for a concurrent writer of key to end.
//
// Under READ COMMITTED a Put is blind, as a storage engine's put is: what
// it overwrites does not matter, only who holds the row. So it looks the
// key up once (LockNew's single descent), and in the files only where a
// writer still in progress has versions or locks: every other version
// there is resolved, and a resolved version neither blocks it nor fails it.
func (tx *Tx) Put(ctx context.Context, key, value []byte) error {
	if reserved(key) {
		return ErrReservedKey
	}
	put := func([]byte, bool) ([]byte, Op, error) { return value, Put, nil }
	if tx.iso == ReadCommitted {
		return tx.mutateBlind(ctx, key, put)
	}
	return tx.mutate(ctx, key, put, (*memtable.Memtable).Lock, false, false)
}

// Delete deletes key if it exists, waiting for a concurrent writer of key to
// end.
func (tx *Tx) Delete(ctx context.Context, key []byte) error {
	return tx.Mutate(ctx, key, func(_ []byte, exists bool) ([]byte, Op, error) {
		if !exists {
			return nil, Keep, nil
		}
		return nil, Delete, nil
	})
}

// Mutate is the one write path. It locks key: if another transaction holds
// a provisional version of it, Mutate waits for that transaction to end, or
// fails with ErrDeadlock if waiting would deadlock. It then calls fn with the
// newest committed value (or tx's own newest write), which under READ
// COMMITTED may be newer than tx's snapshot: fn re-checks the caller's
// condition on it and says what to write. Under REPEATABLE READ, a newest
// committed version newer than the snapshot fails with ErrSerialization.
// fn runs with the row locked and must not touch the store.
func (tx *Tx) Mutate(ctx context.Context, key []byte, fn func(cur []byte, exists bool) ([]byte, Op, error)) error {
	if reserved(key) {
		return ErrReservedKey
	}
	return tx.mutate(ctx, key, fn, (*memtable.Memtable).Lock, false, false)
}

func reserved(key []byte) bool { return len(key) > 0 && key[0] == storePrefix }

// MutateNew is Mutate for a key the caller expects to be new, such as a
// fresh row id or the primary key of an INSERT. It costs less when the key
// does not exist. Its fn must have no side effects: when another
// transaction holds only a row lock on the key, fn is asked first, and
// only a write waits for the lock (an INSERT that meets an existing,
// locked row fails or does nothing at once, as in PostgreSQL).
func (tx *Tx) MutateNew(ctx context.Context, key []byte, fn func(cur []byte, exists bool) ([]byte, Op, error)) error {
	if reserved(key) {
		return ErrReservedKey
	}
	return tx.mutate(ctx, key, fn, (*memtable.Memtable).LockNew, true, false)
}

// MutateOnce is Mutate for a row that one statement changes at most once,
// as PostgreSQL's UPDATE and DELETE change their target rows: if another
// part of the statement in progress (see StatementPart) already wrote key,
// it calls no fn, writes nothing and returns ErrWrittenByStatement.
func (tx *Tx) MutateOnce(ctx context.Context, key []byte, fn func(cur []byte, exists bool) ([]byte, Op, error)) error {
	if reserved(key) {
		return ErrReservedKey
	}
	return tx.mutate(ctx, key, fn, (*memtable.Memtable).Lock, false, true)
}

func (tx *Tx) mutateBlind(ctx context.Context, key []byte, fn func(cur []byte, exists bool) ([]byte, Op, error)) error {
	tx.blind = true
	defer func() { tx.blind = false }()
	return tx.mutate(ctx, key, fn, (*memtable.Memtable).LockNew, false, false)
}

func (tx *Tx) mutate(ctx context.Context, key []byte, fn func(cur []byte, exists bool) ([]byte, Op, error),
	lock func(m *memtable.Memtable, key []byte) *memtable.Row, peek, once bool) error {
	if tx.ended {
		return ErrDone
	}
	if err := tx.s.log.Err(); err != nil {
		return err
	}
	if tx.holds(key) {
		return ErrRowHeld
	}
	s := tx.s
	if err := s.maybeStall(ctx); err != nil {
		return err
	}
	for {
		s.memMu.RLock()
		rs := s.state.Load()
		row := lock(rs.mem, key)
		var w walker
		w.startPoint(rs, key, row)
		w.blind = tx.blind
		base, holder, locked := tx.writeBase(&w)
		if w.err != nil {
			leaveRow(row)
			s.memMu.RUnlock()
			return w.err
		}
		if holder != 0 && locked && peek {
			if keep, err := tx.keepsUnder(row, key, base, fn); keep {
				leaveRow(row)
				s.memMu.RUnlock()
				return err
			}
		}
		if holder != 0 {
			leaveRow(row)
			s.memMu.RUnlock()
			if err := s.waitFor(ctx, tx, holder, true); err != nil {
				return err
			}
			continue
		}
		if base != nil && !tx.owns(base.status()) {
			ts, committed := base.commitTS()
			if !committed {
				top := base.topID()
				leaveRow(row)
				s.memMu.RUnlock()
				if err := s.waitFor(ctx, tx, top, true); err != nil {
					return err
				}
				continue
			}
			if tx.iso != ReadCommitted && ts > tx.snap {
				leaveRow(row)
				s.memMu.RUnlock()
				return ErrSerialization
			}
		}
		if once && base != nil && tx.owns(base.status()) && base.cmdNo() >= tx.stmtCmd && base.cmdNo() != tx.cmd {
			leaveRow(row)
			s.memMu.RUnlock()
			if tx.triggered(base.cmdNo()) {
				return ErrWrittenByTrigger
			}
			return ErrWrittenByStatement
		}
		exists := base != nil && !base.tombstone()
		var cur []byte
		if exists {
			cur = base.value()
		}
		val, op, err := tx.callLocked(row, key, fn, cur, exists)
		if err == nil && op == Put && len(key)+len(val) > MaxEntry {
			err = errors.WithDetailf(ErrTooLarge, "key and value are %d bytes; the limit is %d", len(key)+len(val), MaxEntry)
		}
		if err != nil || op == Keep {
			leaveRow(row)
			s.memMu.RUnlock()
			return err
		}
		v := &memtable.Version{Status: tx.cur, Cmd: tx.cmd, Tombstone: op == Delete, NoKey: tx.keysKept && op == Put}
		if op == Put {
			v.Value = bytes.Clone(val)
			if v.Value == nil {
				v.Value = []byte{}
			}
		}
		row.Push(v)
		row.Unlock()
		s.memMu.RUnlock()
		if rs.mem.Size() >= s.opts.MemtableSize {
			s.requestRotate()
		}
		tx.noteWrite(v)
		if tx.walBuf == nil {
			if b, ok := s.walBufs.Get().(*[]byte); ok {
				tx.walBuf = *b
			}
		}
		tx.walBuf = wal.AppendEntry(tx.walBuf, tx.cur.ID, key, v.Value, v.Tombstone)
		if len(tx.walBuf) >= s.opts.StreamThreshold {
			return tx.stream()
		}
		return nil
	}
}

// leaveRow unlocks a row that the caller locked and did not write,
// removing it if locking created it: an empty row is left behind nowhere.
func leaveRow(row *memtable.Row) {
	if row.Head() == nil {
		row.Remove()
	}
	row.Unlock()
}

// keepsUnder asks fn what it would write over base, a committed value
// under another transaction's row lock, and reports whether that is
// nothing (Keep, or an error), which needs no wait for the lock.
func (tx *Tx) keepsUnder(row *memtable.Row, key []byte, base *ver, fn func(cur []byte, exists bool) ([]byte, Op, error)) (bool, error) {
	if base != nil && !tx.owns(base.status()) && tx.iso != ReadCommitted {
		if ts, _ := base.commitTS(); ts > tx.snap {
			return true, ErrSerialization
		}
	}
	exists := base != nil && !base.tombstone()
	var cur []byte
	if exists {
		cur = base.value()
	}
	_, op, err := tx.callLocked(row, key, fn, cur, exists)
	return op == Keep || err != nil, err
}

// callLocked calls a Mutate callback on its locked row. If the callback
// panics (a bug in the caller, which the SQL layer recovers from per
// session), the row is unlocked first: left locked, it would stop every
// other session that touches it.
func (tx *Tx) callLocked(row *memtable.Row, key []byte, fn func(cur []byte, exists bool) ([]byte, Op, error), cur []byte, exists bool) ([]byte, Op, error) {
	tx.held = append(tx.held, key)
	defer func() {
		tx.held = tx.held[:len(tx.held)-1]
		if p := recover(); p != nil {
			if row.Head() == nil {
				row.Remove()
			}
			row.Unlock()
			panic(p)
		}
	}()
	return fn(cur, exists)
}

// holds reports whether tx is computing key's new value in a Mutate
// callback, with the row locked.
func (tx *Tx) holds(key []byte) bool {
	for _, k := range tx.held {
		if bytes.Equal(k, key) {
			return true
		}
	}
	return false
}

// stream hands the buffered entries to the log ahead of the commit record.
// They are physically in the log from now on, and count only if the commit
// record follows.
func (tx *Tx) stream() error {
	if err := tx.s.log.Append(tx.walBuf); err != nil {
		return err
	}
	tx.walBuf = tx.walBuf[:0]
	tx.streamed = true
	return nil
}

// Commit makes tx's writes durable and visible, all at once, and returns
// only after both. If it returns an error, nothing tx wrote was
// acknowledged; after an fsync failure the store accepts no more commits.
func (tx *Tx) Commit() error {
	if tx.ended {
		return ErrDone
	}
	s := tx.s
	if tx.iso == Serializable && tx.writes.len() > 0 {
		// Serializable transactions that write commit one at a time, each
		// checking its reads against all that committed before it: each is
		// then as if it ran alone at its commit. One that only reads is as
		// if it ran alone at its snapshot, and needs no check.
		s.serialMu.Lock()
		defer s.serialMu.Unlock()
		changed, err := tx.readsChanged()
		if err != nil || changed {
			_ = tx.Rollback()
			if err != nil {
				return err
			}
			return ErrSerializationRW
		}
	}
	tx.ended = true
	defer tx.guard.Unpin()
	tx.writes.dropFlushed()
	tx.locks.dropFlushed()
	if tx.writes.len() == 0 {
		// Nothing to publish; the flips end the row locks, which its
		// subtransactions may hold too.
		for _, sub := range tx.subs {
			sub.Abort()
		}
		tx.status.Abort()
		s.release(tx)
		tx.retireLocks()
		return nil
	}
	born := s.epochs.Current()
	for _, v := range tx.writes.vs {
		v.Born = uint64(born)
	}
	// Decide what the commit makes obsolete while the row locks still hold
	// the chains still; retire it only once the commit is published.
	obsolete := tx.superseded(born)
	err := s.log.Commit(func(buf []byte) []byte {
		tx.commitTS = s.nextCommitTS()
		buf = append(buf, tx.walBuf...)
		return wal.AppendCommit(buf, tx.id, tx.commitTS, tx.subIDs())
	}, func() {
		// Subtransactions first: the top's flip and the visible timestamp
		// that follows it publish them all together.
		for _, sub := range tx.subs {
			sub.Commit(tx.commitTS)
		}
		tx.status.Commit(tx.commitTS)
		s.visible.Store(tx.commitTS)
		s.release(tx)
	})
	tx.recycleWALBuf() // the log has copied it
	if err != nil {
		tx.abort()
		return err
	}
	tx.retireLocks()
	for _, o := range obsolete {
		s.epochs.RetireSpan(o.born, o.bytes, o.free)
	}
	tx.publishDrops()
	if int64(s.log.Stats().Bytes-s.lastCut.Load()) >= s.opts.MaxLogSize {
		s.requestRotate()
	}
	return nil
}

// Rollback discards tx's writes. Rolling back an ended transaction returns
// ErrDone.
func (tx *Tx) Rollback() error {
	if tx.ended {
		return ErrDone
	}
	tx.ended = true
	defer tx.guard.Unpin()
	if tx.streamed {
		// Advisory only: without a commit record the entries never count,
		// but the abort record lets wal dump say "rolled back".
		_ = tx.s.log.Append(wal.AppendAbort(nil, tx.id))
	}
	tx.recycleWALBuf()
	tx.abort()
	return nil
}

// recycleWALBuf returns tx's entry buffer to the store for a later
// transaction. Buffers past the streaming threshold are left to the GC.
func (tx *Tx) recycleWALBuf() {
	if tx.walBuf != nil && cap(tx.walBuf) <= 2*tx.s.opts.StreamThreshold {
		b := tx.walBuf[:0]
		tx.s.walBufs.Put(&b)
	}
	tx.walBuf = nil
}

// abort flips tx to aborted, frees its row locks and retires its versions:
// no reader will ever see them.
func (tx *Tx) abort() {
	for _, sub := range tx.subs {
		sub.Abort()
	}
	tx.status.Abort()
	tx.s.release(tx)
	now := tx.s.epochs.Current()
	for _, v := range tx.writes.vs {
		tx.s.retire(v, now)
	}
	tx.writes.reset()
	tx.retireLocks()
}

// retirement is one version (or row) to hand to reclaim after the commit.
type retirement struct {
	born  reclaim.Epoch
	bytes int64
	free  func()
}

// superseded lists what tx's commit makes obsolete in memory: for each
// row, the committed version below tx's newest write (visible to older
// snapshots until the commit), and tx's own earlier writes of the row
// (never visible to anyone else). A tombstone with nothing below it is
// listed too, so that the row can go if it hides nothing. Versions in
// older memtables and files are left to compaction. It runs before the commit, while tx's
// provisional versions lock the rows, so no chain it reads can change
// under it.
func (tx *Tx) superseded(born reclaim.Epoch) []retirement {
	s := tx.s
	var out []retirement
	for _, v := range tx.writes.vs {
		row := v.Row()
		if tx.overwritten(v) {
			out = append(out, retirement{born, v.Size(), s.unlinker(row, v)})
			continue
		}
		prev := v.Next()
		for prev != nil && (prev.Lock != 0 || prev.Status.Aborted() || tx.owns(prev.Status)) {
			prev = prev.Next()
		}
		switch {
		case prev != nil:
			out = append(out, retirement{reclaim.Epoch(prev.Born), prev.Size(), s.unlinker(row, prev)})
		case v.Tombstone:
			out = append(out, retirement{born, 0, s.unlinker(row, nil)})
		}
	}
	return out
}

// overwritten reports whether tx wrote a newer version of v's row above v.
func (tx *Tx) overwritten(v *memtable.Version) bool {
	for cur := v.Row().Head(); cur != nil && cur != v; cur = cur.Next() {
		if cur.Lock == 0 && tx.owns(cur.Status) {
			return true
		}
	}
	return false
}

// owns reports whether tx wrote under st and has not rolled that back. A
// nil st (a resolved version in a file) is never tx's.
func (tx *Tx) owns(st *memtable.Status) bool {
	return st != nil && (st == tx.status || st.Top == tx.status) && !st.Aborted()
}

// noteWrite records a version tx pushed.
func (tx *Tx) noteWrite(v *memtable.Version) { tx.writes.add(v) }

// pushed lists versions a transaction pushed, oldest first, by position.
// Those in flushed memtables are dropped from the front, where they are,
// since memtables are flushed in the order they took writes: their copies
// in files resolve through their statuses, and holding them would keep a
// flushed memtable's memory alive under a transaction that outgrows memory.
type pushed struct {
	vs      []*memtable.Version
	dropped int // how many were dropped from the front
}

func (p *pushed) add(v *memtable.Version) {
	p.vs = append(p.vs, v)
	if len(p.vs)%1024 == 0 {
		p.dropFlushed()
	}
}

// len is the number of versions pushed, dropped ones included.
func (p *pushed) len() int { return p.dropped + len(p.vs) }

// dropFlushed forgets the versions whose memtables were flushed.
func (p *pushed) dropFlushed() {
	if len(p.vs) == 0 || !p.vs[0].Row().Memtable().Flushed() {
		return
	}
	n := sort.Search(len(p.vs), func(i int) bool { return !p.vs[i].Row().Memtable().Flushed() })
	clear(p.vs[:n])
	p.vs = p.vs[n:]
	p.dropped += n
}

// since returns the versions still in memory at position n or later.
func (p *pushed) since(n int) []*memtable.Version {
	return p.vs[min(max(n-p.dropped, 0), len(p.vs)):]
}

// truncate forgets the versions at position n or later.
func (p *pushed) truncate(n int) {
	i := min(max(n-p.dropped, 0), len(p.vs))
	clear(p.vs[i:])
	p.vs = p.vs[:i]
	p.dropped = min(p.dropped, n)
}

func (p *pushed) reset() { *p = pushed{} }

// savepoint is an open savepoint: its subtransaction, and where its writes
// start in tx.writes.
type savepoint struct {
	sub      *memtable.Status
	writes   int
	locks    int
	advisory int
}

// Savepoint opens a savepoint and returns its depth (1 for the outermost).
// Writes from now on belong to a subtransaction that RollbackTo can abort
// on its own.
func (tx *Tx) Savepoint() (int, error) {
	if tx.ended {
		return 0, ErrDone
	}
	sub := memtable.NewStatus(tx.s.nextTxn.Add(1) - 1)
	sub.Top = tx.status
	tx.s.lockMu.Lock()
	advisory := len(tx.advisory)
	tx.s.lockMu.Unlock()
	tx.savepoints = append(tx.savepoints, savepoint{sub: sub, writes: tx.writes.len(), locks: tx.locks.len(), advisory: advisory})
	tx.subs = append(tx.subs, sub)
	tx.cur = sub
	return len(tx.savepoints), nil
}

// RollbackTo undoes every write since the savepoint at depth was opened,
// closing the savepoints inside it. The savepoint itself stays open, as in
// PostgreSQL, under a fresh subtransaction.
func (tx *Tx) RollbackTo(depth int) error {
	if tx.ended {
		return ErrDone
	}
	if depth < 1 || depth > len(tx.savepoints) {
		return errors.Newf("txn: no savepoint at depth %d", depth)
	}
	sp := tx.savepoints[depth-1]
	now := tx.s.epochs.Current()
	// Every subtransaction begun since the savepoint is inside it, open
	// or released into it; all of them roll back.
	var streamedAborts []byte
	for _, sub := range tx.subs[slices.Index(tx.subs, sp.sub):] {
		sub.Abort()
		streamedAborts = wal.AppendAbort(streamedAborts, sub.ID)
	}
	for _, v := range tx.writes.since(sp.writes) {
		tx.s.retire(v, now)
	}
	tx.writes.truncate(sp.writes)
	// The savepoint's row locks ended with its subtransactions. No reader
	// ever reads a lock version, and one stepping over it keeps its next
	// pointer, so it leaves its chain now rather than when reclaim frees
	// what this transaction's own pin holds back: a loop of savepoints
	// must not grow the chain.
	for _, v := range tx.locks.since(sp.locks) {
		tx.s.unlink(v.Row(), v)
	}
	tx.locks.truncate(sp.locks)
	tx.subs = slices.DeleteFunc(tx.subs, (*memtable.Status).Aborted)
	tx.savepoints = tx.savepoints[:depth-1]
	tx.s.lockMu.Lock()
	if tx.rolledBack != nil {
		close(tx.rolledBack) // the savepoint's rows are free
		tx.rolledBack = nil
	}
	// As in PostgreSQL, the savepoint's transaction-level advisory locks
	// go with it; its session-level ones stay.
	tx.s.releaseXact(tx, sp.advisory)
	tx.s.lockMu.Unlock()
	if tx.streamed {
		// Advisory, like Rollback's: the aborted subtransactions are left
		// out of the commit record, which is what makes them not count.
		if err := tx.s.log.Append(streamedAborts); err != nil {
			return err
		}
	}
	_, err := tx.Savepoint()
	return err
}

// Release closes the savepoint at depth and those inside it, keeping their
// writes as part of the enclosing (sub)transaction.
func (tx *Tx) Release(depth int) error {
	if tx.ended {
		return ErrDone
	}
	if depth < 1 || depth > len(tx.savepoints) {
		return errors.Newf("txn: no savepoint at depth %d", depth)
	}
	tx.savepoints = tx.savepoints[:depth-1]
	tx.cur = tx.status
	if n := len(tx.savepoints); n > 0 {
		tx.cur = tx.savepoints[n-1].sub
	}
	return nil
}

// subIDs lists the subtransactions that commit with tx, for its commit
// record.
func (tx *Tx) subIDs() []uint64 {
	if len(tx.subs) == 0 {
		return nil
	}
	ids := make([]uint64, len(tx.subs))
	for i, sub := range tx.subs {
		ids[i] = sub.ID
	}
	return ids
}
