package sstable

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/cockroachdb/errors"
)

// A data block holds entries in file order, each key prefix-compressed
// against the one before it, and ends with its restart array:
//
//	entry 0 | entry 1 | ... | entry n-1 | restart[0] ... restart[r-1] | r
//
// restart[i] and r are little-endian uint32s; restart[i] is the offset of an
// entry whose key is stored whole (shared = 0). See doc.go for the entry.

// entryOverhead estimates the bytes an entry adds beyond its key and value,
// to decide whether it still fits in the block being built.
const entryOverhead = 16

const (
	metaKindMask   = 0x03
	metaUnresolved = 0x04
)

// errBadEntry marks an entry or restart array that does not parse although
// its block's checksum matched.
var errBadEntry = errors.New("malformed block contents")

// blockWriter builds one data block.
type blockWriter struct {
	restartInterval int
	buf             []byte
	restarts        []uint32
	counter         int // entries since the last restart
	lastKey         []byte
}

func (w *blockWriter) empty() bool { return len(w.restarts) == 0 }

// size is the block's length if it were finished now.
func (w *blockWriter) size() int { return len(w.buf) + 4*len(w.restarts) + 4 }

func (w *blockWriter) add(e *Entry) {
	// shared is the longest prefix common with the last key, or 0 at a
	// restart. Readers rely on its being the longest: a shorter one with
	// a delta marks a new key (see blockIter.decodeKey).
	shared := 0
	if w.empty() || w.counter >= w.restartInterval {
		w.restarts = append(w.restarts, uint32(len(w.buf)))
		w.counter = 0
	} else {
		shared = commonPrefix(w.lastKey, e.Key)
	}
	w.counter++
	// The fields after the key go to a scratch area first, so that the
	// header can say how long they are and a seek can skip them.
	var f [2*binary.MaxVarintLen64 + binary.MaxVarintLen32 + 2]byte
	fb := binary.AppendUvarint(f[:0], e.Seq)
	meta := byte(e.Kind)
	if e.Txn != 0 {
		meta |= metaUnresolved
	}
	fb = append(fb, meta, e.Flags)
	if e.Txn != 0 {
		fb = binary.AppendUvarint(fb, e.Txn)
		fb = binary.AppendUvarint(fb, uint64(e.Cmd))
	} else {
		fb = binary.AppendUvarint(fb, e.TS)
	}
	b := w.buf
	b = binary.AppendUvarint(b, uint64(shared))
	b = binary.AppendUvarint(b, uint64(len(e.Key)-shared))
	b = binary.AppendUvarint(b, uint64(len(fb)+len(e.Value)))
	b = append(b, e.Key[shared:]...)
	b = append(b, fb...)
	w.buf = append(b, e.Value...)
	w.lastKey = append(w.lastKey[:0], e.Key...)
}

// finish appends the restart array and returns the block. It stays valid
// until reset.
func (w *blockWriter) finish() []byte {
	for _, r := range w.restarts {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, r)
	}
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(len(w.restarts)))
	return w.buf
}

func (w *blockWriter) reset() {
	w.buf = w.buf[:0]
	w.restarts = w.restarts[:0]
	w.counter = 0
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// checkBlock validates a data block's restart array once, when it is read
// from disk, so that iterators over the (possibly cached) block can trust
// every restart offset. It returns the length of the entries region.
func checkBlock(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, errors.Wrap(errBadEntry, "block shorter than its restart count")
	}
	n := uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	if n == 0 || n > uint64(len(b)-4)/4 {
		return 0, errors.Wrapf(errBadEntry, "restart count %d out of range", n)
	}
	end := len(b) - 4 - 4*int(n)
	prev := -1
	for i := range int(n) {
		r := int(binary.LittleEndian.Uint32(b[end+4*i:]))
		if r <= prev || r >= end || (i == 0 && r != 0) {
			return 0, errors.Wrapf(errBadEntry, "restart %d at offset %d out of order", i, r)
		}
		prev = r
	}
	return end, nil
}

// blockIter walks one data block that checkBlock accepted. It decodes into
// e, whose Key is the iterator's own buffer and whose Value aliases the block.
type blockIter struct {
	data        []byte // the entries region
	restarts    []byte // the restart offsets, 4 bytes each
	numRestarts int
	offset      int // start of the current entry; len(data) past the end
	restAt      int // start of the current entry's fields after its key
	next        int // start of the entry after it
	key         []byte
	step        KeyStep // how the last decodeKey changed key
	e           *Entry
	err         error
	// While moving backwards, back holds the entries of the current restart
	// run that precede the current one, and backKeys their keys, because a
	// prefix-compressed key can only be rebuilt going forwards.
	back     []backEntry
	backKeys []byte
}

