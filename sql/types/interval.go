package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// intervalFieldOverflow is SQLSTATE 22015, which pgerr does not name.
const intervalFieldOverflow = "22015"

// intervalParse accumulates interval input as PostgreSQL's pg_itm_in does:
// years apart from months, so that the int32 month count is checked once
// at the end ("interval out of range") while each field is checked as it is
// added ("interval field value out of range").
type intervalParse struct {
	years, months, days int64
	usec                int64
	overflow            bool
}

func (p *intervalParse) addUsec(n int64) {
	r := p.usec + n
	if (n > 0 && r < p.usec) || (n < 0 && r > p.usec) {
		p.overflow = true
	}
	p.usec = r
}

// addFracUsec adds frac*scale microseconds, rounding the last microsecond.
func (p *intervalParse) addFracUsec(frac float64, scale int64) {
	if frac == 0 {
		return
	}
	f := frac * float64(scale)
	us := int64(f)
	p.addUsec(us + int64(math.RoundToEven(f-float64(us))))
}

// addUnits adds val and its fraction fval of a unit: the Adjust* functions
// of datetime.c.
func (p *intervalParse) addUnits(unit string, val int64, fval float64) {
	mulAdd := func(dst *int64, n, m int64, limit int64) {
		if n > limit/m || n < (-limit-1)/m {
			p.overflow = true
			return
		}
		*dst += n * m
		if *dst > limit || *dst < -limit-1 {
			p.overflow = true
		}
	}
	usecUnit := func(scale int64) {
		if val > math.MaxInt64/scale || val < math.MinInt64/scale {
			p.overflow = true
			return
		}
		p.addUsec(val * scale)
		p.addFracUsec(fval, scale)
	}
	fracDays := func(frac float64, scale float64) {
		if frac == 0 {
			return
		}
		f := frac * scale
		extra := int64(f)
		mulAdd(&p.days, extra, 1, math.MaxInt32)
		p.addFracUsec(f-float64(extra), usPerDay)
	}
	fracYears := func(scale float64) {
		mulAdd(&p.months, int64(math.RoundToEven(fval*scale*monthsPerYear)), 1, math.MaxInt32)
	}
	switch unit {
	case "microsecond":
		usecUnit(1)
	case "millisecond":
		usecUnit(1000)
	case "second":
		usecUnit(microsPerSecond)
	case "minute":
		usecUnit(usPerMinute)
	case "hour":
		usecUnit(usPerHour)
	case "day":
		mulAdd(&p.days, val, 1, math.MaxInt32)
		p.addFracUsec(fval, usPerDay)
	case "week":
		mulAdd(&p.days, val, 7, math.MaxInt32)
		fracDays(fval, 7)
	case "month":
		mulAdd(&p.months, val, 1, math.MaxInt32)
		fracDays(fval, daysPerMonth)
	case "year":
		mulAdd(&p.years, val, 1, math.MaxInt32)
		fracYears(1)
	case "decade":
		mulAdd(&p.years, val, 10, math.MaxInt32)
		fracYears(10)
	case "century":
		mulAdd(&p.years, val, 100, math.MaxInt32)
		fracYears(100)
	case "millennium":
		mulAdd(&p.years, val, 1000, math.MaxInt32)
		fracYears(1000)
	}
}

// intervalUnits is deltatktbl: the unit words of interval input.
var intervalUnits = map[string]string{
	"microsecond": "microsecond", "microseconds": "microsecond", "microsecon": "microsecond",
	"us": "microsecond", "usec": "microsecond", "usecs": "microsecond", "usecond": "microsecond", "useconds": "microsecond",
	"millisecond": "millisecond", "milliseconds": "millisecond", "millisecon": "millisecond",
	"ms": "millisecond", "msec": "millisecond", "msecs": "millisecond", "msecond": "millisecond", "mseconds": "millisecond",
	"second": "second", "seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"minute": "minute", "minutes": "minute", "m": "minute", "min": "minute", "mins": "minute",
	"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"day": "day", "days": "day", "d": "day",
	"week": "week", "weeks": "week", "w": "week",
	"month": "month", "months": "month", "mon": "month", "mons": "month",
	"year": "year", "years": "year", "y": "year", "yr": "year", "yrs": "year",
	"decade": "decade", "decades": "decade", "dec": "decade", "decs": "decade",
	"century": "century", "centuries": "century", "c": "century", "cent": "century",
	"millennium": "millennium", "millennia": "millennium", "mil": "millennium", "mils": "millennium",
	"ago": "ago",
}

// unitMask gives each unit its own bit, so that a unit given twice is an
// error; a time field such as 01:02:03 claims hour, minute and second.
var unitMask = map[string]int{
	"microsecond": 1 << 0, "millisecond": 1 << 1, "second": 1 << 2, "minute": 1 << 3, "hour": 1 << 4,
	"day": 1 << 5, "week": 1 << 6, "month": 1 << 7, "year": 1 << 8,
	"decade": 1 << 9, "century": 1 << 10, "millennium": 1 << 11,
}

