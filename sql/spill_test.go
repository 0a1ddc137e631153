package sql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

// newTestSession starts an engine on an in-memory store, with its
// temporary files in a directory of the test's own, and a session on it.
func newTestSession(t testing.TB) (*Engine, *Session) {
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

// TestWritesStream checks that UPDATE (... FROM too), DELETE and the
// rewrite of ALTER TABLE ... ADD PRIMARY KEY hold no copy of the table
// while they write it: the live heap a little way into the statement grows with the rows
// written so far, not with the rows of the table. The same statements
// over tables of two sizes must be as far above their starting heap
// after their first thousand rows.
func TestWritesStream(t *testing.T) {
	statements := []struct{ setup, stmt string }{
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "UPDATE w SET v = v || 'y'"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "UPDATE w SET v = v || 'y' WHERE id > 0 RETURNING id"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "UPDATE w SET id = -id"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "DELETE FROM w"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text); CREATE TABLE x (s text); INSERT INTO x VALUES ('y'), ('z')",
			"UPDATE w SET v = w.v || x.s FROM x"},
		{"CREATE TABLE w (id int, v text)", "ALTER TABLE w ADD PRIMARY KEY (id)"},
		{"CREATE TABLE w (id int PRIMARY KEY, v text)", "ALTER TABLE w ALTER COLUMN id TYPE bigint"},
	}
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

// probeContext is a statement's context that measures the heap the
// probeAt-th time the statement asks whether it is canceled, which a
// table scan does for each row.
type probeContext struct {
	context.Context
	mu    sync.Mutex // a parallel scan's workers ask at once
	calls int
	at    int64
}

func (c *probeContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls++; c.calls == ctxProbeAt {
		c.at = heapAfterGC()
	}
	return nil
}

const probeAt = 1000

// ctxProbeAt is the call of the context's Err that probes: loops over
// rows ask it every 1024 steps, so the second call comes a thousand or
// two rows into the scan.
const ctxProbeAt = 2