type backEntry struct {
	offset, keyEnd int
}

func (it *blockIter) init(block []byte, end int, e *Entry) {
	n := (len(block) - 4 - end) / 4
	*it = blockIter{
		data:        block[:end],
		restarts:    block[end : end+4*n],
		numRestarts: n,
		offset:      end,
		next:        end,
		key:         it.key[:0],
		e:           e,
		back:        it.back[:0],
		backKeys:    it.backKeys[:0],
	}
}

func (it *blockIter) restart(i int) int {
	return int(binary.LittleEndian.Uint32(it.restarts[4*i:]))
}

// uvarint decodes the uvarint at it.data[p:]; it returns p < 0 if there is
// none. The one-byte case is inlined into the callers.
func (it *blockIter) uvarint(p int) (uint64, int) {
	if p < len(it.data) && it.data[p] < 0x80 {
		return uint64(it.data[p]), p + 1
	}
	return it.uvarintSlow(p)
}

// uvarintSlow decodes a uvarint of more than one byte, as the sequence
// number and timestamp of every entry are, and a scan decodes two per
// entry. With ten bytes left in the block it reads eight as one word and
// gathers the 7-bit groups up to the first byte without a continuation
// bit, with no loop; nearer the end it goes byte by byte.
func (it *blockIter) uvarintSlow(p int) (uint64, int) {
	d := it.data
	if p >= 0 && p+10 <= len(d) {
		w := binary.LittleEndian.Uint64(d[p:])
		stop := ^w & 0x8080808080808080
		n := 8
		if stop != 0 {
			n = bits.TrailingZeros64(stop)/8 + 1
			w &= 1<<(8*n) - 1 // 1<<64 is 0: all of w
		}
		x := w&0x7f | w>>1&(0x7f<<7) | w>>2&(0x7f<<14) | w>>3&(0x7f<<21) |
			w>>4&(0x7f<<28) | w>>5&(0x7f<<35) | w>>6&(0x7f<<42) | w>>7&(0x7f<<49)
		if stop != 0 {
			return x, p + n
		}
		// Timestamps and transaction ids use the top bits: nine or ten bytes.
		if b := d[p+8]; b < 0x80 {
			return x | uint64(b)<<56, p + 9
		} else if c := d[p+9]; c <= 1 {
			return x | uint64(b&0x7f)<<56 | uint64(c)<<63, p + 10
		}
		return 0, -1
	}
	var x uint64
	for i, s := p, uint(0); i < len(d) && s < 64; i, s = i+1, s+7 {
		b := d[i]
		if b < 0x80 {
			if s == 63 && b > 1 {
				return 0, -1 // overflows 64 bits
			}
			return x | uint64(b)<<s, i + 1
		}
		x |= uint64(b&0x7f) << s
	}
	return 0, -1
}

// decodeHeader parses the header of the entry at p: how much of the
// previous key it shares, and where its key delta and its fields start and
// end. ok is false if the header does not fit the block.
func (it *blockIter) decodeHeader(p int) (shared, keyAt, restAt, next int, ok bool) {
	s, p := it.uvarint(p)
	if p < 0 {
		return
	}
	u, p := it.uvarint(p)
	if p < 0 {
		return
	}
	r, p := it.uvarint(p)
	if p < 0 || u > uint64(len(it.data)-p) || r > uint64(len(it.data)-p)-u || s > uint64(len(it.data)) {
		return
	}
	return int(s), p, p + int(u), p + int(u) + int(r), true
}

// decodeKey rebuilds the key of the entry at p, whose predecessor's key is
// in it.key, and makes it current without decoding its fields.
func (it *blockIter) decodeKey(p int) bool {
	shared, keyAt, restAt, next, ok := it.decodeHeader(p)
	if !ok || shared > len(it.key) {
		return it.fail(p)
	}
	// With the longest common prefix stored, the whole previous key and
	// no delta is the same key, and a prefix of it with a delta or without
	// is a different one. A restart stores the key whole: unknown.
	switch {
	case shared == len(it.key) && restAt == keyAt:
		it.step = StepSameKey
	case shared == 0:
		it.step = StepUnknown
	default:
		it.step = StepNewKey
	}
	it.key = append(it.key[:shared], it.data[keyAt:restAt]...)
	it.offset, it.restAt, it.next = p, restAt, next
	return true
}

