package clienttest

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// lockClient is one connection of a driver, as the lock tests use it.
type lockClient interface {
	exec(ctx context.Context, q string, args ...any) error
	queryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error }
}

type sqlClient struct{ *sql.Conn }

func (c sqlClient) exec(ctx context.Context, q string, args ...any) error {
	_, err := c.ExecContext(ctx, q, args...)
	return err
}

func (c sqlClient) queryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return c.QueryRowContext(ctx, q, args...)
}

type pgxClient struct{ *pgx.Conn }

func (c pgxClient) exec(ctx context.Context, q string, args ...any) error {
	_, err := c.Exec(ctx, q, args...)
	return err
}

func (c pgxClient) queryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return c.QueryRow(ctx, q, args...)
}

// TestAdvisoryLockTools takes advisory locks the way migration tools and
// frameworks do, with their drivers' encodings: golang-migrate and goose
// with parameters over the extended protocol, Flyway and Rails with
// literals. golang-migrate's pgx driver and goose use pgx through
// database/sql, which hands their arguments to pgx as they are.
func TestAdvisoryLockTools(t *testing.T) {
	t.Parallel()
	tg := startTarget(t)
	ctx := t.Context()
	libpq := func() lockClient {
		db, err := sql.Open("postgres", tg.url())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return sqlClient{c}
	}
	pgxConn := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, tg.url())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	mustExec := func(c lockClient, q string, args ...any) {
		t.Helper()
		if err := c.exec(ctx, q, args...); err != nil {
			t.Fatalf("%s %v: %v", q, args, err)
		}
	}
	queryBool := func(c lockClient, q string, args ...any) bool {
		t.Helper()
		var v bool
		if err := c.queryRow(ctx, q, args...).Scan(&v); err != nil {
			t.Fatalf("%s %v: %v", q, args, err)
		}
		return v
	}

	// golang-migrate passes its lock id as a string, to lib/pq or pgx; a
	// second migrator waits for the first.
	for name, open := range map[string]func() lockClient{"lib/pq": libpq, "pgx": func() lockClient { return pgxClient{pgxConn()} }} {
		t.Run("golang-migrate/"+name, func(t *testing.T) {
			a, b := open(), open()
			const aid = "3536249187"
			mustExec(a, "SELECT pg_advisory_lock($1)", aid)
			if queryBool(b, "SELECT pg_try_advisory_lock($1)", aid) {
				t.Fatal("a second migrator took the lock")
			}
			done := make(chan error, 1)
			go func() { done <- b.exec(ctx, "SELECT pg_advisory_lock($1)", aid) }()
			select {
			case err := <-done:
				t.Fatalf("the second migrator did not wait: %v", err)
			case <-time.After(100 * time.Millisecond):
			}
			mustExec(a, "SELECT pg_advisory_unlock($1)", aid)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if !queryBool(b, "SELECT pg_advisory_unlock($1)", aid) {
				t.Fatal("the second migrator held no lock")
			}
		})
	}

	// goose tries an int64 id, finds it in pg_locks as its docs show, and
	// unlocks until pg_advisory_unlock says false.
	t.Run("goose", func(t *testing.T) {
		a, b := pgxClient{pgxConn()}, pgxClient{pgxConn()}
		const lockID int64 = 5887940537704921958
		if !queryBool(a, "SELECT pg_try_advisory_lock($1)", lockID) || queryBool(b, "SELECT pg_try_advisory_lock($1)", lockID) {
			t.Fatal("want the first session to take the lock and the second to fail")
		}
		var id int64
		var granted bool
		err := b.queryRow(ctx, "SELECT granted, ((classid::bigint << 32) | objid::bigint) AS goose_lock_id FROM pg_locks WHERE locktype = 'advisory'").Scan(&granted, &id)
		if err != nil || !granted || id != lockID {
			t.Fatalf("pg_locks: %v %v %v, want the granted lock %d", granted, id, err, lockID)
		}
		if !queryBool(a, "SELECT pg_advisory_unlock($1)", lockID) || queryBool(a, "SELECT pg_advisory_unlock($1)", lockID) {
			t.Fatal("want one unlock to succeed and the next to fail")
		}
	})

	// pgx learns the parameters' types from Describe, as PostgreSQL
	// reports them, and sends them in binary.
	t.Run("pgx", func(t *testing.T) {
		conn := pgxConn()
		for q, want := range map[string][]uint32{
			"SELECT pg_advisory_lock($1)":                 {20},
			"SELECT pg_try_advisory_xact_lock($1, $2)":    {23, 23},
			"SELECT pg_advisory_unlock_shared($1::int8)":  {20},
			"SELECT pg_try_advisory_lock_shared($1, 7)":   {23},
			"SELECT pg_advisory_xact_lock_shared($1, $2)": {23, 23},
		} {
			sd, err := conn.Prepare(ctx, "", q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if !slices.Equal(sd.ParamOIDs, want) {
				t.Errorf("%s: parameters %v, want %v", q, sd.ParamOIDs, want)
			}
		}
		c := pgxClient{conn}
		if !queryBool(c, "SELECT pg_try_advisory_lock($1) AND pg_try_advisory_lock($2, $3)", int64(-1)<<40, int32(-3), int32(4)) {
			t.Fatal("the locks were not taken")
		}
		rows, err := conn.Query(ctx, "SELECT classid::int8, objid::int8, objsubid::int8 FROM pg_locks WHERE locktype = 'advisory' ORDER BY objsubid")
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (k [3]int64, err error) {
			return k, r.Scan(&k[0], &k[1], &k[2])
		})
		if want := [][3]int64{{1<<32 - 1<<8, 0, 1}, {1<<32 - 3, 4, 2}}; err != nil || !slices.Equal(got, want) {
			t.Fatalf("pg_locks: %v %v, want %v", got, err, want)
		}
		mustExec(c, "SELECT pg_advisory_unlock_all()")
	})

	// Flyway takes a transaction-level lock with a literal id in its
	// migration's transaction; Rails a session-level one, on the simple
	// protocol.
	t.Run("flyway and rails", func(t *testing.T) {
		conn, other := pgxConn(), pgxClient{pgxConn()}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(77431708279161)").Scan(&ok); err != nil || !ok {
			t.Fatalf("Flyway's lock: %v %v", ok, err)
		}
		if queryBool(other, "SELECT pg_try_advisory_xact_lock(77431708279161)") {
			t.Fatal("a second Flyway took the lock")
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if !queryBool(other, "SELECT pg_try_advisory_xact_lock(77431708279161)") {
			t.Fatal("the lock outlived Flyway's transaction")
		}

		rails := pgxClient{conn}
		simple := pgx.QueryExecModeSimpleProtocol
		if !queryBool(rails, "SELECT pg_try_advisory_lock(1553931207)", simple) || queryBool(other, "SELECT pg_try_advisory_lock(1553931207)") {
			t.Fatal("want Rails' lock taken once")
		}
		if !queryBool(rails, "SELECT pg_advisory_unlock(1553931207)", simple) {
			t.Fatal("Rails could not unlock")
		}
	})
}
