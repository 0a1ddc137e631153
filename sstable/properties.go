package sstable

import (
	"encoding/binary"

	"github.com/cockroachdb/errors"
)

// Properties describes a whole file. The Writer computes it, the properties
// block stores it, and Open reads it back.
type Properties struct {
	NumEntries, NumValues, NumTombstones, NumLocks uint64
	// NumUnresolved counts entries that carry a Txn instead of a TS.
	NumUnresolved uint64
	// SmallestKey and LargestKey are user keys; both are nil in an empty file.
	SmallestKey, LargestKey []byte
	SmallestSeq, LargestSeq uint64
	// MinTS and MaxTS range over resolved entries; both are 0 if there are
	// none.
	MinTS, MaxTS uint64
	// UnresolvedTxns holds the distinct Txn ids of unresolved entries, sorted:
	// the transactions whose status must outlive this file.
	UnresolvedTxns []uint64
	RawKeyBytes    uint64
	RawValueBytes  uint64
	NumDataBlocks  uint64
	// Stored sizes, block trailers included.
	DataBytes, IndexBytes, FilterBytes uint64
}

// encode lays the properties out as uvarints in a fixed order; a new field
// needs a new format version.
func (p *Properties) encode() []byte {
	var b []byte
	for _, v := range []uint64{p.NumEntries, p.NumValues, p.NumTombstones, p.NumLocks,
		p.NumUnresolved, p.SmallestSeq, p.LargestSeq, p.MinTS, p.MaxTS,
		p.RawKeyBytes, p.RawValueBytes, p.NumDataBlocks, p.DataBytes, p.IndexBytes,
		p.FilterBytes} {
		b = binary.AppendUvarint(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(p.SmallestKey)))
	b = append(b, p.SmallestKey...)
	b = binary.AppendUvarint(b, uint64(len(p.LargestKey)))
	b = append(b, p.LargestKey...)
	b = binary.AppendUvarint(b, uint64(len(p.UnresolvedTxns)))
	var prev uint64
	for _, t := range p.UnresolvedTxns {
		b = binary.AppendUvarint(b, t-prev)
		prev = t
	}
	return b
}

var errBadProperties = errors.New("malformed properties block")

func decodeProperties(b []byte) (Properties, error) {
	var p Properties
	d := decoder{p: b}
	for _, v := range []*uint64{&p.NumEntries, &p.NumValues, &p.NumTombstones, &p.NumLocks,
		&p.NumUnresolved, &p.SmallestSeq, &p.LargestSeq, &p.MinTS, &p.MaxTS,
		&p.RawKeyBytes, &p.RawValueBytes, &p.NumDataBlocks, &p.DataBytes, &p.IndexBytes,
		&p.FilterBytes} {
		*v = d.uvarint()
	}
	p.SmallestKey = d.bytes(d.uvarint())
	p.LargestKey = d.bytes(d.uvarint())
	n := d.uvarint()
	if n > uint64(len(d.p)) {
		return p, errBadProperties
	}
	var t uint64
	for range n {
		delta := d.uvarint()
		if delta == 0 { // ids are positive and distinct
			d.bad = true
		}
		t += delta
		p.UnresolvedTxns = append(p.UnresolvedTxns, t)
	}
	switch {
	case d.bad || len(d.p) != 0:
		return p, errBadProperties
	case p.NumValues+p.NumTombstones+p.NumLocks != p.NumEntries,
		p.NumUnresolved > p.NumEntries, uint64(len(p.UnresolvedTxns)) > p.NumUnresolved:
		return p, errors.Wrap(errBadProperties, "inconsistent entry counts")
	}
	return p, nil
}

// decoder reads uvarints and length-prefixed bytes; any failure sets bad.
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

// prefixed reads uvarint-length-prefixed bytes into a copy of their own,
// empty but not nil if the length is 0; nil if they do not fit.
func (d *decoder) prefixed() []byte {
	b := d.bytes(d.uvarint())
	if d.bad {
		return nil
	}
	return append([]byte{}, b...)
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.p)) {
		d.bad = true
		d.p = nil
		return nil
	}
	if n == 0 {
		return nil
	}
	b := d.p[:n:n]
	d.p = d.p[n:]
	return b
}
