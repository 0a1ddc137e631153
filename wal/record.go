package wal

import (
	"encoding/binary"
	"hash/crc32"
	"strconv"

	"github.com/cockroachdb/errors"
)

// Kind says what a record means.
type Kind uint8

// The record kinds. Zero is never written, so a zeroed header is never valid.
const (
	KindEntry      Kind = 1
	KindCommit     Kind = 2
	KindAbort      Kind = 3
	KindCheckpoint Kind = 4
)

func (k Kind) String() string {
	switch k {
	case KindEntry:
		return "entry"
	case KindCommit:
		return "commit"
	case KindAbort:
		return "abort"
	case KindCheckpoint:
		return "checkpoint"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

const (
	headerSize = 9
	// MaxPayload bounds one record. A larger length in a header is corruption
	// (or a torn tail), never an allocation request.
	MaxPayload = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is one decoded log record. Key and Value alias the reader's buffer
// and are valid only until the next call to Next.
type Record struct {
	Kind Kind
	// Txn is the writing transaction (entry, commit, abort).
	Txn uint64
	// Entry fields.
	Key       []byte
	Value     []byte
	Tombstone bool
	// Commit fields. CommitTS also carries the last commit ts of a checkpoint.
	CommitTS uint64
	Subtxns  []uint64
	// Checkpoint fields.
	NextTxn uint64
}

// appendFrame appends one framed record whose payload is produced by fill.
func appendFrame(buf []byte, kind Kind, fill func([]byte) []byte) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, headerSize)...)
	buf = fill(buf)
	payloadLen := len(buf) - start - headerSize
	h := buf[start : start+headerSize]
	binary.LittleEndian.PutUint32(h[4:8], uint32(payloadLen))
	h[8] = byte(kind)
	binary.LittleEndian.PutUint32(h[0:4], crc32.Checksum(buf[start+4:], castagnoli))
	return buf
}

// AppendEntry appends an entry record: txn wrote value (or a tombstone) at key.
func AppendEntry(buf []byte, txn uint64, key, value []byte, tombstone bool) []byte {
	return appendFrame(buf, KindEntry, func(b []byte) []byte {
		b = binary.AppendUvarint(b, txn)
		var flags byte
		if tombstone {
			flags = 1
		}
		b = append(b, flags)
		b = binary.AppendUvarint(b, uint64(len(key)))
		b = append(b, key...)
		return append(b, value...)
	})
}

// AppendCommit appends the commit record of txn (and of the subtransactions
// that became part of it) with its commit timestamp.
func AppendCommit(buf []byte, txn, ts uint64, subtxns []uint64) []byte {
	return appendFrame(buf, KindCommit, func(b []byte) []byte {
		b = binary.AppendUvarint(b, txn)
		b = binary.AppendUvarint(b, ts)
		b = binary.AppendUvarint(b, uint64(len(subtxns)))
		for _, s := range subtxns {
			b = binary.AppendUvarint(b, s)
		}
		return b
	})
}

// AppendAbort appends an abort record. It is advisory: a transaction without
// a commit record does not count whether or not its abort record survives.
func AppendAbort(buf []byte, txn uint64) []byte {
	return appendFrame(buf, KindAbort, func(b []byte) []byte {
		return binary.AppendUvarint(b, txn)
	})
}

// AppendCheckpoint appends a checkpoint record carrying the counters that
// recovery must never move backwards.
func AppendCheckpoint(buf []byte, nextTxn, lastCommitTS uint64) []byte {
	return appendFrame(buf, KindCheckpoint, func(b []byte) []byte {
		b = binary.AppendUvarint(b, nextTxn)
		return binary.AppendUvarint(b, lastCommitTS)
	})
}

// decodePayload fills r from a payload whose frame checksum already matched.
// A payload that does not parse is corruption of a kind the checksum cannot
// catch: a bug in the writer.
func decodePayload(kind Kind, p []byte, r *Record) error {
	*r = Record{Kind: kind, Subtxns: r.Subtxns[:0]}
	d := decoder{p: p}
	switch kind {
	case KindEntry:
		r.Txn = d.uvarint()
		flags := d.byte()
		r.Tombstone = flags&1 != 0
		r.Key = d.bytes(d.uvarint())
		r.Value = d.rest()
		if r.Tombstone {
			r.Value = nil
		}
	case KindCommit:
		r.Txn = d.uvarint()
		r.CommitTS = d.uvarint()
		n := d.uvarint()
		if n > uint64(len(p)) {
			return ErrBadPayload
		}
		for range n {
			r.Subtxns = append(r.Subtxns, d.uvarint())
		}
	case KindAbort:
		r.Txn = d.uvarint()
	case KindCheckpoint:
		r.NextTxn = d.uvarint()
		r.CommitTS = d.uvarint()
	default:
		return errors.Wrapf(ErrBadPayload, "unknown record kind %d", kind)
	}
	if d.bad || (kind != KindEntry && len(d.p) != 0) {
		return errors.Wrapf(ErrBadPayload, "malformed %s record", kind)
	}
	return nil
}

type decoder struct {
	p   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.p)
	if n <= 0 {
		d.bad = true
		d.p = nil
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.p) == 0 {
		d.bad = true
		return 0
	}
	b := d.p[0]
	d.p = d.p[1:]
	return b
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.p)) {
		d.bad = true
		d.p = nil
		return nil
	}
	b := d.p[:n:n]
	d.p = d.p[n:]
	return b
}

func (d *decoder) rest() []byte {
	b := d.p
	d.p = nil
	return b
}
