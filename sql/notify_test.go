package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// waitNotification waits a moment for c's next notification; nil if none
// comes.
func waitNotification(t *testing.T, c *pgx.Conn, wait time.Duration) *struct {
	pid              uint32
	channel, payload string
} {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	n, err := c.WaitForNotification(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		t.Fatal(err)
	}
	return &struct {
		pid              uint32
		channel, payload string
	}{n.PID, n.Channel, n.Payload}
}

// NOTIFY reaches every session that LISTENs on its channel, when the
// notifying transaction commits: an idle listener at once, one inside a
// transaction block when its block ends. A rolled-back NOTIFY reaches
// nobody, a transaction's duplicates arrive once, and UNLISTEN stops them.
func TestListenNotify(t *testing.T) {
	c := lockConns(t, 3)
	ctx := context.Background()
	mustExec(t, c[0], "LISTEN jobs")
	mustExec(t, c[1], "LISTEN jobs")
	var pid uint32
	if err := c[2].QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}

	mustExec(t, c[2], "NOTIFY jobs, 'one'")
	for i, conn := range c[:2] {
		n := waitNotification(t, conn, 5*time.Second)
		if n == nil || n.pid != pid || n.channel != "jobs" || n.payload != "one" {
			t.Fatalf("listener %d got %+v, want jobs/one from pid %d", i, n, pid)
		}
	}

	// Inside a transaction: nothing until COMMIT; a rollback sends nothing.
	mustExec(t, c[2], "BEGIN")
	mustExec(t, c[2], "NOTIFY jobs, 'two'")
	mustExec(t, c[2], "SELECT pg_notify('jobs', 'two')") // a duplicate
	if n := waitNotification(t, c[0], 200*time.Millisecond); n != nil {
		t.Fatalf("notification %+v before COMMIT", n)
	}
	mustExec(t, c[2], "COMMIT")
	if n := waitNotification(t, c[0], 5*time.Second); n == nil || n.payload != "two" {
		t.Fatalf("after COMMIT: %+v", n)
	}
	if n := waitNotification(t, c[0], 200*time.Millisecond); n != nil {
		t.Fatalf("the duplicate arrived too: %+v", n)
	}
	mustExec(t, c[2], "BEGIN")
	mustExec(t, c[2], "NOTIFY jobs, 'three'")
	mustExec(t, c[2], "ROLLBACK")
	if n := waitNotification(t, c[0], 200*time.Millisecond); n != nil {
		t.Fatalf("a rolled-back NOTIFY arrived: %+v", n)
	}

	// ROLLBACK TO SAVEPOINT drops what came after the savepoint.
	mustExec(t, c[2], "BEGIN")
	mustExec(t, c[2], "NOTIFY jobs, 'kept'")
	mustExec(t, c[2], "SAVEPOINT s")
	mustExec(t, c[2], "NOTIFY jobs, 'dropped'")
	mustExec(t, c[2], "ROLLBACK TO SAVEPOINT s")
	mustExec(t, c[2], "COMMIT")
	if n := waitNotification(t, c[0], 5*time.Second); n == nil || n.payload != "kept" {
		t.Fatalf("after ROLLBACK TO: %+v", n)
	}
	if n := waitNotification(t, c[0], 200*time.Millisecond); n != nil {
		t.Fatalf("a rolled-back savepoint's NOTIFY arrived: %+v", n)
	}

	// A listener in a transaction block gets it when its block ends.
	if n := waitNotification(t, c[1], 5*time.Second); n == nil || n.payload != "two" {
		t.Fatalf("second listener: %+v", n)
	}
	if n := waitNotification(t, c[1], 5*time.Second); n == nil || n.payload != "kept" {
		t.Fatalf("second listener: %+v", n)
	}
	mustExec(t, c[1], "BEGIN")
	mustExec(t, c[2], "NOTIFY jobs, 'four'")
	mustExec(t, c[1], "SELECT 1")
	mustExec(t, c[1], "COMMIT")
	if n := waitNotification(t, c[1], 5*time.Second); n == nil || n.payload != "four" {
		t.Fatalf("listener in a block: %+v", n)
	}

	var channels []string
	rows, err := c[0].Query(ctx, "SELECT * FROM pg_listening_channels()")
	if err != nil {
		t.Fatal(err)
	}
	if channels, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(channels) != 1 || channels[0] != "jobs" {
		t.Fatalf("pg_listening_channels = %v, %v", channels, err)
	}
	mustExec(t, c[0], "UNLISTEN *")
	mustExec(t, c[2], "NOTIFY jobs, 'five'")
	if n := waitNotification(t, c[0], 200*time.Millisecond); n != nil && n.payload == "five" {
		t.Fatalf("after UNLISTEN: %+v", n)
	}
	if _, err := c[2].Exec(ctx, "SELECT pg_notify('', 'x')"); sqlstate(err) != "22023" {
		t.Fatalf("empty channel: %v", err)
	}
}
