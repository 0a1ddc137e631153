package txn

import (
	"context"
	"errors"
	"testing"
	"time"
)

var keyA, keyB = AdvisoryKey{Space: 1, Key: 1}, AdvisoryKey{Space: 1, Key: 2}

// session is an owner with a transaction open, as a SQL session has.
type session struct {
	o  *Owner
	tx *Tx
}

func newSession(s *Store) *session {
	o := s.NewOwner()
	return &session{o: o, tx: o.Begin(ReadCommitted)}
}

// next ends the session's transaction and begins another.
func (ss *session) next(t *testing.T) {
	t.Helper()
	mustCommit(t, ss.tx)
	ss.tx = ss.o.Begin(ReadCommitted)
}

func (ss *session) lock(t *testing.T, key AdvisoryKey, mode AdvisoryMode, xact bool) {
	t.Helper()
	if err := ss.tx.LockAdvisory(context.Background(), key, mode, xact); err != nil {
		t.Fatalf("locking %s in %s: %v", key, mode, err)
	}
}

func (ss *session) try(t *testing.T, key AdvisoryKey, mode AdvisoryMode) bool {
	t.Helper()
	ok, err := ss.tx.TryLockAdvisory(key, mode, false)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// lockLater starts a lock request and returns once it waits in the graph.
func (ss *session) lockLater(t *testing.T, key AdvisoryKey, mode AdvisoryMode) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- ss.tx.LockAdvisory(context.Background(), key, mode, false) }()
	untilWaiting(t, ss.tx, done)
	return done
}

// untilWaiting returns once tx waits in the graph, or fails if done
// yields first.
func untilWaiting(t *testing.T, tx *Tx, done <-chan error) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		tx.s.lockMu.Lock()
		_, ok := tx.s.waits[tx.id]
		tx.s.lockMu.Unlock()
		if ok {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("txn %d did not wait: %v", tx.id, err)
		default:
		}
	}
	t.Fatalf("txn %d never waited", tx.id)
}

func mustFinish(t *testing.T, what string, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s is still waiting", what)
	}
}

func stillBlocked(t *testing.T, what string, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s finished (%v) while it should wait", what, err)
	case <-time.After(20 * time.Millisecond):
	}
}

// A session-level lock outlives its transactions and is counted: the
// waiter gets it after the last of two unlocks.
func TestAdvisoryLockWaitsAndCounts(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	a, b := newSession(s), newSession(s)
	a.lock(t, keyA, AdvisoryExclusive, false)
	a.lock(t, keyA, AdvisoryExclusive, false)
	a.next(t)
	if b.try(t, keyA, AdvisoryExclusive) || b.try(t, keyA, AdvisoryShare) {
		t.Fatal("another session took a lock held exclusively")
	}
	if !b.try(t, AdvisoryKey{Space: 2, Key: 1}, AdvisoryExclusive) {
		t.Fatal("the same bits in the other key space are another lock")
	}
	done := b.lockLater(t, keyA, AdvisoryExclusive)
	if !a.o.Unlock(keyA, AdvisoryExclusive) {
		t.Fatal("first unlock failed")
	}
	stillBlocked(t, "the waiter after one of two unlocks", done)
	if !a.o.Unlock(keyA, AdvisoryExclusive) {
		t.Fatal("second unlock failed")
	}
	mustFinish(t, "the waiter", done)
	if a.o.Unlock(keyA, AdvisoryExclusive) {
		t.Fatal("a third unlock succeeded")
	}
	if a.try(t, keyA, AdvisoryShare) {
		t.Fatal("share granted beside another's exclusive lock")
	}
}

