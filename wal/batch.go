package wal

import (
	"encoding/binary"
	"hash/crc32"
)

// A batch is what the flusher writes with one Write: a header, then whole
// records.
//
//	 0         4         8                   16
//	+---------+---------+-------------------+------------------+
//	| CRC-32C | length  | synced            | records (length) |
//	+---------+---------+-------------------+------------------+
//
// The CRC covers length and synced and, without storing them, the segment
// number and the header's own offset, so a header validates only where the
// flusher put it: a copy inside a value, or a stale one, never does. synced
// is how far into the segment fsync had made the log durable when the batch
// was written. Recovery uses it to tell a torn tail from corruption: a bad
// batch followed by a valid batch whose synced lies beyond it was covered
// by a completed fsync, so it is corruption; otherwise the bad batch and
// everything after it were never acknowledged, and it is a torn tail, even
// if the disk wrote some of its later pages before its earlier ones.
const batchHeaderSize = 16

// MaxBatch bounds a batch's length field; a larger one is not a header.
const MaxBatch = 1 << 30

func batchCRC(seg uint64, off int64, h []byte) uint32 {
	var salt [16]byte
	binary.LittleEndian.PutUint64(salt[0:8], seg)
	binary.LittleEndian.PutUint64(salt[8:16], uint64(off))
	c := crc32.Update(0, castagnoli, salt[:])
	return crc32.Update(c, castagnoli, h[4:batchHeaderSize])
}

// putBatchHeader fills the header reserved at the start of b, a batch that
// will be written at offset off of segment seg.
func putBatchHeader(b []byte, seg uint64, off, synced int64) {
	h := b[:batchHeaderSize]
	binary.LittleEndian.PutUint32(h[4:8], uint32(len(b)-batchHeaderSize))
	binary.LittleEndian.PutUint64(h[8:16], uint64(synced))
	binary.LittleEndian.PutUint32(h[0:4], batchCRC(seg, off, h))
}

// parseBatchHeader returns the length and synced fields of a valid batch
// header at offset off of data, which must hold the whole batch.
func parseBatchHeader(data []byte, seg uint64, off int64) (length int, synced int64, err error) {
	b := data[off:]
	if len(b) < batchHeaderSize {
		if allZero(b) {
			return 0, 0, ErrZeroed
		}
		return 0, 0, ErrTruncated
	}
	h := b[:batchHeaderSize]
	if allZero(h) {
		return 0, 0, ErrZeroed
	}
	if binary.LittleEndian.Uint32(h[0:4]) != batchCRC(seg, off, h) {
		return 0, 0, ErrBadChecksum
	}
	n := binary.LittleEndian.Uint32(h[4:8])
	if n == 0 || n > MaxBatch {
		return 0, 0, ErrBadLength
	}
	if int64(len(b)) < batchHeaderSize+int64(n) {
		return 0, 0, ErrTruncated
	}
	return int(n), int64(binary.LittleEndian.Uint64(h[8:16])), nil
}

// syncedBatchAfter reports whether a valid batch header that fsync had
// already passed bad (synced > bad) starts anywhere after bad: proof that
// the bad batch was durable, so its damage is corruption, not a torn
// write. Each candidate offset costs one CRC over a fixed 24 bytes, so the
// search is linear in the tail's size.
func syncedBatchAfter(data []byte, seg uint64, bad int64) bool {
	for i := bad + 1; i+batchHeaderSize <= int64(len(data)); {
		// A header's length is never zero, so no header is all zeroes: a
		// run of zeroes can hide only a header that starts in its last
		// batchHeaderSize-1 bytes.
		nz := i + int64(indexNonZero(data[i:]))
		if nz >= int64(len(data)) {
			return false
		}
		for k := max(i, nz-(batchHeaderSize-1)); k <= nz && k+batchHeaderSize <= int64(len(data)); k++ {
			h := data[k : k+batchHeaderSize]
			if binary.LittleEndian.Uint32(h[0:4]) == batchCRC(seg, k, h) &&
				int64(binary.LittleEndian.Uint64(h[8:16])) > bad {
				return true
			}
		}
		i = nz + 1
	}
	return false
}

// indexNonZero returns the index of the first non-zero byte of b, or len(b).
func indexNonZero(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] != 0 {
			return i
		}
	}
	return len(b)
}
