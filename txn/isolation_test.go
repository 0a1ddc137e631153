package txn

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
)

// increment adds one to the counter at k, the way UPDATE t SET v = v + 1
// does: the callback sees the newest committed value after any wait.
func increment(ctx context.Context, tx *Tx, k []byte) error {
	return tx.Mutate(ctx, k, func(cur []byte, exists bool) ([]byte, Op, error) {
		n := 0
		if exists {
			n, _ = strconv.Atoi(string(cur))
		}
		return itoa(n + 1), Put, nil
	})
}

func TestReadCommittedNoLostUpdate(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	const workers, each = 16, 500
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				tx := s.Begin(ReadCommitted)
				if err := increment(ctx, tx, []byte("counter")); err != nil {
					t.Error(err)
					_ = tx.Rollback()
					return
				}
				if err := tx.Commit(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	tx := s.Begin(ReadCommitted)
	defer tx.Rollback()
	v, _, _ := tx.Get([]byte("counter"))
	if got := atoi(t, v); got != workers*each {
		t.Fatalf("counter = %d after %d increments: lost updates", got, workers*each)
	}
}

// A READ COMMITTED write that waited re-reads the newest committed version,
// so the caller can re-check its WHERE clause on it.
func TestReadCommittedRechecksAfterWait(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	setup := s.Begin(ReadCommitted)
	if err := setup.Put(ctx, []byte("row"), []byte("open")); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, setup)

	holder := s.Begin(ReadCommitted)
	if err := holder.Put(ctx, []byte("row"), []byte("closed")); err != nil {
		t.Fatal(err)
	}
	waiter := s.Begin(ReadCommitted)
	result := make(chan string, 1)
	go func() {
		var saw string
		err := waiter.Mutate(ctx, []byte("row"), func(cur []byte, _ bool) ([]byte, Op, error) {
			saw = string(cur)
			if saw != "open" { // WHERE state = 'open'
				return nil, Keep, nil
			}
			return []byte("taken"), Put, nil
		})
		if err != nil {
			saw = err.Error()
		}
		result <- saw
	}()
	select {
	case r := <-result:
		t.Fatalf("the write did not wait for the row lock: %q", r)
	case <-time.After(50 * time.Millisecond):
	}
	mustCommit(t, holder)
	if saw := <-result; saw != "closed" {
		t.Fatalf("after the wait the callback saw %q, want the newest committed %q", saw, "closed")
	}
	mustCommit(t, waiter)
	r := s.Begin(ReadCommitted)
	defer r.Rollback()
	if v, _, _ := r.Get([]byte("row")); string(v) != "closed" {
		t.Fatalf("row = %q: the re-check should have skipped the update", v)
	}
}

func TestRepeatableReadWriteConflict(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	setup := s.Begin(ReadCommitted)
	_ = setup.Put(ctx, []byte("a"), []byte("0"))
	_ = setup.Put(ctx, []byte("b"), []byte("0"))
	mustCommit(t, setup)

	t.Run("committed before", func(t *testing.T) {
		rr := s.Begin(RepeatableRead)
		other := s.Begin(ReadCommitted)
		_ = other.Put(ctx, []byte("a"), []byte("1"))
		mustCommit(t, other)
		if err := increment(ctx, rr, []byte("a")); !errors.Is(err, ErrSerialization) {
			t.Fatalf("got %v, want ErrSerialization", err)
		}
		_ = rr.Rollback()
	})
	t.Run("committed while waiting", func(t *testing.T) {
		rr := s.Begin(RepeatableRead)
		other := s.Begin(ReadCommitted)
		_ = other.Put(ctx, []byte("b"), []byte("1"))
		errc := make(chan error, 1)
		go func() { errc <- increment(ctx, rr, []byte("b")) }()
		time.Sleep(20 * time.Millisecond)
		mustCommit(t, other)
		if err := <-errc; !errors.Is(err, ErrSerialization) {
			t.Fatalf("got %v, want ErrSerialization", err)
		}
		_ = rr.Rollback()
	})
	t.Run("rolled back while waiting", func(t *testing.T) {
		rr := s.Begin(RepeatableRead)
		other := s.Begin(ReadCommitted)
		_ = other.Put(ctx, []byte("b"), []byte("2"))
		errc := make(chan error, 1)
		go func() { errc <- increment(ctx, rr, []byte("b")) }()
		time.Sleep(20 * time.Millisecond)
		_ = other.Rollback()
		if err := <-errc; err != nil {
			t.Fatalf("the holder rolled back, so the write should go ahead: %v", err)
		}
		mustCommit(t, rr)
	})
}

