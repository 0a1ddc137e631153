package builtins

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// PostgreSQL's date and time functions beyond EXTRACT and now():
// date_trunc, date_bin, age, timezone (AT TIME ZONE), isfinite, the
// justify_* functions, make_date, make_timestamp[tz] and make_interval, and
// the formatting functions of datefmt.go. They follow PostgreSQL 15's
// timestamp.c, date.c and formatting.c, errors included. A timestamptz is
// read in the session's TimeZone when it is evaluated, not when it is
// compiled, so a prepared statement follows SET TimeZone.

// Units, as PostgreSQL's DecodeUnits reads them: its deltatktbl, which
// compares only the first ten characters (TOKMAXLEN).
var unitNames = map[string]string{
	"c": "century", "cent": "century", "centuries": "century", "century": "century",
	"d": "day", "day": "day", "days": "day",
	"dec": "decade", "decade": "decade", "decades": "decade", "decs": "decade",
	"h": "hour", "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour",
	"m": "minute", "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
	"microsecon": "microseconds", "us": "microseconds", "usec": "microseconds", "usecond": "microseconds",
	"useconds": "microseconds", "usecs": "microseconds",
	"mil": "millennium", "millennia": "millennium", "millennium": "millennium", "mils": "millennium",
	"millisecon": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "msecond": "milliseconds",
	"mseconds": "milliseconds", "msecs": "milliseconds",
	"mon": "month", "mons": "month", "month": "month", "months": "month",
	"qtr": "quarter", "quarter": "quarter",
	"s": "second", "sec": "second", "second": "second", "seconds": "second", "secs": "second",
	"timezone": "timezone", "timezone_h": "timezone_hour", "timezone_m": "timezone_minute",
	"w": "week", "week": "week", "weeks": "week",
	"y": "year", "year": "year", "years": "year", "yr": "year", "yrs": "year",
}

// lowerASCII lower-cases ASCII letters only, as PostgreSQL's
// downcase_truncate_identifier does in a UTF-8 database.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// decodeUnits returns a unit's canonical name and its lower-case spelling,
// for error messages; unit is "" if it is no unit.
func decodeUnits(s string) (unit, lower string) {
	lower = lowerASCII(s)
	key := lower
	if len(key) > 10 {
		key = key[:10]
	}
	return unitNames[key], lower
}

func unitError(unit, lower string, t types.T) *pgerr.Error {
	if unit != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", lower, t)
	}
	return pgerr.New(pgerr.InvalidParameterValue, "unit \"%s\" not recognized for type %s", lower, t)
}

// tmFields is a broken-down date and time, PostgreSQL's pg_tm: years count
// 1 BC as 0, as Go's do.
type tmFields struct {
	year, mon, mday int
	hour, min, sec  int
	usec            int64
	wday, yday      int    // to_char's, of a date
	gmtoff          int    // seconds east of UTC, for to_char's zone fields
	zone            string // the zone's abbreviation, for to_char's TZ
}

// fieldsOf breaks a timestamp datum (a wall-clock reading) down.
func fieldsOf(t time.Time) tmFields {
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	return tmFields{year: y, mon: int(m), mday: d, hour: h, min: mi, sec: s, usec: int64(t.Nanosecond() / 1000),
		wday: int(t.Weekday()), yday: t.YearDay()}
}

// inRange reports whether f's year is near enough to be a timestamp, so
// that micros cannot overflow.
func (f *tmFields) inRange() bool { return f.year >= -4713 && f.year <= 294277 }

// micros is the wall-clock reading of f as microseconds since 2000-01-01.
func (f *tmFields) micros() int64 {
	return types.Micros(time.Date(f.year, time.Month(f.mon), f.mday, f.hour, f.min, f.sec, 0, time.UTC)) + f.usec
}

func daysInMonth(y, m int) int { return types.DaysInMonth(y, m) }

