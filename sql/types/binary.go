package types

import (
	"encoding/binary"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// The binary format is PostgreSQL's send/recv format, big-endian throughout.
// A numeric is sent in base 10000:
//
//	+---------+--------+------+--------+--------------------------+
//	| ndigits | weight | sign | dscale | ndigits × int16 digit    |
//	| int16   | int16  | u16  | u16    | each 0..9999             |
//	+---------+--------+------+--------+--------------------------+
//
// The value is Σ digit[i] × 10000^(weight-i), shown with dscale decimals.
// A one-dimensional array is
//
//	ndim=1 | has-null flag | element oid | length | lower bound=1 | elements
//
// each element an int32 length (-1 for NULL) and that many bytes.

// numeric sign words.
const (
	numericPos    = 0x0000
	numericNeg    = 0x4000
	numericNaNTag = 0xC000
	numericPInf   = 0xD000
	numericNInf   = 0xF000
	// numeric_send reads the infinities' dscale out of their short header,
	// where it finds 32; clients do not look, but byte-identical output
	// keeps tests honest.
	numericInfDScale = 32
)

// errBinaryFormat is the error for bytes that are not a value of type t.
func errBinaryFormat(t T) error {
	return pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format for type %s", t)
}

func errBinary(format string, args ...any) error {
	return pgerr.New(pgerr.InvalidBinaryRepresentation, format, args...)
}

// DecodeBinary parses b, a value in t's binary format, and applies t's
// modifier, as a binary-format parameter is read.
func DecodeBinary(t T, b []byte) (any, error) {
	v, err := decodeBinary(t, b)
	if err != nil || HasEnum(t) {
		return v, err // unresolved: the SQL layer resolves and checks it
	}
	return Coerce(t, v)
}

func decodeBinary(t T, b []byte) (any, error) {
	if elem, ok := t.Elem(); ok {
		return decodeArrayBinary(t, elem, b)
	}
	fixed := func(n int) error {
		if len(b) != n {
			return errBinaryFormat(t)
		}
		return nil
	}
	if IsEnum(t.Oid) {
		// enum_recv: the label's bytes.
		if !utf8.Valid(b) {
			return nil, pgerr.New(pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8"`)
		}
		return UnresolvedEnum(string(b)), nil
	}
	switch t.Oid {
	case OidBool:
		if err := fixed(1); err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case OidInt2:
		if err := fixed(2); err != nil {
			return nil, err
		}
		return int64(int16(binary.BigEndian.Uint16(b))), nil
	case OidInt4:
		if err := fixed(4); err != nil {
			return nil, err
		}
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	case OidInt8:
		if err := fixed(8); err != nil {
			return nil, err
		}
		return int64(binary.BigEndian.Uint64(b)), nil
	case OidOid:
		if err := fixed(4); err != nil {
			return nil, err
		}
		return int64(binary.BigEndian.Uint32(b)), nil
	case OidFloat4:
		if err := fixed(4); err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b))), nil
	case OidFloat8:
		if err := fixed(8); err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
	case OidNumeric:
		return decodeNumericBinary(t, b)
	case OidText, OidVarchar, OidBpchar, OidName, OidCitext, OidUnknown:
		if !utf8.Valid(b) {
			return nil, pgerr.New(pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8"`)
		}
		if t.Oid == OidName {
			return truncateName(string(b)), nil
		}
		return string(b), nil
	case OidChar:
		if err := fixed(1); err != nil {
			return nil, err
		}
		if b[0] == 0 {
			return "", nil
		}
		return string(b), nil
	case OidBytea:
		return append([]byte(nil), b...), nil
	case OidDate:
		if err := fixed(4); err != nil {
			return nil, err
		}
		d := int32(binary.BigEndian.Uint32(b))
		if d != infinityDays && d != negInfinityDays && (d < minDateDays || d >= endDateDays) {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
		}
		return fromPGDays(d), nil
	case OidTime:
		if err := fixed(8); err != nil {
			return nil, err
		}
		return decodeTimeBinary(int64(binary.BigEndian.Uint64(b)))
	case OidTimestamp, OidTimestamptz:
		if err := fixed(8); err != nil {
			return nil, err
		}
		us := int64(binary.BigEndian.Uint64(b))
		if us != math.MaxInt64 && us != math.MinInt64 && (us < minTimestampUS || us >= endTimestampUS) {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		return fromPGMicros(us), nil
	case OidInterval:
		if err := fixed(16); err != nil {
			return nil, err
		}
		return Interval{
			Micros: int64(binary.BigEndian.Uint64(b)),
			Days:   int32(binary.BigEndian.Uint32(b[8:])),
			Months: int32(binary.BigEndian.Uint32(b[12:])),
		}, nil
	case OidUUID:
		if err := fixed(16); err != nil {
			return nil, err
		}
		return UUID(b), nil
	case OidInet, OidCidr:
		return decodeInetBinary(t, b)
	case OidMacaddr:
		if err := fixed(6); err != nil {
			return nil, err
		}
		return Macaddr(b), nil
	case OidMacaddr8:
		// macaddr8_recv takes an EUI-48 address too.
		switch len(b) {
		case 6:
			return MacaddrTo8(Macaddr(b)), nil
		case 8:
			return Macaddr8(b), nil
		}
		return nil, errBinaryFormat(t)
	case OidJSON, OidJSONB:
		// json's binary form is its text; jsonb's is a version byte, 1,
		// then the text.
		if t.Oid == OidJSONB {
			if len(b) == 0 || b[0] != 1 {
				version := -1
				if len(b) > 0 {
					version = int(b[0])
				}
				return nil, errBinary("unsupported jsonb version number %d", version)
			}
			b = b[1:]
		}
		if !utf8.Valid(b) {
			return nil, pgerr.New(pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8"`)
		}
		if t.Oid == OidJSONB {
			return ParseJSONB(string(b))
		}
		return ParseJSON(string(b))
	}
	return nil, errNoIO(t)
}

func decodeNumericBinary(t T, b []byte) (any, error) {
	if len(b) < 8 {
		return nil, errBinaryFormat(t)
	}
	ndigits := int(int16(binary.BigEndian.Uint16(b)))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	dscale := int(binary.BigEndian.Uint16(b[6:]))
	if ndigits < 0 || len(b) != 8+2*ndigits {
		return nil, errBinaryFormat(t)
	}
	switch sign {
	case numericPos, numericNeg:
	case numericNaNTag:
		return numericNaN, nil
	case numericPInf:
		return numericPosInf, nil
	case numericNInf:
		return numericNegInf, nil
	default:
		return nil, errBinary(`invalid sign in external "numeric" value`)
	}
	if dscale > numericMaxScale {
		return nil, errBinary(`invalid scale in external "numeric" value`)
	}
	d := &apd.Decimal{Negative: sign == numericNeg}
	var digit apd.BigInt
	for i := range ndigits {
		v := binary.BigEndian.Uint16(b[8+2*i:])
		if v >= 10000 {
			return nil, errBinary(`invalid digit in external "numeric" value`)
		}
		d.Coeff.Mul(&d.Coeff, apd.NewBigInt(10000))
		d.Coeff.Add(&d.Coeff, digit.SetInt64(int64(v)))
	}
	// The digits are an integer times 10000^(weight-ndigits+1); show them
	// with dscale decimals, truncating hidden digits as numeric_recv does.
	exp := 4 * (weight - ndigits + 1)
	if ndigits == 0 {
		exp = 0
	}
	switch {
	case exp > -dscale:
		d.Coeff.Mul(&d.Coeff, pow10(int64(exp+dscale)))
	case exp < -dscale:
		d.Coeff.Quo(&d.Coeff, pow10(int64(-dscale-exp)))
	}
	d.Exponent = int32(-dscale)
	return normalizeNumeric(d)
}

func decodeArrayBinary(t, elem T, b []byte) (any, error) {
	if len(b) < 12 {
		return nil, errBinaryFormat(t)
	}
	ndim := int32(binary.BigEndian.Uint32(b))
	flags := binary.BigEndian.Uint32(b[4:])
	elemOid := Oid(binary.BigEndian.Uint32(b[8:]))
	b = b[12:]
	switch {
	case ndim < 0:
		return nil, errBinary("invalid number of dimensions: %d", ndim)
	case ndim > 1:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	case flags > 1:
		return nil, errBinary("invalid array flags")
	case elemOid != elem.Oid:
		return nil, pgerr.New(pgerr.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)",
			elemOid, T{elemOid, -1}, elem.Oid, elem)
	}
	vals := []any{}
	if ndim == 0 {
		if len(b) != 0 {
			return nil, errBinaryFormat(t)
		}
		return vals, nil
	}
	if len(b) < 8 {
		return nil, errBinaryFormat(t)
	}
	n := int32(binary.BigEndian.Uint32(b))
	lower := int32(binary.BigEndian.Uint32(b[4:]))
	b = b[8:]
	if n < 0 || int(n) > len(b)/4 {
		return nil, errBinaryFormat(t)
	}
	if lower != int32(LowerBound(t)) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "array lower bounds other than 1 are not supported")
	}
	for range n {
		if len(b) < 4 {
			return nil, errBinaryFormat(t)
		}
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if l == -1 {
			vals = append(vals, nil)
			continue
		}
		if l < 0 || int(l) > len(b) {
			return nil, errBinaryFormat(t)
		}
		v, err := decodeBinary(elem, b[:l])
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		b = b[l:]
	}
	if len(b) != 0 {
		return nil, errBinaryFormat(t)
	}
	return vals, nil
}