const allSecondsMask = 1<<0 | 1<<1 | 1<<2

// parseInterval is interval_in with IntervalStyle postgres: the verbose
// form ("1 year 2 mons -3 days 04:05:06", "@ 1 hour ago", "1-2" for years
// and months) and ISO 8601 ("P1Y2M3DT4H5M6S").
func parseInterval(s string, rng int) (any, error) {
	p, e := decodeInterval(s, rng)
	if e == dtBadFormat {
		p, e = decodeISOInterval(s)
	}
	switch e {
	case dtOK:
	case dtFieldOverflow:
		return nil, pgerr.New(intervalFieldOverflow, `interval field value out of range: "%s"`, s)
	default:
		return nil, dtError(e, s, "interval")
	}
	months := p.years*monthsPerYear + p.months
	if months > math.MaxInt32 || months < math.MinInt32 || p.days > math.MaxInt32 || p.days < math.MinInt32 {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	return Interval{Months: int32(months), Days: int32(p.days), Micros: p.usec}, nil
}

// decodeInterval is DecodeInterval. It reads the fields right to left,
// because a unit word names the number before it, and a number without a
// unit means seconds at the end and days before a time.
//
// rng is the type's field range (INTERVAL HOUR TO MINUTE): a number without a
// unit means its rightmost field, and under MINUTE TO SECOND a time of two
// fields is minutes and seconds.
func decodeInterval(s string, rng int) (*intervalParse, dtErr) {
	fields, ok := splitDateTime(s)
	if !ok || len(fields) == 0 {
		return nil, dtBadFormat
	}
	p := &intervalParse{}
	unit := ""
	mask := 0
	ago := false
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		var claim int
		switch f.kind {
		case fTime:
			us, e := decodeIntervalTime(f.text, rng == intervalMinute|intervalSecond)
			if e != dtOK {
				return nil, e
			}
			p.addUsec(us)
			claim, unit = unitMask["hour"]|unitMask["minute"]|allSecondsMask, "day"
		case fTZ, fNumber, fDate:
			if f.kind == fTZ && strings.Contains(f.text, ":") {
				// A signed time that does not decode is no number either.
				us, e := decodeIntervalTime(f.text[1:], rng == intervalMinute|intervalSecond)
				if e != dtOK {
					return nil, dtBadFormat
				}
				if f.text[0] == '-' {
					us = -us
				}
				p.addUsec(us)
				claim, unit = unitMask["hour"]|unitMask["minute"]|allSecondsMask, "day"
				break
			}
			if unit == "" {
				unit = rightmostUnit(rng)
			}
			val, fval, yearMonth, e := parseIntervalNumber(f.text)
			if e != dtOK {
				return nil, e
			}
			if yearMonth {
				unit = "month"
			}
			p.addUnits(unit, val, fval)
			claim = unitMask[unit]
			switch {
			case unit == "second" && fval != 0:
				claim = allSecondsMask
			case unit == "hour":
				unit = "day"
			}
		case fString, fSpecial:
			u, ok := intervalUnits[f.text]
			if !ok {
				return nil, dtBadFormat
			}
			if u == "ago" {
				ago = true
				continue
			}
			unit = u
			continue
		default:
			return nil, dtBadFormat
		}
		if claim&mask != 0 {
			return nil, dtBadFormat
		}
		mask |= claim
	}
	if mask == 0 {
		return nil, dtBadFormat
	}
	if p.overflow {
		return nil, dtFieldOverflow
	}
	if ago {
		if p.usec == math.MinInt64 {
			return nil, dtFieldOverflow
		}
		p.years, p.months, p.days, p.usec = -p.years, -p.months, -p.days, -p.usec
	}
	return p, dtOK
}

// parseIntervalNumber reads a signed number with an optional fraction, or
// SQL's years-months form "1-2".
func parseIntervalNumber(s string) (val int64, fval float64, yearMonth bool, e dtErr) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, 0, false, dtBadFormat
	}
	intPart, rest := body, ""
	if i := strings.IndexAny(body, ".-"); i >= 0 {
		intPart, rest = body[:i], body[i:]
	}
	if !allDigits(intPart) || (intPart == "" && !strings.HasPrefix(rest, ".")) {
		return 0, 0, false, dtBadFormat
	}
	if intPart != "" {
		n, err := strconv.ParseInt(intPart, 10, 64)
		if err != nil {
			return 0, 0, false, dtFieldOverflow
		}
		val = n
	}
	if neg {
		val = -val
	}
	switch {
	case rest == "":
	case rest[0] == '-':
		m := rest[1:]
		if m == "" || !allDigits(m) || len(m) > 2 {
			return 0, 0, false, dtBadFormat
		}
		mon, _ := strconv.Atoi(m)
		if mon >= monthsPerYear {
			return 0, 0, false, dtFieldOverflow
		}
		if neg {
			mon = -mon
		}
		if val > math.MaxInt64/monthsPerYear || val < math.MinInt64/monthsPerYear {
			return 0, 0, false, dtFieldOverflow
		}
		return val*monthsPerYear + int64(mon), 0, true, dtOK
	default:
		frac := rest[1:]
		if !allDigits(frac) {
			return 0, 0, false, dtBadFormat
		}
		if frac != "" {
			fval, _ = strconv.ParseFloat("0."+frac, 64)
		}
		if neg {
			fval = -fval
		}
	}
	return val, fval, false, dtOK
}

