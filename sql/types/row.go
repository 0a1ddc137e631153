package types

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// Row encoding. A row is stored compactly and decoded with the table's
// column types; it need not sort, so integers are zigzag varints and
// numerics keep their exact coefficient and scale:
//
//	+----------------+-------------------------+----------------------------+
//	| ncols uvarint  | NULL bitmap, ncols bits | each non-NULL column value |
//	+----------------+-------------------------+----------------------------+
//
// Column values:
//
//	bool                      one byte
//	int2/4/8, oid             varint
//	date                      varint days since 2000-01-01
//	timestamp, timestamptz    varint microseconds since 2000-01-01
//	float4                    4 bytes of float32 bits; float8: 8 bytes
//	numeric                   form byte; finite: varint exponent, uvarint length, coefficient bytes
//	strings, bytea            uvarint length, bytes
//	interval                  varint months, varint days, varint microseconds
//	uuid                      16 bytes
//	inet, cidr                family byte (4 or 6), prefix length, 4 or 16 address bytes
//	macaddr, macaddr8         6 or 8 bytes
//	arrays                    uvarint length, NULL bitmap, element values
//
// The column count comes first so that a row written before ALTER TABLE
// ADD COLUMN still decodes: its missing trailing columns are NULL.

// Numeric forms in a row.
const (
	rowNumPos = iota
	rowNumNeg
	rowNumNaN
	rowNumPosInf
	rowNumNegInf
)

// EncodeRow appends the encoding of vals, whose types are ts.
func EncodeRow(buf []byte, ts []T, vals []any) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(vals)))
	return appendRowValues(buf, ts, vals)
}

// appendRowValues writes a NULL bitmap and the non-NULL values; ts may be a
// single type for all values (array elements).
func appendRowValues(buf []byte, ts []T, vals []any) []byte {
	at := len(buf)
	buf = append(buf, make([]byte, (len(vals)+7)/8)...)
	for i, v := range vals {
		if v == nil {
			buf[at+i/8] |= 1 << (i % 8)
			continue
		}
		buf = appendRowValue(buf, ts[min(i, len(ts)-1)], v)
	}
	return buf
}

func appendRowValue(buf []byte, t T, v any) []byte {
	if elem, ok := t.Elem(); ok {
		vals := v.([]any)
		buf = binary.AppendUvarint(buf, uint64(len(vals)))
		return appendRowValues(buf, []T{elem}, vals)
	}
	if IsEnum(t.Oid) {
		e := v.(Enum)
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(e.Sort))
		buf = binary.AppendUvarint(buf, uint64(len(e.Label)))
		return append(buf, e.Label...)
	}
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case OidInt2, OidInt4, OidInt8, OidOid, OidTime:
		return binary.AppendVarint(buf, v.(int64))
	case OidFloat4:
		return binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(v.(float64))))
	case OidFloat8:
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v.(float64)))
	case OidNumeric:
		d := v.(*apd.Decimal)
		switch {
		case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
			return append(buf, rowNumNaN)
		case d.Form == apd.Infinite && d.Negative:
			return append(buf, rowNumNegInf)
		case d.Form == apd.Infinite:
			return append(buf, rowNumPosInf)
		case d.Negative:
			buf = append(buf, rowNumNeg)
		default:
			buf = append(buf, rowNumPos)
		}
		buf = binary.AppendVarint(buf, int64(d.Exponent))
		coeff := d.Coeff.Bytes()
		buf = binary.AppendUvarint(buf, uint64(len(coeff)))
		return append(buf, coeff...)
	case OidBytea:
		b := v.([]byte)
		buf = binary.AppendUvarint(buf, uint64(len(b)))
		return append(buf, b...)
	case OidDate:
		return binary.AppendVarint(buf, int64(pgDays(v.(time.Time))))
	case OidTimestamp, OidTimestamptz:
		return binary.AppendVarint(buf, pgMicros(v.(time.Time)))
	case OidInterval:
		iv := v.(Interval)
		buf = binary.AppendVarint(buf, int64(iv.Months))
		buf = binary.AppendVarint(buf, int64(iv.Days))
		return binary.AppendVarint(buf, iv.Micros)
	case OidUUID:
		u := v.(UUID)
		return append(buf, u[:]...)
	case OidInet, OidCidr:
		return appendRowInet(buf, v.(Inet))
	case OidMacaddr, OidMacaddr8:
		return append(buf, macBytes(v)...)
	case OidJSON, OidJSONB:
		// Stored as text, which reading parses again: json's as written,
		// jsonb's normalized.
		start := len(buf)
		buf = AppendText(append(buf, make([]byte, binary.MaxVarintLen64)...), t, v, nil)
		text := buf[start+binary.MaxVarintLen64:]
		n := binary.PutUvarint(buf[start:], uint64(len(text)))
		copy(buf[start+n:], text)
		return buf[:start+n+len(text)]
	}
	s := v.(string)
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// DecodeRow decodes a row made by EncodeRow into dst, which has one slot per
// column type in ts. Columns the row was written without decode as NULL.
func DecodeRow(ts []T, b []byte, dst []any) error {
	r := rowReader{b: b}
	n, ok := r.uvarint()
	if !ok || n > uint64(len(ts)) {
		return errRow(len(ts))
	}
	if err := r.values(ts, dst[:n]); err != nil {
		return err
	}
	if len(r.b) != 0 {
		return errRow(len(ts))
	}
	clear(dst[n:])
	return nil
}

