package txn

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// putCommitted writes k = v in a transaction of its own.
func putCommitted(t *testing.T, s *Store, k, v string) {
	t.Helper()
	tx := s.Begin(ReadCommitted)
	if err := tx.Put(context.Background(), []byte(k), []byte(v)); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
}

// lockRow locks k for tx or fails the test.
func lockRow(t *testing.T, tx *Tx, k string, mode LockMode) Locked {
	t.Helper()
	l, err := tx.LockRow(context.Background(), []byte(k), mode, false)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// stillWaiting runs f and checks it has not returned a moment later; the
// channel yields its error when it does.
func stillWaiting(t *testing.T, what string, f func() error) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		t.Fatalf("%s returned (%v) while the row was locked", what, err)
	case <-time.After(50 * time.Millisecond):
	}
	return done
}

func TestLockModeConflicts(t *testing.T) {
	// PostgreSQL's table of conflicting row lock modes.
	want := map[[2]LockMode]bool{
		{LockKeyShare, LockKeyShare}: false, {LockKeyShare, LockShare}: false,
		{LockKeyShare, LockNoKeyUpdate}: false, {LockKeyShare, LockUpdate}: true,
		{LockShare, LockShare}: false, {LockShare, LockNoKeyUpdate}: true, {LockShare, LockUpdate}: true,
		{LockNoKeyUpdate, LockNoKeyUpdate}: true, {LockNoKeyUpdate, LockUpdate}: true,
		{LockUpdate, LockUpdate}: true,
	}
	for pair, conflict := range want {
		if got := pair[0].conflicts(pair[1]); got != conflict {
			t.Errorf("%d vs %d: conflicts = %v, want %v", pair[0], pair[1], got, conflict)
		}
		if got := pair[1].conflicts(pair[0]); got != conflict {
			t.Errorf("%d vs %d: conflicts = %v, want %v", pair[1], pair[0], got, conflict)
		}
	}
}

