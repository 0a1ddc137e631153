package types

import (
	"math"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// Date and time arithmetic that both the operators (timestamp +
// interval, interval * float8) and the functions (generate_series over
// timestamps, avg(interval), the date functions of sql/builtins) compute,
// as PostgreSQL 15's timestamp.c does.

// DaysInMonth is the number of days of month m (1 to 12) of year y, a
// year counting 1 BC as 0.
func DaysInMonth(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// AddInt64 adds with an overflow check.
func AddInt64(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// ErrTimestampRange is PostgreSQL's error for a timestamp beyond its range.
func ErrTimestampRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
}

// ErrIntervalRange is its error for an interval beyond its range.
func ErrIntervalRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
}

// TimestampPlusInterval is timestamp_pl_interval, or with tz,
// timestamptz_pl_interval in loc: months are added to the wall clock
// (a day past the new month's end becomes its last day), then days, each
// time looking the zone offset up again, then the time.
func TimestampPlusInterval(t time.Time, iv Interval, tz bool, loc *time.Location) (time.Time, error) {
	if IsInfinite(t) {
		return t, nil
	}
	us := Micros(t)
	inRange := true
	// step changes the wall clock's date and reads the result back.
	step := func(f func(y, m, d int) (int, int, int)) {
		w := FromMicros(us)
		if tz {
			w = WallClock(w, loc)
		}
		y, m, d := w.Date()
		y, mon, day := f(y, int(m), d)
		if y < -4713 || y > 294277 {
			inRange = false
			return
		}
		h, mi, s := w.Clock()
		us = Micros(time.Date(y, time.Month(mon), day, h, mi, s, 0, time.UTC)) + int64(w.Nanosecond()/1000)
		if tz {
			us = LocalToUTC(us, loc)
		}
	}
	if iv.Months != 0 {
		step(func(y, m, d int) (int, int, int) {
			m = m - 1 + int(iv.Months)
			y += m / 12
			if m%12 < 0 {
				y--
			}
			m = (m%12+12)%12 + 1
			return y, m, min(d, DaysInMonth(y, m))
		})
	}
	if iv.Days != 0 && inRange {
		step(func(y, m, d int) (int, int, int) {
			y, mon, day := time.Date(y, time.Month(m), d+int(iv.Days), 0, 0, 0, 0, time.UTC).Date()
			return y, int(mon), day
		})
	}
	us, ok := AddInt64(us, iv.Micros)
	if !ok || !inRange || !TimestampInRange(us) {
		return time.Time{}, ErrTimestampRange()
	}
	return FromMicros(us), nil
}

// ScaleInterval is interval * f, or with div, interval / f, as PostgreSQL
// computes them: months and days scale separately, and their fractions
// cascade down (a month is 30 days, a day 24 hours), never up.
func ScaleInterval(iv Interval, f float64, div bool) (Interval, error) {
	mul := func(x float64) float64 {
		if div {
			return x / f
		}
		return x * f
	}
	months, days := mul(float64(iv.Months)), mul(float64(iv.Days))
	if math.IsNaN(months) || months < math.MinInt32 || months > math.MaxInt32 ||
		math.IsNaN(days) || days < math.MinInt32 || days > math.MaxInt32 {
		return Interval{}, ErrIntervalRange()
	}
	r := Interval{Months: int32(months), Days: int32(days)}
	// TSROUND: round to microseconds so that whole numbers come out whole.
	tsRound := func(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }
	monthDays := tsRound((months - float64(r.Months)) * 30)
	secs := tsRound((days - float64(r.Days) + monthDays - float64(int64(monthDays))) * 86400)
	if math.Abs(secs) >= 86400 {
		r.Days += int32(secs / 86400)
		secs -= float64(int64(secs/86400)) * 86400
	}
	r.Days += int32(monthDays)
	micros := math.RoundToEven(mul(float64(iv.Micros)) + secs*1e6)
	if math.IsNaN(micros) || micros < math.MinInt64 || micros >= math.MaxInt64 {
		return Interval{}, ErrIntervalRange()
	}
	r.Micros = int64(micros)
	return r, nil
}

// IntervalSign is the sign of an interval, counting a month as 30 days
// and a day as 24 hours, as interval comparison does.
func IntervalSign(iv Interval) int {
	days := int64(iv.Months)*30 + int64(iv.Days)
	// days * usPerDay + Micros, without overflowing int64.
	hi, lo := days, iv.Micros
	q := lo / usPerDay
	hi += q
	lo -= q * usPerDay
	switch {
	case hi > 0 || hi == 0 && lo > 0:
		return 1
	case hi < 0 || hi == 0 && lo < 0:
		return -1
	}
	return 0
}