// AppendBinary appends the binary form of the non-NULL datum v of type t.
func AppendBinary(buf []byte, t T, v any) []byte {
	if elem, ok := t.Elem(); ok {
		return appendArrayBinary(buf, elem, LowerBound(t), v.([]any))
	}
	if IsEnum(t.Oid) {
		return append(buf, v.(Enum).Label...) // enum_send
	}
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case OidInt2:
		return binary.BigEndian.AppendUint16(buf, uint16(v.(int64)))
	case OidInt4, OidOid:
		return binary.BigEndian.AppendUint32(buf, uint32(v.(int64)))
	case OidInt8, OidTime:
		return binary.BigEndian.AppendUint64(buf, uint64(v.(int64)))
	case OidFloat4:
		// A NaN's payload means nothing; send the NaN PostgreSQL sends.
		if f := v.(float64); math.IsNaN(f) {
			return binary.BigEndian.AppendUint32(buf, 0x7fc00000)
		}
		return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(v.(float64))))
	case OidFloat8:
		if f := v.(float64); math.IsNaN(f) {
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(pgNaN))
		}
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(v.(float64)))
	case OidNumeric:
		return appendNumericBinary(buf, v.(*apd.Decimal))
	case OidBytea:
		return append(buf, v.([]byte)...)
	case OidDate:
		return binary.BigEndian.AppendUint32(buf, uint32(pgDays(v.(time.Time))))
	case OidTimestamp, OidTimestamptz:
		return binary.BigEndian.AppendUint64(buf, uint64(pgMicros(v.(time.Time))))
	case OidInterval:
		iv := v.(Interval)
		buf = binary.BigEndian.AppendUint64(buf, uint64(iv.Micros))
		buf = binary.BigEndian.AppendUint32(buf, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(buf, uint32(iv.Months))
	case OidUUID:
		u := v.(UUID)
		return append(buf, u[:]...)
	case OidJSON:
		return v.(*JSON).AppendJSONText(buf)
	case OidJSONB:
		return v.(*JSON).AppendJSONB(append(buf, 1))
	case OidInet, OidCidr:
		return appendInetBinary(buf, v.(Inet), t.Oid == OidCidr)
	case OidMacaddr, OidMacaddr8:
		return append(buf, macBytes(v)...)
	case OidRegproc, OidRegprocedure, OidRegclass, OidRegtype, OidRegnamespace, OidRegrole:
		return binary.BigEndian.AppendUint32(buf, uint32(v.(Reg).Oid))
	case OidRecord:
		fields, _ := t.Fields()
		return appendRecordBinary(buf, fields, v.([]any))
	case OidChar:
		// "char" is one byte; the empty value is a zero byte.
		if s := v.(string); s != "" {
			return append(buf, s[0])
		}
		return append(buf, 0)
	}
	return append(buf, v.(string)...)
}

