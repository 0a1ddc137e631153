package sstable

import "sync"

// Iter walks the entries of one file in file order, in either direction.
// It is not safe for concurrent use.
//
// A move (First, Last, SeekGE, SeekLT, Next, Prev) returns whether the
// iterator is now at an entry. Once a move returns false the iterator is
// unpositioned, and Next and Prev return false until a First, Last or seek
// positions it again. A corruption found while moving makes every later
// move return false; Err reports it.
type Iter struct {
	r       *Reader
	idx     int // the block in bi, or -1
	bi      blockIter
	entry   Entry
	valid   bool
	err     error
	scratch []byte
	fill    bool // add the blocks it reads to the cache
}

var _ InternalIterator = (*Iter)(nil)

// load makes block i current, reusing it if it already is.
func (it *Iter) load(i int) bool {
	if i == it.idx {
		return true
	}
	if it.scratch == nil {
		if p, ok := scratchPool.Get().(*[]byte); ok {
			it.scratch = *p
		}
	}
	b, err := it.r.readData(i, &it.scratch, it.fill)
	if err != nil {
		it.err, it.idx = err, -1
		return false
	}
	it.bi.init(b, entriesEnd(b), &it.entry)
	it.idx = i
	return true
}

func (it *Iter) at(ok bool) bool {
	it.valid = ok
	return ok
}

// blockFailed turns a block iterator's decoding error into the Iter's.
func (it *Iter) blockFailed() bool {
	if it.bi.err == nil {
		return false
	}
	it.err = it.r.corruption("data", int64(it.r.index[it.idx].handle.offset), it.bi.err)
	it.idx = -1
	return true
}

// forward moves to the first entry after the current block.
func (it *Iter) forward() bool {
	for {
		if it.blockFailed() || it.idx+1 >= len(it.r.index) || !it.load(it.idx+1) {
			return it.at(false)
		}
		if it.bi.first() {
			return it.at(true)
		}
	}
}

// backward moves to the last entry before the current block.
func (it *Iter) backward() bool {
	for {
		if it.blockFailed() || it.idx <= 0 || !it.load(it.idx-1) {
			return it.at(false)
		}
		if it.bi.last() {
			return it.at(true)
		}
	}
}

// First moves to the file's first entry.
func (it *Iter) First() bool {
	if it.err != nil || len(it.r.index) == 0 || !it.load(0) {
		return it.at(false)
	}
	if it.bi.first() {
		return it.at(true)
	}
	return it.forward()
}

// Last moves to the file's last entry.
func (it *Iter) Last() bool {
	if it.err != nil || len(it.r.index) == 0 || !it.load(len(it.r.index)-1) {
		return it.at(false)
	}
	if it.bi.last() {
		return it.at(true)
	}
	return it.backward()
}

// SeekGE moves to the first entry whose Key is >= key: for an equal key,
// its newest version.
func (it *Iter) SeekGE(key []byte) bool {
	if it.err != nil {
		return it.at(false)
	}
	i := it.r.findBlock(key)
	if i == len(it.r.index) || !it.load(i) {
		return it.at(false)
	}
	if it.bi.seekGE(key) {
		return it.at(true)
	}
	return it.forward()
}

// SeekLT moves to the last entry whose Key is < key: the oldest version of
// the greatest smaller key.
func (it *Iter) SeekLT(key []byte) bool {
	if it.err != nil {
		return it.at(false)
	}
	i := it.r.findBlock(key)
	if i == len(it.r.index) {
		return it.Last()
	}
	if !it.load(i) {
		return it.at(false)
	}
	if it.bi.seekLT(key) {
		return it.at(true)
	}
	return it.backward()
}

// Next moves to the following entry.
func (it *Iter) Next() bool {
	if !it.valid {
		return false
	}
	if it.bi.nextEntry() {
		return true
	}
	return it.forward()
}

// Prev moves to the preceding entry.
func (it *Iter) Prev() bool {
	if !it.valid {
		return false
	}
	if it.bi.prev() {
		return true
	}
	return it.backward()
}

// Entry returns the current entry, or nil if the iterator is unpositioned.
// The Entry and its Key are overwritten by the next move; copy the Key to
// keep it. The Value is different: it points into a decompressed block,
// which is never modified or reused, so it stays valid and unchanged after
// the iterator moves or closes, for as long as the caller holds it. Holding
// it keeps the whole block (about 32 KiB) in memory, so copy a small value
// that is kept for long.
func (it *Iter) Entry() *Entry {
	if !it.valid {
		return nil
	}
	return &it.entry
}

// Err returns the corruption or I/O error that stopped the iterator, if any.
func (it *Iter) Err() error { return it.err }

// Close releases the iterator's block and returns Err.
func (it *Iter) Close() error {
	if it.scratch != nil && cap(it.scratch) <= maxPooledScratch {
		b := it.scratch[:0]
		scratchPool.Put(&b)
	}
	it.bi = blockIter{}
	it.idx, it.valid, it.scratch = -1, false, nil
	return it.err
}

// scratchPool keeps the buffers that iterators read compressed blocks
// into, so that a short-lived iterator (a point read's) does not allocate
// one for each block it misses in the cache. A scratch buffer never
// becomes a block: readData keeps it only for compressed blocks, which are
// decompressed into a buffer of their own.
var scratchPool sync.Pool

const maxPooledScratch = 64 << 10