// Transfers keep the sum of all balances constant. A snapshot must see the
// same balances on every read, and a sum that never moves, while transfers
// commit all around it.
func TestSnapshotStability(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	const accounts, initial = 20, 100
	setup := s.Begin(ReadCommitted)
	for i := range accounts {
		_ = setup.Put(ctx, key(i), itoa(initial))
	}
	mustCommit(t, setup)

	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				from, to := (w*7+i)%accounts, (w*3+i*5+1)%accounts
				if from == to {
					continue
				}
				tx := s.Begin(ReadCommitted)
				err := tx.Mutate(ctx, key(from), func(cur []byte, _ bool) ([]byte, Op, error) {
					n, _ := strconv.Atoi(string(cur))
					return itoa(n - 1), Put, nil
				})
				if err == nil {
					err = tx.Mutate(ctx, key(to), func(cur []byte, _ bool) ([]byte, Op, error) {
						n, _ := strconv.Atoi(string(cur))
						return itoa(n + 1), Put, nil
					})
				}
				if err != nil {
					_ = tx.Rollback() // a deadlock victim
					continue
				}
				_ = tx.Commit()
			}
		})
	}
	read := func(tx *Tx) (map[string]string, int) {
		m := make(map[string]string)
		sum := 0
		_ = tx.Scan(nil, nil, func(k, v []byte) bool {
			m[string(k)] = string(v)
			n, _ := strconv.Atoi(string(v))
			sum += n
			return true
		})
		return m, sum
	}
	rr := s.Begin(RepeatableRead)
	first, sum := read(rr)
	if sum != accounts*initial {
		t.Fatalf("first sum %d", sum)
	}
	rc := s.Begin(ReadCommitted)
	for range 200 {
		again, _ := read(rr)
		for k, v := range first {
			if again[k] != v {
				t.Fatalf("snapshot moved: %s was %s, now %s", k, v, again[k])
			}
		}
		rc.NextStatement()
		if _, sum := read(rc); sum != accounts*initial {
			t.Fatalf("a READ COMMITTED statement saw sum %d: a transfer was half visible", sum)
		}
		time.Sleep(100 * time.Microsecond)
	}
	stop.Store(true)
	wg.Wait()
	_ = rr.Rollback()
	_ = rc.Rollback()
	final := s.Begin(ReadCommitted)
	defer final.Rollback()
	if _, sum := read(final); sum != accounts*initial {
		t.Fatalf("final sum %d", sum)
	}
	if final.Snapshot() <= rr.Snapshot() {
		t.Fatalf("no transfer committed during the test")
	}
}

func TestDeadlockDetected(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	t1, t2 := s.Begin(ReadCommitted), s.Begin(ReadCommitted)
	if err := t1.Put(ctx, []byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := t2.Put(ctx, []byte("b"), []byte("2")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for _, step := range []struct {
		tx *Tx
		k  string
	}{{t1, "b"}, {t2, "a"}} {
		wg.Go(func() {
			err := step.tx.Put(ctx, []byte(step.k), []byte("x"))
			if err != nil {
				_ = step.tx.Rollback()
			} else {
				err = step.tx.Commit()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if errors.Is(err, ErrDeadlock) {
			failed++
		} else if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
	}
	if failed != 1 {
		t.Fatalf("%d of the two transactions failed with ErrDeadlock, want exactly 1", failed)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("deadlock took %v to resolve, want under 2s", d)
	}
}

func TestCanceledWait(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	holder := s.Begin(ReadCommitted)
	_ = holder.Put(context.Background(), []byte("a"), []byte("1"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	waiter := s.Begin(ReadCommitted)
	if err := waiter.Put(ctx, []byte("a"), []byte("2")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's error", err)
	}
	_ = waiter.Rollback()
	mustCommit(t, holder)
}

// A statement does not see its own writes; the next statement does.
func TestStatementDoesNotSeeItsOwnWrites(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	for _, iso := range []Isolation{ReadCommitted, RepeatableRead} {
		tx := s.Begin(iso)
		tx.NextStatement()
		if err := tx.Put(ctx, []byte("k"), []byte("v1")); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := tx.Get([]byte("k")); ok {
			t.Fatalf("%s: a statement read its own write", iso)
		}
		// Writes still see it: a second write in the statement meets it.
		err := tx.Mutate(ctx, []byte("k"), func(cur []byte, exists bool) ([]byte, Op, error) {
			if !exists || string(cur) != "v1" {
				t.Fatalf("%s: Mutate saw %q, %v; want the statement's own v1", iso, cur, exists)
			}
			return []byte("v2"), Put, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		tx.NextStatement()
		if v, ok, _ := tx.Get([]byte("k")); !ok || string(v) != "v2" {
			t.Fatalf("%s: the next statement reads %q, %v; want v2", iso, v, ok)
		}
		_ = tx.Rollback()
	}
}

// A Mutate callback that writes or locks the row it is computing fails
// with ErrRowHeld instead of waiting on its own row's lock forever; other
// rows it may write.
func TestCallbackWritesItsOwnRow(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	tx := s.Begin(ReadCommitted)
	var inner, lock, other error
	err := tx.Mutate(ctx, []byte("k"), func([]byte, bool) ([]byte, Op, error) {
		inner = tx.Put(ctx, []byte("k"), []byte("inner"))
		_, lock = tx.LockRow(ctx, []byte("k"), LockUpdate, false)
		other = tx.Put(ctx, []byte("j"), []byte("other"))
		return []byte("outer"), Put, nil
	})
	if err != nil || !errors.Is(inner, ErrRowHeld) || !errors.Is(lock, ErrRowHeld) || other != nil {
		t.Fatalf("outer %v, inner write %v, inner lock %v, other row %v; want nil, ErrRowHeld twice, nil", err, inner, lock, other)
	}
	// Once the callback is done, the row is the transaction's to write.
	if err := tx.Put(ctx, []byte("k"), []byte("after")); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
}
