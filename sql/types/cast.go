package types

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// Cast converts the datum v of type from to type to with the semantics of
// an explicit CAST: through text I/O to and from the string types, with
// PostgreSQL's rounding between numbers (float → int rounds half to even,
// numeric → int half away from zero), through the session time zone loc
// between date, timestamp and timestamptz, and with the target's modifier
// applied as an explicit length coercion (strings are silently truncated).
// A NULL casts to NULL. Casts PostgreSQL does not have fail with 42846.
func Cast(v any, from, to T, loc *time.Location) (any, error) {
	if v == nil {
		return nil, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	r, err := cast(v, from, to, loc)
	if err != nil {
		return nil, err
	}
	return coerce(to, r, true)
}

// CastImplicit is Cast with the semantics of a conversion PostgreSQL makes
// by itself, as when a value is assigned to a column: a string too long for
// to's length is an error (22001), not cut.
func CastImplicit(v any, from, to T, loc *time.Location) (any, error) {
	if v == nil {
		return nil, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	r, err := cast(v, from, to, loc)
	if err != nil {
		return nil, err
	}
	return coerce(to, r, false)
}

func errCannotCast(from, to T) error {
	return pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to)
}

// isStringType reports whether oid is in PostgreSQL's string category (or
// an untyped literal), whose values cast to and from every type through
// text I/O.
func isStringType(oid Oid) bool {
	switch oid {
	case OidText, OidVarchar, OidBpchar, OidName, OidCitext, OidUnknown:
		return true
	}
	return false
}

func isIntType(oid Oid) bool {
	return oid == OidInt2 || oid == OidInt4 || oid == OidInt8
}

func cast(v any, from, to T, loc *time.Location) (any, error) {
	if from.Oid == to.Oid {
		return v, nil
	}
	fromElem, fromArray := from.Elem()
	toElem, toArray := to.Elem()
	switch {
	case fromArray && toArray:
		vals := v.([]any)
		out := make([]any, len(vals))
		for i, e := range vals {
			if e == nil {
				continue
			}
			c, err := cast(e, fromElem, toElem, loc)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case from.Oid == OidChar || to.Oid == OidChar:
		return castChar(v, from, to)
	case isNetwork(from.Oid) || isNetwork(to.Oid) && !isStringType(from.Oid):
		return castNetwork(v, from, to)
	case isStringType(to.Oid):
		return castToString(v, from, loc), nil
	case isStringType(from.Oid):
		if to.Oid == OidInterval && from.Oid != OidUnknown {
			// A text value goes through interval_in without the typmod,
			// which only a literal's input sees: '5'::text::interval hour
			// is five seconds, truncated to no hours.
			to = IntervalType
		}
		return parseText(to, v.(string), loc)
	case from.Oid == OidJSON || from.Oid == OidJSONB:
		return castFromJSON(v.(*JSON), from, to)
	case fromArray || toArray:
		return nil, errCannotCast(from, to)
	case from.Oid == OidTime || to.Oid == OidTime:
		return castTime(v, from, to, loc)
	}

	switch f := v.(type) {
	case bool:
		if to.Oid == OidInt4 {
			if f {
				return int64(1), nil
			}
			return int64(0), nil
		}
	case int64:
		return castFromInt(f, from, to)
	case float64:
		return castFromFloat(f, from, to)
	case *apd.Decimal:
		return castFromNumeric(f, to)
	case time.Time:
		return castFromTime(f, from, to, loc)
	case Reg:
		// The reg* types are binary-coercible to oid, and so to each other.
		return castFromInt(int64(f.Oid), OidType, to)
	}
	return nil, errCannotCast(from, to)
}

// castChar handles "char", which is not a string type: it casts to and from
// the string types as its input and output functions read and show it, and
// to and from int4 as a signed byte.
func castChar(v any, from, to T) (any, error) {
	switch {
	case from.Oid == OidChar && isStringType(to.Oid):
		return string(appendChar(nil, v.(string))), nil
	case from.Oid == OidChar && to.Oid == OidInt4:
		if s := v.(string); s != "" {
			return int64(int8(s[0])), nil
		}
		return int64(0), nil
	case to.Oid == OidChar && isStringType(from.Oid):
		return parseChar(v.(string)), nil
	case to.Oid == OidChar && from.Oid == OidInt4:
		n := v.(int64)
		if n < math.MinInt8 || n > math.MaxInt8 {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, `"char" out of range`)
		}
		if n == 0 {
			return "", nil
		}
		return string([]byte{byte(n)}), nil
	}
	return nil, errCannotCast(from, to)
}

// castToString is the output function, except where PostgreSQL has a
// dedicated cast: bool → text spells true and false out, and char(n) →
// text drops the padding.
func castToString(v any, from T, loc *time.Location) string {
	switch from.Oid {
	case OidBool:
		if v.(bool) {
			return "true"
		}
		return "false"
	case OidBpchar:
		return strings.TrimRight(v.(string), " ")
	case OidText, OidVarchar, OidName, OidCitext, OidUnknown:
		return v.(string)
	}
	return string(AppendText(nil, from, v, loc))
}

func castFromInt(n int64, from, to T) (any, error) {
	if IsReg(to.Oid) {
		if from.Oid == OidInt8 && (n < 0 || n > math.MaxUint32) {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "OID out of range")
		}
		return Reg{Oid: Oid(uint32(n))}, nil
	}
	if from.Oid == OidOid {
		switch to.Oid {
		case OidOid:
			return n, nil
		case OidInt4:
			// oid → int4 is binary coercion: large oids come out negative.
			return int64(int32(uint32(n))), nil
		case OidInt8:
			return n, nil
		}
		return nil, errCannotCast(from, to)
	}
	switch {
	case isIntType(to.Oid):
		return n, nil // coerce checks the range
	case to.Oid == OidOid:
		// int4 and int2 are binary-coercible to oid, so negatives wrap.
		if from.Oid != OidInt8 && n < 0 {
			return int64(uint32(n)), nil
		}
		return n, nil
	case to.Oid == OidFloat4 || to.Oid == OidFloat8:
		return float64(n), nil
	case to.Oid == OidNumeric:
		return apd.New(n, 0), nil
	case to.Oid == OidBool && from.Oid == OidInt4:
		return n != 0, nil
	}
	return nil, errCannotCast(from, to)
}

