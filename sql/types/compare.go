package types

import (
	"bytes"
	"cmp"
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Compare orders two non-NULL datums of type t as PostgreSQL's btree
// comparison functions do, returning -1, 0 or +1. Strings compare bytewise
// (the C collation); citext compares lower-cased; char(n) ignores trailing spaces; NaN is equal to
// itself and above every other float or numeric; -0 equals 0; numerics
// compare by value (1.5 = 1.50); intervals compare by their length with a
// month of 30 days ('1 mon' = '30 days'); inet and cidr compare as
// network_cmp does (CompareInet); arrays compare element by
// element, a NULL element above any other, then by length.
func Compare(t T, a, b any) int {
	switch t.Oid {
	case OidText, OidVarchar:
		return strings.Compare(a.(string), b.(string))
	case OidCitext:
		return strings.Compare(FoldCase(a.(string)), FoldCase(b.(string)))
	case OidBool:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case y:
			return -1
		}
		return 1
	case OidInt2, OidInt4, OidInt8, OidOid, OidTime:
		return cmp.Compare(a.(int64), b.(int64))
	case OidFloat4, OidFloat8:
		return CompareFloat(a.(float64), b.(float64))
	case OidNumeric:
		return compareNumeric(a.(*apd.Decimal), b.(*apd.Decimal))
	case OidBpchar:
		return strings.Compare(strings.TrimRight(a.(string), " "), strings.TrimRight(b.(string), " "))
	case OidBytea:
		return bytes.Compare(a.([]byte), b.([]byte))
	case OidDate, OidTimestamp, OidTimestamptz:
		return a.(time.Time).Compare(b.(time.Time))
	case OidInterval:
		return compareInterval(a.(Interval), b.(Interval))
	case OidUUID:
		x, y := a.(UUID), b.(UUID)
		return bytes.Compare(x[:], y[:])
	case OidJSONB:
		return CompareJSONB(a.(*JSON), b.(*JSON))
	case OidInet, OidCidr:
		return CompareInet(a.(Inet), b.(Inet))
	case OidMacaddr:
		x, y := a.(Macaddr), b.(Macaddr)
		return bytes.Compare(x[:], y[:])
	case OidMacaddr8:
		x, y := a.(Macaddr8), b.(Macaddr8)
		return bytes.Compare(x[:], y[:])
	case OidRegproc, OidRegprocedure, OidRegclass, OidRegtype, OidRegnamespace, OidRegrole:
		return cmp.Compare(a.(Reg).Oid, b.(Reg).Oid)
	case OidRecord:
		fields, _ := t.Fields()
		return compareRecords(fields, a.([]any), b.([]any))
	}
	// The rarer types, found by lookup: arrays and enums; then the rest
	// of the string types.
	if elem, ok := t.Elem(); ok {
		return compareArrays(elem, a.([]any), b.([]any))
	}
	if IsEnum(t.Oid) {
		return cmp.Compare(a.(Enum).Sort, b.(Enum).Sort)
	}
	return strings.Compare(a.(string), b.(string))
}

func compareNumeric(a, b *apd.Decimal) int {
	switch an, bn := a.Form == apd.NaN, b.Form == apd.NaN; {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}

// intervalSpan returns an interval's length as whole days (a month being 30
// days) and the microseconds left over, in [0, usPerDay), so two intervals
// compare without the 128-bit arithmetic PostgreSQL's interval_cmp uses.
func intervalSpan(iv Interval) (days, us int64) {
	d, r := floorDiv(iv.Micros, usPerDay)
	return int64(iv.Months)*daysPerMonth + int64(iv.Days) + d, r
}

func compareInterval(a, b Interval) int {
	ad, au := intervalSpan(a)
	bd, bu := intervalSpan(b)
	if c := cmp.Compare(ad, bd); c != 0 {
		return c
	}
	return cmp.Compare(au, bu)
}

func compareArrays(elem T, a, b []any) int {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := Compare(elem, x, y); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// CompareFloat orders floats as PostgreSQL does: cmp.Compare puts NaN
// first, PostgreSQL puts it last (and equal to itself).
func CompareFloat(x, y float64) int {
	switch xn, yn := math.IsNaN(x), math.IsNaN(y); {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return cmp.Compare(x, y)
}
