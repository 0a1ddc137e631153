// Package memtable is epochdb's ordered in-memory MVCC index: a google/btree
// of rows ordered by key, each row holding a chain of versions, newest first.
//
//	tree: "a" ─ "b" ─ "k" ─ ...
//	             │
//	             row "b": head ─► v3 (txn 12, provisional) ─► v2 (txn 9, ts 1007) ─► v1 (txn 4, ts 998)
//
// The memtable knows nothing about snapshots. Each version points at the
// Status of the transaction that wrote it, and txn decides visibility from
// that status and its snapshot. Because all versions of a transaction share one
// Status, one atomic store on it (the commit flip) makes them all visible at
// once.
//
// Concurrency: the tree is guarded by an RWMutex held only for lookups and
// inserts, never while a caller's code runs. A row's chain is changed only
// under that row's mutex; readers walk it without locks, through atomic
// pointers, so an unlinked version stays readable to a walker already on it.
package memtable

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// Overheads added to key and value allocations in byte accounting: the
// Row struct and its tree slot (with the nodes' slack), and the Version
// struct. With allocated's rounding they match the Go heap the memtable
// takes to within a few percent (TestSizeIsTheHeap), so that a 64 MiB
// memtable is 64 MiB of memory.
const (
	rowOverhead     = 136
	versionOverhead = 80
)

// allocated approximates what the Go allocator takes for an n-byte slice:
// n rounded up to its size class.
func allocated(n int) int64 {
	switch {
	case n == 0:
		return 0
	case n <= 128:
		return int64(n+15) &^ 15
	case n <= 1024:
		return int64(n+63) &^ 63
	}
	return int64(n+511) &^ 511
}

// Memtable is the ordered key → version-chain index.
type Memtable struct {
	mu   sync.RWMutex // guards tree
	tree *btree.BTreeG[item]
	size atomic.Int64 // bytes of linked rows and versions
	// flushed is set once the memtable's versions are published in an
	// sstable and the memtable has left the store's read state.
	flushed atomic.Bool
}

// item is a tree slot. It carries the row's key beside the row, so that a
// search compares keys without loading each row it passes, and a probe
// needs no Row.
type item struct {
	key []byte // the row's key
	row *Row
}

// New returns an empty memtable.
func New() *Memtable {
	return &Memtable{tree: btree.NewG(32, func(a, b item) bool {
		return bytes.Compare(a.key, b.key) < 0
	})}
}

// Size is the memtable's size in bytes: keys, values and overheads of every
// row and version still linked.
func (m *Memtable) Size() int64 { return m.size.Load() }

// MarkFlushed records that the memtable's contents live in an sstable now.
func (m *Memtable) MarkFlushed() { m.flushed.Store(true) }

// Flushed reports whether MarkFlushed was called: whoever keeps pointers
// into the memtable may drop them.
func (m *Memtable) Flushed() bool { return m.flushed.Load() }

// Len is the number of rows.
func (m *Memtable) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tree.Len()
}

// Get returns the row for key, or nil.
func (m *Memtable) Get(key []byte) *Row {
	m.mu.RLock()
	defer m.mu.RUnlock()
	it, _ := m.tree.Get(item{key: key})
	return it.row
}

// Lock returns the live row for key, locked, creating it if needed. The
// caller must Unlock it.
func (m *Memtable) Lock(key []byte) *Row {
	for {
		r := m.Get(key)
		if r == nil {
			r = m.insert(key)
		}
		r.mu.Lock()
		if !r.removed {
			return r
		}
		r.mu.Unlock()
	}
}

// LockNew is Lock for a key the caller expects to be absent, such as a
// fresh row id: it looks the key up once, under the write lock, instead of
// first under the read lock and then again to insert.
func (m *Memtable) LockNew(key []byte) *Row {
	for {
		r := m.insert(key)
		r.mu.Lock()
		if !r.removed {
			return r
		}
		r.mu.Unlock()
	}
}

func (m *Memtable) insert(key []byte) *Row {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &Row{m: m, key: bytes.Clone(key)}
	// One descent, for a key that is almost always absent (Lock has just
	// missed it; LockNew's caller expects it new). If the key is there
	// after all, put its row back.
	if old, found := m.tree.ReplaceOrInsert(item{r.key, r}); found {
		m.tree.ReplaceOrInsert(old)
		return old.row
	}
	m.size.Add(allocated(len(key)) + rowOverhead)
	return r
}

// Ascend calls fn for each row with start <= key < end in key order (a nil
// end means no upper bound) until fn returns false. It collects rows in
// small batches and releases the tree lock before calling fn, so fn may
// take row locks, write, or block.
func (m *Memtable) Ascend(start, end []byte, fn func(*Row) bool) {
	const batch = 128
	rows := make([]*Row, 0, batch)
	from := start
	inclusive := true
	for {
		rows = rows[:0]
		m.mu.RLock()
		m.tree.AscendGreaterOrEqual(item{key: from}, func(it item) bool {
			if !inclusive && bytes.Equal(it.key, from) {
				return true
			}
			if end != nil && bytes.Compare(it.key, end) >= 0 {
				return false
			}
			rows = append(rows, it.row)
			return len(rows) < batch
		})
		m.mu.RUnlock()
		for _, r := range rows {
			if !fn(r) {
				return
			}
		}
		if len(rows) < batch {
			return
		}
		from, inclusive = rows[len(rows)-1].key, false
	}
}

