package types

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// Key encoding. Index and primary keys are stored as byte strings that sort
// with bytes.Compare exactly as their values sort with Compare, so the
// storage engine orders rows without knowing their types.
//
// Each column is a marker byte followed by the value:
//
//	0x01 value   a non-NULL value
//	0x02         NULL, after every value (ORDER BY ... ASC NULLS LAST)
//
// A descending column is the ascending encoding with every bit inverted,
// which reverses its order and puts NULL first, as PostgreSQL's DESC does.
// Every encoding is prefix-free (no value's encoding is a prefix of
// another's), so keys of several columns concatenate and still compare
// column by column, and inversion reverses the order exactly.
//
// Values:
//
//	bool                  0x00 or 0x01
//	integers, oid, date,  an order-preserving varint (see appendKeyInt); dates
//	timestamp(tz)         are days and timestamps microseconds since 2000-01-01,
//	                      the infinities the extreme int32 or int64
//	float4, float8        the float64 bits, sign bit flipped for positives and
//	                      all bits flipped for negatives; -0 is written as 0
//	                      and every NaN as one NaN above +Infinity
//	numeric               a class byte, then for finite nonzero values the
//	                      decimal exponent and the digits in pairs (appendKeyNumeric)
//	strings, bytea        the bytes with 0x00 escaped as 0x00 0xff, ended by
//	                      0x00 0x01; char(n) without its trailing spaces,
//	                      citext lower-cased (FoldCase)
//	interval              its length as days (a month is 30) and the
//	                      microseconds left over, both varints
//	uuid                  the 16 bytes
//	inet, cidr            the family (4 or 6), the address masked to its prefix,
//	                      the prefix length, and the address (appendKeyInet)
//	macaddr, macaddr8     the 6 or 8 bytes
//	arrays                each element as 0x01 value or 0x02 for NULL, ended by 0x00
//
// Values that Compare calls equal encode identically, as a unique index
// needs. So a key does not always give back the exact datum: DecodeKey
// returns an equal one: a numeric without trailing zeros (but shown with
// the scale of a numeric(p,s) column), char(n) padded again to n, citext
// lower-cased, -0 as 0,
// and an interval normalized from its length. The row keeps the exact
// value.

const (
	keyValue = 0x01
	keyNull  = 0x02

	keyEscape    = 0x00
	keyEscaped00 = 0xff
	keyEnd       = 0x01

	keyElemValue = 0x01
	keyElemNull  = 0x02
	keyArrayEnd  = 0x00
)

// Numeric classes, in order.
const (
	keyNumNegInf = iota + 1
	keyNumNeg
	keyNumZero
	keyNumPos
	keyNumPosInf
	keyNumNaN
)

// AppendKey appends the order-preserving encoding of v, a datum of type t
// or nil for NULL.
func AppendKey(buf []byte, t T, v any, desc bool) []byte {
	start := len(buf)
	if v == nil {
		buf = append(buf, keyNull)
	} else {
		buf = append(buf, keyValue)
		buf = appendKeyValue(buf, t, v)
	}
	if desc {
		for i := start; i < len(buf); i++ {
			buf[i] = ^buf[i]
		}
	}
	return buf
}

