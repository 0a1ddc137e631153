package txn

import (
	"bytes"
	"sort"

	"github.com/epochdb/epochdb/memtable"
	"github.com/epochdb/epochdb/sstable"
)

// Flags of a file entry. A lock entry keeps its LockMode in the low bits.
const (
	flagLockMask = 0x07
	flagNoKey    = 0x08
)

// table is one open sstable. It is opened once, shared by every file set
// that holds it, and closed when reclaim frees it.
type table struct {
	meta *sstable.FileMeta
	r    *sstable.Reader
	// dropsApplied is how many dropped ranges were in force when a
	// compaction wrote the file, or when needsRewrite found it held no
	// key of any; a file with fewer may hold versions of a range dropped
	// since. Guarded by the store's compactMu.
	dropsApplied int
}

func (t *table) covers(key []byte) bool {
	return bytes.Compare(t.meta.SmallestKey, key) <= 0 && bytes.Compare(key, t.meta.LargestKey) <= 0
}

// fileSet is one immutable shape of the store's files: L0 newest first,
// every deeper level in key order with disjoint ranges. A version of a key
// in a shallower level is always newer than one in a deeper level, and in
// L0 a newer file's are newer than an older file's, so reading the levels
// in order reads a key's versions newest first.
type fileSet struct {
	levels   [sstable.NumLevels][]*table
	statuses *statusTable
}

// entryVer converts a file's entry to a version, resolving an unresolved
// one through the status table.
func (fs *fileSet) entryVer(e *sstable.Entry) ver {
	var v ver
	fill(&v, e)
	if e.Txn != 0 {
		v.st = fs.statuses.lookup(e.Txn)
	}
	return v
}

// fill sets v to e but for the writer's status of an unresolved entry. A
// scan fills the versions it appends in place: copying a ver costs more
// than making it.
func fill(v *ver, e *sstable.Entry) {
	v.m, v.cmd, v.val = nil, e.Cmd, e.Value
	v.tomb, v.noKey, v.lockM = e.Kind == sstable.KindTombstone, e.Flags&flagNoKey != 0, 0
	if e.Kind == sstable.KindLock {
		v.lockM = e.Flags & flagLockMask
	}
	v.st, v.ts = nil, e.TS
}

// mayContain reports whether some file may hold a version of key.
func (fs *fileSet) mayContain(key []byte) bool {
	for _, t := range fs.levels[0] {
		if t.covers(key) && t.r.MayContain(key) {
			return true
		}
	}
	for _, files := range fs.levels[1:] {
		if t := findFile(files, key); t != nil && t.r.MayContain(key) {
			return true
		}
	}
	return false
}

// findFile returns the file of a sorted level whose range holds key.
func findFile(files []*table, key []byte) *table {
	i := sort.Search(len(files), func(i int) bool { return bytes.Compare(files[i].meta.LargestKey, key) >= 0 })
	if i < len(files) && bytes.Compare(files[i].meta.SmallestKey, key) <= 0 {
		return files[i]
	}
	return nil
}

// get appends the versions of key in the files to buf, newest first.
// With pending, only files that hold versions of writers still in
// progress are read: what a blind write must wait for.
func (fs *fileSet) get(key []byte, buf []ver, pending bool) ([]ver, error) {
	add := func(e *sstable.Entry) bool {
		buf = append(buf, fs.entryVer(e))
		return true
	}
	read := func(t *table) error {
		if pending && !fs.inProgress(t) {
			return nil
		}
		return t.r.Get(key, add)
	}
	for _, t := range fs.levels[0] {
		if t.covers(key) {
			if err := read(t); err != nil {
				return buf, err
			}
		}
	}
	for _, files := range fs.levels[1:] {
		if t := findFile(files, key); t != nil {
			if err := read(t); err != nil {
				return buf, err
			}
		}
	}
	return buf, nil
}

// inProgress reports whether t holds versions or locks of a writer that
// has not ended.
func (fs *fileSet) inProgress(t *table) bool {
	for _, id := range t.meta.Unresolved {
		if fs.statuses.lookup(id).InProgress() {
			return true
		}
	}
	return false
}

// diskScan walks the files' entries with keys in [start, end), merged into
// key order.
type diskScan struct {
	fs    *fileSet
	it    *sstable.MergingIter
	end   []byte
	valid bool
	// The writer of the last unresolved entry, and its status: a file
	// flushed before its writers resolved names one writer in long runs,
	// and the status table's lookup takes a lock.
	lastTxn uint64
	lastSt  *memtable.Status
}