func appendNumericBinary(buf []byte, d *apd.Decimal) []byte {
	header := func(ndigits, weight int, sign uint16, dscale int) []byte {
		buf = binary.BigEndian.AppendUint16(buf, uint16(ndigits))
		buf = binary.BigEndian.AppendUint16(buf, uint16(weight))
		buf = binary.BigEndian.AppendUint16(buf, sign)
		return binary.BigEndian.AppendUint16(buf, uint16(dscale))
	}
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return header(0, 0, numericNaNTag, 0)
	case d.Form == apd.Infinite && d.Negative:
		return header(0, 0, numericNInf, numericInfDScale)
	case d.Form == apd.Infinite:
		return header(0, 0, numericPInf, numericInfDScale)
	}
	if n, err := normalizeNumeric(d); err == nil {
		d = n
	}
	groups, weight := numericGroups(d)
	sign := uint16(numericPos)
	if d.Negative && len(groups) > 0 {
		sign = numericNeg
	}
	buf = header(len(groups), weight, sign, max(0, -int(d.Exponent)))
	for _, g := range groups {
		buf = binary.BigEndian.AppendUint16(buf, g)
	}
	return buf
}

// numericGroups splits a finite numeric into base-10000 digits aligned on
// the decimal point, without leading or trailing zero digits, and returns
// the weight of the first. Zero has no digits and weight 0.
func numericGroups(d *apd.Decimal) ([]uint16, int) {
	if d.Coeff.Sign() == 0 {
		return nil, 0
	}
	// Pad the fraction to a whole number of base-10000 digits; a positive
	// exponent (a value beyond numeric's limits) pads the integer instead.
	dscale := -int(d.Exponent)
	pad := (4 - dscale%4) % 4
	if dscale < 0 {
		dscale, pad = 0, -dscale
	}
	text := d.Coeff.Text(10) + strings.Repeat("0", pad)
	if lead := (4 - len(text)%4) % 4; lead > 0 {
		text = "000"[:lead] + text
	}
	fracGroups := (dscale + pad) / 4
	groups := make([]uint16, 0, len(text)/4)
	for i := 0; i < len(text); i += 4 {
		g := uint16(text[i]-'0')*1000 + uint16(text[i+1]-'0')*100 + uint16(text[i+2]-'0')*10 + uint16(text[i+3]-'0')
		groups = append(groups, g)
	}
	weight := len(groups) - fracGroups - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	return groups, weight
}

func appendArrayBinary(buf []byte, elem T, lower int, vals []any) []byte {
	// An empty array has no dimensions, but a vector always has one.
	if len(vals) == 0 && lower == 1 {
		buf = binary.BigEndian.AppendUint32(buf, 0)
		buf = binary.BigEndian.AppendUint32(buf, 0)
		return binary.BigEndian.AppendUint32(buf, uint32(elem.Oid))
	}
	hasNull := uint32(0)
	for _, v := range vals {
		if v == nil {
			hasNull = 1
			break
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, uint32(elem.Oid))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(vals)))
	buf = binary.BigEndian.AppendUint32(buf, uint32(lower))
	for _, v := range vals {
		if v == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		buf = AppendBinary(buf, elem, v)
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf
}
