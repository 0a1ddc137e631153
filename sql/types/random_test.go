package types

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// randomTypes are the types the property tests draw values of: every base
// type with and without modifiers, and some arrays.
var randomTypes = []T{
	Bool, Int2, Int4, Int8, OidType, Float4, Float8,
	Numeric, {OidNumeric, 10<<16 | 3 + 4}, {OidNumeric, 5<<16 | 0x7ff&-2 + 4},
	Text, Varchar, {OidVarchar, 5 + 4}, Bpchar, {OidBpchar, 4 + 4}, Name, Char,
	Bytea, Date, TimeType, {OidTime, 3}, Timestamp, Timestamptz, {OidTimestamp, 2}, IntervalType, UUIDType,
	Int8Array, TextArray, {OidNumericArray, -1}, {OidFloat8Array, -1}, {OidBpcharArray, 3 + 4},
	{OidIntervalArray, -1}, {OidByteaArray, -1}, {OidTimeArray, -1}, Citext, {OidCitextArray, -1},
	InetType, CidrType, MacaddrType, Macaddr8Type, {OidInetArray, -1}, {OidMacaddrArray, -1},
}

// randomDatum returns a value of type t that Coerce accepts unchanged,
// favouring edge cases and values that compare equal with different
// representations (1.5 and 1.50, -0 and 0, '1 mon' and '30 days').
func randomDatum(r *rand.Rand, t T) any {
	if elem, ok := t.Elem(); ok {
		vals := make([]any, r.IntN(4))
		for i := range vals {
			if r.IntN(5) > 0 {
				vals[i] = randomDatum(r, elem)
			}
		}
		return vals
	}
	switch t.Oid {
	case OidBool:
		return r.IntN(2) == 1
	case OidInt2, OidInt4, OidInt8, OidOid:
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch t.Oid {
		case OidInt2:
			lo, hi = math.MinInt16, math.MaxInt16
		case OidInt4:
			lo, hi = math.MinInt32, math.MaxInt32
		case OidOid:
			lo, hi = 0, math.MaxUint32
		}
		// Edges of the type and of the key encoding's length classes, or a
		// value of random magnitude.
		v := pick(r, lo, hi, 0, -1, 1, 0x6f, 0x70, 255, 256, -256, -257)
		if r.IntN(2) == 0 {
			v = int64(r.Uint64()) >> r.IntN(64)
		}
		return max(lo, min(hi, v))
	case OidFloat4, OidFloat8:
		var f float64
		switch r.IntN(4) {
		case 0:
			f = pick(r, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), pgNaN, 1, -1, 0.1, 5e-324)
		case 1:
			f = float64(r.IntN(5) - 2)
		default:
			f = math.Float64frombits(r.Uint64())
		}
		if t.Oid == OidFloat4 {
			f = float64(float32(f))
		}
		return f
	case OidNumeric:
		return randomNumeric(r, t)
	case OidText, OidVarchar, OidBpchar, OidName, OidChar, OidCitext:
		s := randomString(r)
		switch t.Oid {
		case OidName:
			s = truncateName(s)
		case OidChar:
			s = s[:min(len(s), 1)]
		}
		v, err := coerce(t, s, true)
		if err != nil {
			panic(err)
		}
		return v
	case OidBytea:
		b := make([]byte, r.IntN(5))
		for i := range b {
			b[i] = byte(pick(r, 0, 1, 0xff, int64(r.IntN(256))))
		}
		return b
	case OidDate:
		switch r.IntN(8) {
		case 0:
			return TimeInfinity
		case 1:
			return TimeNegInfinity
		}
		return fromPGDays(int32(minDateDays + r.Int64N(endDateDays-minDateDays)))
	case OidTime:
		v, _ := Coerce(t, pick(r, 0, usPerDay, usPerDay-1, r.Int64N(usPerDay+1)))
		return v
	case OidTimestamp, OidTimestamptz:
		switch r.IntN(8) {
		case 0:
			return TimeInfinity
		case 1:
			return TimeNegInfinity
		}
		v, _ := Coerce(t, fromPGMicros(minTimestampUS+int64(r.Uint64N(endTimestampUS-minTimestampUS))))
		return v
	case OidInterval:
		if r.IntN(3) == 0 {
			return Interval{Months: int32(r.IntN(3)), Days: int32(r.IntN(61) - 30), Micros: int64(r.IntN(3)-1) * usPerDay}
		}
		return Interval{Months: int32(r.Uint32()), Days: int32(r.Uint32()), Micros: int64(r.Uint64())}
	case OidUUID:
		var u UUID
		for i := range u {
			u[i] = byte(r.IntN(256))
		}
		if r.IntN(2) == 0 {
			u[r.IntN(16)] = 0
		}
		return u
	case OidInet, OidCidr:
		return randomInet(r, t.Oid == OidCidr)
	case OidMacaddr:
		var m Macaddr
		for i := range m {
			m[i] = byte(pick(r, 0, 0xff, r.IntN(256)))
		}
		return m
	case OidMacaddr8:
		var m Macaddr8
		for i := range m {
			m[i] = byte(pick(r, 0, 0xff, r.IntN(256)))
		}
		return m
	}
	panic("no random values of type " + t.String())
}

func pick[V any](r *rand.Rand, vs ...V) V { return vs[r.IntN(len(vs))] }

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pick(r, "a", "b", "A", " ", "\x00", "\x01", "é", "É", "z", "\u00ff", "{", "\""))
	}
	return b.String()
}

// randomNumeric draws from few digits and scales so that equal values with
// different scales are common.
func randomNumeric(r *rand.Rand, t T) *apd.Decimal {
	switch r.IntN(10) {
	case 0:
		return numericNaN
	case 1:
		if t.Mod < 0 {
			return pick(r, numericPosInf, numericNegInf)
		}
	}
	var d *apd.Decimal
	if r.IntN(4) == 0 {
		digits := make([]byte, 1+r.IntN(30))
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		d, _, _ = apd.NewFromString(string(digits))
		d.Exponent = -int32(r.IntN(40))
	} else {
		d = apd.New(int64(r.IntN(2001)-1000), -int32(r.IntN(4)))
	}
	d.Negative = d.Negative || r.IntN(2) == 0
	d, _ = normalizeNumeric(d)
	if t.Mod >= 4 {
		_, scale := numericMod(t.Mod)
		d = roundNumeric(d, scale)
		if v, err := Coerce(t, d); err == nil {
			return v.(*apd.Decimal)
		}
		return apd.New(0, int32(-max(scale, 0)))
	}
	return d
}

// randomInet draws addresses from few bytes and prefix lengths, so that
// values sharing a network, or a prefix length, are common; a cidr's host
// bits are cleared.
func randomInet(r *rand.Rand, cidr bool) Inet {
	a := Inet{IPv6: r.IntN(2) == 0}
	for i := range a.Size() {
		a.Addr[i] = byte(pick(r, 0, 0, 1, 0x80, 0xff, r.IntN(256)))
	}
	a.Bits = uint8(pick(r, a.MaxBits(), 0, 8, 9, 24, a.MaxBits()-1, r.IntN(a.MaxBits()+1)))
	if cidr {
		return a.Masked()
	}
	return a
}