func errRow(ncols int) error {
	return pgerr.New(pgerr.DataCorrupted, "invalid row encoding for %d columns", ncols)
}

type rowReader struct{ b []byte }

// uvarint is binary.Uvarint written out, as every integer column of every
// row scanned is one.
func (r *rowReader) uvarint() (uint64, bool) {
	b := r.b
	var x uint64
	for i, s := 0, uint(0); i < len(b) && s < 64; i, s = i+1, s+7 {
		c := b[i]
		if c < 0x80 {
			if s == 63 && c > 1 {
				return 0, false // overflows 64 bits
			}
			r.b = b[i+1:]
			return x | uint64(c)<<s, true
		}
		x |= uint64(c&0x7f) << s
	}
	return 0, false
}

func (r *rowReader) varint() (int64, bool) {
	u, ok := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), ok // zigzag
}

func (r *rowReader) next(n uint64) ([]byte, bool) {
	if n > uint64(len(r.b)) {
		return nil, false
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p, true
}

// values reads a NULL bitmap and len(dst) values; ts may be a single type
// for all of them (array elements).
func (r *rowReader) values(ts []T, dst []any) error {
	bitmap, ok := r.next(uint64(len(dst)+7) / 8)
	if !ok {
		return errRow(len(dst))
	}
	for i := range dst {
		if bitmap[i/8]&(1<<(i%8)) != 0 {
			dst[i] = nil
			continue
		}
		t := ts[min(i, len(ts)-1)]
		v, ok := r.value(t)
		if !ok {
			return pgerr.New(pgerr.DataCorrupted, "invalid row encoding for column %d of type %s", i+1, t)
		}
		dst[i] = v
	}
	return nil
}

func (r *rowReader) value(t T) (any, bool) {
	// The scalar types first: a column of one is the common case, and
	// they need no catalog lookup.
	switch t.Oid {
	case OidBool:
		b, ok := r.next(1)
		return ok && b[0] == 1, ok
	case OidInt2, OidInt4, OidInt8, OidOid, OidTime:
		return r.varint()
	case OidFloat4:
		b, ok := r.next(4)
		if !ok {
			return nil, false
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), true
	case OidFloat8:
		b, ok := r.next(8)
		if !ok {
			return nil, false
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), true
	case OidNumeric:
		return r.numeric()
	case OidBytea:
		n, ok := r.uvarint()
		b, ok2 := r.next(n)
		if !ok || !ok2 {
			return nil, false
		}
		return append([]byte{}, b...), true
	case OidDate:
		d, ok := r.varint()
		if !ok || d < math.MinInt32 || d > math.MaxInt32 {
			return nil, false
		}
		return fromPGDays(int32(d)), true
	case OidTimestamp, OidTimestamptz:
		us, ok := r.varint()
		if !ok {
			return nil, false
		}
		return fromPGMicros(us), true
	case OidInterval:
		m, ok1 := r.varint()
		d, ok2 := r.varint()
		us, ok3 := r.varint()
		if !ok1 || !ok2 || !ok3 {
			return nil, false
		}
		return Interval{Months: int32(m), Days: int32(d), Micros: us}, true
	case OidUUID:
		b, ok := r.next(16)
		if !ok {
			return nil, false
		}
		return UUID(b), true
	case OidInet, OidCidr:
		return r.inet()
	case OidMacaddr:
		b, ok := r.next(6)
		if !ok {
			return nil, false
		}
		return Macaddr(b), true
	case OidMacaddr8:
		b, ok := r.next(8)
		if !ok {
			return nil, false
		}
		return Macaddr8(b), true
	case OidJSON, OidJSONB:
		n, ok := r.uvarint()
		b, ok2 := r.next(n)
		if !ok || !ok2 {
			return nil, false
		}
		v, err := parseText(t, string(b), nil)
		return v, err == nil
	}
	if elem, ok := t.Elem(); ok {
		n, ok := r.uvarint()
		if !ok || n > uint64(len(r.b))*8 {
			return nil, false
		}
		vals := make([]any, n)
		if err := r.values([]T{elem}, vals); err != nil {
			return nil, false
		}
		return vals, true
	}
	if IsEnum(t.Oid) {
		b, ok := r.next(4)
		if !ok {
			return nil, false
		}
		n, ok := r.uvarint()
		label, ok2 := r.next(n)
		if !ok || !ok2 {
			return nil, false
		}
		return Enum{Label: string(label), Sort: math.Float32frombits(binary.LittleEndian.Uint32(b))}, true
	}
	n, ok := r.uvarint()
	b, ok2 := r.next(n)
	if !ok || !ok2 {
		return nil, false
	}
	return string(b), true
}

func (r *rowReader) numeric() (any, bool) {
	form, ok := r.next(1)
	if !ok {
		return nil, false
	}
	switch form[0] {
	case rowNumNaN:
		return numericNaN, true
	case rowNumPosInf:
		return numericPosInf, true
	case rowNumNegInf:
		return numericNegInf, true
	case rowNumPos, rowNumNeg:
	default:
		return nil, false
	}
	exp, ok1 := r.varint()
	n, ok2 := r.uvarint()
	coeff, ok3 := r.next(n)
	if !ok1 || !ok2 || !ok3 || exp < math.MinInt32 || exp > math.MaxInt32 {
		return nil, false
	}
	d := &apd.Decimal{Negative: form[0] == rowNumNeg, Exponent: int32(exp)}
	d.Coeff.SetBytes(coeff)
	return d, true
}