func appendKeyValue(buf []byte, t T, v any) []byte {
	if elem, ok := t.Elem(); ok {
		for _, e := range v.([]any) {
			if e == nil {
				buf = append(buf, keyElemNull)
				continue
			}
			buf = append(buf, keyElemValue)
			buf = appendKeyValue(buf, elem, e)
		}
		return append(buf, keyArrayEnd)
	}
	if IsEnum(t.Oid) {
		return appendKeyFloat(buf, float64(v.(Enum).Sort))
	}
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case OidInt2, OidInt4, OidInt8, OidOid, OidTime:
		return appendKeyInt(buf, v.(int64))
	case OidFloat4, OidFloat8:
		return appendKeyFloat(buf, v.(float64))
	case OidNumeric:
		return appendKeyNumeric(buf, v.(*apd.Decimal))
	case OidBpchar:
		return appendKeyBytes(buf, strings.TrimRight(v.(string), " "))
	case OidCitext:
		return appendKeyBytes(buf, FoldCase(v.(string)))
	case OidBytea:
		return appendKeyBytes(buf, v.([]byte))
	case OidDate:
		return appendKeyInt(buf, int64(pgDays(v.(time.Time))))
	case OidTimestamp, OidTimestamptz:
		return appendKeyInt(buf, pgMicros(v.(time.Time)))
	case OidInterval:
		days, us := intervalSpan(v.(Interval))
		return appendKeyInt(appendKeyInt(buf, days), us)
	case OidUUID:
		u := v.(UUID)
		return append(buf, u[:]...)
	case OidJSONB:
		return AppendKeyJSONB(buf, v.(*JSON))
	case OidInet, OidCidr:
		return appendKeyInet(buf, v.(Inet))
	case OidMacaddr, OidMacaddr8:
		return append(buf, macBytes(v)...)
	case OidRegproc, OidRegprocedure, OidRegclass, OidRegtype, OidRegnamespace, OidRegrole:
		return appendKeyInt(buf, int64(v.(Reg).Oid))
	case OidRecord:
		fields, _ := t.Fields()
		for i, e := range v.([]any) {
			if e == nil || i >= len(fields) {
				buf = append(buf, keyElemNull)
				continue
			}
			buf = append(buf, keyElemValue)
			buf = appendKeyValue(buf, fields[i].T, e)
		}
		return append(buf, keyArrayEnd)
	}
	return appendKeyBytes(buf, v.(string))
}

// appendKeyInt writes an int64 in 1 to 9 bytes, ordered. The first byte
// says the sign and length: 0x88+v for 0 ≤ v < 0x70; 0xf7+n for a larger
// v in n big-endian bytes; 0x87-n for a negative v in [-2^(8n),
// -2^(8(n-1))), followed by v + 2^(8n) in n bytes. More bytes means
// further from zero, so the first byte orders by magnitude class and the
// rest by value within it.
func appendKeyInt(buf []byte, v int64) []byte {
	const zero, smallMax = 0x88, 0x6f
	switch {
	case v >= 0 && v <= smallMax:
		return append(buf, byte(zero+v))
	case v > smallMax:
		n := (bits.Len64(uint64(v)) + 7) / 8
		buf = append(buf, byte(0xf7+n))
		return appendBigEndian(buf, uint64(v), n)
	}
	n := (bits.Len64(uint64(^v)) + 7) / 8
	n = max(n, 1)
	buf = append(buf, byte(0x87-n))
	return appendBigEndian(buf, uint64(v), n)
}

func appendBigEndian(buf []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		buf = append(buf, byte(v>>(8*i)))
	}
	return buf
}

func appendKeyFloat(buf []byte, f float64) []byte {
	switch {
	case f == 0:
		f = 0 // -0 sorts with 0
	case math.IsNaN(f):
		f = pgNaN
	}
	b := math.Float64bits(f)
	if b>>63 == 0 {
		b |= 1 << 63
	} else {
		b = ^b
	}
	return binary.BigEndian.AppendUint64(buf, b)
}

// appendKeyNumeric writes a class byte, and for a finite nonzero value the
// exponent E and digits d1 d2 ... (no trailing zeros) of 0.d1d2... × 10^E:
// E as a 4-byte sign-flipped integer, then the digits in pairs, each pair
// one byte 1..100, then 0x00. A shorter digit string is a smaller
// magnitude, so the terminator sorts below any pair. Negative values write
// -E and inverted pairs and end with 0xff, reversing the order.
func appendKeyNumeric(buf []byte, d *apd.Decimal) []byte {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return append(buf, keyNumNaN)
	case d.Form == apd.Infinite && d.Negative:
		return append(buf, keyNumNegInf)
	case d.Form == apd.Infinite:
		return append(buf, keyNumPosInf)
	case d.IsZero():
		return append(buf, keyNumZero)
	}
	digits := strings.TrimRight(d.Coeff.Text(10), "0")
	exp := int32(d.NumDigits()) + d.Exponent
	neg := d.Negative
	if neg {
		buf = append(buf, keyNumNeg)
		exp = -exp
	} else {
		buf = append(buf, keyNumPos)
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(exp)^1<<31)
	for i := 0; i < len(digits); i += 2 {
		pair := (digits[i] - '0') * 10
		if i+1 < len(digits) {
			pair += digits[i+1] - '0'
		}
		pair++
		if neg {
			pair = ^pair
		}
		buf = append(buf, pair)
	}
	if neg {
		return append(buf, 0xff)
	}
	return append(buf, 0x00)
}