func castFromFloat(f float64, from, to T) (any, error) {
	switch to.Oid {
	case OidFloat4, OidFloat8:
		return f, nil
	case OidInt2, OidInt4, OidInt8:
		r := math.RoundToEven(f)
		limit := float64(-math.MinInt64) // exactly 2^63
		switch to.Oid {
		case OidInt2:
			limit = -math.MinInt16
		case OidInt4:
			limit = -math.MinInt32
		}
		if math.IsNaN(r) || r < -limit || r >= limit {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
		}
		return int64(r), nil
	case OidNumeric:
		switch {
		case math.IsNaN(f):
			return numericNaN, nil
		case math.IsInf(f, 1):
			return numericPosInf, nil
		case math.IsInf(f, -1):
			return numericNegInf, nil
		}
		// PostgreSQL prints the float with DBL_DIG (FLT_DIG) significant
		// digits and reads that back, so 0.1::float8 becomes exactly 0.1.
		s := strconv.FormatFloat(f, 'g', 15, 64)
		if from.Oid == OidFloat4 {
			s = strconv.FormatFloat(f, 'g', 6, 32)
		}
		return parseNumeric(s)
	}
	return nil, errCannotCast(from, to)
}

func castFromNumeric(d *apd.Decimal, to T) (any, error) {
	switch to.Oid {
	case OidNumeric:
		return d, nil
	case OidInt2, OidInt4, OidInt8:
		typ := T{to.Oid, -1}
		switch d.Form {
		case apd.NaN, apd.NaNSignaling:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to %s", typ)
		case apd.Infinite:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to %s", typ)
		}
		r := roundNumeric(d, 0)
		n, err := r.Int64()
		if err != nil {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", typ)
		}
		return n, nil
	case OidFloat4, OidFloat8:
		switch d.Form {
		case apd.NaN, apd.NaNSignaling:
			return pgNaN, nil
		case apd.Infinite:
			if d.Negative {
				return math.Inf(-1), nil
			}
			return math.Inf(1), nil
		}
		bits := 64
		if to.Oid == OidFloat4 {
			bits = 32
		}
		return parseFloat(d.Text('f'), bits)
	}
	return nil, errCannotCast(Numeric, to)
}

