package txn

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/epochdb/epochdb/reclaim"
	"github.com/epochdb/epochdb/wal"
)

// A pinned reader keeps every version it can see, reads them correctly
// after heavy concurrent updates, and once it unpins they are freed.
func TestPinnedReaderKeepsItsVersions(t *testing.T) {
	s, _ := newMemStore(t, Options{MemtableSize: inMemoryOnly})
	ctx := context.Background()
	const keys = 50
	setup := s.Begin(ReadCommitted)
	for i := range keys {
		_ = setup.Put(ctx, key(i), []byte("v0"))
	}
	mustCommit(t, setup)

	reader := s.Begin(RepeatableRead)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				tx := s.Begin(ReadCommitted)
				_ = tx.Put(ctx, key((w*31+i)%keys), []byte(fmt.Sprintf("v%d.%d", w, i)))
				if err := tx.Commit(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for i := range keys {
		if v, ok, _ := reader.Get(key(i)); !ok || string(v) != "v0" {
			t.Fatalf("pinned reader read %s = %q, %v after concurrent updates, want v0", key(i), v, ok)
		}
	}
	s.Reclaim().Advance()
	held := s.Stats().Reclaim
	owner := fmt.Sprintf("txn %d", reader.ID()) // how Stats names a transaction's pin
	var pin *reclaim.PinInfo
	for i, p := range held.Pins {
		if p.Owner == owner {
			pin = &held.Pins[i]
		}
	}
	if pin == nil || pin.HeldBytes == 0 || held.RetiredBytes < pin.HeldBytes {
		t.Fatalf("statistics do not show %s holding back garbage: %+v", owner, held)
	}
	// It holds the versions it can see, and not the thousands of versions
	// born and superseded after its snapshot: those lie wholly between it
	// and the present, and are freed.
	if pin.HeldCount < keys || pin.HeldCount > 500 {
		t.Fatalf("the reader holds %d versions: want the %d it can see, plus at most a few from its own epoch", pin.HeldCount, keys)
	}
	memBefore := s.Stats().MemtableBytes

	_ = reader.Rollback()
	s.Reclaim().Advance()
	after := s.Stats()
	if after.Reclaim.RetiredBytes != 0 || len(after.Reclaim.Pins) != 0 {
		t.Fatalf("after the reader unpinned, %d bytes are still retired, pins %+v", after.Reclaim.RetiredBytes, after.Reclaim.Pins)
	}
	if after.Reclaim.FreedBytes-held.FreedBytes < pin.HeldBytes {
		t.Fatalf("freed %d bytes after unpin, want at least the %d the reader held", after.Reclaim.FreedBytes-held.FreedBytes, pin.HeldBytes)
	}
	if memBefore-after.MemtableBytes < pin.HeldBytes {
		t.Fatalf("memtable %d bytes before unpin, %d after: the freed versions were not unlinked", memBefore, after.MemtableBytes)
	}
}

// Deleted rows leave the memtable once no reader can see them.
func TestDeletedRowsAreReclaimed(t *testing.T) {
	s, _ := newMemStore(t, Options{MemtableSize: inMemoryOnly})
	ctx := context.Background()
	tx := s.Begin(ReadCommitted)
	for i := range 100 {
		_ = tx.Put(ctx, key(i), []byte("v"))
	}
	mustCommit(t, tx)
	reader := s.Begin(RepeatableRead)
	tx = s.Begin(ReadCommitted)
	for i := range 100 {
		_ = tx.Delete(ctx, key(i))
	}
	_ = tx.Put(ctx, []byte("born-and-dead"), []byte("v"))
	_ = tx.Delete(ctx, []byte("born-and-dead"))
	mustCommit(t, tx)
	s.Reclaim().Advance()
	n := 0
	_ = reader.Scan(nil, nil, func(_, _ []byte) bool { n++; return true })
	if n != 100 {
		t.Fatalf("the pinned reader sees %d rows, want the 100 it started with", n)
	}
	_ = reader.Rollback()
	s.Reclaim().Advance()
	if rows := s.Stats().MemtableRows; rows != 0 {
		t.Fatalf("%d rows left after every reader that could see them unpinned", rows)
	}
}

// Under a million single-row updates with only short readers, retired but
// unfreed bytes stay bounded.
func TestBoundedGarbage(t *testing.T) {
	updates := 1_000_000
	if testing.Short() {
		updates = 100_000
	}
	s, _ := newMemStore(t, Options{MemtableSize: inMemoryOnly, WAL: wal.Options{NoSync: true}})
	ctx := context.Background()
	const writers, rows = 4, 64
	var done atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < updates; i += writers {
				tx := s.Begin(ReadCommitted)
				_ = tx.Put(ctx, key(i%rows), strconv.AppendInt(make([]byte, 0, 100), int64(i), 10))
				if err := tx.Commit(); err != nil {
					t.Error(err)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Go(func() { // short readers, all the while
		for done.Load() < int64(updates) {
			tx := s.Begin(ReadCommitted)
			_, _, _ = tx.Get(key(int(done.Load()) % rows))
			_ = tx.Rollback()
		}
	})
	wg.Wait()
	st := s.Stats().Reclaim
	t.Logf("%d updates: peak retired-but-unfreed %d bytes; freed %d versions", updates, st.PeakRetiredBytes, st.FreedCount)
	// Unbounded garbage would reach updates × ~110 bytes (110 MB). The
	// bound leaves room for a short reader that the OS deschedules while
	// pinned on a loaded 2-core machine (measured peaks: ~100 KB quiet).
	const bound = 8 << 20
	if st.PeakRetiredBytes > bound {
		t.Fatalf("peak retired-but-unfreed bytes %d, want at most %d", st.PeakRetiredBytes, bound)
	}
	if st.FreedCount < int64(updates)-int64(4*rows) {
		t.Fatalf("only %d of %d superseded versions freed", st.FreedCount, updates)
	}
}

// A write that decides to write nothing leaves no empty row behind.
func TestNoEmptyRowsFromKeep(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	tx := s.Begin(ReadCommitted)
	for i := range 1000 {
		if err := tx.Delete(context.Background(), key(i)); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	if st := s.Stats(); st.MemtableRows != 0 || st.MemtableBytes != 0 {
		t.Fatalf("deleting 1000 missing keys left %d rows, %d bytes", st.MemtableRows, st.MemtableBytes)
	}
}