func appendKeyBytes[S string | []byte](buf []byte, s S) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == keyEscape {
			buf = append(buf, keyEscape, keyEscaped00)
			continue
		}
		buf = append(buf, s[i])
	}
	return append(buf, keyEscape, keyEnd)
}

// DecodeKey decodes one column of a key made by AppendKey, returning its
// value (nil for NULL) and the bytes after it.
func DecodeKey(t T, b []byte, desc bool) (v any, rest []byte, err error) {
	r := keyReader{b: b}
	if desc {
		r.mask = 0xff
	}
	marker, ok := r.byte()
	switch {
	case !ok:
		return nil, nil, errKey(t)
	case marker == keyNull:
		return nil, r.b, nil
	case marker != keyValue:
		return nil, nil, errKey(t)
	}
	v, err = r.value(t)
	if err != nil {
		return nil, nil, err
	}
	return v, r.b, nil
}

func errKey(t T) error {
	return pgerr.New(pgerr.DataCorrupted, "invalid key encoding for type %s", t)
}

// keyReader reads a key column, undoing the inversion of a descending
// column byte by byte.
type keyReader struct {
	b    []byte
	mask byte
}

func (r *keyReader) byte() (byte, bool) {
	if len(r.b) == 0 {
		return 0, false
	}
	c := r.b[0] ^ r.mask
	r.b = r.b[1:]
	return c, true
}

func (r *keyReader) bigEndian(n int) (uint64, bool) {
	if len(r.b) < n {
		return 0, false
	}
	var v uint64
	for _, c := range r.b[:n] {
		v = v<<8 | uint64(c^r.mask)
	}
	r.b = r.b[n:]
	return v, true
}

func (r *keyReader) int() (int64, bool) {
	c, ok := r.byte()
	switch {
	case !ok:
		return 0, false
	case c >= 0x88 && c <= 0xf7:
		return int64(c) - 0x88, true
	case c > 0xf7:
		v, ok := r.bigEndian(int(c) - 0xf7)
		return int64(v), ok && int64(v) > 0x6f
	case c >= 0x7f && c <= 0x86:
		// The n bytes hold v + 2^(8n), for v in [-2^(8n), -2^(8(n-1))).
		n := 0x87 - int(c)
		u, ok := r.bigEndian(n)
		if n == 8 {
			return int64(u), ok
		}
		return int64(u) - 1<<(8*n), ok
	}
	return 0, false
}

func (r *keyReader) bytes() ([]byte, bool) {
	var out []byte
	for {
		c, ok := r.byte()
		if !ok {
			return nil, false
		}
		if c != keyEscape {
			out = append(out, c)
			continue
		}
		c, ok = r.byte()
		switch {
		case !ok:
			return nil, false
		case c == keyEnd:
			return out, true
		case c == keyEscaped00:
			out = append(out, 0)
		default:
			return nil, false
		}
	}
}