// TestReadsStream checks that count(*) and other aggregates without
// GROUP BY, and a SELECT without ORDER BY, hold no copy of the table: a
// thousand rows into the scan, the live heap has grown as much over a
// table of 40000 rows as over one of 2000. (ORDER BY or GROUP BY, which
// hold the rows or groups within work_mem, would grow by some 8 MB.)
func TestReadsStream(t *testing.T) {
	growth := func(t *testing.T, stmt string, n int, emitProbe bool) int64 {
		_, s := newTestSession(t)
		mustRun(t, s, "CREATE TABLE w (id int PRIMARY KEY, v text)")
		mustRun(t, s, fmt.Sprintf("INSERT INTO w SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", n))
		mustRun(t, s, "SELECT count(*) FROM w")
		ctx := &probeContext{Context: context.Background()}
		ps, err := s.PrepareAll(ctx, stmt)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := s.Bind(ctx, ps[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		rows, at := 0, int64(0)
		before := heapAfterGC()
		_, _, err = s.Execute(ctx, pt, 0, func([]any) error {
			if rows++; rows == probeAt && emitProbe {
				at = heapAfterGC()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if !emitProbe {
			at = ctx.at
		}
		if at == 0 {
			t.Fatalf("%s: the probe never ran", stmt)
		}
		return at - before
	}
	for _, st := range []struct {
		stmt string
		emit bool // probe as rows are sent, not as they are scanned
	}{
		{"SELECT count(*) FROM w", false},
		{"SELECT count(*), sum(length(v)), max(v), avg(id) FROM w WHERE id % 2 = 0", false},
		{"SELECT * FROM w", true},
		{"SELECT id, v || '!' FROM w WHERE v LIKE 'x%' OFFSET 10", true},
	} {
		t.Run(st.stmt, func(t *testing.T) {
			small, large := growth(t, st.stmt, 2*probeAt, st.emit), growth(t, st.stmt, 40*probeAt, st.emit)
			if large-small > 2<<20 {
				t.Errorf("%d rows in, the heap grew %d bytes over a table of %d rows but %d over one of %d rows",
					probeAt, small, 2*probeAt, large, 40*probeAt)
			}
		})
	}
}

// query runs a query string and renders the rows of its last statement
// as text, NULL as NULL.
func query(t *testing.T, s *Session, sql string) []string {
	t.Helper()
	ctx := context.Background()
	ps, err := s.PrepareAll(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for _, p := range ps {
		pt, err := s.Bind(ctx, p, nil)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		cols := pt.Columns()
		out = nil
		_, _, err = s.Execute(ctx, pt, 0, func(row []any) error {
			var b []byte
			for i, v := range row {
				if i > 0 {
					b = append(b, " | "...)
				}
				if v == nil {
					b = append(b, "NULL"...)
				} else {
					b = types.AppendText(b, cols[i].Type, v, s.loc())
				}
			}
			out = append(out, string(b))
			return nil
		})
		if err != nil {
			_ = s.Sync()
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	return out
}

// spillTable fills table s with n rows of many types, NULLs and ties.
func spillTable(t *testing.T, s *Session, n int) {
	mustRun(t, s, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
	mustRun(t, s, `CREATE TABLE s (id int PRIMARY KEY, i int, t text, n numeric, f float8, d date, ts timestamptz,
		b bool, j jsonb, a int[], e mood, u uuid, iv interval, bt bytea, js json)`)
	mustRun(t, s, fmt.Sprintf(`INSERT INTO s SELECT g,
		CASE WHEN g %% 11 = 0 THEN NULL ELSE (g * 7919) %% 1000 - 500 END,
		CASE WHEN g %% 13 = 0 THEN NULL ELSE 'v' || ((g * 31) %% 997) || repeat('x', g %% 50) END,
		CASE WHEN g %% 17 = 0 THEN NULL ELSE ((g * 37) %% 1001)::numeric / 8 END,
		CASE WHEN g %% 19 = 0 THEN NULL WHEN g %% 23 = 0 THEN 'NaN'::float8 ELSE ((g * 53) %% 997) / 7.0 END,
		DATE '2000-01-01' + (g * 13) %% 3000,
		TIMESTAMPTZ '2020-01-01 00:00:00+00' + ((g * 97) %% 100000) * INTERVAL '1 minute',
		CASE WHEN g %% 29 = 0 THEN NULL ELSE g %% 3 = 0 END,
		CASE WHEN g %% 31 = 0 THEN NULL ELSE jsonb_build_object('k', g %% 40, 'v', (g * 3) %% 7) END,
		CASE WHEN g %% 37 = 0 THEN NULL ELSE ARRAY[g %% 5, (g * 7) %% 11, NULL] END,
		(ARRAY['sad', 'ok', 'happy'])[1 + g %% 3]::mood,
		CASE WHEN g %% 41 = 0 THEN NULL ELSE ('00000000-0000-4000-8000-' || lpad(((g * 101) %% 9973)::text, 12, '0'))::uuid END,
		((g * 7) %% 500) * INTERVAL '1 hour' + (g %% 3) * INTERVAL '1 month',
		CASE WHEN g %% 43 = 0 THEN NULL ELSE decode(lpad(to_hex((g * 17) %% 4096), 4, '0'), 'hex') END,
		CASE WHEN g %% 47 = 0 THEN NULL ELSE ('{"b": ' || (g %% 9) || ',  "a": [1.50, "x"]}')::json END
		FROM generate_series(1, %d) g`, n))
}

// checkSpill runs query with the default work_mem, then again with
// work_mem 64kB, and requires the same rows: in the same order if
// ordered, else as multisets. With spills set it requires the second run
// to have written temporary files. Either way none may be left over.
func checkSpill(t *testing.T, e *Engine, s *Session, sql string, ordered, spills bool) {
	t.Helper()
	start := time.Now()
	want := query(t, s, sql)
	mid := time.Now()
	mustRun(t, s, "SET work_mem = '64kB'")
	files := e.temp.Files.Load()
	got := query(t, s, sql)
	if testing.Verbose() {
		t.Logf("%s: %v in memory, %v spilling", sql, mid.Sub(start), time.Since(mid))
	}
	spilled := e.temp.Files.Load() - files
	mustRun(t, s, "RESET work_mem")
	if !ordered {
		slices.Sort(want)
		slices.Sort(got)
	}
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		at := func(rows []string) string {
			if i < len(rows) {
				return rows[i]
			}
			return "(end)"
		}
		t.Errorf("%s: with work_mem 64kB, %d rows; in memory %d; first difference at row %d: %q, in memory %q",
			sql, len(got), len(want), i, at(got), at(want))
	}
	if spills && spilled == 0 {
		t.Errorf("%s: with work_mem 64kB, no temporary file was written", sql)
	}
	if !spills && spilled != 0 {
		t.Errorf("%s: %d temporary files were written, where nothing needs to be held", sql, spilled)
	}
	noTempFiles(t, e)
}

// noTempFiles fails unless e's temporary directory is empty.
func noTempFiles(t *testing.T, e *Engine) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(e.opts.TempDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("temporary files left over: %v", left)
	}
}

// TestExternalSort checks that ORDER BY, DISTINCT, DISTINCT ON and the
// sort of a set operation give exactly the rows, in exactly the order,
// they give in memory when they have to sort on disk: every type, DESC,
// NULLS FIRST and LAST, several keys, ties (the sort is stable), LIMIT
// and OFFSET.
func TestExternalSort(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 4000)
	for _, q := range []string{
		"SELECT * FROM s ORDER BY i, id",
		"SELECT id, i, t FROM s ORDER BY i DESC NULLS LAST, t",
		"SELECT id, t, n FROM s ORDER BY t DESC, n NULLS FIRST, id",
		"SELECT id, n, f FROM s ORDER BY n, f DESC, id",
		"SELECT id, d, ts FROM s ORDER BY d, ts DESC, id",
		"SELECT id, j FROM s ORDER BY j DESC NULLS LAST, id",
		"SELECT id, a FROM s ORDER BY a, id DESC",
		"SELECT id, e, u FROM s ORDER BY e DESC, u NULLS FIRST",
		"SELECT id, iv, bt FROM s ORDER BY iv, bt DESC, id",
		"SELECT id, b FROM s ORDER BY b",                     // ties: the scan's order must survive
		"SELECT id, js, b FROM s ORDER BY b NULLS FIRST, id", // json keeps its text
		"SELECT id, t FROM s ORDER BY lower(t) DESC, id LIMIT 25 OFFSET 1000",
		"SELECT id FROM s ORDER BY i NULLS FIRST, id OFFSET 3990",
		"SELECT DISTINCT i FROM s ORDER BY i",
		"SELECT DISTINCT e, b FROM s",                 // first occurrences, in their order
		"SELECT DISTINCT n, t FROM s ORDER BY n DESC", // ties in the order of first occurrence
		"SELECT DISTINCT ON (i) id, i, t FROM s ORDER BY i, t DESC",
		"SELECT DISTINCT ON (b, e) id, b, e FROM s ORDER BY b",
		"SELECT DISTINCT ON (e) e, id FROM s",
		"SELECT i FROM s UNION ALL SELECT i + 1 FROM s ORDER BY 1 DESC LIMIT 50 OFFSET 1000",
		"SELECT t, id FROM s WHERE id < 3000 UNION ALL SELECT t, -id FROM s ORDER BY t NULLS FIRST, id",
	} {
		checkSpill(t, e, s, q, true, true)
	}
	// What needs no sort streams, and writes nothing; a sort cut short by
	// LIMIT keeps only the rows it returns, and writes nothing either.
	checkSpill(t, e, s, "SELECT id, t FROM s ORDER BY t DESC LIMIT 20 OFFSET 30", true, false)
	checkSpill(t, e, s, "SELECT * FROM s", true, false)
	checkSpill(t, e, s, "SELECT count(*), sum(n), max(t), string_agg(t, ',') FROM s", true, false)
}

// TestWindowSpill checks that window functions give the in-memory
// result when their input passes work_mem: partitions, orders, frames
// and several calls at once.
func TestWindowSpill(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 3000)
	for _, q := range []string{
		"SELECT id, row_number() OVER (PARTITION BY e ORDER BY t, id), rank() OVER (ORDER BY i), dense_rank() OVER (PARTITION BY b ORDER BY n DESC) FROM s",
		"SELECT id, sum(i) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW), avg(n) OVER (PARTITION BY i % 7) FROM s",
		"SELECT id, lag(t, 2) OVER (ORDER BY ts, id), lead(j) OVER (PARTITION BY e ORDER BY id DESC), first_value(a) OVER (ORDER BY d, id) FROM s",
		"SELECT id, count(*) FILTER (WHERE b) OVER (ORDER BY n RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING) FROM s WHERE n IS NOT NULL",
		"SELECT id, ntile(7) OVER (ORDER BY f, id), percent_rank() OVER (PARTITION BY e ORDER BY iv), cume_dist() OVER (ORDER BY bt) FROM s",
		"SELECT id, row_number() OVER () FROM s ORDER BY t DESC, id LIMIT 40",
	} {
		checkSpill(t, e, s, q, true, true)
	}
	// Over groups, whose order a spilling GROUP BY does not keep.
	checkSpill(t, e, s, "SELECT t, count(*), sum(count(*)) OVER (ORDER BY t) FROM s GROUP BY t", false, true)
}

// TestHashAggSpill checks that GROUP BY gives the in-memory groups when
// they pass work_mem and spill to partitions (in another order, which
// only ORDER BY fixes): aggregates of every kind, FILTER, DISTINCT and
// ORDER BY inside them, HAVING, and keys of several types.
func TestHashAggSpill(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 4000)
	for _, q := range []string{
		"SELECT t, count(*), sum(n), min(d), max(ts), avg(f) FROM s GROUP BY t",
		"SELECT id % 1500 AS k, string_agg(t, ',' ORDER BY id DESC), array_agg(i), count(DISTINCT e) FROM s GROUP BY k",
		"SELECT t, u, count(*) FILTER (WHERE b), bool_and(b), jsonb_agg(j) FROM s GROUP BY t, u HAVING count(*) > 0",
		"SELECT a, iv, sum(i), stddev(i) FROM s GROUP BY a, iv",
		"SELECT j, e, max(js::text), min(bt::text) FROM s GROUP BY j, e",
		"SELECT n, count(*) FROM s GROUP BY n HAVING count(*) > 1",
		"SELECT id, i FROM s GROUP BY id", // a primary key's columns group too
	} {
		checkSpill(t, e, s, q, false, true)
	}
	checkSpill(t, e, s, "SELECT t, count(*), sum(i) FROM s GROUP BY t ORDER BY t NULLS FIRST", true, true)
	// An aggregate's ORDER BY sorts its inputs on disk.
	checkSpill(t, e, s, "SELECT string_agg(t, ',' ORDER BY t DESC, id), array_agg(id ORDER BY n NULLS FIRST) FROM s", true, true)
	checkSpill(t, e, s, "SELECT b, json_agg(j ORDER BY d, id) FROM s GROUP BY b", false, true)
	// One group, or few, need no partitions.
	checkSpill(t, e, s, "SELECT count(*), sum(i), max(t) FROM s", true, false)
	checkSpill(t, e, s, "SELECT e, count(*) FROM s GROUP BY e", false, false)
}

// TestJoinSpill checks that joins give the in-memory rows when the right
// side passes work_mem: hash joins partitioned on both sides (grace hash
// join), inner and outer, with NULL keys, keys of one value only, USING,
// and joins without hash keys, whose right side is read from a file for
// each left row.
func TestJoinSpill(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 3000)
	mustRun(t, s, "CREATE TABLE r (k int, t text, pad text)")
	mustRun(t, s, `INSERT INTO r SELECT CASE WHEN g % 9 = 0 THEN NULL ELSE (g * 13) % 1200 - 500 END,
		'r' || g, repeat('p', g % 40) FROM generate_series(1, 2500) g`)
	for _, q := range []string{
		"SELECT s.id, r.t FROM s JOIN r ON r.k = s.i",
		"SELECT s.id, r.t FROM s LEFT JOIN r ON r.k = s.i AND r.t <> 'r7'",
		"SELECT s.id, r.t FROM s RIGHT JOIN r ON r.k = s.i",
		"SELECT s.id, r.t, r.pad FROM s FULL JOIN r ON r.k = s.i WHERE s.id IS NULL OR s.id % 3 = 0",
		"SELECT s.id, r.t FROM s JOIN r ON r.k = s.i AND r.t = s.t || 'nothing'",
		"SELECT count(*), sum(s.id) FROM s JOIN r ON s.b = (r.k % 2 = 0) WHERE s.id <= 200", // few keys: partitions that do not split
		"SELECT * FROM (SELECT i AS k, t FROM s) a JOIN r USING (k)",
		"SELECT s.id, x.id FROM s JOIN s x ON x.i = s.i AND x.id < s.id WHERE s.id < 2000",
		"SELECT s.id, r.t FROM s JOIN r ON r.k < s.i - 990 WHERE s.id <= 150",
		"SELECT s.id, r.t FROM s LEFT JOIN r ON r.k > s.i + 690 WHERE s.id <= 150",
		"SELECT s.id, r.t FROM (SELECT * FROM s WHERE id <= 150) s FULL JOIN r ON r.k > s.i + 690",
		"SELECT s.id, r.t FROM (SELECT * FROM r WHERE k > 680) r RIGHT JOIN s ON r.k > s.i + 690",
	} {
		checkSpill(t, e, s, q, false, true)
	}
	// UPDATE ... FROM reads its candidates from such a join.
	mustRun(t, s, "CREATE TABLE r2 AS SELECT * FROM r")
	mustRun(t, s, "CREATE TABLE s2 AS SELECT * FROM s")
	want := query(t, s, "UPDATE r SET t = r.t || s.t FROM s WHERE s.i = r.k RETURNING r.k, r.t")
	mustRun(t, s, "SET work_mem = '64kB'")
	got := query(t, s, "UPDATE r2 SET t = r2.t || s2.t FROM s2 WHERE s2.i = r2.k RETURNING r2.k, r2.t")
	mustRun(t, s, "RESET work_mem")
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("UPDATE ... FROM at work_mem 64kB returned %d rows, in memory %d, not the same", len(got), len(want))
	}
	noTempFiles(t, e)
}

// TestSetOpSpill checks UNION, INTERSECT and EXCEPT, with and without
// ALL, when their hash tables pass work_mem and spill to partitions.
func TestSetOpSpill(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 3000)
	for _, q := range []string{
		"SELECT i, t FROM s UNION SELECT i + 1, t FROM s",
		"SELECT e, b FROM s UNION SELECT e, NOT b FROM s", // few rows: nothing to spill
		"SELECT t, n FROM s WHERE id % 2 = 0 INTERSECT SELECT t, n FROM s WHERE id % 3 = 0",
		"SELECT i FROM s INTERSECT ALL SELECT i FROM s WHERE id % 4 <> 0",
		"SELECT t, j FROM s EXCEPT SELECT t, j FROM s WHERE id % 5 = 0",
		"SELECT i, b FROM s EXCEPT ALL SELECT i, b FROM s WHERE id % 7 <> 0",
		"SELECT t FROM s UNION SELECT t FROM s EXCEPT SELECT t FROM s WHERE id < 100",
	} {
		checkSpill(t, e, s, q, false, !strings.Contains(q, "NOT b"))
	}
	// Every row the same: partitions that do not split.
	checkSpill(t, e, s, "SELECT 1 FROM s INTERSECT ALL SELECT 1 FROM s WHERE id % 2 = 0", false, true)
}

// fullFile is a temporary file on a device that fills up after room
// bytes: later writes fail as a full disk's do.
type fullFile struct {
	*os.File
	room int
}

func (f *fullFile) Write(p []byte) (int, error) {
	if len(p) > f.room {
		n, _ := f.File.Write(p[:f.room])
		f.room = 0
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	f.room -= len(p)
	return f.File.Write(p)
}

// TestTempFilesRemoved checks that a statement's temporary files are gone
// when it ends however it ends: an error while the rows are gathered, an
// error while they are read back, cancellation, a panic in the statement
// or in its reader, and a full disk, which is SQLSTATE 53100 and not a
// panic. It also reads the spills' counts in pg_stat_database.
func TestTempFilesRemoved(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 4000)
	ctx := context.Background()
	failing := func(sql, code string) {
		t.Helper()
		_, err := run(ctx, s, sql)
		if pgerr.Code(err) != code {
			t.Errorf("%s: got %v, want SQLSTATE %s", sql, err, code)
		}
		noTempFiles(t, e)
	}
	mustRun(t, s, "SET work_mem = '64kB'")
	before := e.temp.Files.Load()
	failing("SELECT id, t FROM s ORDER BY t, 1 / (id - 3990)", pgerr.DivisionByZero)
	failing("SELECT 1 / (id - 3990) FROM (SELECT id FROM s ORDER BY t) q", pgerr.DivisionByZero)
	failing("SELECT count(*) FROM (SELECT i FROM s GROUP BY i, t HAVING 1 / (count(*) - 1) > 0) q", pgerr.DivisionByZero)
	failing("SELECT count(*) FROM s a JOIN s b ON a.i = b.i WHERE 1 / (a.id - 3990) > 0", pgerr.DivisionByZero)
	if e.temp.Files.Load() == before {
		t.Error("the failing statements wrote no temporary files")
	}

	// Canceled by statement_timeout, well into a sort that spills.
	before = e.temp.Files.Load()
	mustRun(t, s, "SET statement_timeout = '300ms'")
	failing("SELECT a.t, b.t FROM s a, s b ORDER BY a.t, b.t", pgerr.QueryCanceled)
	mustRun(t, s, "RESET statement_timeout")
	if e.temp.Files.Load() == before {
		t.Error("the canceled sort wrote no temporary files")
	}

	// A panic while an UPDATE holds its RETURNING rows in a file: the
	// statement's end removes them.
	rows := 0
	modifyHook = func() {
		if rows++; rows == 3000 {
			panic("injected")
		}
	}
	func() {
		defer func() {
			modifyHook = nil
			if r := recover(); r != "injected" {
				t.Errorf("recovered %v", r)
			}
		}()
		_, _ = run(ctx, s, "UPDATE s SET t = t || '!' RETURNING *")
	}()
	_ = s.Sync()
	noTempFiles(t, e)

	// A panic in the code reading a spilled sort's rows (pgwire's, say):
	// the portal's Close, which pgwire calls after it, removes the files.
	ps, err := s.PrepareAll(ctx, "SELECT * FROM s ORDER BY t")
	if err != nil {
		t.Fatal(err)
	}
	pt, err := s.Bind(ctx, ps[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { _ = recover() }()
		_, _, _ = s.Execute(ctx, pt, 0, func([]any) error { panic("in the reader") })
	}()
	left, _ := filepath.Glob(filepath.Join(e.opts.TempDir, "epochdb-sort-*"))
	if len(left) == 0 {
		t.Error("the sort wrote no runs, or they went before the portal closed")
	}
	pt.Close()
	_ = s.Sync()
	noTempFiles(t, e)

	// The disk fills up while the sort writes its runs.
	e.createTemp = func(dir, pattern string) (spill.OSFile, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return &fullFile{File: f, room: 20 << 10}, nil
	}
	failing("SELECT * FROM s ORDER BY t", pgerr.DiskFull)
	failing("SELECT t, count(*) FROM s GROUP BY t", pgerr.DiskFull)
	e.createTemp = spill.CreateTemp

	// The counts, as pg_stat_database shows them.
	stats := mustRun(t, s, "SELECT temp_files, temp_bytes FROM pg_stat_database")
	if len(stats) != 1 || stats[0][0].(int64) != e.temp.Files.Load() || stats[0][1].(int64) != e.temp.Bytes.Load() || stats[0][1].(int64) == 0 {
		t.Errorf("pg_stat_database shows %v; the engine counted %d files, %d bytes", stats, e.temp.Files.Load(), e.temp.Bytes.Load())
	}
}

// TestCTESpill checks WITH queries whose rows pass work_mem: read by one
// reader and by two at their own paces, and a recursive query whose
// working table does.
func TestCTESpill(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 3000)
	for _, q := range []string{
		"WITH w AS (SELECT id, t, j FROM s) SELECT * FROM w",
		"WITH w AS (SELECT id, t FROM s) SELECT a.id, b.t FROM w a JOIN w b ON a.id = b.id + 1 ORDER BY a.id",
		"WITH w AS (SELECT id, t FROM s) SELECT (SELECT count(*) FROM w), * FROM w ORDER BY t, id",
		`WITH RECURSIVE r(n, id, t) AS (SELECT 0, id, t FROM s UNION ALL SELECT n + 1, id, t FROM r WHERE n < 3)
			SELECT n, count(*), sum(id), max(t) FROM r GROUP BY n ORDER BY n`,
		`WITH RECURSIVE r(n, t) AS (SELECT 0, t FROM s UNION SELECT n + 1, t FROM r WHERE n < 2)
			SELECT n, count(*) FROM r GROUP BY n ORDER BY n`,
	} {
		checkSpill(t, e, s, q, true, true)
	}
	// A cursor's sort, and what FETCH holds until it sends it.
	fetch := func() []string {
		mustRun(t, s, "BEGIN; DECLARE c CURSOR FOR SELECT id, t, j FROM s ORDER BY t, id")
		mustRun(t, s, "FETCH 10 FROM c")
		rows := query(t, s, "FETCH ALL FROM c")
		mustRun(t, s, "COMMIT")
		return rows
	}
	want := fetch()
	mustRun(t, s, "SET work_mem = '64kB'")
	files := e.temp.Files.Load()
	got := fetch()
	mustRun(t, s, "RESET work_mem")
	if !slices.Equal(got, want) || len(got) != 2990 || e.temp.Files.Load() == files {
		t.Errorf("FETCH ALL at work_mem 64kB: %d rows, %d in memory, %d temporary files", len(got), len(want), e.temp.Files.Load()-files)
	}
	noTempFiles(t, e)
}

// TestBoundedSort checks that ORDER BY with LIMIT, which keeps only the
// rows it returns in a heap, returns what the whole sort cut short does:
// the sort of a subquery, which LIMIT outside it does not bound. Ties
// keep their input order, and bounds too large for work_mem sort all.
func TestBoundedSort(t *testing.T) {
	e, s := newTestSession(t)
	spillTable(t, s, 3000)
	for _, c := range []struct{ cols, order, cut string }{
		{"id, b", "b", "LIMIT 30 OFFSET 1300"},
		{"id, b", "b DESC NULLS LAST", "LIMIT 1"},
		{"id, i, t", "i NULLS FIRST, t DESC", "LIMIT 100"},
		{"id, n, f", "n, f", "LIMIT 7 OFFSET 2990"},
		{"id, e", "e", "LIMIT 2999"},
		{"id, e", "e", "LIMIT 5000"},
		{"id, j", "j DESC", "LIMIT 0"},
	} {
		bounded := fmt.Sprintf("SELECT %s FROM s ORDER BY %s %s", c.cols, c.order, c.cut)
		whole := fmt.Sprintf("SELECT * FROM (SELECT %s FROM s ORDER BY %s) q %s", c.cols, c.order, c.cut)
		for _, mem := range []string{"64MB", "64kB"} {
			mustRun(t, s, "SET work_mem = '"+mem+"'")
			got, want := query(t, s, bounded), query(t, s, whole)
			if !slices.Equal(got, want) {
				t.Errorf("%s at work_mem %s: %d rows, not the %d of the whole sort cut short", bounded, mem, len(got), len(want))
			}
		}
		mustRun(t, s, "RESET work_mem")
	}
	noTempFiles(t, e)
	// A parameter bounds the sort too.
	ctx := context.Background()
	ps, err := s.Prepare(ctx, "SELECT id FROM s ORDER BY t, id LIMIT $1", nil)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := s.Bind(ctx, ps, []any{int64(3)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []any
	if _, _, err := s.Execute(ctx, pt, 0, func(r []any) error { ids = append(ids, r[0]); return nil }); err != nil {
		t.Fatal(err)
	}
	_ = s.Sync()
	if want := mustRun(t, s, "SELECT id FROM (SELECT id, t FROM s ORDER BY t, id) q LIMIT 3"); len(ids) != 3 || ids[0] != want[0][0] || ids[2] != want[2][0] {
		t.Errorf("LIMIT $1 = 3 returned %v, want %v", ids, want)
	}
}