// truncFields is the shared part of timestamp_trunc and
// timestamptz_trunc: it zeroes the fields below unit and reports whether
// the zone offset must be looked up again (units of a day or more), or
// false in ok if unit does not apply to timestamps.
func truncFields(f *tmFields, unit string) (redoTZ, ok bool) {
	switch unit {
	case "week":
		t := time.Date(f.year, time.Month(f.mon), f.mday, 0, 0, 0, 0, time.UTC)
		t = t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7)) // back to Monday
		y, m, d := t.Date()
		*f = tmFields{year: y, mon: int(m), mday: d}
		return true, true
	case "millennium", "century", "decade", "year", "quarter", "month", "day":
		switch unit {
		case "millennium":
			if f.year > 0 {
				f.year = (f.year+999)/1000*1000 - 999
			} else {
				f.year = -((999-(f.year-1))/1000)*1000 + 1
			}
			fallthrough
		case "century":
			if f.year > 0 {
				f.year = (f.year+99)/100*100 - 99
			} else {
				f.year = -((99-(f.year-1))/100)*100 + 1
			}
		case "decade":
			if f.year > 0 {
				f.year = f.year / 10 * 10
			} else {
				f.year = -((8 - (f.year - 1)) / 10) * 10
			}
		}
		switch unit {
		case "millennium", "century", "decade", "year":
			f.mon = 1
		case "quarter":
			f.mon = 3*((f.mon-1)/3) + 1
		}
		if unit != "day" {
			f.mday = 1
		}
		f.hour, f.min, f.sec, f.usec = 0, 0, 0, 0
		return true, true
	case "hour":
		f.min, f.sec, f.usec = 0, 0, 0
	case "minute":
		f.sec, f.usec = 0, 0
	case "second":
		f.usec = 0
	case "milliseconds":
		f.usec = f.usec / 1000 * 1000
	case "microseconds":
	default:
		return false, false
	}
	return false, true
}

// truncTimestamp is timestamp_trunc.
func truncTimestamp(field string, t time.Time) (any, error) {
	if types.IsInfinite(t) {
		return t, nil
	}
	unit, lower := decodeUnits(field)
	f := fieldsOf(t)
	if _, ok := truncFields(&f, unit); !ok {
		return nil, unitError(unit, lower, types.Timestamp)
	}
	us := f.micros()
	if !types.TimestampInRange(us) {
		return nil, types.ErrTimestampRange()
	}
	return types.FromMicros(us), nil
}

// truncTimestamptz is timestamptz_trunc in loc: the wall clock is
// truncated, and for units of a day or more, the offset of the truncated
// reading is looked up again, as across a daylight-saving change.
func truncTimestamptz(field string, t time.Time, loc *time.Location) (any, error) {
	unit, lower := decodeUnits(field)
	f := fieldsOf(types.WallClock(t, loc))
	_, off := t.In(loc).Zone()
	redo, ok := truncFields(&f, unit)
	if !ok {
		return nil, unitError(unit, lower, types.Timestamptz)
	}
	us := f.micros()
	if redo {
		us = types.LocalToUTC(us, loc)
	} else {
		us -= int64(off) * 1_000_000
	}
	if !types.TimestampInRange(us) {
		return nil, types.ErrTimestampRange()
	}
	return types.FromMicros(us), nil
}

// intervalFields is PostgreSQL's interval2itm: years and months apart,
// and the time split into hours, minutes, seconds and microseconds, each
// with the interval's sign.
type intervalFields struct {
	year, mon, mday int64
	hour, min, sec  int64
	usec            int64
}

func splitInterval(iv types.Interval) intervalFields {
	t := iv.Micros
	f := intervalFields{year: int64(iv.Months / 12), mon: int64(iv.Months % 12), mday: int64(iv.Days)}
	f.hour = t / 3_600_000_000
	t -= f.hour * 3_600_000_000
	f.min = t / 60_000_000
	t -= f.min * 60_000_000
	f.sec = t / 1_000_000
	f.usec = t - f.sec*1_000_000
	return f
}

// join is itm2interval.
func (f intervalFields) join() (types.Interval, error) {
	months := f.year*12 + f.mon
	if months < math.MinInt32 || months > math.MaxInt32 {
		return types.Interval{}, types.ErrIntervalRange()
	}
	return types.Interval{Months: int32(months), Days: int32(f.mday),
		Micros: ((f.hour*60+f.min)*60+f.sec)*1_000_000 + f.usec}, nil
}