// decodeIntervalTime reads hh:mm, hh:mm:ss[.f] or mm:ss.f (a fraction after
// the second field means minutes and seconds) into microseconds.
func decodeIntervalTime(s string, minutesSeconds bool) (int64, dtErr) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, dtBadFormat
	}
	var hour, minute, sec int64
	var frac string
	last, f, hasFrac := strings.Cut(parts[len(parts)-1], ".")
	parts[len(parts)-1] = last
	for _, x := range parts {
		if x == "" || !allDigits(x) || len(x) > 18 {
			return 0, dtBadFormat
		}
	}
	if hasFrac {
		if !allDigits(f) {
			return 0, dtBadFormat
		}
		frac = f
	}
	a, _ := strconv.ParseInt(parts[0], 10, 64)
	b, _ := strconv.ParseInt(parts[1], 10, 64)
	switch {
	case len(parts) == 3:
		c, _ := strconv.ParseInt(parts[2], 10, 64)
		hour, minute, sec = a, b, c
	case hasFrac || minutesSeconds:
		minute, sec = a, b
	default:
		hour, minute = a, b
	}
	if minute > 59 || sec > 60 || hour > math.MaxInt64/usPerHour {
		return 0, dtFieldOverflow
	}
	rest := (minute*secsPerMinute+sec)*microsPerSecond + fracMicros(frac)
	if hour*usPerHour > math.MaxInt64-rest {
		return 0, dtFieldOverflow
	}
	return hour*usPerHour + rest, dtOK
}

// decodeISOInterval is DecodeISO8601Interval: P[nY][nM][nW][nD][T[nH][nM][nS]]
// with optional fractions, or the alternative form PYYYY-MM-DDThh:mm:ss.
func decodeISOInterval(s string) (*intervalParse, dtErr) {
	if len(s) < 2 || s[0] != 'P' {
		return nil, dtBadFormat
	}
	p := &intervalParse{}
	str := s[1:]
	datePart := true
	for str != "" {
		if str[0] == 'T' {
			datePart = false
			str = str[1:]
			continue
		}
		n := 0
		if str[0] == '+' || str[0] == '-' {
			n++
		}
		for n < len(str) && (isDigit(str[n]) || str[n] == '.') {
			n++
		}
		num := str[:n]
		if num == "" || n >= len(str) {
			return nil, dtBadFormat
		}
		val, fval, _, e := parseIntervalNumber(num)
		if e != dtOK {
			return nil, e
		}
		unit := str[n]
		str = str[n+1:]
		if datePart {
			switch unit {
			case 'Y':
				p.addUnits("year", val, fval)
			case 'M':
				p.addUnits("month", val, fval)
			case 'W':
				p.addUnits("week", val, fval)
			case 'D':
				p.addUnits("day", val, fval)
			case '-':
				// PYYYY-MM-DD: the alternative format's date.
				ym, d, ok := strings.Cut(str, "-")
				if !ok || fval != 0 {
					return nil, dtBadFormat
				}
				d, t, _ := strings.Cut(d, "T")
				mon, err1 := strconv.ParseInt(ym, 10, 64)
				day, err2 := strconv.ParseInt(d, 10, 64)
				if err1 != nil || err2 != nil {
					return nil, dtBadFormat
				}
				p.addUnits("year", val, 0)
				p.addUnits("month", mon, 0)
				p.addUnits("day", day, 0)
				if t != "" {
					us, e := decodeIntervalTime(t, false)
					if e != dtOK {
						return nil, e
					}
					p.addUsec(us)
				}
				str = ""
			default:
				return nil, dtBadFormat
			}
		} else {
			switch unit {
			case 'H':
				p.addUnits("hour", val, fval)
			case 'M':
				p.addUnits("minute", val, fval)
			case 'S':
				p.addUnits("second", val, fval)
			default:
				return nil, dtBadFormat
			}
		}
	}
	if p.overflow {
		return nil, dtFieldOverflow
	}
	return p, dtOK
}

