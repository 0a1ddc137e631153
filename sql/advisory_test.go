package sql_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Advisory locks between sessions; what one session sees of them is in
// testdata/sql/advisory.test.

func tryLock(t *testing.T, c *pgx.Conn, q string) bool {
	t.Helper()
	var ok bool
	if err := c.QueryRow(context.Background(), q).Scan(&ok); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return ok
}

// start runs q on c in the background; the returned channel yields its
// error. If q still runs when the test ends, a cancel request ends it, so
// that a failed test does not leave it waiting for a lock forever.
func start(t *testing.T, c *pgx.Conn, q string) <-chan error {
	done, ended := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(ended)
		_, err := c.Exec(context.Background(), q)
		done <- err
	}()
	t.Cleanup(func() {
		select {
		case <-ended:
		default:
			_ = c.PgConn().CancelRequest(context.Background())
			<-ended
		}
	})
	return done
}

// waiting starts q on c and checks that it still waits a moment later.
func waiting(t *testing.T, c *pgx.Conn, q string) <-chan error {
	t.Helper()
	done := start(t, c, q)
	select {
	case err := <-done:
		t.Fatalf("%s finished (%v) while it should wait for a lock", q, err)
	case <-time.After(100 * time.Millisecond):
	}
	return done
}

// finished waits for a blocked statement to end and fails the test if it
// failed or still waits.
func finished(t *testing.T, what string, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s is still waiting", what)
	}
}

// A lock held is waited for, and counted: the waiter gets it after the
// holder's last unlock. A try fails meanwhile, and another key is free.
func TestAdvisoryLockWaitsForUnlock(t *testing.T) {
	c := lockConns(t, 2)
	mustExec(t, c[0], "SELECT pg_advisory_lock(1)")
	mustExec(t, c[0], "SELECT pg_advisory_lock(1)")
	if tryLock(t, c[1], "SELECT pg_try_advisory_lock(1)") || tryLock(t, c[1], "SELECT pg_try_advisory_lock_shared(1)") {
		t.Fatal("a try took a lock another session holds")
	}
	if !tryLock(t, c[1], "SELECT pg_try_advisory_lock(0, 1)") {
		t.Fatal("the two-key lock (0, 1) is not the bigint lock 1")
	}
	done := waiting(t, c[1], "SELECT pg_advisory_lock(1)")
	mustExec(t, c[0], "SELECT pg_advisory_unlock(1)")
	select {
	case err := <-done:
		t.Fatalf("the waiter got the lock (%v) after one of two unlocks", err)
	case <-time.After(100 * time.Millisecond):
	}
	mustExec(t, c[0], "SELECT pg_advisory_unlock(1)")
	finished(t, "the waiter", done)
	if tryLock(t, c[0], "SELECT pg_try_advisory_lock(1)") {
		t.Fatal("the first session took back the lock the waiter got")
	}
}

// Shared locks share; an exclusive one waits for them all, and holds back
// a shared request that comes after it.
func TestAdvisorySharedAndExclusive(t *testing.T) {
	c := lockConns(t, 3)
	mustExec(t, c[0], "SELECT pg_advisory_lock_shared(2)")
	if !tryLock(t, c[1], "SELECT pg_try_advisory_lock_shared(2)") {
		t.Fatal("a second shared lock was refused")
	}
	if tryLock(t, c[2], "SELECT pg_try_advisory_lock(2)") {
		t.Fatal("an exclusive lock beside shared ones")
	}
	excl := waiting(t, c[2], "SELECT pg_advisory_lock(2)")
	mustExec(t, c[0], "SELECT pg_advisory_unlock_shared(2)")
	if tryLock(t, c[0], "SELECT pg_try_advisory_lock_shared(2)") {
		t.Fatal("a shared request went past a waiting exclusive one")
	}
	mustExec(t, c[1], "SELECT pg_advisory_unlock_shared(2)")
	finished(t, "the exclusive lock", excl)
}

// A transaction-level lock lasts until its transaction commits, rolls
// back, or fails in its block.
func TestAdvisoryXactLockEndsWithTransaction(t *testing.T) {
	c := lockConns(t, 2)
	for _, end := range []string{"COMMIT", "ROLLBACK", "SELECT 1/0"} {
		mustExec(t, c[0], "BEGIN")
		mustExec(t, c[0], "SELECT pg_advisory_xact_lock(3)")
		done := waiting(t, c[1], "SELECT pg_advisory_xact_lock(3)")
		_, _ = c[0].Exec(context.Background(), end)
		finished(t, "the waiter after "+end, done)
		mustExec(t, c[0], "ROLLBACK")
	}
}