// Shared locks share; an exclusive request waits for all of them, and a
// shared request queued behind it waits too, as PostgreSQL's fair queue
// makes it. The holder of a lock may take it in another mode past the
// queue.
func TestAdvisoryShareAndQueue(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	a, b, c := newSession(s), newSession(s), newSession(s)
	a.lock(t, keyA, AdvisoryShare, false)
	if !c.try(t, keyA, AdvisoryShare) {
		t.Fatal("two shared locks conflict")
	}
	c.o.Unlock(keyA, AdvisoryShare)
	x := b.lockLater(t, keyA, AdvisoryExclusive)
	if c.try(t, keyA, AdvisoryShare) {
		t.Fatal("a shared request passed a queued exclusive one")
	}
	sh := c.lockLater(t, keyA, AdvisoryShare)
	if !a.try(t, keyA, AdvisoryShare) {
		t.Fatal("the holder could not take its lock again")
	}
	a.o.Unlock(keyA, AdvisoryShare)

	locks := s.AdvisoryLocks()
	if len(locks) != 3 || !locks[0].Granted || locks[0].Owner != a.o || locks[1].Owner != b.o || locks[1].Granted ||
		locks[2].Owner != c.o || locks[2].WaitStart.IsZero() {
		t.Fatalf("lock table %+v, want a's grant, then b's and c's requests", locks)
	}
	a.o.Unlock(keyA, AdvisoryShare)
	mustFinish(t, "the exclusive request", x)
	stillBlocked(t, "the shared request", sh)
	b.o.Unlock(keyA, AdvisoryExclusive)
	mustFinish(t, "the shared request", sh)
	c.o.Unlock(keyA, AdvisoryShare)
	if n := len(s.AdvisoryLocks()); n != 0 {
		t.Fatalf("%d entries left in the lock table", n)
	}
}

// An owner that holds a lock takes it in another mode ahead of the queue,
// but a try does not, as in PostgreSQL.
func TestAdvisoryHolderPassesQueue(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	a, b := newSession(s), newSession(s)
	a.lock(t, keyA, AdvisoryShare, false)
	x := b.lockLater(t, keyA, AdvisoryExclusive)
	if a.try(t, keyA, AdvisoryExclusive) {
		t.Fatal("a holder's try passed the queue")
	}
	a.lock(t, keyA, AdvisoryExclusive, false) // would wait forever behind b if it queued
	if locks := s.AdvisoryLocks(); len(locks) != 3 || !locks[0].Granted || !locks[1].Granted || locks[2].Granted {
		t.Fatalf("lock table %+v, want a's two grants and b's request", locks)
	}
	a.o.UnlockAll()
	mustFinish(t, "the request the holder passed", x)
}

// Transaction-level locks go at commit, at rollback, and with a rollback
// to a savepoint taken before them, where a grant taken again inside the
// savepoint leaves the one before it.
func TestAdvisoryXactLocks(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	a, b := newSession(s), newSession(s)
	free := func(key AdvisoryKey) bool {
		ok := b.try(t, key, AdvisoryExclusive)
		if ok {
			b.o.Unlock(key, AdvisoryExclusive)
		}
		return ok
	}
	a.lock(t, keyA, AdvisoryExclusive, true)
	if a.o.Unlock(keyA, AdvisoryExclusive) {
		t.Fatal("Unlock gave up a transaction-level lock")
	}
	if _, err := a.tx.Savepoint(); err != nil {
		t.Fatal(err)
	}
	a.lock(t, keyA, AdvisoryExclusive, true)
	a.lock(t, keyB, AdvisoryExclusive, true)
	a.lock(t, AdvisoryKey{Space: 1, Key: 3}, AdvisoryExclusive, false)
	if err := a.tx.RollbackTo(1); err != nil {
		t.Fatal(err)
	}
	if free(keyA) || !free(keyB) || free(AdvisoryKey{Space: 1, Key: 3}) {
		t.Fatal("after ROLLBACK TO: want A held, B free, the session lock held")
	}
	a.next(t)
	if !free(keyA) {
		t.Fatal("a transaction-level lock outlived its commit")
	}
	a.lock(t, keyA, AdvisoryShare, true)
	done := b.lockLater(t, keyA, AdvisoryExclusive)
	if err := a.tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	mustFinish(t, "the waiter for a rolled-back transaction's lock", done)
}

// Closing an owner frees its session-level locks for the next in line.
func TestAdvisoryOwnerClose(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	a, b := newSession(s), newSession(s)
	a.lock(t, keyA, AdvisoryExclusive, false)
	a.lock(t, keyA, AdvisoryShare, false)
	done := b.lockLater(t, keyA, AdvisoryShare)
	_ = a.tx.Rollback()
	a.o.Close()
	mustFinish(t, "the waiter for a closed session's lock", done)
}

// lock_timeout and a cancelled context end a wait, and the request leaves
// the queue: those behind it move on.
func TestAdvisoryWaitEnds(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	a, b, c := newSession(s), newSession(s), newSession(s)
	a.lock(t, keyA, AdvisoryShare, false)
	ctx := WithLockTimeout(context.Background(), 30*time.Millisecond)
	if err := b.tx.LockAdvisory(ctx, keyA, AdvisoryExclusive, false); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("lock_timeout: %v", err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.tx.LockAdvisory(cctx, keyA, AdvisoryExclusive, false) }()
	untilWaiting(t, b.tx, done)
	sh := c.lockLater(t, keyA, AdvisoryShare)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	mustFinish(t, "the shared request behind the cancelled one", sh)
}