// A row lock keeps writers and conflicting lockers waiting until its
// transaction ends, lets readers and compatible lockers through, and goes
// away with its transaction, commit or rollback.
func TestRowLockBlocksWriters(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")

	for _, end := range []string{"commit", "rollback"} {
		holder := s.Begin(ReadCommitted)
		if l := lockRow(t, holder, "a", LockUpdate); !l.Exists || string(l.Value) != "1" || l.Changed {
			t.Fatalf("LockRow = %+v", l)
		}
		reader := s.Begin(ReadCommitted)
		if v, ok, _ := reader.Get([]byte("a")); !ok || string(v) != "1" {
			t.Fatalf("a reader sees %q, %v under a row lock", v, ok)
		}
		mustCommit(t, reader)

		writer := s.Begin(ReadCommitted)
		done := stillWaiting(t, "a write", func() error { return writer.Put(ctx, []byte("a"), []byte("2")) })
		other := s.Begin(ReadCommitted)
		if _, err := other.LockRow(ctx, []byte("a"), LockKeyShare, true); !errors.Is(err, ErrLockNotAvailable) {
			t.Fatalf("FOR KEY SHARE NOWAIT against FOR UPDATE: %v", err)
		}
		mustCommit(t, other)
		if end == "commit" {
			mustCommit(t, holder)
		} else if err := holder.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err := writer.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSharedRowLocks(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	a, b := s.Begin(ReadCommitted), s.Begin(ReadCommitted)
	lockRow(t, a, "a", LockShare)
	lockRow(t, b, "a", LockShare) // shared locks share
	c := s.Begin(ReadCommitted)
	lockRow(t, c, "a", LockKeyShare)
	if _, err := c.LockRow(ctx, []byte("a"), LockNoKeyUpdate, true); !errors.Is(err, ErrLockNotAvailable) {
		t.Fatalf("FOR NO KEY UPDATE against two FOR SHARE: %v", err)
	}
	mustCommit(t, a)
	done := stillWaiting(t, "FOR UPDATE", func() error {
		_, err := c.LockRow(ctx, []byte("a"), LockUpdate, false)
		return err
	})
	mustCommit(t, b)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// c holds FOR UPDATE now; its own write goes through.
	if err := c.Put(ctx, []byte("a"), []byte("3")); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, c)
	tx := s.Begin(ReadCommitted)
	defer tx.Rollback()
	if v, _, _ := tx.Get([]byte("a")); string(v) != "3" {
		t.Fatalf("a = %q, want 3", v)
	}
}

// Under READ COMMITTED a lock that waited returns the newest value, marked
// changed; under REPEATABLE READ that is a serialization failure. A
// deleted row locks nothing.
func TestRowLockSeesNewestValue(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	putCommitted(t, s, "b", "1")
	rc, rr := s.Begin(ReadCommitted), s.Begin(RepeatableRead)
	putCommitted(t, s, "a", "2")
	if _, err := rr.LockRow(ctx, []byte("a"), LockUpdate, false); !errors.Is(err, ErrSerialization) {
		t.Fatalf("REPEATABLE READ LockRow of a changed row: %v", err)
	}
	if l := lockRow(t, rc, "a", LockUpdate); string(l.Value) != "2" || !l.Changed {
		t.Fatalf("READ COMMITTED LockRow = %+v, want the value 2, changed", l)
	}
	if l := lockRow(t, rr, "b", LockUpdate); string(l.Value) != "1" || l.Changed {
		t.Fatalf("REPEATABLE READ LockRow of an unchanged row = %+v", l)
	}
	_ = rc.Rollback()
	del := s.Begin(ReadCommitted)
	if err := del.Delete(ctx, []byte("a")); err != nil {
		t.Fatal(err)
	}
	locker := s.Begin(ReadCommitted)
	defer locker.Rollback()
	var l Locked
	done := stillWaiting(t, "a lock of a row being deleted", func() error {
		var err error
		l, err = locker.LockRow(ctx, []byte("a"), LockShare, false)
		return err
	})
	mustCommit(t, del)
	if err := <-done; err != nil || l.Exists {
		t.Fatalf("locking a deleted row: %+v, %v", l, err)
	}
	mustCommit(t, rr)
}

// Locks wait in the same waits-for graph as writes: a cycle is ErrDeadlock.
func TestRowLockDeadlock(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	putCommitted(t, s, "b", "1")
	x, y := s.Begin(ReadCommitted), s.Begin(ReadCommitted)
	lockRow(t, x, "a", LockUpdate)
	lockRow(t, y, "b", LockUpdate)
	done := stillWaiting(t, "x's lock", func() error {
		_, err := x.LockRow(ctx, []byte("b"), LockUpdate, false)
		return err
	})
	if _, err := y.LockRow(ctx, []byte("a"), LockUpdate, false); !errors.Is(err, ErrDeadlock) {
		t.Fatalf("closing the cycle: %v, want ErrDeadlock", err)
	}
	_ = y.Rollback()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustCommit(t, x)
}

// A lock taken inside a savepoint goes with ROLLBACK TO; one taken before
// it stays.
func TestRowLockRolledBackToSavepoint(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	putCommitted(t, s, "b", "1")
	tx := s.Begin(ReadCommitted)
	lockRow(t, tx, "a", LockUpdate)
	depth, err := tx.Savepoint()
	if err != nil {
		t.Fatal(err)
	}
	lockRow(t, tx, "b", LockUpdate)
	if err := tx.RollbackTo(depth); err != nil {
		t.Fatal(err)
	}
	other := s.Begin(ReadCommitted)
	if _, err := other.LockRow(ctx, []byte("b"), LockUpdate, true); err != nil {
		t.Fatalf("b after ROLLBACK TO: %v", err)
	}
	if _, err := other.LockRow(ctx, []byte("a"), LockUpdate, true); !errors.Is(err, ErrLockNotAvailable) {
		t.Fatalf("a after ROLLBACK TO: %v, want still locked", err)
	}
	mustCommit(t, other)
	mustCommit(t, tx)
}

// A transaction that locks a row, writes it and locks it again commits
// its write: its own lock versions never count as values.
func TestRowLockAroundOwnWrites(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	tx := s.Begin(ReadCommitted)
	lockRow(t, tx, "a", LockShare)
	if err := tx.Put(ctx, []byte("a"), []byte("2")); err != nil {
		t.Fatal(err)
	}
	if l := lockRow(t, tx, "a", LockUpdate); string(l.Value) != "2" || l.Changed {
		t.Fatalf("LockRow after an own write = %+v", l)
	}
	tx.NextStatement()
	if v, _, _ := tx.Get([]byte("a")); string(v) != "2" {
		t.Fatalf("own read = %q", v)
	}
	mustCommit(t, tx)
	check := s.Begin(RepeatableRead)
	defer check.Rollback()
	if v, _, _ := check.Get([]byte("a")); string(v) != "2" {
		t.Fatalf("a = %q after commit, want 2", v)
	}
}

// Lock versions are reclaimed like any other: taking and releasing locks
// forever leaves the memtable where it was.
func TestRowLocksAreReclaimed(t *testing.T) {
	s, _ := newMemStore(t, Options{MemtableSize: inMemoryOnly})
	putCommitted(t, s, "a", "1")
	before := s.Stats().MemtableBytes
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 500 {
				tx := s.Begin(ReadCommitted)
				lockRow(t, tx, "a", LockShare)
				mustCommit(t, tx)
			}
		})
	}
	wg.Wait()
	for range 3 {
		s.epochs.Advance()
	}
	if after := s.Stats().MemtableBytes; after != before {
		t.Fatalf("memtable holds %d bytes after 2,000 released locks, %d before", after, before)
	}
}