// appendInterval is interval_out with IntervalStyle postgres:
// "1 year 2 mons -3 days +04:05:06.5". Each nonzero field after a negative
// one carries an explicit sign, and the time part appears when it is nonzero
// or nothing else does.
func appendInterval(buf []byte, iv Interval) []byte {
	year, mon := iv.Months/monthsPerYear, iv.Months%monthsPerYear
	zero, before := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !zero {
			buf = append(buf, ' ')
		}
		if before && v > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		before, zero = v < 0, false
	}
	part(int64(year), "year")
	part(int64(mon), "mon")
	part(int64(iv.Days), "day")
	us := iv.Micros
	if zero || us != 0 {
		if !zero {
			buf = append(buf, ' ')
		}
		// Work in uint64 so that the most negative interval has a magnitude.
		mag := uint64(us)
		if us < 0 {
			buf = append(buf, '-')
			mag = -mag
		} else if before {
			buf = append(buf, '+')
		}
		hours := mag / usPerHour
		buf = appendPadded(buf, int(hours), 2)
		buf = append(buf, ':')
		buf = appendPadded(buf, int(mag/usPerMinute%60), 2)
		buf = append(buf, ':')
		buf = appendPadded(buf, int(mag/microsPerSecond%60), 2)
		buf = appendFraction(buf, int64(mag%microsPerSecond))
	}
	return buf
}

// The field bits of an interval type's range, INTERVAL_MASK in PostgreSQL,
// kept in the high half of its typmod; an interval without fields has
// every bit.
const (
	intervalMonth  = 1 << 1
	intervalYear   = 1 << 2
	intervalDay    = 1 << 3
	intervalHour   = 1 << 10
	intervalMinute = 1 << 11
	intervalSecond = 1 << 12

	intervalAllFields = 0x7fff
	intervalAnyPrec   = 0xffff // the typmod's low half when no precision is given
)

// intervalRanges are the field ranges SQL lets an interval type name.
var intervalRanges = map[string]int{
	"year":             intervalYear,
	"month":            intervalMonth,
	"day":              intervalDay,
	"hour":             intervalHour,
	"minute":           intervalMinute,
	"second":           intervalSecond,
	"year to month":    intervalYear | intervalMonth,
	"day to hour":      intervalDay | intervalHour,
	"day to minute":    intervalDay | intervalHour | intervalMinute,
	"day to second":    intervalDay | intervalHour | intervalMinute | intervalSecond,
	"hour to minute":   intervalHour | intervalMinute,
	"hour to second":   intervalHour | intervalMinute | intervalSecond,
	"minute to second": intervalMinute | intervalSecond,
}

// intervalRange is the field range of an interval type.
func intervalRange(t T) int {
	if t.Mod < 0 {
		return intervalAllFields
	}
	return int(t.Mod>>16) & intervalAllFields
}

// intervalRangeName is the range as format_type writes it, or "".
func intervalRangeName(rng int) string {
	for name, r := range intervalRanges {
		if r == rng {
			return name
		}
	}
	return ""
}

// rightmostUnit is the unit a number without one has in an interval of the
// range: seconds unless the range ends before them.
func rightmostUnit(rng int) string {
	switch {
	case rng == intervalYear:
		return "year"
	case rng&^intervalYear == intervalMonth:
		return "month"
	case rng == intervalDay:
		return "day"
	case rng&^intervalDay == intervalHour:
		return "hour"
	case rng&^(intervalDay|intervalHour) == intervalMinute:
		return "minute"
	}
	return "second"
}

// truncateInterval drops the fields below the range's last, as
// AdjustIntervalForTypmod does: INTERVAL HOUR keeps whole hours of the
// time, and YEAR whole years of the months and nothing else.
func truncateInterval(iv Interval, rng int) Interval {
	switch {
	case rng == intervalYear:
		return Interval{Months: iv.Months / monthsPerYear * monthsPerYear}
	case rng&^intervalYear == intervalMonth:
		return Interval{Months: iv.Months}
	case rng == intervalDay:
		iv.Micros = 0
	case rng&^intervalDay == intervalHour:
		iv.Micros = iv.Micros / usPerHour * usPerHour
	case rng&^(intervalDay|intervalHour) == intervalMinute:
		iv.Micros = iv.Micros / usPerMinute * usPerMinute
	}
	return iv
}

// IntervalTypmod reads an interval type's modifier: its field range as SQL
// writes it ("HOUR TO MINUTE", or "" for every field) and its precision, or
// -1 for none.
func IntervalTypmod(t T) (fields string, prec int) {
	prec = -1
	if p := timePrecision(t); p >= 0 && p != intervalAnyPrec {
		prec = p
	}
	if rng := intervalRange(t); rng != intervalAllFields {
		fields = strings.ToUpper(intervalRangeName(rng))
	}
	return fields, prec
}
