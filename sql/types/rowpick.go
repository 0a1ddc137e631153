package types

import (
	"encoding/binary"
	"math"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// A RowPicker reads chosen columns of rows made by EncodeRow without
// boxing them: integers and floats land in Picked's slots as int64 and
// float64, and the columns between them are skipped. A scan that
// aggregates a column or two of a wide table pays for those alone.
type RowPicker struct {
	ts []T
	// slots maps each column up to the last chosen one to its slot in
	// Picked, or -1 for a column to skip.
	slots []int
}

// Picked is one row's chosen columns, by slot. A NULL column's value is
// zero and Null is set.
type Picked struct {
	Ints   []int64
	Floats []float64
	Null   []bool
}

// Pickable reports whether a RowPicker can read a column of type t: the
// integer types, float8 and bool (read as 0 or 1 into Ints).
func Pickable(t T) bool {
	switch t.Oid {
	case OidInt2, OidInt4, OidInt8, OidFloat8, OidBool:
		return true
	}
	return false
}

// NewRowPicker reads the columns cols (indexes into ts, each Pickable) of
// rows whose column types are ts into slots 0, 1, ... in the order given.
func NewRowPicker(ts []T, cols []int) *RowPicker {
	last := -1
	for _, c := range cols {
		last = max(last, c)
	}
	p := &RowPicker{ts: ts, slots: make([]int, last+1)}
	for i := range p.slots {
		p.slots[i] = -1
	}
	for s, c := range cols {
		p.slots[c] = s
	}
	return p
}

// NewPicked is a Picked with room for n slots.
func NewPicked(n int) *Picked {
	return &Picked{Ints: make([]int64, n), Floats: make([]float64, n), Null: make([]bool, n)}
}

// Pick decodes row b's chosen columns into dst. Columns the row was
// written without (it predates ADD COLUMN) are NULL, as DecodeRow has them.
func (p *RowPicker) Pick(b []byte, dst *Picked) error {
	r := rowReader{b: b}
	n, ok := r.uvarint()
	if !ok || n > uint64(len(p.ts)) {
		return errRow(len(p.ts))
	}
	bitmap, ok := r.next((n + 7) / 8)
	if !ok {
		return errRow(len(p.ts))
	}
	for i, slot := range p.slots {
		null := uint64(i) >= n || bitmap[i/8]&(1<<(i%8)) != 0
		if slot < 0 {
			if !null && !r.skip(p.ts[i]) {
				return errColumn(i, p.ts[i])
			}
			continue
		}
		dst.Null[slot] = null
		if null {
			dst.Ints[slot], dst.Floats[slot] = 0, 0
			continue
		}
		switch p.ts[i].Oid {
		case OidFloat8:
			b, ok := r.next(8)
			if !ok {
				return errColumn(i, p.ts[i])
			}
			dst.Floats[slot] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case OidBool:
			b, ok := r.next(1)
			if !ok {
				return errColumn(i, p.ts[i])
			}
			dst.Ints[slot] = int64(b[0] & 1)
		default:
			v, ok := r.varint()
			if !ok {
				return errColumn(i, p.ts[i])
			}
			dst.Ints[slot] = v
		}
	}
	return nil
}

func errColumn(i int, t T) error {
	return pgerr.New(pgerr.DataCorrupted, "invalid row encoding for column %d of type %s", i+1, t)
}

// skip moves past one non-NULL value of type t. The common types are
// skipped by their length; the rest are decoded and dropped.
func (r *rowReader) skip(t T) bool {
	switch t.Oid {
	case OidBool:
		_, ok := r.next(1)
		return ok
	case OidInt2, OidInt4, OidInt8, OidOid, OidTime, OidDate, OidTimestamp, OidTimestamptz:
		_, ok := r.varint()
		return ok
	case OidFloat4:
		_, ok := r.next(4)
		return ok
	case OidFloat8:
		_, ok := r.next(8)
		return ok
	case OidUUID:
		_, ok := r.next(16)
		return ok
	case OidText, OidVarchar, OidBpchar, OidName, OidBytea, OidJSON, OidJSONB, OidCitext:
		n, ok := r.uvarint()
		if !ok {
			return false
		}
		_, ok = r.next(n)
		return ok
	}
	_, ok := r.value(t)
	return ok
}