// truncInterval is interval_trunc.
func truncInterval(field string, iv types.Interval) (any, error) {
	unit, lower := decodeUnits(field)
	f := splitInterval(iv)
	switch unit {
	case "millennium", "century", "decade", "year", "quarter", "month", "day", "hour", "minute", "second":
		switch unit {
		case "millennium":
			f.year = f.year / 1000 * 1000
		case "century":
			f.year = f.year / 100 * 100
		case "decade":
			f.year = f.year / 10 * 10
		}
		switch unit {
		case "millennium", "century", "decade", "year":
			f.mon = 0
		case "quarter":
			f.mon = 3 * (f.mon / 3)
		}
		switch unit {
		case "day", "hour", "minute", "second":
		default:
			f.mday = 0
		}
		switch unit {
		case "hour", "minute", "second":
		default:
			f.hour = 0
		}
		switch unit {
		case "minute", "second":
		default:
			f.min = 0
		}
		if unit != "second" {
			f.sec = 0
		}
		f.usec = 0
	case "milliseconds":
		f.usec = f.usec / 1000 * 1000
	case "microseconds":
	default:
		err := unitError(unit, lower, types.IntervalType)
		if unit == "week" {
			err = err.WithDetail("Months usually have fractional weeks.")
		}
		return nil, err
	}
	return f.join()
}

// dateTrunc is date_trunc(field, source [, zone]): source a timestamp,
// timestamptz or interval, zone the one a timestamptz is truncated in
// instead of the session's.
func dateTrunc() []Overload {
	trunc := func(t types.T, vol Volatility, zone bool) Overload {
		args := []types.T{types.Text, t}
		if zone {
			args = append(args, types.Text)
		}
		return Overload{Args: args, Ret: t, Volatility: vol, Fn: func(e Env, a []any) (any, error) {
			field := a[0].(string)
			switch v := a[1].(type) {
			case types.Interval:
				return truncInterval(field, v)
			case time.Time:
				if t.Oid == types.OidTimestamp {
					return truncTimestamp(field, v)
				}
				if types.IsInfinite(v) {
					return v, nil
				}
				loc := e.Location()
				if zone {
					var err error
					if loc, err = conversionZone(a[2].(string)); err != nil {
						return nil, err
					}
				}
				return truncTimestamptz(field, v, loc)
			}
			return nil, nil
		}}
	}
	return []Overload{trunc(types.Timestamp, Immutable, false), trunc(types.Timestamptz, Stable, false),
		trunc(types.IntervalType, Immutable, false), trunc(types.Timestamptz, Stable, true)}
}

// dateBin is date_bin(stride, source, origin): the start of the
// stride-wide bin, counted from origin, that source falls in.
func dateBin(_ Env, a []any) (any, error) {
	stride, ts, origin := a[0].(types.Interval), a[1].(time.Time), a[2].(time.Time)
	if types.IsInfinite(ts) {
		return ts, nil
	}
	if types.IsInfinite(origin) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	days := int64(stride.Days)
	strideUS, ok := types.AddInt64(days*usPerDay, stride.Micros)
	if !ok || days > math.MaxInt64/usPerDay || days < math.MinInt64/usPerDay {
		return nil, types.ErrIntervalRange()
	}
	if strideUS <= 0 {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "stride must be greater than zero")
	}
	tsUS, originUS := types.Micros(ts), types.Micros(origin)
	diff, ok := types.AddInt64(tsUS, -originUS)
	if !ok {
		return nil, types.ErrIntervalRange()
	}
	mod := diff % strideUS
	result := originUS + diff - mod
	if mod < 0 {
		result -= strideUS
		if !types.TimestampInRange(result) {
			return nil, types.ErrTimestampRange()
		}
	}
	return types.FromMicros(result), nil
}