func (fs *fileSet) scan(start, end []byte) *diskScan {
	var iters []sstable.InternalIterator
	for _, t := range fs.levels[0] {
		if (end == nil || bytes.Compare(t.meta.SmallestKey, end) < 0) && bytes.Compare(start, t.meta.LargestKey) <= 0 {
			iters = append(iters, t.r.NewIter())
		}
	}
	for _, files := range fs.levels[1:] {
		if len(files) > 0 {
			iters = append(iters, &levelIter{files: files, end: end})
		}
	}
	d := &diskScan{fs: fs, it: sstable.NewMergingIter(iters...), end: end}
	d.valid = d.it.SeekGE(start)
	return d
}

// key is the current entry's key, or nil past the end. It is overwritten
// when the scan moves.
func (d *diskScan) key() []byte {
	if !d.valid {
		return nil
	}
	k := d.it.Entry().Key
	if d.end != nil && bytes.Compare(k, d.end) >= 0 {
		d.valid = false
		return nil
	}
	return k
}

// collect appends the versions of the current key, which equals key (a
// copy that outlives the move), to buf, newest first, and moves past them.
func (d *diskScan) collect(buf []ver, key []byte) []ver {
	e, start := d.it.Entry(), len(buf)
	for d.valid && (len(buf) == start || d.sameKey(e, key)) {
		if len(buf) < cap(buf) {
			buf = buf[:len(buf)+1]
		} else {
			buf = append(buf, ver{})
		}
		v := &buf[len(buf)-1]
		fill(v, e)
		if e.Txn != 0 {
			if e.Txn != d.lastTxn {
				d.lastTxn, d.lastSt = e.Txn, d.fs.statuses.lookup(e.Txn)
			}
			v.st = d.lastSt
		}
		if d.valid = d.it.Next(); d.valid {
			e = d.it.Entry()
		}
	}
	return buf
}

// sameKey reports whether e, just reached by Next, is a version of key,
// without comparing them where the merge knows.
func (d *diskScan) sameKey(e *sstable.Entry, key []byte) bool {
	switch d.it.Step() {
	case sstable.StepSameKey:
		return true
	case sstable.StepNewKey:
		return false
	}
	return bytes.Equal(e.Key, key)
}

func (d *diskScan) err() error { return d.it.Err() }

func (d *diskScan) close() { _ = d.it.Close() }

// levelIter reads a sorted level as one stream, opening its files one at a
// time as the walk reaches them, and none that start at or after end.
type levelIter struct {
	files []*table
	end   []byte
	i     int
	it    *sstable.Iter
	err   error
}

var _ sstable.InternalIterator = (*levelIter)(nil)

func (l *levelIter) open(i int) bool {
	if l.it != nil {
		if err := l.it.Close(); err != nil && l.err == nil {
			l.err = err
		}
		l.it = nil
	}
	l.i = i
	if l.err != nil || i >= len(l.files) || (l.end != nil && bytes.Compare(l.files[i].meta.SmallestKey, l.end) >= 0) {
		return false
	}
	l.it = l.files[i].r.NewIter()
	return true
}

// forward moves to the next file's first entry once the current one is
// exhausted.
func (l *levelIter) forward() bool {
	for {
		if err := l.it.Err(); err != nil {
			l.err = err
			return false
		}
		if !l.open(l.i + 1) {
			return false
		}
		if l.it.First() {
			return true
		}
	}
}

func (l *levelIter) SeekGE(key []byte) bool {
	i := sort.Search(len(l.files), func(i int) bool { return bytes.Compare(l.files[i].meta.LargestKey, key) >= 0 })
	if !l.open(i) {
		return false
	}
	return l.it.SeekGE(key) || l.forward()
}

func (l *levelIter) First() bool {
	if !l.open(0) {
		return false
	}
	return l.it.First() || l.forward()
}

func (l *levelIter) Next() bool {
	if l.it == nil {
		return false
	}
	return l.it.Next() || l.forward()
}

func (l *levelIter) Entry() *sstable.Entry {
	if l.it == nil {
		return nil
	}
	return l.it.Entry()
}

func (l *levelIter) Err() error { return l.err }

func (l *levelIter) Close() error {
	if l.it != nil {
		if err := l.it.Close(); err != nil && l.err == nil {
			l.err = err
		}
		l.it = nil
	}
	return l.err
}
