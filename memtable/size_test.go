package memtable

import (
	"fmt"
	"runtime"
	"testing"
)

// The memtable's byte accounting is the Go heap it takes, within 15%, for
// keys and values of several sizes: the flush threshold, and so the
// store's memory bound, is in real bytes.
func TestSizeIsTheHeap(t *testing.T) {
	for _, sz := range [][2]int{{10, 100}, {20, 10}, {12, 500}, {30, 2000}} {
		runtime.GC()
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		m := New()
		const n = 100000
		for i := range n {
			k := []byte(fmt.Sprintf("%0*d", sz[0], i))
			r := m.LockNew(k)
			r.Push(&Version{Value: make([]byte, sz[1])})
			r.Unlock()
		}
		runtime.GC()
		runtime.ReadMemStats(&b)
		real, accounted := float64(b.HeapAlloc-a.HeapAlloc), float64(m.Size())
		if accounted < 0.85*real || accounted > 1.15*real {
			t.Errorf("key %d B, value %d B: the memtable accounts %.0f B a row, the heap holds %.0f", sz[0], sz[1], accounted/n, real/n)
		}
		runtime.KeepAlive(m)
	}
}
