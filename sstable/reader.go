package sstable

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
)

// ErrCorrupt marks a file whose bytes are not what its writer wrote: a
// checksum mismatch, a truncated file, or contents that do not parse. See
// CorruptionError for where. The SQL layer reports it as SQLSTATE XX001.
var ErrCorrupt = errors.New("sstable: corruption")

// CorruptionError names the damaged part of a file.
type CorruptionError struct {
	File string
	// Block is "data", "index", "filter", "properties" or "footer".
	Block string
	// Offset is where the block (or the footer) starts in the file.
	Offset int64
	Err    error
}

func (e *CorruptionError) Error() string {
	return fmt.Sprintf("sstable: corruption in %s: %s block at offset %d: %v",
		e.File, e.Block, e.Offset, e.Err)
}

func (e *CorruptionError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// Reader reads one sstable. Open keeps the index, filter and properties in
// memory; data blocks are read on demand, through the cache if there is
// one. A Reader is safe for concurrent use; each Iter is not.
type Reader struct {
	f       vfs.File
	name    string
	fileNum uint64
	cache   *Cache
	size    int64
	index   []indexEntry
	filter  bloomFilter
	props   Properties
	// getIters recycles the iterators behind Get, so that a point read
	// allocates nothing.
	getIters sync.Pool
}

// indexEntry is one data block: every key in it is <= sep, every key in the
// next block is > sep, unless the two blocks share a key's versions, in
// which case sep is that key.
type indexEntry struct {
	sep    []byte
	handle blockHandle
}

// Open reads and verifies the footer, filter, index and properties of the
// sstable in f, which the Reader then owns. name appears only in errors.
// fileNum keys f's blocks in cache: it must identify the file's contents for
// as long as the cache lives (file numbers are never reused). cache may be
// nil.
func Open(f vfs.File, name string, fileNum uint64, cache *Cache) (*Reader, error) {
	r := &Reader{f: f, name: name, fileNum: fileNum, cache: cache}
	r.getIters.New = func() any { return r.NewIter() }
	st, err := f.Stat()
	if err != nil {
		return nil, errors.Wrapf(err, "sstable: stat %s", name)
	}
	r.size = st.Size()
	if r.size < footerSize {
		return nil, r.corruption("footer", 0, errors.Newf("file is %d bytes, shorter than a footer", r.size))
	}
	var fb [footerSize]byte
	footerAt := r.size - footerSize
	if err := r.readAt(fb[:], footerAt, "footer"); err != nil {
		return nil, err
	}
	ft, err := decodeFooter(fb[:], uint64(r.size))
	if err != nil {
		return nil, r.corruption("footer", footerAt, err)
	}
	if ft.filter.length != 0 {
		b, err := r.readMeta(ft.filter, "filter")
		if err != nil {
			return nil, err
		}
		if len(b) < 9 || b[len(b)-1] == 0 || b[len(b)-1] > 30 {
			return nil, r.corruption("filter", int64(ft.filter.offset), errors.New("malformed filter"))
		}
		r.filter = bloomFilter{bits: b[:len(b)-1], m: uint64(len(b)-1) * 8, k: int(b[len(b)-1])}
	}
	b, err := r.readMeta(ft.index, "index")
	if err != nil {
		return nil, err
	}
	if r.index, err = decodeIndex(b, ft.dataEnd()); err != nil {
		return nil, r.corruption("index", int64(ft.index.offset), err)
	}
	if b, err = r.readMeta(ft.props, "properties"); err != nil {
		return nil, err
	}
	p, err := decodeProperties(b)
	if err == nil {
		err = checkProperties(&p, &ft, len(r.index))
	}
	if err != nil {
		return nil, r.corruption("properties", int64(ft.props.offset), err)
	}
	r.props = p
	return r, nil
}

// decodeIndex parses the index and checks that its blocks tile the data
// region [0, dataEnd) in order, with separators in order.
func decodeIndex(b []byte, dataEnd uint64) ([]indexEntry, error) {
	var index []indexEntry
	d := decoder{p: b}
	var next uint64
	for len(d.p) > 0 && !d.bad {
		e := indexEntry{sep: d.bytes(d.uvarint())}
		e.handle.offset, e.handle.length = d.uvarint(), d.uvarint()
		switch {
		case d.bad:
		case e.handle.offset != next || e.handle.length > dataEnd:
			return nil, errors.Newf("block %d at %d+%d out of place", len(index), e.handle.offset, e.handle.length)
		case len(index) > 0 && bytes.Compare(index[len(index)-1].sep, e.sep) > 0:
			return nil, errors.Newf("separator of block %d out of order", len(index))
		}
		next = e.handle.end()
		index = append(index, e)
	}
	if d.bad {
		return nil, errors.New("malformed index")
	}
	if next != dataEnd {
		return nil, errors.Newf("data blocks end at %d, not at %d", next, dataEnd)
	}
	return index, nil
}

func checkProperties(p *Properties, ft *footer, blocks int) error {
	filterBytes := uint64(0)
	if ft.filter.length != 0 {
		filterBytes = ft.filter.length + trailerSize
	}
	if p.NumDataBlocks != uint64(blocks) || p.DataBytes != ft.dataEnd() ||
		p.IndexBytes != ft.index.length+trailerSize || p.FilterBytes != filterBytes {
		return errors.New("properties disagree with the file's layout")
	}
	return nil
}

func (r *Reader) corruption(block string, off int64, err error) error {
	return &CorruptionError{File: r.name, Block: block, Offset: off, Err: err}
}

// readAt fills b from off. A short read of a range the footer vouched for
// means the file is not what it was.
func (r *Reader) readAt(b []byte, off int64, block string) error {
	n, err := r.f.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return r.corruption(block, off, errors.Newf("short read: %d of %d bytes", n, len(b)))
	}
	return errors.Wrapf(err, "sstable: read %s at offset %d", r.name, off)
}

