package txn

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
)

// ScanChunks is Scan over [start, end) done by up to workers goroutines at
// once: the range is cut into consecutive chunks, numbered in key order,
// and each goroutine scans the next chunk not yet taken, calling
// fn(worker, chunk, key, value) for its keys in key order. Calls for one
// worker never overlap; calls for different workers do.
//
// If fn returns false, or a chunk's read fails, the chunks after it that
// have not started do not, and those before it are finished: the error
// returned is the first chunk's in key order that failed, as a serial
// scan would meet it.
// A panic in fn is raised again on the calling goroutine once every
// worker has stopped.
//
// The cuts come from the files' block separators, which split their data
// into near-equal shares, and from the span of each memtable's keys, cut
// evenly as numbers: even for keys that are dense integers, a fair guess
// otherwise. A range too small to cut is scanned by one worker.
func (tx *Tx) ScanChunks(start, end []byte, workers int, fn func(worker, chunk int, key, value []byte) bool) error {
	if tx.ended {
		return ErrDone
	}
	rs := tx.s.state.Load()
	cuts := rs.cuts(start, end, 8*workers)
	bound := func(c int) (lo, hi []byte) {
		lo, hi = start, end
		if c > 0 {
			lo = cuts[c-1]
		}
		if c < len(cuts) {
			hi = cuts[c]
		}
		return lo, hi
	}
	chunks := len(cuts) + 1
	workers = max(1, min(workers, chunks))
	var (
		next     atomic.Int64 // the next chunk to take
		stopAt   atomic.Int64 // no chunk from here on starts
		errs     = make([]error, chunks)
		panicked atomic.Value
		wg       sync.WaitGroup
	)
	stopAt.Store(int64(chunks))
	stop := func(c int64) {
		for cur := stopAt.Load(); c < cur && !stopAt.CompareAndSwap(cur, c); cur = stopAt.Load() {
		}
	}
	for w := range workers {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panicked.CompareAndSwap(nil, fmt.Sprintf("%v\n%s", r, debug.Stack()))
					stop(0)
				}
			}()
			for {
				c := next.Add(1) - 1
				if c >= stopAt.Load() {
					return
				}
				lo, hi := bound(int(c))
				done, err := tx.scan(rs, lo, hi, func(k, v []byte) bool { return fn(w, int(c), k, v) })
				if errs[c] = err; err != nil || done != nil {
					stop(c)
				}
			}
		})
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		panic(p)
	}
	if tx.iso == Serializable {
		tx.noteRead(start, end) // all of it, whatever stopped: more than was read is safe
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// cuts returns up to n-1 keys inside (start, end), ascending, that cut it
// into ranges of about equal data (see ScanChunks).
func (rs *readState) cuts(start, end []byte, n int) [][]byte {
	inside := func(k []byte) bool {
		return bytes.Compare(k, start) > 0 && (end == nil || bytes.Compare(k, end) < 0)
	}
	var keys [][]byte
	keep := func(k []byte) {
		if inside(k) {
			keys = append(keys, k)
		}
	}
	if rs.files != nil {
		for _, level := range rs.files.levels {
			for _, t := range level {
				if (end == nil || bytes.Compare(t.meta.SmallestKey, end) < 0) && bytes.Compare(start, t.meta.LargestKey) <= 0 {
					t.r.Separators(keep)
				}
			}
		}
	}
	mems := []*frozenMem{{mem: rs.mem}}
	for _, m := range append(mems, rs.frozen...) {
		if first, last := m.mem.Bounds(start, end); first != nil {
			for _, k := range between(first, last, n) {
				keep(k)
			}
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	if len(keys) < n {
		return keys
	}
	thin := make([][]byte, 0, n-1)
	for i := 1; i < n; i++ {
		thin = append(thin, keys[i*len(keys)/n])
	}
	return slices.CompactFunc(thin, bytes.Equal)
}

// between returns up to n-1 keys evenly spaced from lo to hi, read as
// numbers: the eight bytes after their common prefix, big-endian.
func between(lo, hi []byte, n int) [][]byte {
	p := 0
	for p < len(lo) && p < len(hi) && lo[p] == hi[p] {
		p++
	}
	word := func(k []byte) uint64 {
		var b [8]byte
		copy(b[:], k[p:])
		return binary.BigEndian.Uint64(b[:])
	}
	a, b := word(lo), word(hi)
	if b <= a {
		return nil
	}
	var keys [][]byte
	for i := 1; i < n; i++ {
		v := a + (b-a)/uint64(n)*uint64(i)
		keys = append(keys, binary.BigEndian.AppendUint64(bytes.Clone(lo[:p]), v))
	}
	return keys
}
