package sql

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestHeldCursorSpills holds a cursor whose rows outgrow work_mem: its
// commit writes them to a temporary file, and the cursor reads that file
// in every direction. The transaction's reclaim pin ends at the commit,
// not with the cursor, and the file goes when the cursor does, whichever
// way it ends.
func TestHeldCursorSpills(t *testing.T) {
	const n = 20000
	for _, end := range []string{"CLOSE c", "CLOSE ALL", "DISCARD ALL", "session end"} {
		t.Run(end, func(t *testing.T) {
			e, s := newTestSession(t)
			mustRun(t, s, "SET work_mem = '64kB'")
			mustRun(t, s, "BEGIN")
			mustRun(t, s, fmt.Sprintf("DECLARE c SCROLL CURSOR WITH HOLD FOR SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", n))
			ids := func(query string) []int64 {
				var out []int64
				for _, r := range mustRun(t, s, query) {
					out = append(out, r[0].(int64))
				}
				return out
			}
			if got := ids("FETCH 2 FROM c"); !slices.Equal(got, []int64{1, 2}) {
				t.Fatalf("FETCH 2 in the transaction: %v", got)
			}
			if pins := len(e.store.Reclaim().Stats().Pins); pins == 0 {
				t.Fatal("the open transaction holds no reclaim pin")
			}
			mustRun(t, s, "COMMIT")
			if pins := e.store.Reclaim().Stats().Pins; len(pins) != 0 {
				t.Errorf("the held cursor keeps %d reclaim pins after its commit", len(pins))
			}
			files, err := filepath.Glob(filepath.Join(e.opts.TempDir, "*"))
			if err != nil || len(files) == 0 {
				t.Fatalf("with work_mem 64kB the held rows wrote no temporary file (%v)", err)
			}
			for _, c := range []struct {
				fetch string
				want  []int64
			}{
				{"FETCH 2 FROM c", []int64{3, 4}},
				{"FETCH LAST FROM c", []int64{n}},
				{"FETCH BACKWARD 3 FROM c", []int64{n - 1, n - 2, n - 3}},
				{"FETCH ABSOLUTE 5000 FROM c", []int64{5000}},
				{"FETCH PRIOR FROM c", []int64{4999}},
				{"FETCH RELATIVE 10000 FROM c", []int64{14999}},
				{"FETCH FIRST FROM c", []int64{1}},
			} {
				if got := ids(c.fetch); !slices.Equal(got, c.want) {
					t.Errorf("%s: %v, want %v", c.fetch, got, c.want)
				}
			}
			if got := len(mustRun(t, s, "FETCH ALL FROM c")); got != n-1 {
				t.Errorf("FETCH ALL after FETCH FIRST: %d rows, want %d", got, n-1)
			}
			if end == "session end" {
				s.Close()
			} else {
				mustRun(t, s, end)
				if rows := mustRun(t, s, "SELECT count(*) FROM pg_cursors"); rows[0][0] != int64(0) {
					t.Errorf("after %s, pg_cursors has %v rows", end, rows[0][0])
				}
				if _, err := run(context.Background(), s, "FETCH 1 FROM c"); err == nil {
					t.Errorf("FETCH after %s succeeded", end)
				}
			}
			noTempFiles(t, e)
		})
	}
}