// Bounds returns the least and the greatest key in [start, end) (a nil end
// means no upper bound), or nils if there is none. Its rows may be
// versions of deleted or uncommitted rows: it bounds keys, not data.
func (m *Memtable) Bounds(start, end []byte) (first, last []byte) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	m.tree.AscendGreaterOrEqual(item{key: start}, func(it item) bool {
		if end == nil || bytes.Compare(it.key, end) < 0 {
			first = it.key
		}
		return false
	})
	if first == nil {
		return nil, nil
	}
	last = first
	visit := func(it item) bool {
		if end != nil && bytes.Compare(it.key, end) >= 0 {
			return true // end itself
		}
		last = it.key
		return false
	}
	if end == nil {
		m.tree.Descend(visit)
	} else {
		m.tree.DescendLessOrEqual(item{key: end}, visit)
	}
	return first, last
}

// Iter walks rows in key order, collecting them in small batches under the
// tree's read lock, so that its user may take row locks, write, or block
// between steps. Rows inserted behind it are not seen; rows removed after
// a batch was collected still are.
type Iter struct {
	m         *Memtable
	end       []byte
	rows      []*Row
	i         int
	from      []byte
	inclusive bool
	done      bool
}

// NewIter returns an iterator over the rows with start <= key < end (a nil
// end means no upper bound), positioned before the first.
func (m *Memtable) NewIter(start, end []byte) *Iter {
	return &Iter{m: m, end: end, from: start, inclusive: true}
}

// Next returns the next row, or nil at the end.
func (it *Iter) Next() *Row {
	const batch = 128
	if it.i == len(it.rows) {
		if it.done {
			return nil
		}
		it.rows, it.i = it.rows[:0], 0
		it.m.mu.RLock()
		it.m.tree.AscendGreaterOrEqual(item{key: it.from}, func(x item) bool {
			if !it.inclusive && bytes.Equal(x.key, it.from) {
				return true
			}
			if it.end != nil && bytes.Compare(x.key, it.end) >= 0 {
				return false
			}
			it.rows = append(it.rows, x.row)
			return len(it.rows) < batch
		})
		it.m.mu.RUnlock()
		if len(it.rows) < batch {
			it.done = true
		}
		if len(it.rows) == 0 {
			return nil
		}
		it.from, it.inclusive = it.rows[len(it.rows)-1].key, false
	}
	it.i++
	return it.rows[it.i-1]
}

// Row is one key and its version chain.
type Row struct {
	m       *Memtable
	key     []byte
	mu      sync.Mutex // guards chain changes and removed
	head    atomic.Pointer[Version]
	removed bool
}

// Memtable is the memtable the row belongs to.
func (r *Row) Memtable() *Memtable { return r.m }

// Key is the row's key. It must not be modified.
func (r *Row) Key() []byte { return r.key }

// Head is the newest version, or nil. Safe without the row lock.
func (r *Row) Head() *Version { return r.head.Load() }

// Unlock releases a row returned by Memtable.Lock.
func (r *Row) Unlock() { r.mu.Unlock() }

// Lock locks a row the caller already holds a pointer to. It reports false,
// with the row unlocked, if the row has been removed from the memtable.
func (r *Row) Lock() bool {
	r.mu.Lock()
	if r.removed {
		r.mu.Unlock()
		return false
	}
	return true
}

// Push makes v the newest version. The caller holds the row lock.
func (r *Row) Push(v *Version) {
	v.row = r
	v.next.Store(r.head.Load())
	r.head.Store(v)
	r.m.size.Add(v.Size())
}

// Unlink removes v from the chain. Walkers already on v can still follow
// its next pointer. It reports whether v was linked. The caller holds the
// row lock.
func (r *Row) Unlink(v *Version) bool {
	var prev *Version
	for cur := r.head.Load(); cur != nil; prev, cur = cur, cur.next.Load() {
		if cur != v {
			continue
		}
		next := cur.next.Load()
		if prev == nil {
			r.head.Store(next)
		} else {
			prev.next.Store(next)
		}
		r.m.size.Add(-v.Size())
		return true
	}
	return false
}

// Remove takes the row out of the memtable. It must hold nothing a reader
// could need: txn removes a row only when its chain is empty or a lone
// committed tombstone. The caller holds the row lock; the row stays locked.
func (r *Row) Remove() {
	m := r.m
	m.mu.Lock()
	if cur, ok := m.tree.Get(item{key: r.key}); ok && cur.row == r {
		m.tree.Delete(cur)
	}
	m.mu.Unlock()
	r.removed = true
	for v := r.head.Load(); v != nil; v = v.next.Load() {
		m.size.Add(-v.Size())
	}
	m.size.Add(-(allocated(len(r.key)) + rowOverhead))
}
