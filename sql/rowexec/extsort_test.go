package rowexec

import (
	"context"
	"os"
	"testing"

	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
)

// testRun is a Run with a tiny work_mem and its temporary files in a
// test's directory.
type testRun struct {
	ctx  context.Context
	mem  int64
	set  *spill.Set
	made int
}

func newTestRun(t *testing.T, mem int64) *testRun {
	dir := t.TempDir()
	return &testRun{ctx: context.Background(), mem: mem, set: &spill.Set{Dir: dir, Stats: &spill.Stats{},
		Create: spill.CreateTemp}}
}

func (r *testRun) Canceled() error { return r.ctx.Err() }
func (r *testRun) WorkMem() int64  { return r.mem }
func (r *testRun) NewTempFile(kind string) (*spill.File, error) {
	r.made++
	return r.set.New(kind)
}

// A sort past work_mem spills runs and merges them; its output is in
// order and keeps equal rows in their input order, as the sort in memory
// does; its files are gone once it is read and closed.
func TestSorterSpillsStably(t *testing.T) {
	for _, mem := range []int64{1 << 30, 4 << 10} {
		run := newTestRun(t, mem)
		s := NewSorter(run, func(a, b []any) int { return types.Compare(types.Int8, a[0], b[0]) })
		const n = 5000
		for i := range n {
			if err := s.Add([]any{int64(i % 97), int64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		it, err := s.Finish()
		if err != nil {
			t.Fatal(err)
		}
		var prev []any
		count := 0
		for {
			row, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil {
				break
			}
			count++
			if prev != nil {
				k, pk := row[0].(int64), prev[0].(int64)
				if k < pk || k == pk && row[1].(int64) < prev[1].(int64) {
					t.Fatalf("work_mem %d: %v after %v: out of order, or equal keys out of input order", mem, row, prev)
				}
			}
			prev = row
		}
		it.Close()
		if count != n {
			t.Fatalf("work_mem %d: %d rows out of %d", mem, count, n)
		}
		if spilled := run.made > 0; spilled != (mem < 1<<20) {
			t.Errorf("work_mem %d: made %d temporary files", mem, run.made)
		}
		if left, _ := os.ReadDir(run.set.Dir); len(left) != 0 {
			t.Errorf("work_mem %d: %d temporary files left after Close", mem, len(left))
		}
	}
}