// ageOverloads is age(a, b), the symbolic difference a - b in years,
// months and days, and age(b), which is age(current_date, b) at
// midnight. PostgreSQL also has age(xid), which an untyped literal makes
// ambiguous; epochdb has no xid values to call it with.
func ageOverloads() []Overload {
	var ovs []Overload
	for _, t := range []types.T{types.Timestamp, types.Timestamptz} {
		tz := t.Oid == types.OidTimestamptz
		vol := Immutable
		if tz {
			vol = Stable
		}
		ovs = append(ovs, Overload{Args: []types.T{t, t}, Ret: types.IntervalType, Volatility: vol,
			Fn: func(e Env, a []any) (any, error) { return age(a[0].(time.Time), a[1].(time.Time), tz, e.Location()) }},
			Overload{Args: []types.T{t}, Ret: types.IntervalType, Volatility: Stable, Fn: func(e Env, a []any) (any, error) {
				loc := e.Location()
				now := e.TransactionTime().In(loc)
				t1 := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
				if tz {
					t1 = types.FromMicros(types.LocalToUTC(types.Micros(t1), loc))
				}
				return age(t1, a[0].(time.Time), tz, loc)
			}})
	}
	xid := types.T{Oid: oidXid, Mod: -1}
	return append(ovs, Overload{Args: []types.T{xid}, Ret: types.Int4, Volatility: Stable, Fn: func(Env, []any) (any, error) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "type xid is not supported")
	}})
}

// oidXid is PostgreSQL's xid, a type epochdb does not have.
const oidXid types.Oid = 28

