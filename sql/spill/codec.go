package spill

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The encoding of rows in temporary files. Unlike the stored rows'
// (types.EncodeRow), which the table's column types decode, it describes
// itself: an operator spills rows whose columns it has no types for
// (hidden keys, a window's sort keys, group keys beside input rows), and
// it gives back exactly the Go value that went in, not merely an equal
// one: 1.50 stays 1.50, a json value keeps its text, a nil []byte stays
// nil and an empty one empty.
//
//	row:    uvarint(n) value*n
//	value:  tag byte, then by tag:
//	  null, false, true          nothing
//	  int                        varint
//	  float                      8 bytes, the IEEE bits, little-endian
//	  string, bytes              uvarint(len) bytes
//	  nilBytes, nilArray         nothing: a nil []byte, a nil []any
//	  numeric                    form byte, negative byte, varint exponent,
//	                             uvarint(len) big-endian coefficient
//	  time                       varint Unix seconds, uvarint nanoseconds (UTC)
//	  zonedTime                  the same, then the zone's name and offset
//	  interval                   varint months, days, microseconds
//	  uuid                       16 bytes
//	  inet                       IPv6 byte, prefix length, 16 address bytes
//	  macaddr, macaddr8          6 or 8 bytes
//	  reg                        uvarint oid, string name
//	  enum                       string label, 4 bytes of the float32 order
//	  array                      uvarint(n) value*n
//	  json                       a json node (below)
//
//	json node: kind byte, with rawBit set if the node keeps its source
//	  text; then that text (a string), which ParseJSON reads back into the
//	  same tree, or else by kind: a bool byte; a string; a present byte
//	  and a numeric; uvarint(n) nodes; uvarint(n) (string, node) pairs.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagBytes
	tagNilBytes
	tagNumeric
	tagTime
	tagZonedTime
	tagInterval
	tagUUID
	tagReg
	tagEnum
	tagArray
	tagNilArray
	tagJSON
	tagInet
	tagMacaddr
	tagMacaddr8
)

const jsonRawBit = 0x80

// appendRow appends row's encoding to buf.
func appendRow(buf []byte, row []any) ([]byte, error) {
	buf = binary.AppendUvarint(buf, uint64(len(row)))
	for _, v := range row {
		var err error
		if buf, err = appendValue(buf, v); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

func appendValue(buf []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(buf, tagNull), nil
	case bool:
		if v {
			return append(buf, tagTrue), nil
		}
		return append(buf, tagFalse), nil
	case int64:
		return binary.AppendVarint(append(buf, tagInt), v), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(buf, tagFloat), math.Float64bits(v)), nil
	case string:
		return appendString(append(buf, tagString), v), nil
	case []byte:
		if v == nil {
			return append(buf, tagNilBytes), nil
		}
		buf = binary.AppendUvarint(append(buf, tagBytes), uint64(len(v)))
		return append(buf, v...), nil
	case *apd.Decimal:
		return appendNumeric(append(buf, tagNumeric), v), nil
	case time.Time:
		if v.Location() == time.UTC {
			buf = binary.AppendVarint(append(buf, tagTime), v.Unix())
			return binary.AppendUvarint(buf, uint64(v.Nanosecond())), nil
		}
		buf = binary.AppendVarint(append(buf, tagZonedTime), v.Unix())
		buf = binary.AppendUvarint(buf, uint64(v.Nanosecond()))
		name, offset := v.Zone()
		return binary.AppendVarint(appendString(buf, name), int64(offset)), nil
	case types.Interval:
		buf = binary.AppendVarint(append(buf, tagInterval), int64(v.Months))
		buf = binary.AppendVarint(buf, int64(v.Days))
		return binary.AppendVarint(buf, v.Micros), nil
	case types.UUID:
		return append(append(buf, tagUUID), v[:]...), nil
	case types.Inet:
		ipv6 := byte(0)
		if v.IPv6 {
			ipv6 = 1
		}
		return append(append(buf, tagInet, ipv6, v.Bits), v.Addr[:]...), nil
	case types.Macaddr:
		return append(append(buf, tagMacaddr), v[:]...), nil
	case types.Macaddr8:
		return append(append(buf, tagMacaddr8), v[:]...), nil
	case types.Reg:
		buf = binary.AppendUvarint(append(buf, tagReg), uint64(v.Oid))
		return appendString(buf, v.Name), nil
	case types.Enum:
		buf = appendString(append(buf, tagEnum), v.Label)
		return binary.LittleEndian.AppendUint32(buf, math.Float32bits(v.Sort)), nil
	case []any:
		if v == nil {
			return append(buf, tagNilArray), nil
		}
		buf = binary.AppendUvarint(append(buf, tagArray), uint64(len(v)))
		for _, e := range v {
			var err error
			if buf, err = appendValue(buf, e); err != nil {
				return nil, err
			}
		}
		return buf, nil
	case *types.JSON:
		return appendJSON(append(buf, tagJSON), v), nil
	}
	return nil, pgerr.New(pgerr.InternalError, "a value of Go type %T cannot be written to a temporary file", v)
}