// A transaction that only locked rows, inside savepoints too, frees them
// all when it commits.
func TestRowLocksInSavepointEndWithCommit(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	tx := s.Begin(ReadCommitted)
	if _, err := tx.Savepoint(); err != nil {
		t.Fatal(err)
	}
	lockRow(t, tx, "a", LockUpdate)
	mustCommit(t, tx)
	other := s.Begin(ReadCommitted)
	if _, err := other.LockRow(ctx, []byte("a"), LockUpdate, true); err != nil {
		t.Fatalf("a lock taken in a savepoint outlived its transaction: %v", err)
	}
	mustCommit(t, other)
}

// An insert that meets an existing row under another transaction's row
// lock fails at once: only a write would wait for the lock.
func TestMutateNewDoesNotWaitToFail(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	holder := s.Begin(ReadCommitted)
	lockRow(t, holder, "a", LockShare)
	errDup := errors.New("duplicate")
	ins := s.Begin(ReadCommitted)
	err := ins.MutateNew(ctx, []byte("a"), func(_ []byte, exists bool) ([]byte, Op, error) {
		if exists {
			return nil, Keep, errDup
		}
		return []byte("2"), Put, nil
	})
	if !errors.Is(err, errDup) {
		t.Fatalf("insert over a locked row: %v, want the duplicate error at once", err)
	}
	mustCommit(t, ins)
	// A write still waits.
	w := s.Begin(ReadCommitted)
	done := stillWaiting(t, "a write of a locked row", func() error {
		return w.MutateNew(ctx, []byte("a"), func([]byte, bool) ([]byte, Op, error) { return []byte("3"), Put, nil })
	})
	mustCommit(t, holder)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustCommit(t, w)
}

// Under REPEATABLE READ, locking a row deleted since the snapshot is a
// serialization failure, as PostgreSQL's.
func TestRepeatableReadLockOfDeletedRow(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putCommitted(t, s, "a", "1")
	rr := s.Begin(RepeatableRead)
	del := s.Begin(ReadCommitted)
	if err := del.Delete(ctx, []byte("a")); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, del)
	if _, err := rr.LockRow(ctx, []byte("a"), LockUpdate, false); !errors.Is(err, ErrSerialization) {
		t.Fatalf("LockRow of a row deleted since the snapshot: %v, want ErrSerialization", err)
	}
	_ = rr.Rollback()
}

// Locks rolled back to a savepoint leave their row at once, not when the
// transaction ends, though its own pin holds reclaim back.
func TestRowLocksRolledBackAreReclaimed(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	putCommitted(t, s, "a", "1")
	before := s.Stats().MemtableBytes
	tx := s.Begin(ReadCommitted)
	depth, err := tx.Savepoint()
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		lockRow(t, tx, "a", LockUpdate)
		if err := tx.RollbackTo(depth); err != nil {
			t.Fatal(err)
		}
	}
	after := s.Stats().MemtableBytes
	mustCommit(t, tx)
	if after != before {
		t.Fatalf("memtable holds %d bytes after 1,000 locks rolled back, %d before", after, before)
	}
}