// age is timestamp_age and timestamptz_age (in loc): the field-by-field
// difference, negative fields borrowing from the next larger one, a month
// borrowing the length of the month of the earlier-sorting argument's
// counterpart, as PostgreSQL does.
func age(t1, t2 time.Time, tz bool, loc *time.Location) (any, error) {
	before := t1.Before(t2)
	var err error
	if t1, err = rawTimestamp(t1); err != nil {
		return nil, err
	}
	if t2, err = rawTimestamp(t2); err != nil {
		return nil, err
	}
	w1, w2 := t1, t2
	if tz {
		w1, w2 = types.WallClock(t1, loc), types.WallClock(t2, loc)
	}
	f1, f2 := fieldsOf(w1), fieldsOf(w2)
	fsec := f1.usec - f2.usec
	sec, min, hour := f1.sec-f2.sec, f1.min-f2.min, f1.hour-f2.hour
	mday, mon, year := f1.mday-f2.mday, f1.mon-f2.mon, f1.year-f2.year
	if before {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	for fsec < 0 {
		fsec += 1_000_000
		sec--
	}
	for sec < 0 {
		sec += 60
		min--
	}
	for min < 0 {
		min += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		mday--
	}
	for mday < 0 {
		if before {
			mday += daysInMonth(f1.year, f1.mon)
		} else {
			mday += daysInMonth(f2.year, f2.mon)
		}
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if before {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	return intervalFields{year: int64(year), mon: int64(mon), mday: int64(mday),
		hour: int64(hour), min: int64(min), sec: int64(sec), usec: fsec}.join()
}

// rawTimestamp is the instant that PostgreSQL 15's timestamp2tm reads
// from a timestamp's representation: 'infinity' is the largest int64 of
// microseconds, some 294 thousand years on, and '-infinity' is out of
// range.
func rawTimestamp(t time.Time) (time.Time, error) {
	switch {
	case t.Equal(types.TimeInfinity):
		return time.Unix(946684800+math.MaxInt64/1_000_000, math.MaxInt64%1_000_000*1000).UTC(), nil
	case t.Equal(types.TimeNegInfinity):
		return t, types.ErrTimestampRange()
	}
	return t, nil
}

// timezone is timezone(zone, source), which x AT TIME ZONE zone
// becomes: a timestamp read as a wall clock in zone gives a timestamptz,
// and a timestamptz gives its wall clock in zone as a timestamp. zone is a
// name (text) or an offset (an interval, hours east of UTC).
func timezone() []Overload {
	var ovs []Overload
	for _, zt := range []types.T{types.Text, types.IntervalType} {
		for _, from := range []types.T{types.Timestamp, types.Timestamptz} {
			to, toTZ := types.Timestamp, from.Oid == types.OidTimestamp
			if toTZ {
				to = types.Timestamptz
			}
			ovs = append(ovs, Overload{Args: []types.T{zt, from}, Ret: to, Fn: func(_ Env, a []any) (any, error) {
				return atTimeZone(a[0], a[1].(time.Time), toTZ)
			}})
		}
	}
	return ovs
}

// atTimeZone is t at time zone z, to a timestamptz if toTZ.
func atTimeZone(z any, t time.Time, toTZ bool) (any, error) {
	if types.IsInfinite(t) {
		return t, nil
	}
	var loc *time.Location
	switch z := z.(type) {
	case string:
		var err error
		if loc, err = conversionZone(z); err != nil {
			return nil, err
		}
	case types.Interval:
		if z.Months != 0 || z.Days != 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "interval time zone \"%s\" must not include months or days",
				string(types.AppendIntervalText(nil, z)))
		}
		loc = time.FixedZone("", int(z.Micros/1_000_000))
	}
	var us int64
	if toTZ {
		us = types.LocalToUTC(types.Micros(t), loc)
	} else {
		us = types.Micros(types.WallClock(t, loc))
	}
	if !types.TimestampInRange(us) {
		return nil, types.ErrTimestampRange()
	}
	return types.FromMicros(us), nil
}

// conversionZone is the zone that AT TIME ZONE, timezone() and
// date_trunc's third argument name, looked up as PostgreSQL 15 does: a
// fixed-offset abbreviation (EST is always -05), then a tz database name,
// then a POSIX zone (UTC+5 and '+05' are five hours west of UTC).
func conversionZone(name string) (*time.Location, error) {
	if off, ok := types.ZoneAbbrev(lowerASCII(name)); ok {
		return time.FixedZone(strings.ToUpper(name), off), nil
	}
	if loc := types.FindZone(name); loc != nil {
		return loc, nil
	}
	if off, ok := posixOffset(name); ok {
		return time.FixedZone(name, off), nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}

// posixOffset reads a POSIX time zone without daylight-saving rules:
// a name (letters, or anything in <>, or nothing) and an offset
// [+-]hh[:mm[:ss]] west of UTC. It returns the offset east of UTC.
func posixOffset(s string) (int, bool) {
	if strings.HasPrefix(s, "<") {
		i := strings.IndexByte(s, '>')
		if i < 0 {
			return 0, false
		}
		s = s[i+1:]
	} else {
		// The name runs to the first digit, sign or comma.
		i := strings.IndexAny(s, "0123456789,+-")
		if i < 0 {
			return 0, false
		}
		s = s[i:]
	}
	sign := 1
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	num := func(max int) (int, bool) {
		i := 0
		v := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			v = v*10 + int(s[i]-'0')
			if v > max {
				return 0, false
			}
			i++
		}
		if i == 0 {
			return 0, false
		}
		s = s[i:]
		return v, true
	}
	h, ok := num(24*7 - 1)
	if !ok {
		return 0, false
	}
	secs := h * 3600
	if strings.HasPrefix(s, ":") {
		s = s[1:]
		m, ok := num(59)
		if !ok {
			return 0, false
		}
		secs += m * 60
		if strings.HasPrefix(s, ":") {
			s = s[1:]
			sec, ok := num(60)
			if !ok {
				return 0, false
			}
			secs += sec
		}
	}
	if s != "" {
		return 0, false // daylight-saving rules are not supported
	}
	return -sign * secs, true
}

// isFinite is isfinite(date | timestamp | timestamptz | interval).
func isFinite(_ Env, a []any) (any, error) {
	t, ok := a[0].(time.Time)
	return !ok || !types.IsInfinite(t), nil
}

// interval1 is a function of one interval.
func interval1(f func(types.Interval) (types.Interval, error)) []Overload {
	return one(types.IntervalType, []types.T{types.IntervalType}, func(_ Env, a []any) (any, error) { return f(a[0].(types.Interval)) })
}

const usPerDay = 86_400_000_000

// justifyHours turns each 24 hours into a day.
func justifyHours(iv types.Interval) (types.Interval, error) {
	whole := iv.Micros / usPerDay
	iv.Micros -= whole * usPerDay
	days := int64(iv.Days) + whole
	if days < math.MinInt32 || days > math.MaxInt32 {
		return iv, types.ErrIntervalRange()
	}
	iv.Days = int32(days)
	switch {
	case iv.Days > 0 && iv.Micros < 0:
		iv.Micros += usPerDay
		iv.Days--
	case iv.Days < 0 && iv.Micros > 0:
		iv.Micros -= usPerDay
		iv.Days++
	}
	return iv, nil
}

// justifyDays turns each 30 days into a month.
func justifyDays(iv types.Interval) (types.Interval, error) {
	whole := iv.Days / 30
	iv.Days -= whole * 30
	months := int64(iv.Months) + int64(whole)
	if months < math.MinInt32 || months > math.MaxInt32 {
		return iv, types.ErrIntervalRange()
	}
	iv.Months = int32(months)
	switch {
	case iv.Months > 0 && iv.Days < 0:
		iv.Days += 30
		iv.Months--
	case iv.Months < 0 && iv.Days > 0:
		iv.Days -= 30
		iv.Months++
	}
	return iv, nil
}

// justifyInterval does both, and makes the signs of the fields agree.
func justifyInterval(iv types.Interval) (types.Interval, error) {
	addMonths := func(n int32) bool {
		m := int64(iv.Months) + int64(n)
		if m < math.MinInt32 || m > math.MaxInt32 {
			return false
		}
		iv.Months = int32(m)
		return true
	}
	if iv.Days > 0 && iv.Micros > 0 || iv.Days < 0 && iv.Micros < 0 {
		whole := iv.Days / 30
		iv.Days -= whole * 30
		if !addMonths(whole) {
			return iv, types.ErrIntervalRange()
		}
	}
	wholeDay := iv.Micros / usPerDay
	iv.Micros -= wholeDay * usPerDay
	iv.Days += int32(wholeDay)
	whole := iv.Days / 30
	iv.Days -= whole * 30
	if !addMonths(whole) {
		return iv, types.ErrIntervalRange()
	}
	switch {
	case iv.Months > 0 && (iv.Days < 0 || iv.Days == 0 && iv.Micros < 0):
		iv.Days += 30
		iv.Months--
	case iv.Months < 0 && (iv.Days > 0 || iv.Days == 0 && iv.Micros > 0):
		iv.Days -= 30
		iv.Months++
	}
	switch {
	case iv.Days > 0 && iv.Micros < 0:
		iv.Micros += usPerDay
		iv.Days--
	case iv.Days < 0 && iv.Micros > 0:
		iv.Micros -= usPerDay
		iv.Days++
	}
	return iv, nil
}

// makeDate is make_date(year, month, day); a negative year is BC.
func makeDate(_ Env, a []any) (any, error) {
	y, m, d := int(a[0].(int64)), int(a[1].(int64)), int(a[2].(int64))
	year, ok := validDate(y, m, d)
	if !ok {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", year, m, d)
	}
	days := dayNumber(year, m, d)
	if !validJulian(year, m, d) || !types.DateInRange(days) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: %d-%02d-%02d", year, m, d)
	}
	return types.FromDays(int32(days)), nil
}

