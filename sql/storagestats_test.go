package sql_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epochdb/epochdb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// serveSmall serves a database on disk whose memtable flushes every few
// kilobytes, so that a test's rows reach sstables, and returns its URL.
func serveSmall(t *testing.T) string {
	t.Helper()
	db, url := serveDir(t, t.TempDir())
	t.Cleanup(func() { _ = db.Close() })
	return url
}

// serveDir serves the database in dir, with serveSmall's small memtable,
// and returns it, for the caller to close, and its URL.
func serveDir(t *testing.T, dir string) (*epochdb.DB, string) {
	t.Helper()
	db, err := epochdb.Open(dir, &epochdb.Options{MemtableSize: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go db.Serve(l)
	return db, fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", l.Addr())
}

func pgxConnect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func queryInt(t *testing.T, c *pgx.Conn, q string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// The storage views answer, in SQL, where the data is, what a crash would
// replay, and which session holds back cleanup and how much.
func TestStorageViews(t *testing.T) {
	ctx := context.Background()
	url := serveSmall(t)
	a, b := pgxConnect(t, url), pgxConnect(t, url)
	mustExec(t, a, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	mustExec(t, a, "INSERT INTO t SELECT g, repeat('x', 80) FROM generate_series(1, 3000) g")
	mustExec(t, a, "CHECKPOINT")
	if n := queryInt(t, a, "SELECT count(*) FROM epochdb_stat_files WHERE state = 'live' AND entries > 0"); n == 0 {
		t.Fatal("epochdb_stat_files lists no live file after a CHECKPOINT")
	}
	if n := queryInt(t, a, "SELECT flushes FROM epochdb_stat_checkpoint"); n == 0 {
		t.Fatal("epochdb_stat_checkpoint counts no flush after a CHECKPOINT")
	}
	if n := queryInt(t, a, "SELECT count(*) FROM epochdb_stat_checkpoint WHERE interval_in_force > interval '0'"); n != 1 {
		t.Fatal("epochdb_stat_checkpoint has no interval in force")
	}
	// The flushed files start in the cache: reading them all hits it.
	misses := queryInt(t, a, "SELECT misses FROM epochdb_stat_cache")
	hits := queryInt(t, a, "SELECT hits FROM epochdb_stat_cache")
	if n := queryInt(t, a, "SELECT count(*) FROM t WHERE v = repeat('x', 80)"); n != 3000 {
		t.Fatalf("t has %d rows", n)
	}
	if got := queryInt(t, a, "SELECT hits FROM epochdb_stat_cache"); got <= hits {
		t.Fatalf("reading t from its files counted no cache hit (%d before, %d after)", hits, got)
	}
	if got := queryInt(t, a, "SELECT misses FROM epochdb_stat_cache"); got != misses {
		t.Fatalf("reading freshly flushed files missed the cache %d times", got-misses)
	}
	if n := queryInt(t, a, "SELECT count(*) FROM epochdb_stat_cache WHERE bytes > 0 AND bytes <= capacity_bytes AND blocks > 0 AND hit_ratio > 0"); n != 1 {
		t.Fatal("epochdb_stat_cache does not show the blocks it holds")
	}

	// b holds a snapshot through the updates and the compaction.
	bpid := queryInt(t, b, "SELECT pg_backend_pid()")
	mustExec(t, b, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	if n := queryInt(t, b, "SELECT count(*) FROM t WHERE v = repeat('x', 80)"); n != 3000 {
		t.Fatalf("the snapshot sees %d rows", n)
	}
	for range 3 {
		mustExec(t, a, "UPDATE t SET v = repeat('y', 80)")
	}
	mustExec(t, a, "VACUUM FULL")
	if n := queryInt(t, b, "SELECT count(*) FROM t WHERE v = repeat('x', 80)"); n != 3000 {
		t.Fatalf("after VACUUM FULL the snapshot sees %d of its 3000 rows", n)
	}
	var pid, heldFiles, heldBytes int64
	var query string
	err := a.QueryRow(ctx, `SELECT pid, held_files, held_file_bytes, query FROM epochdb_stat_reclaim
		WHERE kind = 'pin' ORDER BY held_file_bytes DESC LIMIT 1`).Scan(&pid, &heldFiles, &heldBytes, &query)
	if err != nil {
		t.Fatal(err)
	}
	if pid != bpid || heldFiles == 0 || heldBytes == 0 || query == "" {
		t.Fatalf("the top holder is pid %d holding %d files (%d bytes), running %q; want pid %d, holding the replaced files",
			pid, heldFiles, heldBytes, query, bpid)
	}
	if n := queryInt(t, a, "SELECT count(*) FROM epochdb_stat_files WHERE state = 'awaiting deletion' AND retired_epoch IS NOT NULL"); n == 0 {
		t.Fatal("epochdb_stat_files shows no file awaiting deletion while a snapshot holds them")
	}
	mustExec(t, b, "COMMIT")
	deadline := time.Now().Add(5 * time.Second)
	for queryInt(t, a, "SELECT count(*) FROM epochdb_stat_files WHERE state = 'awaiting deletion'") > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the replaced files were not deleted after the snapshot ended")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := queryInt(t, a, "SELECT freed_files FROM epochdb_stat_reclaim WHERE kind = 'total'"); n == 0 {
		t.Fatal("epochdb_stat_reclaim counts no freed file")
	}
	if n := queryInt(t, a, "SELECT count(*) FROM t WHERE v = repeat('y', 80)"); n != 3000 {
		t.Fatalf("after the compaction t has %d updated rows", n)
	}
}

// pg_stat_wal counts the log writer's batches, fsyncs and bytes: each
// autocommitted write is one group commit of its own here, with no other
// session to share it.
func TestPgStatWAL(t *testing.T) {
	c := pgxConnect(t, serveSmall(t))
	mustExec(t, c, "CREATE TABLE w (id int PRIMARY KEY)")
	stat := func() (bytes, writes, syncs int64) {
		t.Helper()
		err := c.QueryRow(context.Background(),
			"SELECT wal_bytes::int8, wal_write, wal_sync FROM pg_stat_wal WHERE wal_sync_time >= 0 AND wal_fpi = 0").
			Scan(&bytes, &writes, &syncs)
		if err != nil {
			t.Fatal(err)
		}
		return bytes, writes, syncs
	}
	b0, w0, s0 := stat()
	for i := range 5 {
		mustExec(t, c, fmt.Sprintf("INSERT INTO w VALUES (%d)", i))
	}
	b1, w1, s1 := stat()
	if b1 <= b0 || w1-w0 < 5 || s1-s0 < 5 {
		t.Fatalf("after 5 commits pg_stat_wal went from %d bytes, %d writes, %d syncs to %d, %d, %d",
			b0, w0, s0, b1, w1, s1)
	}
}

// VACUUM, like PostgreSQL's, refuses to run in a transaction block.
func TestVacuumInTransactionBlock(t *testing.T) {
	c := pgxConnect(t, serveSmall(t))
	mustExec(t, c, "BEGIN")
	_, err := c.Exec(context.Background(), "VACUUM")
	if err == nil || !containsCode(err, "25001") {
		t.Fatalf("VACUUM in a transaction block: %v, want 25001", err)
	}
}

func containsCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// A damaged data block reaches the client as XX001, naming the file and
// the offset, never as wrong rows; the server and its other sessions go on.
func TestCorruptBlockIsXX001(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, url := serveDir(t, dir)
	c := pgxConnect(t, url)
	mustExec(t, c, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	// Hex digits compress poorly, so the rows fill files of several KiB
	// (the small memtable makes small files), most of each its data block.
	mustExec(t, c, "INSERT INTO t SELECT g, md5(g::text) || md5((g + 1)::text) FROM generate_series(1, 5000) g")
	mustExec(t, c, "CHECKPOINT")
	mustExec(t, c, "VACUUM FULL")
	_ = c.Close(ctx)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Flip a byte in the middle of the largest sstable, inside its data.
	var victim string
	var size int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".sst") && fi.Size() > size {
			victim, size = e.Name(), fi.Size()
		}
	}
	if size < 4<<10 {
		t.Fatalf("the largest sstable is %q, %d bytes: too small to hold the table's blocks", victim, size)
	}
	path := filepath.Join(dir, victim)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[size/2] ^= 0x5a
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	db, url = serveDir(t, dir)
	t.Cleanup(func() { _ = db.Close() })
	c = pgxConnect(t, url)
	var n int64
	err = c.QueryRow(ctx, "SELECT count(*) FROM t WHERE v IS NOT NULL").Scan(&n)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "XX001" || !strings.Contains(pe.Message, victim) || !strings.Contains(pe.Message, "offset") {
		t.Fatalf("a scan over the damaged block returned %d rows and %v; want XX001 naming %s and the offset", n, err, victim)
	}
	if got := queryInt(t, pgxConnect(t, url), "SELECT 1"); got != 1 {
		t.Fatalf("another session after the corruption error: SELECT 1 = %d", got)
	}
}