// decodeRest decodes the current entry's fields into it.e.
func (it *blockIter) decodeRest() bool {
	e := it.e
	p, end := it.restAt, it.next
	seq, p := it.uvarint(p)
	if p < 0 || p+2 > end {
		return it.fail(it.offset)
	}
	meta, flags := it.data[p], it.data[p+1]
	p += 2
	if meta&^(metaKindMask|metaUnresolved) != 0 || meta&metaKindMask == 0 {
		return it.fail(it.offset)
	}
	e.Seq, e.Kind, e.Flags = seq, Kind(meta&metaKindMask), flags
	if meta&metaUnresolved != 0 {
		var cmd uint64
		e.TS = 0
		if e.Txn, p = it.uvarint(p); p < 0 {
			return it.fail(it.offset)
		}
		if cmd, p = it.uvarint(p); p < 0 || cmd > 1<<32-1 || e.Txn == 0 {
			return it.fail(it.offset)
		}
		e.Cmd = uint32(cmd)
	} else {
		e.Txn, e.Cmd = 0, 0
		if e.TS, p = it.uvarint(p); p < 0 || e.TS == 0 {
			return it.fail(it.offset)
		}
	}
	if p > end || (p < end && e.Kind != KindValue) {
		return it.fail(it.offset)
	}
	e.Value = nil
	if p < end {
		e.Value = it.data[p:end:end]
	}
	e.Key = it.key
	e.Step = StepUnknown
	return true
}

// decodeAt makes the entry at p current and decodes all of it.
func (it *blockIter) decodeAt(p int) bool {
	return it.decodeKey(p) && it.decodeRest()
}

func (it *blockIter) fail(p int) bool {
	it.err = errors.Wrapf(errBadEntry, "entry at block offset %d", p)
	it.offset, it.next = len(it.data), len(it.data)
	return false
}

// restartKey returns the whole key stored at restart i.
func (it *blockIter) restartKey(i int) ([]byte, bool) {
	p := it.restart(i)
	shared, keyAt, restAt, _, ok := it.decodeHeader(p)
	if !ok || shared != 0 {
		it.fail(p)
		return nil, false
	}
	return it.data[keyAt:restAt], true
}

func (it *blockIter) first() bool {
	it.back = it.back[:0]
	it.key = it.key[:0]
	if len(it.data) == 0 {
		return false
	}
	return it.decodeAt(0)
}

func (it *blockIter) nextEntry() bool {
	it.back = it.back[:0]
	if it.next >= len(it.data) {
		it.offset = len(it.data)
		return false
	}
	if !it.decodeAt(it.next) {
		return false
	}
	it.e.Step = it.step
	return true
}

// seekGE positions at the first entry whose key is >= key.
func (it *blockIter) seekGE(key []byte) bool {
	it.back = it.back[:0]
	// Find the last restart whose key is < key; the answer is after it.
	lo, hi := 0, it.numRestarts
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		k, ok := it.restartKey(m)
		if !ok {
			return false
		}
		if bytes.Compare(k, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	p := 0
	if lo > 0 {
		p = it.restart(lo - 1)
	}
	it.key = it.key[:0]
	for p < len(it.data) {
		if !it.decodeKey(p) {
			return false
		}
		if bytes.Compare(it.key, key) >= 0 {
			return it.decodeRest()
		}
		p = it.next
	}
	it.offset = len(it.data)
	return false
}

// seekLT positions at the last entry whose key is < key.
func (it *blockIter) seekLT(key []byte) bool {
	if !it.seekGE(key) && it.err != nil {
		return false
	}
	return it.prev()
}

func (it *blockIter) last() bool {
	it.back = it.back[:0]
	it.offset = len(it.data)
	return it.prev()
}

// prev moves to the entry before it.offset (which may be the end).
func (it *blockIter) prev() bool {
	if len(it.back) == 0 {
		if it.offset == 0 {
			return false
		}
		// Rebuild the keys of the run from the restart before it.offset.
		lo, hi := 0, it.numRestarts
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if it.restart(m) < it.offset {
				lo = m + 1
			} else {
				hi = m
			}
		}
		stop := it.offset
		it.key = it.key[:0]
		it.backKeys = it.backKeys[:0]
		for p := it.restart(lo - 1); p < stop; p = it.next {
			if !it.decodeKey(p) {
				return false
			}
			it.backKeys = append(it.backKeys, it.key...)
			it.back = append(it.back, backEntry{offset: p, keyEnd: len(it.backKeys)})
		}
	}
	b := it.back[len(it.back)-1]
	it.back = it.back[:len(it.back)-1]
	keyStart := 0
	if len(it.back) > 0 {
		keyStart = it.back[len(it.back)-1].keyEnd
	}
	_, _, restAt, next, _ := it.decodeHeader(b.offset)
	it.key = append(it.key[:0], it.backKeys[keyStart:b.keyEnd]...)
	it.offset, it.restAt, it.next = b.offset, restAt, next
	return it.decodeRest()
}
