package vfs_test

import (
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

func TestOpString(t *testing.T) {
	for op, want := range map[vfs.Op]string{
		vfs.OpCreate:  "create",
		vfs.OpWrite:   "write",
		vfs.OpSync:    "sync",
		vfs.OpSyncDir: "syncdir",
		vfs.OpRemove:  "remove",
		vfs.OpRename:  "rename",
		vfs.Op(42):    "Op(42)",
	} {
		if got := op.String(); got != want {
			t.Errorf("Op(%d).String() = %q, want %q", int(op), got, want)
		}
	}
}

func expectInjected(t *testing.T, err error, name string) {
	t.Helper()
	if !errors.Is(err, vfs.ErrInjected) {
		t.Fatalf("err = %v, want ErrInjected", err)
	}
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe) && pe.Path == name:
	case errors.As(err, &le) && le.Old == name:
	default:
		t.Fatalf("err = %v does not name %s", err, name)
	}
}

func TestFaultyFail(t *testing.T) {
	mem := newMem(t)
	fs := vfs.NewFaulty(mem)
	f, err := fs.Create("/db/a")
	must(t, err)
	mustWrite(t, f, "ok")

	fs.Fail(vfs.OpWrite)
	for range 3 {
		n, err := f.Write([]byte("lost"))
		expectInjected(t, err, "/db/a")
		if n != 0 {
			t.Fatalf("failed Write reported %d bytes", n)
		}
	}
	expectContents(t, mem, "/db/a", "ok")

	fs.Heal(vfs.OpWrite)
	mustWrite(t, f, "!")
	expectContents(t, mem, "/db/a", "ok!")
	if got := fs.Count(vfs.OpWrite); got != 5 {
		t.Fatalf("Count(OpWrite) = %d, want 5 (failures included)", got)
	}
}

// TestFaultyFailedSync checks that a failed Sync syncs nothing: the writes it
// was meant to make durable are lost in a crash.
func TestFaultyFailedSync(t *testing.T) {
	mem := newMem(t)
	fs := vfs.NewFaulty(mem)
	f := create(t, fs, "/db/a", "durable", "", true)
	mustWrite(t, f, "pending")
	fs.Fail(vfs.OpSync)
	expectInjected(t, f.Sync(), "/db/a")
	expectContents(t, mem, "/db/a", "durablepending")
	expectContents(t, crash(mem), "/db/a", "durable")
}

func TestFaultyFailAfter(t *testing.T) {
	fs := vfs.NewFaulty(newMem(t))
	f, err := fs.Create("/db/a")
	must(t, err)
	must(t, f.Sync())
	fs.FailAfter(vfs.OpSync, 2)
	must(t, f.Sync())
	must(t, f.Sync())
	for range 3 {
		expectInjected(t, f.Sync(), "/db/a")
	}
	if got := fs.Count(vfs.OpSync); got != 6 {
		t.Fatalf("Count(OpSync) = %d, want 6", got)
	}
	// Other kinds are unaffected.
	mustWrite(t, f, "x")
	must(t, fs.SyncDir("/db"))
}

func TestFaultyDirectoryOps(t *testing.T) {
	mem := newMem(t)
	fs := vfs.NewFaulty(mem)
	create(t, fs, "/db/a", "a", "", true)
	for _, op := range []vfs.Op{vfs.OpCreate, vfs.OpRemove, vfs.OpRename, vfs.OpSyncDir} {
		fs.Fail(op)
	}

	_, err := fs.Create("/db/b")
	expectInjected(t, err, "/db/b")
	expectInjected(t, fs.Remove("/db/a"), "/db/a")
	expectInjected(t, fs.Rename("/db/a", "/db/c"), "/db/a")
	expectInjected(t, fs.SyncDir("/db"), "/db")
	expectList(t, mem, "/db", "a")

	// The failed operations did nothing, so the failed SyncDir made nothing
	// durable either.
	fs.Heal(vfs.OpRemove)
	must(t, fs.Remove("/db/a"))
	expectInjected(t, fs.SyncDir("/db"), "/db")
	expectContents(t, crash(mem), "/db/a", "a")

	for op, want := range map[vfs.Op]int64{vfs.OpCreate: 2, vfs.OpRemove: 2, vfs.OpRename: 1, vfs.OpSyncDir: 3} {
		if got := fs.Count(op); got != want {
			t.Errorf("Count(%v) = %d, want %d", op, got, want)
		}
	}
}

// TestFaultyConcurrent exercises the counters from many goroutines; run it
// with -race.
func TestFaultyConcurrent(t *testing.T) {
	fs := vfs.NewFaulty(newMem(t))
	f, err := fs.Create("/db/a")
	must(t, err)
	const goroutines, writes = 8, 100
	fs.FailAfter(vfs.OpWrite, goroutines*writes/2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed int
	for range goroutines {
		wg.Go(func() {
			for range writes {
				if _, err := f.Write([]byte("x")); errors.Is(err, vfs.ErrInjected) {
					mu.Lock()
					failed++
					mu.Unlock()
				} else if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := fs.Count(vfs.OpWrite); got != goroutines*writes {
		t.Fatalf("Count(OpWrite) = %d, want %d", got, goroutines*writes)
	}
	if failed != goroutines*writes/2 {
		t.Fatalf("%d writes failed, want %d", failed, goroutines*writes/2)
	}
	expectSize(t, fs, "/db/a", goroutines*writes/2)
}
