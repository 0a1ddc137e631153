package sql

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

// newTestSession starts an engine on an in-memory store, with its
// temporary files in a directory of the test's own, and a session on it.
func newTestSession(t *testing.T) (*Engine, *Session) {
	t.Helper()
	store, err := txn.Open("/db", txn.Options{FS: vfs.NewMem(), WAL: wal.Options{NoSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	e, err := NewEngine(store, EngineOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewSession(SessionParams{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return e, s
}

func mustRun(t *testing.T, s *Session, query string) [][]any {
	t.Helper()
	rows, err := run(context.Background(), s, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return rows
}

// heapAfterGC is the live heap, once the collector has run twice: what
// sync.Pools hold survives one collection.
func heapAfterGC() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestWritesStream checks that UPDATE, DELETE and the rewrite of ALTER
// TABLE ... ADD PRIMARY KEY hold no copy of the table while they write
// it: the live heap a little way into the statement grows with the rows
// written so far, not with the rows of the table. The same statements
// over tables of two sizes must be as far above their starting heap
// after their first thousand rows.
func TestWritesStream(t *testing.T) {
	statements := []struct{ setup, stmt string }{
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "UPDATE w SET v = v || 'y'"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "UPDATE w SET v = v || 'y' WHERE id > 0 RETURNING id"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "UPDATE w SET id = -id"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "DELETE FROM w"},
		{"CREATE TABLE w (id int, v text)", "ALTER TABLE w ADD PRIMARY KEY (id)"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "ALTER TABLE w ALTER COLUMN id TYPE bigint"},
	}
	const probeAt = 1000
	growth := func(t *testing.T, setup, stmt string, n int) int64 {
		_, s := newTestSession(t)
		mustRun(t, s, setup)
		mustRun(t, s, fmt.Sprintf("INSERT INTO w SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", n))
		mustRun(t, s, "SELECT count(*) FROM w") // what the load leaves for later is reclaimed
		var at int64
		rows := 0
		modifyHook = func() {
			if rows++; rows == probeAt {
				at = heapAfterGC()
			}
		}
		defer func() { modifyHook = nil }()
		before := heapAfterGC()
		mustRun(t, s, stmt)
		if rows < n {
			t.Fatalf("%s wrote %d rows of %d", stmt, rows, n)
		}
		return at - before
	}
	for _, st := range statements {
		t.Run(st.stmt, func(t *testing.T) {
			small, large := growth(t, st.setup, st.stmt, 2*probeAt), growth(t, st.setup, st.stmt, 40*probeAt)
			// Holding the 38000 rows more would be some 8 MB more.
			if large-small > 2<<20 {
				t.Errorf("%d rows in, the heap grew %d bytes over a table of %d rows but %d over one of %d rows",
					probeAt, small, 2*probeAt, large, 40*probeAt)
			}
		})
	}
}
