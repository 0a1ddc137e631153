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

// Reader reads the records of one segment in order.
type Reader struct {
	data []byte
	off  int64
	rec  Record
}

// NewReader reads records from the complete contents of one segment.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// Offset is where the next record starts, or where the invalid record that
// Next just reported starts.
func (r *Reader) Offset() int64 { return r.off }

// Next returns the next record. It returns io.EOF exactly at the end of the
// segment, and one of the sentinel errors above for an invalid record, in
// which case Offset stays at the start of that record.
func (r *Reader) Next() (*Record, error) {
	rest := r.data[r.off:]
	if len(rest) == 0 {
		return nil, io.EOF
	}
	kind, payload, err := parseFrame(rest)
	if err != nil {
		return nil, err
	}
	if err := decodePayload(kind, payload, &r.rec); err != nil {
		return nil, err
	}
	r.off += int64(headerSize + len(payload))
	return &r.rec, nil
}

// parseFrame validates the frame at the start of b.
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

// validFrameAfter reports whether any offset in b starts a frame with a
// matching checksum. Scan uses it to tell a torn tail (nothing valid follows
// the bad record) from corruption (valid records follow it).
func validFrameAfter(b []byte) bool {
	for i := 0; i < len(b); {
		// No frame's header is all zeroes, so a run of zeroes (a prepared
		// segment's unwritten space) can hide only a frame that starts in
		// its last headerSize-1 bytes.
		nz := i + indexNonZero(b[i:])
		if nz >= len(b) {
			return false
		}
		for k := max(i, nz-(headerSize-1)); k <= nz; k++ {
			if _, _, err := parseFrame(b[k:]); err == nil {
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

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
