package sql

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// fusedRows is larger than a few of the fused scan's batches, so that its
// aggregating goroutine takes part (testdata/sql/fusedagg.test compares
// its answers with PostgreSQL's).
const fusedRows = 40_000

func newFusedTable(t *testing.T) *Session {
	t.Helper()
	_, s := newTestSession(t)
	mustRun(t, s, "CREATE TABLE fu (id int PRIMARY KEY, x int, f float8, label text)")
	mustRun(t, s, fmt.Sprintf("INSERT INTO fu SELECT g, g %% 1000, g / 4.0, 'label ' || g FROM generate_series(1, %d) g", fusedRows))
	return s
}

// TestFusedAggregateAllocatesNoRows checks that an aggregate over a
// whole table runs in the scan without boxing its rows: the general path
// allocates at least once per row, and so would this one if it stopped
// being fused.
func TestFusedAggregateAllocatesNoRows(t *testing.T) {
	s := newFusedTable(t)
	for _, q := range []string{
		"SELECT count(*) FROM fu",
		"SELECT sum(x * 2 + 1), avg(x), min(f), max(id) FROM fu WHERE x > 10 AND (f < 9000 OR x IS NULL)",
		"SELECT count(*) FILTER (WHERE x = 7), sum(f) FROM fu",
	} {
		mustRun(t, s, q)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		mustRun(t, s, q)
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; n > fusedRows/20 {
			t.Errorf("%s: %d allocations over %d rows", q, n, fusedRows)
		}
	}
}

// TestFusedAggregateErrorsInScanOrder checks that the aggregating
// goroutine reports the error of the first failing row, as a serial scan
// would, however far apart the failing rows are, and that the session
// goes on afterwards.
func TestFusedAggregateErrorsInScanOrder(t *testing.T) {
	s := newFusedTable(t)
	ctx := context.Background()
	for _, c := range []struct {
		query string
		code  string
	}{
		// Division by zero at row 20000, overflow from row 30001.
		{"SELECT sum(1 / (id - 20000) + (id - 30000 + 2147483647)) FROM fu", pgerr.DivisionByZero},
		// Overflow from row 20001, division by zero at row 30000.
		{"SELECT sum(1 / (id - 30000) + (id - 20000 + 2147483647)) FROM fu", pgerr.NumericValueOutOfRange},
		// In the first batch, before the goroutine starts.
		{"SELECT sum(1 / (id - 5) + (id - 2 + 2147483647)) FROM fu", pgerr.NumericValueOutOfRange},
		{"SELECT count(*) FROM fu WHERE 1 / (id - 39999) > 0", pgerr.DivisionByZero},
	} {
		if _, err := run(ctx, s, c.query); pgerr.Code(err) != c.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", c.query, err, c.code)
		}
		if got := mustRun(t, s, "SELECT count(*) FROM fu")[0][0]; got != int64(fusedRows) {
			t.Fatalf("after %s: count(*) gives %v", c.query, got)
		}
	}
}

// TestFusedAggregateParameters runs a fused aggregate with bound
// parameters, NULL among them, as the extended protocol sends them.
func TestFusedAggregateParameters(t *testing.T) {
	s := newFusedTable(t)
	ctx := context.Background()
	p, err := s.Prepare(ctx, "SELECT count(*), sum(x + $2) FROM fu WHERE x < $1", []types.Oid{types.OidInt4, types.OidInt4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		params []any
		want   string
	}{
		{[]any{int64(10), int64(1)}, "[400 2200]"}, // x 0..9, 40 rows of each
		{[]any{int64(10), nil}, "[400 <nil>]"},
		{[]any{nil, int64(1)}, "[0 <nil>]"},
	} {
		pt, err := s.Bind(ctx, p, c.params)
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		if _, _, err := s.Execute(ctx, pt, 0, func(r []any) error { got = r; return nil }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("params %v: got %v, want %s", c.params, got, c.want)
		}
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
}

// TestFusedAggregateCancels checks that a canceled statement stops the
// fused scan with 57014, and that the session goes on.
func TestFusedAggregateCancels(t *testing.T) {
	s := newFusedTable(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(ctx, s, "SELECT sum(x) FROM fu"); pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("canceled: got %v, want 57014", err)
	}
	if got := mustRun(t, s, "SELECT sum(x) FROM fu")[0][0]; got != int64(40*499500) {
		t.Fatalf("after the cancel: sum(x) gives %v", got)
	}
}

// TestFusedAggregateSeesOneSnapshot checks snapshot stability and safe
// reclamation under the chunked scan: while another session moves value
// between rows in transactions and checkpoints (flushing and replacing
// files), every sum over the table, each scanned in parallel chunks,
// gives the same total. A chunk that read another snapshot, or a version
// reclaimed under it, would see a transfer half done.
func TestFusedAggregateSeesOneSnapshot(t *testing.T) {
	ctx := context.Background()
	e, s := newTestSession(t)
	const rows = 20_000
	mustRun(t, s, "CREATE TABLE acct (id int PRIMARY KEY, x int NOT NULL)")
	mustRun(t, s, fmt.Sprintf("INSERT INTO acct SELECT g, 10 FROM generate_series(1, %d) g", rows))
	w, err := e.NewSession(SessionParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stop := make(chan struct{})
	writerErr := make(chan error, 1)
	go func() {
		defer close(writerErr)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			a, b := 1+i*7919%rows, 1+(i*104729+rows/2)%rows
			q := fmt.Sprintf("BEGIN; UPDATE acct SET x = x - 3 WHERE id = %d; UPDATE acct SET x = x + 3 WHERE id = %d; COMMIT", a, b)
			if i%50 == 0 {
				q = "CHECKPOINT"
			}
			if _, err := run(ctx, w, q); err != nil {
				writerErr <- fmt.Errorf("%s: %w", q, err)
				return
			}
		}
	}()
	for range 40 {
		got := mustRun(t, s, "SELECT sum(x), count(*) FROM acct")[0]
		if got[0] != int64(10*rows) || got[1] != int64(rows) {
			t.Errorf("sum(x), count(*) = %v, want [%d %d]", got, 10*rows, rows)
			break
		}
	}
	close(stop)
	if err := <-writerErr; err != nil {
		t.Fatal(err)
	}
}