func appendNumeric(buf []byte, d *apd.Decimal) []byte {
	neg := byte(0)
	if d.Negative {
		neg = 1
	}
	buf = append(buf, byte(d.Form), neg)
	buf = binary.AppendVarint(buf, int64(d.Exponent))
	coeff := d.Coeff.Bytes()
	buf = binary.AppendUvarint(buf, uint64(len(coeff)))
	return append(buf, coeff...)
}

func appendJSON(buf []byte, j *types.JSON) []byte {
	if j.Raw != "" {
		return appendString(append(buf, byte(j.Kind)|jsonRawBit), j.Raw)
	}
	buf = append(buf, byte(j.Kind))
	switch j.Kind {
	case types.JSONBool:
		if j.Bool {
			return append(buf, 1)
		}
		return append(buf, 0)
	case types.JSONString:
		return appendString(buf, j.Str)
	case types.JSONNumber:
		if j.Num == nil {
			return append(buf, 0)
		}
		return appendNumeric(append(buf, 1), j.Num)
	case types.JSONArray:
		buf = binary.AppendUvarint(buf, uint64(len(j.Elems)))
		for _, e := range j.Elems {
			buf = appendJSON(buf, e)
		}
	case types.JSONObject:
		buf = binary.AppendUvarint(buf, uint64(len(j.Keys)))
		for i, k := range j.Keys {
			buf = appendJSON(appendString(buf, k), j.Vals[i])
		}
	}
	return buf
}

// decoder reads values from an encoded row.
type decoder struct {
	b   []byte
	err error
}