// A session's locks go when it ends, gracefully or not, and the next
// session in line gets them.
func TestAdvisoryLockEndsWithSession(t *testing.T) {
	url := serve(t)
	ctx := context.Background()
	waiter, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = waiter.Close(ctx) })
	for _, end := range []struct {
		name  string
		close func(*pgx.Conn) error
	}{
		{"Terminate", func(c *pgx.Conn) error { return c.Close(ctx) }},
		{"a dropped connection", func(c *pgx.Conn) error { return c.PgConn().Conn().Close() }},
	} {
		holder, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, holder, "SELECT pg_advisory_lock(4)")
		mustExec(t, holder, "SELECT pg_advisory_lock_shared(4)")
		done := waiting(t, waiter, "SELECT pg_advisory_lock(4)")
		if err := end.close(holder); err != nil {
			t.Fatal(err)
		}
		finished(t, "the waiter after "+end.name, done)
		mustExec(t, waiter, "SELECT pg_advisory_unlock(4)")
	}
}

// lock_timeout, statement_timeout and a cancel request end a wait with
// PostgreSQL's errors, and the waiter leaves the queue.
func TestAdvisoryLockWaitEnds(t *testing.T) {
	c := lockConns(t, 2)
	mustExec(t, c[0], "SELECT pg_advisory_lock(5)")
	for _, w := range []struct {
		set, code, msg string
		cancel         bool
	}{
		{"SET lock_timeout = '50ms'", "55P03", "canceling statement due to lock timeout", false},
		{"SET statement_timeout = '50ms'", "57014", "canceling statement due to statement timeout", false},
		{"RESET ALL", "57014", "canceling statement due to user request", true},
	} {
		mustExec(t, c[1], w.set)
		if w.cancel {
			// A cancel request of its own: on a cancelled context pgx
			// reports the context's error, not the server's.
			time.AfterFunc(50*time.Millisecond, func() { _ = c[1].PgConn().CancelRequest(context.Background()) })
		}
		_, err := c[1].Exec(context.Background(), "SELECT pg_advisory_lock(5)")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != w.code || pe.Message != w.msg {
			t.Fatalf("after %s: %v, want %s %q", w.set, err, w.code, w.msg)
		}
		mustExec(t, c[1], "RESET ALL")
		if n := count(t, c[0], "SELECT count(*) FROM pg_locks WHERE NOT granted"); n != 0 {
			t.Fatalf("after %s: %d requests still wait", w.set, n)
		}
	}
}

// exactlyOneDeadlocks runs a and b, each a statement that waits for what
// the other holds, and checks that exactly one fails with 40P01; the loser
// gives up what it holds (undo), and the other then finishes.
func exactlyOneDeadlocks(t *testing.T, ca *pgx.Conn, a string, cb *pgx.Conn, b string, undoA, undoB func()) {
	t.Helper()
	done := [2]<-chan error{waiting(t, ca, a), start(t, cb, b)}
	var errs [2]error
	var got [2]bool
	receive := func(i int) {
		t.Helper()
		if got[i] {
			return
		}
		select {
		case errs[i] = <-done[i]:
			got[i] = true
		case <-time.After(10 * time.Second):
			t.Fatal("a wait of the cycle is still waiting")
		}
	}
	select {
	case errs[0] = <-done[0]:
		got[0] = true
	case errs[1] = <-done[1]:
		got[1] = true
	case <-time.After(10 * time.Second):
		t.Fatal("neither wait of the cycle failed")
	}
	victim := 0
	if got[1] {
		victim = 1
	}
	if errs[victim] == nil {
		// The survivor finished first: a victim in a transaction block
		// gave up its locks when it failed.
		victim = 1 - victim
	}
	receive(victim)
	var pe *pgconn.PgError
	if !errors.As(errs[victim], &pe) || pe.Code != "40P01" || pe.Message != "deadlock detected" {
		t.Fatalf("the cycle's victim failed with %v, want 40P01", errs[victim])
	}
	if !strings.Contains(pe.Detail, "waits for") {
		t.Errorf("DETAIL %q does not say who waits for whom", pe.Detail)
	}
	[2]func(){undoA, undoB}[victim]()
	receive(1 - victim)
	if err := errs[1-victim]; err != nil {
		t.Fatalf("the survivor of the deadlock: %v", err)
	}
}

func TestAdvisoryDeadlock(t *testing.T) {
	c := lockConns(t, 2)
	mustExec(t, c[0], "SELECT pg_advisory_lock(10)")
	mustExec(t, c[1], "SELECT pg_advisory_lock_shared(11)")
	exactlyOneDeadlocks(t, c[0], "SELECT pg_advisory_lock(11)", c[1], "SELECT pg_advisory_lock(1, 2), pg_advisory_lock(10)",
		func() { mustExec(t, c[0], "SELECT pg_advisory_unlock_all()") },
		func() { mustExec(t, c[1], "SELECT pg_advisory_unlock_all()") })
}

// A cycle through an advisory lock and a row lock is a deadlock too: the
// session holding the advisory lock waits for a row through its
// transaction.
func TestAdvisoryRowLockDeadlock(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 0)")
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "UPDATE t SET v = 1 WHERE id = 1")
	mustExec(t, c[1], "SELECT pg_advisory_lock(20)")
	exactlyOneDeadlocks(t, c[1], "UPDATE t SET v = 2 WHERE id = 1", c[0], "SELECT pg_advisory_lock(20)",
		func() { mustExec(t, c[1], "SELECT pg_advisory_unlock_all()") },
		func() { mustExec(t, c[0], "ROLLBACK") })
}
