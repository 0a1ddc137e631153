package builtins

import (
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// EXTRACT(field FROM x), which the parser writes as extract('field', x),
// and date_part('field', x): a field of a date, a time, a timestamp, a
// timestamptz (in the session time zone) or an interval. extract gives
// numeric, date_part float8, as in PostgreSQL 15.

// extract's overloads, one for each type it reads; with float, date_part's.
func extract(float bool) []Overload {
	ret := types.Numeric
	if float {
		ret = types.Float8
	}
	var ovs []Overload
	for _, t := range []types.T{types.Date, types.TimeType, types.Timestamp, types.Timestamptz, types.IntervalType} {
		vol := Immutable
		if t.Oid == types.OidTimestamptz {
			vol = Stable
		}
		ovs = append(ovs, Overload{Args: []types.T{types.Text, t}, Ret: ret, Volatility: vol,
			Fn: func(e Env, a []any) (any, error) { return datePart(e, a[0].(string), t, a[1], float) }})
	}
	return ovs
}

// datePart is field of x, of type xt, as numeric or, with float, float8.
func datePart(e Env, field string, xt types.T, x any, float bool) (any, error) {
	// Units are spelled as DecodeUnits reads them: years, hrs, ...
	lower := lowerASCII(field)
	name := lower
	if u, _ := decodeUnits(lower); u != "" {
		name = u
	}
	var v *apd.Decimal
	var err error
	if iv, ok := x.(types.Interval); ok {
		v, err = intervalPart(name, iv)
	} else if xt.Oid == types.OidTime {
		v, err = timeOfDayPart(name, x.(int64))
	} else if t := x.(time.Time); types.IsInfinite(t) {
		v, err = infinitePart(name, t.Equal(types.TimeNegInfinity), xt)
		if v == nil && err == nil {
			return nil, nil
		}
	} else {
		v, err = timePart(name, t, xt, e.Location())
	}
	if pe, ok := err.(*pgerr.Error); ok && name != lower {
		pe.Message = strings.Replace(pe.Message, strconv.Quote(name), strconv.Quote(lower), 1)
	}
	if err != nil || !float {
		return v, err
	}
	f, _ := v.Float64()
	return f, nil
}

// infinitePart is a field of an infinite date or timestamp: infinite for
// the fields that grow with time, NULL (nil) for those that cycle.
func infinitePart(field string, negative bool, typ types.T) (*apd.Decimal, error) {
	switch field {
	case "year", "decade", "century", "millennium", "julian", "isoyear", "epoch":
		return &apd.Decimal{Form: apd.Infinite, Negative: negative}, nil
	case "day", "month", "quarter", "week", "dow", "isodow", "doy":
		return nil, nil
	case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute":
		if typ.Oid != types.OidDate {
			return nil, nil
		}
	}
	return nil, errUnit(field, typ)
}

// unixEpochJulianDay is the Julian day number of 1970-01-01.
const unixEpochJulianDay = 2440588

// timePart is one field of a finite date or timestamp; a timestamptz is
// read in loc. Seconds carry six decimals, milliseconds three, as
// PostgreSQL prints them; a date has no time fields.
func timePart(field string, t time.Time, typ types.T, loc *time.Location) (*apd.Decimal, error) {
	if typ.Oid == types.OidTimestamptz {
		t = t.In(loc)
	}
	usec := int64(t.Nanosecond() / 1000)
	year := int64(t.Year())
	isoYear, isoWeek := t.ISOWeek()
	// Go numbers years astronomically, 1 BC being year 0; PostgreSQL has
	// no year 0, and calls 1 BC -1.
	bc := func(y int64) int64 {
		if y <= 0 {
			return y - 1
		}
		return y
	}
	switch field {
	case "year":
		return apd.New(bc(year), 0), nil
	case "month":
		return apd.New(int64(t.Month()), 0), nil
	case "day":
		return apd.New(int64(t.Day()), 0), nil
	case "quarter":
		return apd.New((int64(t.Month())-1)/3+1, 0), nil
	case "decade":
		return apd.New(floorDiv(year, 10), 0), nil
	case "century":
		if year > 0 {
			return apd.New((year+99)/100, 0), nil
		}
		return apd.New(-((99 - (year - 1)) / 100), 0), nil
	case "millennium":
		if year > 0 {
			return apd.New((year+999)/1000, 0), nil
		}
		return apd.New(-((999 - (year - 1)) / 1000), 0), nil
	case "dow":
		return apd.New(int64(t.Weekday()), 0), nil
	case "isodow":
		return apd.New(int64((t.Weekday()+6)%7+1), 0), nil
	case "doy":
		return apd.New(int64(t.YearDay()), 0), nil
	case "week":
		return apd.New(int64(isoWeek), 0), nil
	case "isoyear":
		return apd.New(bc(int64(isoYear)), 0), nil
	case "julian":
		// The Julian day number, and for a timestamp the fraction of the
		// day its wall clock has passed.
		wall := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		jd := apd.New(floorDiv(wall.Unix(), 86400)+unixEpochJulianDay, 0)
		if typ.Oid == types.OidDate {
			return jd, nil
		}
		const microsPerDay = 86_400_000_000
		dayMicros := apd.New(int64(t.Hour()*3600+t.Minute()*60+t.Second())*1_000_000+usec, 0)
		perDay := apd.New(microsPerDay, 0)
		frac := NumericDiv(dayMicros, perDay, NumericDivScale(dayMicros, perDay))
		sum := new(apd.Decimal)
		if _, err := NumericContext.Add(sum, jd, frac); err != nil {
			return nil, err
		}
		return sum, nil
	case "epoch":
		// A timestamp's epoch is its wall clock read as UTC.
		secs := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC).Unix()
		if typ.Oid == types.OidTimestamptz {
			secs = t.Unix()
		}
		if typ.Oid == types.OidDate {
			return apd.New(secs, 0), nil
		}
		return apd.New(secs*1_000_000+usec, -6), nil
	}
	if typ.Oid == types.OidDate {
		return nil, errUnit(field, typ)
	}
	switch field {
	case "hour":
		return apd.New(int64(t.Hour()), 0), nil
	case "minute":
		return apd.New(int64(t.Minute()), 0), nil
	case "second":
		return apd.New(int64(t.Second())*1_000_000+usec, -6), nil
	case "milliseconds":
		return apd.New(int64(t.Second())*1_000_000+usec, -3), nil
	case "microseconds":
		return apd.New(int64(t.Second())*1_000_000+usec, 0), nil
	}
	if typ.Oid == types.OidTimestamptz {
		_, off := t.Zone()
		switch field {
		case "timezone":
			return apd.New(int64(off), 0), nil
		case "timezone_hour":
			return apd.New(int64(off/3600), 0), nil
		case "timezone_minute":
			return apd.New(int64(off/60%60), 0), nil
		}
	}
	return nil, errUnit(field, typ)
}