// makeTime is make_time(hour, min, sec).
func makeTime(_ Env, a []any) (any, error) {
	return types.MakeTime(a[0].(int64), a[1].(int64), a[2].(float64))
}

// validDate is ValidateDate for a whole date with a negative year meaning
// BC: it returns the year in PostgreSQL's numbering (1 BC is 0) and
// whether the date exists.
func validDate(y, m, d int) (int, bool) {
	bc := y < 0
	if bc {
		y = -y
	}
	if y <= 0 {
		return y, false
	}
	if bc {
		y = -(y - 1)
	}
	if m < 1 || m > 12 || d < 1 || d > 31 || d > daysInMonth(y, m) {
		return y, false
	}
	return y, true
}

// validJulian is IS_VALID_JULIAN: from 4714-11-24 BC, and years short of
// the Julian day number's overflow.
func validJulian(y, m, d int) bool {
	const minYear, minMonth, minDay = -4713, 11, 24
	const maxYear = 5874898
	return (y > minYear || y == minYear && (m > minMonth || m == minMonth && d >= minDay)) && y < maxYear
}

// dayNumber is the days from 2000-01-01 to a date.
func dayNumber(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix()/86400 - 10957
}

// The parameters of make_timestamp and make_timestamptz.
var (
	timestampParams = []string{"year", "month", "mday", "hour", "min", "sec"}
	timestampArgs   = []types.T{types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8}
)

