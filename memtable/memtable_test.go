package memtable

import (
	"fmt"
	"sync"
	"testing"
)

func put(m *Memtable, key string, st *Status, val string) *Version {
	return putWith(m.Lock, key, st, val)
}

// putWith is put through Lock or LockNew, which must behave alike.
func putWith(lock func([]byte) *Row, key string, st *Status, val string) *Version {
	r := lock([]byte(key))
	defer r.Unlock()
	v := &Version{Status: st, Value: []byte(val)}
	r.Push(v)
	return v
}

func TestAscendInOrderAcrossBatches(t *testing.T) {
	m := New()
	st := NewStatus(1)
	for i := 999; i >= 0; i-- {
		put(m, fmt.Sprintf("k%04d", i), st, "v")
	}
	var got []string
	m.Ascend([]byte("k0100"), []byte("k0900"), func(r *Row) bool {
		got = append(got, string(r.Key()))
		return true
	})
	if len(got) != 800 || got[0] != "k0100" || got[799] != "k0899" {
		t.Fatalf("got %d keys from %s to %s, want k0100..k0899", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Fatalf("out of order at %d: %s then %s", i, got[i-1], got[i])
		}
	}
	n := 0
	m.Ascend(nil, nil, func(*Row) bool { n++; return n < 300 })
	if n != 300 {
		t.Fatalf("Ascend went on after fn returned false: %d calls", n)
	}
}

func TestChainAndAccounting(t *testing.T) {
	m := New()
	a, b := NewStatus(1), NewStatus(2)
	v1 := put(m, "x", a, "one")
	v2 := put(m, "x", b, "two")
	r := m.Get([]byte("x"))
	if r.Head() != v2 || v2.Next() != v1 || v1.Next() != nil {
		t.Fatal("chain is not newest first")
	}
	full := m.Size()
	if want := allocated(1) + rowOverhead + v1.Size() + v2.Size(); full != want {
		t.Fatalf("size %d, want %d", full, want)
	}
	r.Lock()
	if !r.Unlink(v1) || r.Unlink(v1) {
		t.Fatal("Unlink must report whether the version was linked")
	}
	r.Unlock()
	if m.Size() != full-v1.Size() {
		t.Fatalf("size %d after unlink, want %d", m.Size(), full-v1.Size())
	}
	r.Lock()
	r.Remove()
	r.Unlock()
	if m.Size() != 0 || m.Len() != 0 || m.Get([]byte("x")) != nil {
		t.Fatalf("after Remove: size %d, len %d", m.Size(), m.Len())
	}
	if r.Lock() {
		t.Fatal("Lock of a removed row must fail, so writers retry on a live row")
	}
	// A writer that finds the key again gets a fresh, live row.
	put(m, "x", a, "three")
	if h := m.Get([]byte("x")).Head(); string(h.Value) != "three" || h.Next() != nil {
		t.Fatal("write after Remove did not land in a new row")
	}
}

func TestStatusFlip(t *testing.T) {
	s := NewStatus(9)
	if !s.InProgress() || s.Aborted() {
		t.Fatal("a new status is in progress")
	}
	if _, ok := s.CommitTS(); ok {
		t.Fatal("in progress is not committed")
	}
	s.Commit(42)
	if ts, ok := s.CommitTS(); !ok || ts != 42 || s.InProgress() {
		t.Fatalf("after Commit(42): %d %v", ts, ok)
	}
	a := NewStatus(10)
	a.Abort()
	if _, ok := a.CommitTS(); ok || !a.Aborted() || a.InProgress() {
		t.Fatal("aborted status misreported")
	}
}

// Concurrent writers of distinct and shared keys, readers walking chains
// and a remover: run under -race.
func TestConcurrentChains(t *testing.T) {
	m := New()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			st := NewStatus(uint64(w))
			lock := m.Lock
			if w%2 == 1 {
				lock = m.LockNew // on keys that mostly exist
			}
			for i := range 2000 {
				putWith(lock, fmt.Sprintf("k%d", i%50), st, "v")
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			m.Ascend(nil, nil, func(r *Row) bool {
				for v := r.Head(); v != nil; v = v.Next() {
					_ = v.Value
				}
				return true
			})
		}
	})
	wg.Wait()
	total := 0
	m.Ascend(nil, nil, func(r *Row) bool {
		for v := r.Head(); v != nil; v = v.Next() {
			total++
		}
		return true
	})
	if total != 8000 {
		t.Fatalf("%d versions linked, want 8000", total)
	}
	if n := m.Len(); n != 50 {
		t.Fatalf("%d rows, want 50", n)
	}
}
