package txn

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// bigKey is a key that sorts as its number, like an integer primary key.
func bigKey(i int) []byte { return binary.BigEndian.AppendUint64([]byte("t/"), uint64(i)) }

// storeOfBigKeys is a store whose files hold the keys 0..n-1, each with
// its number as the value.
func storeOfBigKeys(t *testing.T, n int) *Store {
	t.Helper()
	s, _ := newMemStore(t, Options{})
	tx := s.Begin(ReadCommitted)
	for i := range n {
		if err := tx.Put(context.Background(), bigKey(i), itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScanChunks checks ScanChunks against Scan over versions in files
// and memtables, deleted and updated keys, and the transaction's own
// uncommitted writes: the chunks, in order, hold exactly Scan's keys and
// values, and no worker runs two calls at once.
func TestScanChunks(t *testing.T) {
	ctx := context.Background()
	s := storeOfBigKeys(t, 20000)
	tx := s.Begin(ReadCommitted)
	for i := 0; i < 30000; i += 7 {
		if i%2 == 0 {
			if err := tx.Delete(ctx, bigKey(i)); err != nil {
				t.Fatal(err)
			}
		} else if err := tx.Put(ctx, bigKey(i), itoa(-i)); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	tx = s.Begin(RepeatableRead)
	defer tx.Rollback()
	for i := 30000; i < 30500; i++ {
		if err := tx.Put(ctx, bigKey(i), itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	tx.NextStatement()

	var want []string
	if err := tx.Scan([]byte("t/"), []byte("t0"), func(k, v []byte) bool {
		want = append(want, fmt.Sprintf("%x=%s", k, v))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 4} {
		var mu sync.Mutex
		byChunk := map[int][]string{}
		busy := make([]bool, workers)
		err := tx.ScanChunks([]byte("t/"), []byte("t0"), workers, func(w, c int, k, v []byte) bool {
			mu.Lock()
			if busy[w] {
				t.Errorf("worker %d called twice at once", w)
			}
			busy[w] = true
			byChunk[c] = append(byChunk[c], fmt.Sprintf("%x=%s", k, v))
			busy[w] = false
			mu.Unlock()
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		chunks := slices.Sorted(func(yield func(int) bool) {
			for c := range byChunk {
				if !yield(c) {
					return
				}
			}
		})
		var got []string
		for _, c := range chunks {
			got = append(got, byChunk[c]...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d workers: %d keys in %d chunks, Scan gives %d", workers, len(got), len(chunks), len(want))
		}
		if workers > 1 && len(chunks) < workers {
			t.Errorf("%d workers: only %d chunks", workers, len(chunks))
		}
	}
}

// TestScanChunksStops checks that a chunk that stops leaves every chunk
// before it scanned whole, and that chunks after it stop starting: the
// other worker may take one more in the moment between fn's false and
// the scan's noting it, no more.
func TestScanChunksStops(t *testing.T) {
	s := storeOfBigKeys(t, 50000)
	tx := s.Begin(ReadCommitted)
	defer tx.Rollback()
	const stopKey = 30000
	var mu sync.Mutex
	seen := map[int]bool{}
	started := map[int]bool{}
	stopChunk, late := -1, 0
	err := tx.ScanChunks([]byte("t/"), []byte("t0"), 2, func(w, c int, k, v []byte) bool {
		i := atoi(t, v)
		mu.Lock()
		defer mu.Unlock()
		if !started[c] && stopChunk >= 0 && c > stopChunk {
			late++
		}
		started[c] = true
		seen[i] = true
		if i == stopKey {
			stopChunk = c
			return false
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if stopChunk < 0 {
		t.Fatal("the stop key was never reached")
	}
	for i := range stopKey {
		if !seen[i] {
			t.Fatalf("key %d, before the stop, was not scanned", i)
		}
	}
	if late > 1 {
		t.Errorf("%d chunks started after chunk %d stopped", late, stopChunk)
	}
}