// makeTimestampFn is make_timestamp(year, month, mday, hour, min, sec).
func makeTimestampFn(_ Env, a []any) (any, error) {
	return makeTimestamp(int(a[0].(int64)), int(a[1].(int64)), int(a[2].(int64)), int(a[3].(int64)), int(a[4].(int64)), a[5].(float64))
}

// makeTimestamptz is make_timestamptz(..., [timezone]), which reads the
// fields of make_timestamp in the session's time zone, or in timezone.
func makeTimestamptz(e Env, a []any) (any, error) {
	wall, err := makeTimestampFn(e, a)
	if err != nil {
		return nil, err
	}
	us := types.Micros(wall.(time.Time))
	if len(a) == 7 {
		off, err := saneZoneOffset(a[6].(string), us)
		if err != nil {
			return nil, err
		}
		us -= int64(off) * 1_000_000
	} else {
		us = types.LocalToUTC(us, e.Location())
	}
	if !types.TimestampInRange(us) {
		return nil, types.ErrTimestampRange()
	}
	return types.FromMicros(us), nil
}

// formatG is C's %g, which PostgreSQL's messages use for seconds.
func formatG(f float64, width int) string {
	s := strconv.FormatFloat(f, 'g', 6, 64)
	if strings.Contains(s, "e") {
		// C writes at least two exponent digits, as Go does.
		return s
	}
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// makeTimestamp is make_timestamp_internal.
func makeTimestamp(year, month, day, hour, min int, sec float64) (any, error) {
	y, ok := validDate(year, month, day)
	if !ok {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", year, month, day)
	}
	if !validJulian(y, month, day) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: %d-%02d-%02d", year, month, day)
	}
	date := dayNumber(y, month, day)
	usec := math.RoundToEven(sec * 1e6)
	if hour < 0 || hour > 24 || min < 0 || min >= 60 || math.IsNaN(sec) || usec < 0 || usec > 60e6 ||
		(int64(hour)*60+int64(min))*60_000_000+int64(usec) > usPerDay {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", hour, min, formatG(sec, 2))
	}
	tod := (int64(hour)*60+int64(min))*60_000_000 + int64(usec)
	us := date*usPerDay + tod
	if date > math.MaxInt64/usPerDay-1 || date < math.MinInt64/usPerDay+1 || !types.TimestampInRange(us) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s", year, month, day, hour, min, formatG(sec, 2))
	}
	return types.FromMicros(us), nil
}

// saneZoneOffset is parse_sane_timezone: the offset, in seconds east of
// UTC, of a zone that make_timestamptz names, at the wall-clock reading
// wall (microseconds since 2000-01-01). Here a numeric zone is ISO's
// '+05' (east), unlike AT TIME ZONE's POSIX reading.
func saneZoneOffset(name string, wall int64) (int, error) {
	if name != "" && name[0] >= '0' && name[0] <= '9' {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid input syntax for type numeric time zone: \"%s\"", name).
			WithHint(`Numeric time zones must have "-" or "+" as first character.`)
	}
	off, ok, err := types.DecodeOffset(name)
	if err != nil || ok {
		return off, err
	}
	if off, ok := types.ZoneAbbrev(lowerASCII(name)); ok {
		return off, nil
	}
	loc := types.FindZone(name)
	if loc == nil {
		if off, ok := posixOffset(name); ok {
			return off, nil
		}
		return 0, pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
	}
	return int((wall - types.LocalToUTC(wall, loc)) / 1_000_000), nil
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs), each defaulting to zero; the int4 fields wrap on overflow, as in
// PostgreSQL 15.
func makeInterval(_ Env, a []any) (any, error) {
	i := func(k int) int32 { return int32(a[k].(int64)) }
	secs := a[6].(float64)
	if math.IsInf(secs, 0) || math.IsNaN(secs) {
		return nil, types.ErrIntervalRange()
	}
	us := math.RoundToEven(secs * 1e6)
	return types.Interval{Months: i(0)*12 + i(1), Days: i(2)*7 + i(3),
		Micros: int64(i(4))*3_600_000_000 + int64(i(5))*60_000_000 + int64(us)}, nil
}
