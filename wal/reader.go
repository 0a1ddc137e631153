package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/cockroachdb/errors"
)

// Sentinel errors for one invalid record. Scan decides from where the record
// sits whether it is a torn tail or corruption (see the package doc).
var (
	// ErrTruncated: the record's header or payload runs past the end of the
	// segment.
	ErrTruncated = errors.New("wal: record runs past the end of the segment")
	// ErrZeroed: the header is all zeroes, as left by a write that never
	// landed over preallocated or zero-filled space.
	ErrZeroed = errors.New("wal: zeroed record header")
	// ErrBadLength: the header's length exceeds MaxPayload.
	ErrBadLength = errors.New("wal: record length out of range")
	// ErrBadChecksum: the CRC-32C does not match the record.
	ErrBadChecksum = errors.New("wal: record checksum mismatch")
	// ErrBadPayload: the checksum matched but the payload does not parse.
	ErrBadPayload = errors.New("wal: malformed record payload")
	// ErrCorrupt marks an invalid record that is not a torn tail. Recovery
	// stops at it; see CorruptionError for where.
	ErrCorrupt = errors.New("wal: corruption")
)

// CorruptionError names the record recovery refused to read past.
type CorruptionError struct {
	Segment uint64
	Offset  int64
	Err     error
}

func (e *CorruptionError) Error() string {
	return fmt.Sprintf("wal: corruption in segment %s at offset %d: %v",
		SegmentName(e.Segment), e.Offset, e.Err)
}

func (e *CorruptionError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// Reader reads the records of one segment in order, batch by batch.
type Reader struct {
	data       []byte
	seg        uint64
	off        int64 // where the next record (or batch header) starts
	batchStart int64 // where the current batch starts
	batchEnd   int64 // where the current batch ends
	rec        Record
}

// NewReader reads records from the complete contents of segment seg.
func NewReader(data []byte, seg uint64) *Reader { return &Reader{data: data, seg: seg} }

// Offset is where the next record starts, or where the invalid record or
// batch header that Next just reported starts.
func (r *Reader) Offset() int64 { return r.off }

// BatchStart is where the batch holding the current (or invalid) record
// starts.
func (r *Reader) BatchStart() int64 { return r.batchStart }

// Next returns the next record. It returns io.EOF exactly at the end of the
// segment, and one of the sentinel errors above for an invalid batch header
// or record, in which case Offset stays at its start.
func (r *Reader) Next() (*Record, error) {
	if r.off == r.batchEnd {
		if r.off == int64(len(r.data)) {
			return nil, io.EOF
		}
		n, _, err := parseBatchHeader(r.data, r.seg, r.off)
		r.batchStart = r.off
		if err != nil {
			return nil, err
		}
		r.off += batchHeaderSize
		r.batchEnd = r.off + int64(n)
		// Check every record before returning any: a batch counts whole
		// or not at all, so no caller may act on the front of a batch
		// whose back turns out bad.
		if bad, err := r.validateBatch(); err != nil {
			r.off = bad
			return nil, err
		}
	}
	kind, payload, err := parseFrame(r.data[r.off:r.batchEnd])
	if err != nil {
		return nil, err
	}
	if err := decodePayload(kind, payload, &r.rec); err != nil {
		return nil, err
	}
	r.off += int64(headerSize + len(payload))
	return &r.rec, nil
}

// validateBatch parses every record of the current batch, returning the
// offset and error of the first invalid one.
func (r *Reader) validateBatch() (int64, error) {
	var rec Record
	for off := r.off; off < r.batchEnd; {
		kind, payload, err := parseFrame(r.data[off:r.batchEnd])
		if err == nil {
			err = decodePayload(kind, payload, &rec)
		}
		if err != nil {
			return off, err
		}
		off += int64(headerSize + len(payload))
	}
	return 0, nil
}

// parseFrame validates the record frame at the start of b.
func parseFrame(b []byte) (Kind, []byte, error) {
	if len(b) < headerSize {
		if allZero(b) {
			return 0, nil, ErrZeroed
		}
		return 0, nil, ErrTruncated
	}
	h := b[:headerSize]
	if allZero(h) {
		return 0, nil, ErrZeroed
	}
	n := binary.LittleEndian.Uint32(h[4:8])
	if n > MaxPayload {
		return 0, nil, ErrBadLength
	}
	end := headerSize + int(n)
	if end > len(b) {
		return 0, nil, ErrTruncated
	}
	if crc32.Checksum(b[4:end], castagnoli) != binary.LittleEndian.Uint32(h[0:4]) {
		return 0, nil, ErrBadChecksum
	}
	kind := Kind(h[8])
	if kind < KindEntry || kind > KindCheckpoint {
		return 0, nil, errors.Wrapf(ErrBadPayload, "unknown record kind %d", kind)
	}
	return kind, b[headerSize:end], nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
