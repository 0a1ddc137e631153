package txn

import (
	"context"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/wal"
)

// Savepoints: ROLLBACK TO undoes exactly the writes since the savepoint,
// RELEASE keeps them, and after a crash the commit brings back exactly the
// subtransactions it committed with.
func TestSavepoints(t *testing.T) {
	fs := vfs.NewMem()
	opts := Options{FS: fs, StreamThreshold: 1, WAL: wal.Options{NoPreallocate: true}}
	s, err := Open("/db", opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	get := func(tx *Tx, k string) string {
		tx.NextStatement() // each check is a statement of its own, which sees the earlier writes
		v, ok, _ := tx.Get([]byte(k))
		if !ok {
			return "<none>"
		}
		return string(v)
	}
	tx := s.Begin(ReadCommitted)
	_ = tx.Put(ctx, []byte("a"), []byte("1"))
	sp1, _ := tx.Savepoint()
	_ = tx.Put(ctx, []byte("a"), []byte("2"))
	_ = tx.Put(ctx, []byte("b"), []byte("2"))
	sp2, _ := tx.Savepoint()
	_ = tx.Put(ctx, []byte("c"), []byte("3"))
	if err := tx.Release(sp2); err != nil {
		t.Fatal(err)
	}
	if got := get(tx, "c"); got != "3" {
		t.Fatalf("after RELEASE, c = %s", got)
	}
	if err := tx.RollbackTo(sp1); err != nil {
		t.Fatal(err)
	}
	if a, b, c := get(tx, "a"), get(tx, "b"), get(tx, "c"); a != "1" || b != "<none>" || c != "<none>" {
		t.Fatalf("after ROLLBACK TO: a=%s b=%s c=%s, want 1, none, none", a, b, c)
	}
	// The savepoint stays open after ROLLBACK TO.
	_ = tx.Put(ctx, []byte("d"), []byte("4"))
	if err := tx.RollbackTo(sp1); err != nil {
		t.Fatal(err)
	}
	_ = tx.Put(ctx, []byte("e"), []byte("5"))
	if err := tx.Release(sp1); err != nil {
		t.Fatal(err)
	}
	// Rolled-back writes hold no row locks: another transaction writes b
	// at once, while tx is still open.
	other := s.Begin(ReadCommitted)
	if err := other.Put(ctx, []byte("b"), []byte("other")); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	mustCommit(t, other)
	want := map[string]string{"a": "1", "b": "other", "c": "<none>", "d": "<none>", "e": "5"}
	check := func(st *Store, when string) {
		r := st.Begin(ReadCommitted)
		defer r.Rollback()
		for k, v := range want {
			if got := get(r, k); got != v {
				t.Fatalf("%s: %s = %s, want %s", when, k, got, v)
			}
		}
	}
	check(s, "after commit")
	crashed := fs.CrashClone(vfs.CrashOptions{})
	_ = s.Close()
	opts.FS = crashed
	s2, err := Open("/db", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	check(s2, "after crash recovery")
}