func (r *keyReader) value(t T) (any, error) {
	if elem, ok := t.Elem(); ok {
		vals := []any{}
		for {
			c, ok := r.byte()
			switch {
			case !ok:
				return nil, errKey(t)
			case c == keyArrayEnd:
				return vals, nil
			case c == keyElemNull:
				vals = append(vals, nil)
			case c == keyElemValue:
				v, err := r.value(elem)
				if err != nil {
					return nil, err
				}
				vals = append(vals, v)
			default:
				return nil, errKey(t)
			}
		}
	}
	switch t.Oid {
	case OidBool:
		c, ok := r.byte()
		if !ok || c > 1 {
			return nil, errKey(t)
		}
		return c == 1, nil
	case OidInt2, OidInt4, OidInt8, OidOid, OidTime:
		n, ok := r.int()
		if !ok {
			return nil, errKey(t)
		}
		return n, nil
	case OidFloat4, OidFloat8:
		b, ok := r.bigEndian(8)
		if !ok {
			return nil, errKey(t)
		}
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		return math.Float64frombits(b), nil
	case OidNumeric:
		return r.numeric(t)
	case OidBytea:
		b, ok := r.bytes()
		if !ok {
			return nil, errKey(t)
		}
		if b == nil {
			b = []byte{}
		}
		return b, nil
	case OidDate:
		n, ok := r.int()
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			return nil, errKey(t)
		}
		return fromPGDays(int32(n)), nil
	case OidTimestamp, OidTimestamptz:
		n, ok := r.int()
		if !ok {
			return nil, errKey(t)
		}
		return fromPGMicros(n), nil
	case OidInterval:
		days, ok1 := r.int()
		us, ok2 := r.int()
		if !ok1 || !ok2 {
			return nil, errKey(t)
		}
		return intervalFromSpan(days, us), nil
	case OidUUID:
		var u UUID
		for i := range u {
			c, ok := r.byte()
			if !ok {
				return nil, errKey(t)
			}
			u[i] = c
		}
		return u, nil
	case OidJSONB:
		return r.jsonb()
	case OidInet, OidCidr:
		return r.inet(t)
	case OidMacaddr:
		b, ok := r.bigEndian(6)
		if !ok {
			return nil, errKey(t)
		}
		var m Macaddr
		for i := range m {
			m[i] = byte(b >> (8 * (5 - i)))
		}
		return m, nil
	case OidMacaddr8:
		b, ok := r.bigEndian(8)
		if !ok {
			return nil, errKey(t)
		}
		var m Macaddr8
		binary.BigEndian.PutUint64(m[:], b)
		return m, nil
	}
	b, ok := r.bytes()
	if !ok {
		return nil, errKey(t)
	}
	if t.Oid == OidBpchar {
		return coerceChars(t, string(b), true)
	}
	return string(b), nil
}

// intervalFromSpan is an interval of the given length, written as
// PostgreSQL's justify_days would: whole months of 30 days, then days, then
// time. Where months or days would overflow int32 the rest stays in the
// lower fields; a length made from an Interval always fits.
func intervalFromSpan(days, us int64) Interval {
	months := min(max(days/daysPerMonth, math.MinInt32), math.MaxInt32)
	days -= months * daysPerMonth
	d := min(max(days, math.MinInt32), math.MaxInt32)
	days -= d
	return Interval{Months: int32(months), Days: int32(d), Micros: days*usPerDay + us}
}

func (r *keyReader) numeric(t T) (any, error) {
	class, ok := r.byte()
	if !ok {
		return nil, errKey(t)
	}
	switch class {
	case keyNumNaN:
		return numericNaN, nil
	case keyNumPosInf:
		return numericPosInf, nil
	case keyNumNegInf:
		return numericNegInf, nil
	case keyNumZero:
		return rescaleForColumn(&apd.Decimal{}, t), nil
	case keyNumPos, keyNumNeg:
	default:
		return nil, errKey(t)
	}
	neg := class == keyNumNeg
	e, ok := r.bigEndian(4)
	if !ok {
		return nil, errKey(t)
	}
	exp := int32(uint32(e) ^ 1<<31)
	if neg {
		exp = -exp
	}
	// Beyond numeric's limits the key is corrupt; don't compute 10^exp.
	if exp > numericMaxIntDigits || exp < -numericMaxScale {
		return nil, errKey(t)
	}
	var digits []byte
	for {
		c, ok := r.byte()
		if !ok {
			return nil, errKey(t)
		}
		if neg {
			c = ^c
		}
		if c == 0 {
			break
		}
		if c > 100 {
			return nil, errKey(t)
		}
		c--
		digits = append(digits, '0'+c/10, '0'+c%10)
	}
	text := strings.TrimRight(string(digits), "0")
	d := &apd.Decimal{Negative: neg, Exponent: exp - int32(len(text))}
	if _, ok := d.Coeff.SetString(text, 10); !ok {
		return nil, errKey(t)
	}
	if d.Exponent > 0 {
		d.Coeff.Mul(&d.Coeff, pow10(int64(d.Exponent)))
		d.Exponent = 0
	}
	return rescaleForColumn(d, t), nil
}

// rescaleForColumn gives a decoded numeric the display scale of a
// numeric(p,s) column, which every stored value has.
func rescaleForColumn(d *apd.Decimal, t T) *apd.Decimal {
	if t.Mod < 4 {
		return d
	}
	_, scale := numericMod(t.Mod)
	if scale > 0 && -int(d.Exponent) < scale {
		return roundNumeric(d, scale)
	}
	return d
}
