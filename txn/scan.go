package txn

import (
	"bytes"

	"github.com/epochdb/epochdb/memtable"
)

// scanner walks the keys of [start, end) in one read state in key order,
// merging the memtables' rows and the files' entries, and hands out a
// walker over each key's versions.
type scanner struct {
	rs    *readState
	iters []*memtable.Iter // the mutable memtable's, then the frozen ones', newest first
	heads []*memtable.Row
	disk  *diskScan // nil when the read state has no files
	w     walker
	err   error
	slab  []byte // see keep
}

func newScanner(rs *readState, start, end []byte) *scanner {
	sc := &scanner{rs: rs}
	sc.iters = append(sc.iters, rs.mem.NewIter(start, end))
	for _, f := range rs.frozen {
		sc.iters = append(sc.iters, f.mem.NewIter(start, end))
	}
	for _, it := range sc.iters {
		sc.heads = append(sc.heads, it.Next())
	}
	if rs.files != nil {
		sc.disk = rs.files.scan(start, end)
	}
	return sc
}

// next moves to the next key and returns a walker over its versions, or
// nil at the end or on a read error (sc.err). The walker's key stays valid
// after the scanner moves on.
func (sc *scanner) next() *walker {
	var key []byte
	for _, h := range sc.heads {
		if h != nil && (key == nil || bytes.Compare(h.Key(), key) < 0) {
			key = h.Key()
		}
	}
	// onDisk: the files hold versions of key; fromDisk: only they do.
	var dk []byte
	if sc.disk != nil {
		dk = sc.disk.key()
	}
	onDisk, fromDisk := dk != nil, dk != nil
	if dk != nil && key != nil {
		c := bytes.Compare(dk, key)
		onDisk, fromDisk = c <= 0, c < 0
	}
	if fromDisk {
		key = sc.keep(dk) // the disk iterator reuses its key
	}
	if key == nil {
		if sc.disk != nil {
			sc.err = sc.disk.err()
		}
		return nil
	}
	w := &sc.w
	w.reset(sc.rs, key)
	if !fromDisk {
		for i, h := range sc.heads {
			if h != nil && bytes.Equal(h.Key(), key) {
				w.rows = append(w.rows, h)
				sc.heads[i] = sc.iters[i].Next()
			}
		}
	}
	if onDisk {
		w.disk = sc.disk.collect(w.disk, key)
		if err := sc.disk.err(); err != nil {
			sc.err = err
			return nil
		}
	}
	return w
}

// keep copies a key that must outlive the disk iterator's buffer into a
// slab shared by many keys: a scan then allocates per slab, not per key.
// The slab lives as long as any key cut from it. Slabs start small and
// double up to 16 KiB (under the Go allocator's large-object size), so that
// a point read, which keeps one key, pays for a few hundred bytes.
func (sc *scanner) keep(k []byte) []byte {
	if cap(sc.slab)-len(sc.slab) < len(k) {
		sc.slab = make([]byte, 0, max(min(2*cap(sc.slab), 16<<10), 256, len(k)))
	}
	n := len(sc.slab)
	sc.slab = append(sc.slab, k...)
	return sc.slab[n : n+len(k) : n+len(k)]
}

func (sc *scanner) close() {
	if sc.disk != nil {
		sc.disk.close()
	}
}