func errCorrupt() error {
	return pgerr.New(pgerr.InternalError, "a temporary file's record is corrupt")
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt()
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if uint64(len(d.b)) < n {
		d.fail()
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) byte1() byte {
	if b := d.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) string() string { return string(d.bytes(d.uvarint())) }

// count reads a number of things to come, each at least a byte long.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// decodeRow decodes a row appendRow encoded. The row shares no
// memory with b.
func decodeRow(b []byte) ([]any, error) {
	d := &decoder{b: b}
	row := make([]any, d.count())
	for i := range row {
		row[i] = d.value()
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return row, nil
}

func (d *decoder) value() any {
	switch tag := d.byte1(); tag {
	case tagNull:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return d.varint()
	case tagFloat:
		if b := d.bytes(8); b != nil {
			return math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
	case tagString:
		return d.string()
	case tagBytes:
		b := d.bytes(d.uvarint())
		if d.err == nil {
			return append([]byte{}, b...)
		}
	case tagNilBytes:
		return []byte(nil)
	case tagNumeric:
		return d.numeric()
	case tagTime:
		sec, nsec := d.varint(), d.uvarint()
		return time.Unix(sec, int64(nsec)).UTC()
	case tagZonedTime:
		sec, nsec := d.varint(), d.uvarint()
		name, offset := d.string(), d.varint()
		return time.Unix(sec, int64(nsec)).In(time.FixedZone(name, int(offset)))
	case tagInterval:
		months, days, micros := d.varint(), d.varint(), d.varint()
		return types.Interval{Months: int32(months), Days: int32(days), Micros: micros}
	case tagUUID:
		var u types.UUID
		copy(u[:], d.bytes(16))
		return u
	case tagInet:
		if b := d.bytes(18); b != nil {
			a := types.Inet{IPv6: b[0] == 1, Bits: b[1]}
			copy(a.Addr[:], b[2:])
			return a
		}
	case tagMacaddr:
		if b := d.bytes(6); b != nil {
			return types.Macaddr(b)
		}
	case tagMacaddr8:
		if b := d.bytes(8); b != nil {
			return types.Macaddr8(b)
		}
	case tagReg:
		oid := d.uvarint()
		return types.Reg{Oid: types.Oid(oid), Name: d.string()}
	case tagEnum:
		label := d.string()
		if b := d.bytes(4); b != nil {
			return types.Enum{Label: label, Sort: math.Float32frombits(binary.LittleEndian.Uint32(b))}
		}
	case tagArray:
		arr := make([]any, d.count())
		for i := range arr {
			arr[i] = d.value()
		}
		return arr
	case tagNilArray:
		return []any(nil)
	case tagJSON:
		return d.json()
	default:
		d.fail()
	}
	return nil
}

func (d *decoder) numeric() *apd.Decimal {
	form, neg := d.byte1(), d.byte1()
	exp := d.varint()
	coeff := d.bytes(d.uvarint())
	if d.err != nil || exp < math.MinInt32 || exp > math.MaxInt32 {
		d.fail()
		return nil
	}
	v := &apd.Decimal{Form: apd.Form(form), Negative: neg == 1, Exponent: int32(exp)}
	v.Coeff.SetBytes(coeff)
	return v
}

func (d *decoder) json() *types.JSON {
	head := d.byte1()
	kind := types.JSONKind(head &^ jsonRawBit)
	if head&jsonRawBit != 0 {
		raw := d.string()
		if d.err != nil {
			return nil
		}
		j, err := types.ParseJSON(raw)
		if err != nil || j.Kind != kind {
			d.fail()
			return nil
		}
		return j
	}
	j := &types.JSON{Kind: kind}
	switch kind {
	case types.JSONNull:
	case types.JSONBool:
		j.Bool = d.byte1() == 1
	case types.JSONString:
		j.Str = d.string()
	case types.JSONNumber:
		if d.byte1() == 1 {
			j.Num = d.numeric()
		}
	case types.JSONArray:
		j.Elems = make([]*types.JSON, d.count())
		for i := range j.Elems {
			j.Elems[i] = d.json()
		}
	case types.JSONObject:
		n := d.count()
		j.Keys, j.Vals = make([]string, n), make([]*types.JSON, n)
		for i := range n {
			j.Keys[i] = d.string()
			j.Vals[i] = d.json()
		}
	default:
		d.fail()
	}
	return j
}

// RowSize estimates the Go heap bytes a row holds: the slice, each value's
// interface, and what the values point to. work_mem is checked against it.
func RowSize(row []any) int64 {
	n := int64(24 + 16*len(row))
	for _, v := range row {
		n += datumSize(v)
	}
	return n
}

func datumSize(v any) int64 {
	switch v := v.(type) {
	case nil, bool:
		return 0
	case int64, float64:
		return 8
	case string:
		return 16 + int64(len(v))
	case []byte:
		return 24 + int64(cap(v))
	case *apd.Decimal:
		return 48 + int64(v.Coeff.Size())
	case time.Time:
		return 24
	case types.Interval, types.UUID:
		return 16
	case types.Inet:
		return 18
	case types.Macaddr, types.Macaddr8:
		return 8
	case types.Reg:
		return 24 + int64(len(v.Name))
	case types.Enum:
		return 24 + int64(len(v.Label))
	case []any:
		n := int64(24 + 16*cap(v))
		for _, e := range v {
			n += datumSize(e)
		}
		return n
	case *types.JSON:
		return jsonSize(v, true)
	}
	return 32
}

// jsonSize estimates a json tree's size. Only a root's Raw counts: the
// nodes under it keep slices of the same text.
func jsonSize(j *types.JSON, root bool) int64 {
	n := int64(128 + len(j.Str))
	if root {
		n += int64(len(j.Raw))
	}
	if j.Num != nil {
		n += 48 + int64(j.Num.Coeff.Size())
	}
	for _, e := range j.Elems {
		n += 8 + jsonSize(e, false)
	}
	for i, k := range j.Keys {
		n += 24 + int64(len(k)) + jsonSize(j.Vals[i], false)
	}
	return n
}
