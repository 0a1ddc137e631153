package txn

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// Flushed memtables are not kept alive: not by versions retired to
// reclaim (whose callbacks would unlink them), nor by the read state, nor
// by a committed transaction's list of writes. Writing ~100 MB through a 4
// MiB memtable, with updates that retire versions in every memtable, must
// leave a heap near the memtable's size, not the data's.
func TestFlushedMemtablesAreFreed(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	s, _ := newMemStore(t, Options{MemtableSize: 4 << 20, CacheSize: -1})
	ctx := context.Background()
	val := make([]byte, 200)
	tx := s.Begin(ReadCommitted)
	for i := range 400_000 {
		if err := tx.Put(ctx, []byte(fmt.Sprintf("k%09d", i)), val); err != nil {
			t.Fatal(err)
		}
		if i%10_000 == 0 {
			// A short transaction that supersedes a version: a retirement
			// whose free callback points into the memtable of the time.
			u := s.Begin(ReadCommitted)
			_ = u.Put(ctx, []byte("hot"), []byte(fmt.Sprint(i)))
			mustCommit(t, u)
		}
	}
	mustCommit(t, tx)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 64<<20 {
		t.Fatalf("the heap holds %d MB after writing 100 MB through a 4 MiB memtable and flushing it", ms.HeapAlloc>>20)
	}
}
