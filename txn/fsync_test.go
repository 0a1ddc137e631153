package txn

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/wal"
)

// An injected fsync failure fails that commit and every later one, and
// after a restart every acknowledged commit is present and nothing else is.
func TestFsyncFailure(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keepUnsynced=%v", keep), func(t *testing.T) {
			mem := vfs.NewMem()
			faulty := vfs.NewFaulty(mem)
			s, err := Open("/db", Options{FS: faulty, WAL: wal.Options{NoPreallocate: true}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var (
				mu     sync.Mutex
				acked  = map[string]bool{}
				failed = map[string]bool{}
				wg     sync.WaitGroup
			)
			commit := func(k string) {
				tx := s.Begin(ReadCommitted)
				err := tx.Put(ctx, []byte(k), []byte(k))
				if err == nil {
					err = tx.Commit()
				} else {
					_ = tx.Rollback()
				}
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					acked[k] = true
				} else {
					if !errors.Is(err, wal.ErrPoisoned) {
						t.Errorf("%s: %v, want ErrPoisoned", k, err)
					}
					failed[k] = true
				}
			}
			for i := range 10 {
				commit(fmt.Sprintf("before-%d", i))
			}
			faulty.FailAfter(vfs.OpSync, 3)
			for w := range 8 {
				wg.Go(func() {
					for i := range 20 {
						commit(fmt.Sprintf("during-%d-%d", w, i))
					}
				})
			}
			wg.Wait()
			if len(failed) == 0 {
				t.Fatal("no commit failed")
			}
			faulty.Heal(vfs.OpSync)
			commit("after-heal")
			if !failed["after-heal"] {
				t.Fatal("a commit succeeded after a failed fsync: the store must stay fail-stop")
			}
			syncs := faulty.Count(vfs.OpSync)
			_ = s.Close()
			if n := faulty.Count(vfs.OpSync); n != syncs {
				t.Fatalf("close issued %d more fsyncs after the failure", n-syncs)
			}

			crashed := mem.CrashClone(vfs.CrashOptions{KeepUnsynced: keep, Rand: newRand(7)})
			s2, err := Open("/db", Options{FS: crashed})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			tx := s2.Begin(ReadCommitted)
			defer tx.Rollback()
			for k := range acked {
				if _, ok, _ := tx.Get([]byte(k)); !ok {
					t.Fatalf("acknowledged commit %s lost", k)
				}
			}
			if keep {
				return // an unacknowledged commit record may have survived, like any in-flight commit
			}
			for k := range failed {
				if _, ok, _ := tx.Get([]byte(k)); ok {
					t.Fatalf("commit %s failed, yet it is present after the restart", k)
				}
			}
		})
	}
}

// An entry too big for one log record is refused before anything is
// acknowledged, so the log never holds a record recovery would reject.
func TestTooLargeEntry(t *testing.T) {
	s, fs := newMemStore(t, Options{})
	tx := s.Begin(ReadCommitted)
	big := make([]byte, MaxEntry)
	if err := tx.Put(context.Background(), []byte("big"), big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if err := tx.Put(context.Background(), []byte("ok"), big[:MaxEntry-2]); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open("/db", Options{FS: fs, WAL: wal.Options{NoPreallocate: true}})
	if err != nil {
		t.Fatalf("reopen after the largest allowed entry: %v", err)
	}
	defer s2.Close()
	r := s2.Begin(ReadCommitted)
	defer r.Rollback()
	if v, ok, _ := r.Get([]byte("ok")); !ok || len(v) != MaxEntry-2 {
		t.Fatalf("largest entry lost: %d bytes, %v", len(v), ok)
	}
}

// Two stores never share one directory: the second Open fails until the
// first closes.
func TestOpenLocksDirectory(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); err == nil || !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("second Open of a directory in use: %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	_ = s2.Close()
}