// readStored reads the block at h into buf (grown if needed) and verifies
// its checksum, returning the buffer, the stored bytes and their type.
func (r *Reader) readStored(h blockHandle, block string, buf []byte) ([]byte, []byte, byte, error) {
	n := h.length + trailerSize
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if err := r.readAt(buf, int64(h.offset), block); err != nil {
		return buf, nil, 0, err
	}
	stored, typ := buf[:h.length:h.length], buf[h.length]
	if blockChecksum(stored, typ) != binary.LittleEndian.Uint32(buf[h.length+1:]) {
		return buf, nil, 0, r.corruption(block, int64(h.offset), errors.New("block checksum mismatch"))
	}
	return buf, stored, typ, nil
}

// readMeta reads and decompresses a metadata block.
func (r *Reader) readMeta(h blockHandle, block string) ([]byte, error) {
	_, stored, typ, err := r.readStored(h, block, nil)
	if err != nil {
		return nil, err
	}
	b, err := decompressBlock(typ, stored)
	if err != nil {
		return nil, r.corruption(block, int64(h.offset), err)
	}
	return b, nil
}

// readData returns data block i, decompressed and checked, from the cache
// or the file. A compressed block's stored bytes are read into *scratch,
// which is kept for the next read; a raw block is returned in the buffer
// it was read into, which then belongs to the block. The returned block is
// never modified by anyone, so entries may alias it.
func (r *Reader) readData(i int, scratch *[]byte, fill bool) ([]byte, error) {
	h := r.index[i].handle
	if b := r.cache.get(r.fileNum, h.offset); b != nil {
		return b, nil
	}
	buf, stored, typ, err := r.readStored(h, "data", *scratch)
	if err != nil {
		*scratch = buf
		return nil, err
	}
	charge := cap(buf)
	var b []byte
	if typ == blockRaw {
		b, *scratch = stored, nil
	} else {
		*scratch = buf
		if b, err = decompressBlock(typ, stored); err != nil {
			return nil, r.corruption("data", int64(h.offset), err)
		}
		charge = cap(b)
	}
	if _, err := checkBlock(b); err != nil {
		return nil, r.corruption("data", int64(h.offset), err)
	}
	if fill {
		r.cache.set(r.fileNum, h.offset, b, charge)
	}
	return b, nil
}

// entriesEnd is where the entries of a block that checkBlock accepted end.
func entriesEnd(b []byte) int {
	return len(b) - 4 - 4*int(binary.LittleEndian.Uint32(b[len(b)-4:]))
}

// findBlock returns the first block whose separator is >= key: the only
// block that can hold key's newest version, or len(r.index) if none can.
func (r *Reader) findBlock(key []byte) int {
	lo, hi := 0, len(r.index)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(r.index[m].sep, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Separators calls fn with each data block's separator, in order: every
// key of the block is <= it, and every key of later blocks is > it but
// where two blocks share a key's versions. A block holds about the same
// bytes as another, so the separators cut a file into near-equal shares.
func (r *Reader) Separators(fn func(sep []byte)) {
	for _, ix := range r.index {
		fn(ix.sep)
	}
}

// Properties returns the file's properties. The caller must not modify them.
func (r *Reader) Properties() *Properties { return &r.props }

// MayContain reports whether the file may hold a version of key. A false
// answer is certain; a true one is wrong for about 0.8% of absent keys at
// the default 10 bits per key.
func (r *Reader) MayContain(key []byte) bool { return r.filter.mayContain(key) }

// Size is the file's length in bytes.
func (r *Reader) Size() int64 { return r.size }

// Get calls fn for each version of key, newest first, until fn returns
// false. The Entry is valid only during the call (but see Iter.Entry for
// how long its Value lives). It returns a *CorruptionError if a block it
// reads is damaged, possibly after some calls of fn.
func (r *Reader) Get(key []byte, fn func(*Entry) bool) error {
	if !r.filter.mayContain(key) {
		return nil
	}
	it := r.getIters.Get().(*Iter)
	for ok := it.SeekGE(key); ok && bytes.Equal(it.entry.Key, key); ok = it.Next() {
		if !fn(&it.entry) {
			break
		}
	}
	err := it.err
	it.err, it.valid = nil, false
	r.getIters.Put(it)
	return err
}

// NewIter returns an iterator over the whole file, unpositioned.
func (r *Reader) NewIter() *Iter { return &Iter{r: r, idx: -1, fill: true} }

// NewCompactionIter is NewIter for a reader that reads the file once, as a
// compaction does: it uses blocks the cache holds but adds none, so that
// it does not evict what queries read.
func (r *Reader) NewCompactionIter() *Iter { return &Iter{r: r, idx: -1} }

// CachedShare is the share of the file's data blocks that the cache holds.
func (r *Reader) CachedShare() float64 {
	if r.cache == nil || len(r.index) == 0 {
		return 0
	}
	n := 0
	for _, e := range r.index {
		if r.cache.holds(r.fileNum, e.handle.offset) {
			n++
		}
	}
	return float64(n) / float64(len(r.index))
}

// Close closes the file and drops its blocks from the cache. Iterators must
// be closed first.
func (r *Reader) Close() error {
	r.cache.EvictFile(r.fileNum)
	return r.f.Close()
}