func castFromTime(t time.Time, from, to T, loc *time.Location) (any, error) {
	inf := isInfinite(t)
	if from.Oid == OidDate && !inf && (to.Oid == OidTimestamp || to.Oid == OidTimestamptz) &&
		int64(pgDays(t)) >= endTimestampUS/usPerDay {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	switch {
	case from.Oid == OidDate && to.Oid == OidTimestamp:
		return t, nil
	case from.Oid == OidDate && to.Oid == OidTimestamptz:
		if inf {
			return t, nil
		}
		return timestampInRange(fromPGMicros(localToUTC(pgMicros(t), loc)))
	case from.Oid == OidTimestamp && to.Oid == OidTimestamptz:
		if inf {
			return t, nil
		}
		return timestampInRange(fromPGMicros(localToUTC(pgMicros(t), loc)))
	case from.Oid == OidTimestamptz && to.Oid == OidTimestamp:
		if inf {
			return t, nil
		}
		return timestampInRange(wallClock(t.In(loc)))
	case from.Oid == OidTimestamp && to.Oid == OidDate:
		return dateOf(t), nil
	case from.Oid == OidTimestamptz && to.Oid == OidDate:
		if inf {
			return t, nil
		}
		return dateOf(wallClock(t.In(loc))), nil
	}
	return nil, errCannotCast(from, to)
}

// dateOf returns the date of a wall-clock timestamp.
func dateOf(t time.Time) time.Time {
	if isInfinite(t) {
		return t
	}
	d, _ := floorDiv(pgMicros(t), usPerDay)
	return fromPGDays(int32(d))
}

func timestampInRange(t time.Time) (any, error) {
	if us := pgMicros(t); us < minTimestampUS || us >= endTimestampUS {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	}
	return t, nil
}

// castFromJSON converts json to jsonb and back, and a jsonb scalar to the
// SQL type of its kind, as PostgreSQL's jsonb casts do.
func castFromJSON(j *JSON, from, to T) (any, error) {
	switch {
	case from.Oid == OidJSON && to.Oid == OidJSONB:
		return NormalizeJSONB(j)
	case from.Oid == OidJSONB && to.Oid == OidJSON:
		return ParseJSON(string(j.AppendJSONB(nil)))
	case from.Oid == OidJSON:
		return nil, errCannotCast(from, to)
	}
	want := JSONNumber
	switch {
	case to.Oid == OidBool:
		want = JSONBool
	case isIntType(to.Oid), to.Oid == OidNumeric, to.Oid == OidFloat4, to.Oid == OidFloat8:
	default:
		return nil, errCannotCast(from, to)
	}
	if j.Kind != want {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", jsonKindName(j.Kind), to)
	}
	if want == JSONBool {
		return j.Bool, nil
	}
	return castFromNumeric(j.Num, to)
}

// jsonKindName names a JSON value's kind as PostgreSQL's messages do.
func jsonKindName(k JSONKind) string {
	switch k {
	case JSONString:
		return "string"
	case JSONNumber:
		return "numeric"
	case JSONBool:
		return "boolean"
	case JSONArray:
		return "array"
	case JSONObject:
		return "object"
	}
	return "null"
}