// timeOfDayPart is one field of a time: the clock fields and epoch, the
// seconds since midnight.
func timeOfDayPart(field string, us int64) (*apd.Decimal, error) {
	const usPerMinute = 60_000_000
	secUS := us % usPerMinute
	switch field {
	case "hour":
		return apd.New(us/(60*usPerMinute), 0), nil
	case "minute":
		return apd.New(us/usPerMinute%60, 0), nil
	case "second":
		return apd.New(secUS, -6), nil
	case "milliseconds":
		return apd.New(secUS, -3), nil
	case "microseconds":
		return apd.New(secUS, 0), nil
	case "epoch":
		return apd.New(us, -6), nil
	}
	return nil, errUnit(field, types.TimeType)
}

// intervalPart is one field of an interval. Hours are not folded into
// days nor days into months, as interval2tm does not; epoch counts a year
// as 365.25 days and a month as 30.
func intervalPart(field string, iv types.Interval) (*apd.Decimal, error) {
	years, months := int64(iv.Months/12), int64(iv.Months%12)
	hours := iv.Micros / 3_600_000_000
	rest := iv.Micros % 3_600_000_000
	minutes, usec := rest/60_000_000, rest%60_000_000
	switch field {
	case "year":
		return apd.New(years, 0), nil
	case "month":
		return apd.New(months, 0), nil
	case "quarter":
		return apd.New(months/3+1, 0), nil
	case "decade":
		return apd.New(years/10, 0), nil
	case "century":
		return apd.New(years/100, 0), nil
	case "millennium":
		return apd.New(years/1000, 0), nil
	case "day":
		return apd.New(int64(iv.Days), 0), nil
	case "hour":
		return apd.New(hours, 0), nil
	case "minute":
		return apd.New(minutes, 0), nil
	case "second":
		return apd.New(usec, -6), nil
	case "milliseconds":
		return apd.New(usec, -3), nil
	case "microseconds":
		return apd.New(usec, 0), nil
	case "epoch":
		// Seconds fit an int64; microseconds of a long interval do not.
		secs := 31_557_600*years + 30*86_400*months + 86_400*int64(iv.Days)
		sum := new(apd.Decimal)
		if _, err := NumericContext.Add(sum, apd.New(secs, 0), apd.New(iv.Micros, -6)); err != nil {
			return nil, err
		}
		return sum, nil
	}
	return nil, errUnit(field, types.IntervalType)
}

// errUnit is the error for a field a type does not have: not supported if
// other types have it, else not recognized.
func errUnit(field string, t types.T) error {
	switch field {
	case "century", "day", "decade", "dow", "doy", "epoch", "hour", "isodow", "isoyear", "julian",
		"microseconds", "millennium", "milliseconds", "minute", "month", "quarter", "second",
		"timezone", "timezone_hour", "timezone_minute", "week", "year":
		return pgerr.New(pgerr.FeatureNotSupported, "unit %q not supported for type %s", field, t)
	}
	return pgerr.New(pgerr.InvalidParameterValue, "unit %q not recognized for type %s", field, t)
}

// floorDiv is a/b rounded down, where Go's / truncates toward zero.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
