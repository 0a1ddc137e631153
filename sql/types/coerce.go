package types

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// Coerce applies t's modifier and range to v, a datum of t's family, as
// storing it into a column of type t does: integers are range-checked,
// float4 is rounded to float32, numeric is rounded to its scale, strings
// are checked against their length, and timestamps and intervals are
// rounded to their precision. It returns the stored datum.
func Coerce(t T, v any) (any, error) { return coerce(t, v, false) }

// coerce is Coerce, or with explicit set, the length coercion of an
// explicit cast, which truncates strings silently instead of failing.
func coerce(t T, v any, explicit bool) (any, error) {
	if v == nil {
		return nil, nil
	}
	if elem, ok := t.Elem(); ok {
		vals, ok := v.([]any)
		if !ok {
			return nil, errDatum(t, v)
		}
		out := make([]any, len(vals))
		for i, e := range vals {
			c, err := coerce(elem, e, explicit)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	if IsEnum(t.Oid) {
		e, ok := v.(Enum)
		switch {
		case !ok:
			return nil, errDatum(t, v)
		case !e.Resolved():
			return nil, errUnresolvedEnum(e)
		}
		return e, nil
	}
	switch t.Oid {
	case OidBool:
		if _, ok := v.(bool); !ok {
			return nil, errDatum(t, v)
		}
	case OidInt2, OidInt4, OidInt8, OidOid:
		n, ok := v.(int64)
		if !ok {
			return nil, errDatum(t, v)
		}
		if err := checkIntRange(t.Oid, n); err != nil {
			return nil, err
		}
	case OidFloat4:
		f, ok := v.(float64)
		if !ok {
			return nil, errDatum(t, v)
		}
		return toFloat4(f)
	case OidFloat8:
		if _, ok := v.(float64); !ok {
			return nil, errDatum(t, v)
		}
	case OidNumeric:
		d, ok := v.(*apd.Decimal)
		if !ok {
			return nil, errDatum(t, v)
		}
		d, err := normalizeNumeric(d)
		if err != nil {
			return nil, err
		}
		return applyNumericMod(d, t.Mod)
	case OidText, OidCitext, OidUnknown:
		if _, ok := v.(string); !ok {
			return nil, errDatum(t, v)
		}
	case OidVarchar, OidBpchar:
		s, ok := v.(string)
		if !ok {
			return nil, errDatum(t, v)
		}
		return coerceChars(t, s, explicit)
	case OidName:
		s, ok := v.(string)
		if !ok {
			return nil, errDatum(t, v)
		}
		return truncateName(s), nil
	case OidChar:
		s, ok := v.(string)
		if !ok {
			return nil, errDatum(t, v)
		}
		if len(s) > 1 {
			return s[:1], nil
		}
	case OidBytea:
		if _, ok := v.([]byte); !ok {
			return nil, errDatum(t, v)
		}
	case OidDate:
		if _, ok := v.(time.Time); !ok {
			return nil, errDatum(t, v)
		}
	case OidTime:
		us, ok := v.(int64)
		if !ok {
			return nil, errDatum(t, v)
		}
		if p := timePrecision(t); p >= 0 && p < maxTimePrecision {
			return roundMicros(us, p), nil
		}
	case OidTimestamp, OidTimestamptz:
		ts, ok := v.(time.Time)
		if !ok {
			return nil, errDatum(t, v)
		}
		if p := timePrecision(t); p >= 0 && p < maxTimePrecision && !isInfinite(ts) {
			// Like PostgreSQL 15, rounding may carry just past the end of
			// the range; the value still prints and stores.
			return fromPGMicros(roundMicros(pgMicros(ts), p)), nil
		}
	case OidInterval:
		iv, ok := v.(Interval)
		if !ok {
			return nil, errDatum(t, v)
		}
		if rng := intervalRange(t); rng != intervalAllFields {
			iv = truncateInterval(iv, rng)
		}
		if p := timePrecision(t); p >= 0 && p < maxTimePrecision {
			iv.Micros = roundMicros(iv.Micros, p)
		}
		return iv, nil
	case OidUUID:
		if _, ok := v.(UUID); !ok {
			return nil, errDatum(t, v)
		}
	case OidJSON, OidJSONB:
		if _, ok := v.(*JSON); !ok {
			return nil, errDatum(t, v)
		}
	case OidInet, OidCidr:
		if _, ok := v.(Inet); !ok {
			return nil, errDatum(t, v)
		}
	case OidMacaddr:
		if _, ok := v.(Macaddr); !ok {
			return nil, errDatum(t, v)
		}
	case OidMacaddr8:
		if _, ok := v.(Macaddr8); !ok {
			return nil, errDatum(t, v)
		}
	case OidRegproc, OidRegprocedure, OidRegclass, OidRegtype, OidRegnamespace, OidRegrole:
		if _, ok := v.(Reg); !ok {
			return nil, errDatum(t, v)
		}
	case OidRecord:
		if _, ok := v.([]any); !ok {
			return nil, errDatum(t, v)
		}
	default:
		return nil, errNoIO(t)
	}
	return v, nil
}

// errDatum reports a datum whose Go type does not carry t: a bug in the
// caller, reported rather than panicking.
func errDatum(t T, v any) error {
	return pgerr.New(pgerr.DatatypeMismatch, "value of Go type %T is not a datum of type %s", v, t)
}

func checkIntRange(oid Oid, n int64) error {
	switch oid {
	case OidInt2:
		if n < math.MinInt16 || n > math.MaxInt16 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "smallint out of range")
		}
	case OidInt4:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
		}
	case OidOid:
		if n < 0 || n > math.MaxUint32 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "OID out of range")
		}
	}
	return nil
}

// toFloat4 rounds f to float32 precision, failing where float8 → float4
// would overflow or underflow in PostgreSQL.
func toFloat4(f float64) (any, error) {
	r := float32(f)
	switch {
	case math.IsInf(float64(r), 0) && !math.IsInf(f, 0):
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	case r == 0 && f != 0:
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return float64(r), nil
}

// coerceChars applies the length of varchar(n) or char(n). Characters, not
// bytes, are counted. On assignment a longer value is an error unless only
// spaces are cut off; an explicit cast truncates. char(n) pads with spaces.
func coerceChars(t T, s string, explicit bool) (any, error) {
	n := charLen(t)
	if n < 0 {
		return s, nil
	}
	count := utf8.RuneCountInString(s)
	if count > n {
		cut := len(s)
		for i := range s {
			if n == 0 {
				cut = i
				break
			}
			n--
		}
		if !explicit && strings.TrimRight(s[cut:], " ") != "" {
			typ := "character varying"
			if t.Oid == OidBpchar {
				typ = "character"
			}
			return nil, pgerr.New(pgerr.StringDataRightTruncation, "value too long for type %s(%d)", typ, charLen(t))
		}
		return s[:cut], nil
	}
	if t.Oid == OidBpchar && count < n {
		return s + strings.Repeat(" ", n-count), nil
	}
	return s, nil
}

// timeScales[p] is 10^(6-p): the microseconds in one unit of precision p.
var timeScales = [maxTimePrecision + 1]int64{1000000, 100000, 10000, 1000, 100, 10, 1}

// roundMicros rounds microseconds to precision p, halves away from zero
// (away from 2000-01-01 for timestamps), as AdjustTimestampForTypmod does.
func roundMicros(us int64, p int) int64 {
	scale := timeScales[p]
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}