// firstOfTwoFails runs two waits that close a cycle and checks that the
// second fails with ErrDeadlock; the first then gets its lock once the
// victim gives up its own.
func firstOfTwoFails(t *testing.T, first <-chan error, second error, victim *session) {
	t.Helper()
	if !errors.Is(second, ErrDeadlock) {
		t.Fatalf("closing the cycle: %v, want ErrDeadlock", second)
	}
	stillBlocked(t, "the first waiter", first)
	_ = victim.tx.Rollback()
	victim.o.Close()
	mustFinish(t, "the first waiter", first)
}

// Two sessions waiting for each other's advisory locks deadlock: those
// of two keys, or two holders of a shared lock that both want it
// exclusively.
func TestAdvisoryDeadlock(t *testing.T) {
	type req struct {
		key  AdvisoryKey
		mode AdvisoryMode
	}
	for _, c := range []struct {
		name                           string
		aHolds, bHolds, aWants, bWants req
	}{
		{"two keys", req{keyA, AdvisoryExclusive}, req{keyB, AdvisoryShare}, req{keyB, AdvisoryExclusive}, req{keyA, AdvisoryShare}},
		{"upgrades", req{keyA, AdvisoryShare}, req{keyA, AdvisoryShare}, req{keyA, AdvisoryExclusive}, req{keyA, AdvisoryExclusive}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newMemStore(t, Options{})
			a, b := newSession(s), newSession(s)
			a.lock(t, c.aHolds.key, c.aHolds.mode, false)
			b.lock(t, c.bHolds.key, c.bHolds.mode, true)
			first := a.lockLater(t, c.aWants.key, c.aWants.mode)
			err := b.tx.LockAdvisory(context.Background(), c.bWants.key, c.bWants.mode, false)
			firstOfTwoFails(t, first, err, b)
		})
	}
}

// A cycle through an advisory lock and a row lock is a deadlock, whichever
// closes it; the session-level holder waits through its current
// transaction.
func TestAdvisoryRowLockDeadlock(t *testing.T) {
	for _, rowFirst := range []bool{false, true} {
		s, _ := newMemStore(t, Options{})
		putCommitted(t, s, "r", "1")
		a, b := newSession(s), newSession(s)
		a.lock(t, keyA, AdvisoryExclusive, false)
		a.next(t) // the lock is the session's, not the transaction's
		lockRow(t, b.tx, "r", LockUpdate)
		lockKey := func(ss *session) error {
			return ss.tx.LockAdvisory(context.Background(), keyA, AdvisoryExclusive, false)
		}
		lockRow := func(ss *session) error {
			_, err := ss.tx.LockRow(context.Background(), []byte("r"), LockUpdate, false)
			return err
		}
		waiter, wait, closer, closeCycle := b, lockKey, a, lockRow
		if rowFirst {
			waiter, wait, closer, closeCycle = a, lockRow, b, lockKey
		}
		first := make(chan error, 1)
		go func() { first <- wait(waiter) }()
		untilWaiting(t, waiter.tx, first)
		firstOfTwoFails(t, first, closeCycle(closer), closer)
	}
}

// A cycle that runs through a soft edge, a request queued behind another
// it does not conflict with a holder for, is opened by letting it go
// first, as PostgreSQL does, rather than failed.
func TestAdvisorySoftEdgeReordered(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	a, b, c := newSession(s), newSession(s), newSession(s)
	a.lock(t, keyA, AdvisoryShare, false)
	c.lock(t, keyB, AdvisoryExclusive, false)
	x := b.lockLater(t, keyA, AdvisoryExclusive) // b waits for a
	sh := c.lockLater(t, keyA, AdvisoryShare)    // c queues behind b
	// a waiting for c closes a → c → b → a; c's request goes first.
	done := a.lockLater(t, keyB, AdvisoryExclusive)
	mustFinish(t, "the shared request let ahead", sh)
	c.o.Unlock(keyB, AdvisoryExclusive)
	mustFinish(t, "a's request", done)
	a.o.UnlockAll()
	c.o.UnlockAll()
	mustFinish(t, "the exclusive request", x)
}
