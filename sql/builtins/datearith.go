package builtins

import (
	"slices"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The arithmetic operators of the date and time types, PostgreSQL's
// pg_operator rows for them: date ± integer, date - date, date ± interval
// and date + time (timestamps), time ± interval and time - time,
// timestamp[tz] ± interval and timestamp[tz] - timestamp[tz], interval ±
// interval, and interval * and / float8. A timestamptz moves in the
// session's time zone, so its operators are stable. The operand types
// decide by the operator rules: timestamp - date is timestamp -
// timestamp, time + '1 hour' is time + interval.

// op2 is a binary operator overload.
func op2(l, r, ret types.T, vol Volatility, fn func(Env, any, any) (any, error)) Overload {
	return Overload{Args: []types.T{l, r}, Ret: ret, Volatility: vol, Fn: func(e Env, a []any) (any, error) {
		return fn(e, a[0], a[1])
	}}
}

// swapped is o with its operands the other way round: interval +
// timestamp is timestamp + interval.
func swapped(o Overload) Overload {
	fn := o.Fn
	o.Args = []types.T{o.Args[1], o.Args[0]}
	o.Fn = func(e Env, a []any) (any, error) { return fn(e, []any{a[1], a[0]}) }
	return o
}

func negInterval(iv types.Interval) types.Interval {
	return types.Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
}

// timestampPlus is timestamp ± interval, or with tz timestamptz's.
func timestampPlus(tz, minus bool) func(Env, any, any) (any, error) {
	return func(e Env, t, iv any) (any, error) {
		d := iv.(types.Interval)
		if minus {
			d = negInterval(d)
		}
		return types.TimestampPlusInterval(t.(time.Time), d, tz, e.Location())
	}
}

// dateAsTimestamp is a date read as the timestamp of its midnight.
func dateAsTimestamp(d any) (time.Time, error) {
	ts, err := types.Cast(d, types.Date, types.Timestamp, nil)
	if err != nil {
		return time.Time{}, err
	}
	return ts.(time.Time), nil
}

func datePlusInt(minus bool) func(Env, any, any) (any, error) {
	return func(_ Env, d, n any) (any, error) {
		date, k := d.(time.Time), n.(int64)
		if types.IsInfinite(date) {
			return date, nil
		}
		if minus {
			k = -k
		}
		days := int64(types.Days(date)) + k
		if !types.DateInRange(days) {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
		}
		return types.FromDays(int32(days)), nil
	}
}

func dateMinusDate(_ Env, x, y any) (any, error) {
	a, b := x.(time.Time), y.(time.Time)
	if types.IsInfinite(a) || types.IsInfinite(b) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
	}
	// Unix seconds, not time.Sub, whose Duration spans only 292 years.
	return (a.Unix() - b.Unix()) / 86400, nil
}

func datePlusInterval(minus bool) func(Env, any, any) (any, error) {
	plus := timestampPlus(false, minus)
	return func(e Env, d, iv any) (any, error) {
		ts, err := dateAsTimestamp(d)
		if err != nil {
			return nil, err
		}
		return plus(e, ts, iv)
	}
}

// datePlusTime is date + time, a timestamp; with minus date - time.
func datePlusTime(minus bool) func(Env, any, any) (any, error) {
	return func(_ Env, d, t any) (any, error) {
		date := d.(time.Time)
		if types.IsInfinite(date) {
			return date, nil
		}
		ts, err := dateAsTimestamp(date)
		if err != nil {
			return nil, err
		}
		tod := t.(int64)
		if minus {
			tod = -tod
		}
		us := types.Micros(ts) + tod
		if !types.TimestampInRange(us) {
			return nil, types.ErrTimestampRange()
		}
		return types.FromMicros(us), nil
	}
}

func timePlusInterval(minus bool) func(Env, any, any) (any, error) {
	return func(_ Env, t, iv any) (any, error) {
		d := iv.(types.Interval)
		if minus {
			d.Micros = -d.Micros
		}
		return types.AddToTime(t.(int64), d), nil
	}
}

func timeMinusTime(_ Env, x, y any) (any, error) {
	return types.Interval{Micros: x.(int64) - y.(int64)}, nil
}

// timestampMinus is timestamp - timestamp: as PostgreSQL, the difference
// in microseconds, whole days split off (interval_justify_hours).
func timestampMinus(_ Env, x, y any) (any, error) {
	a, b := x.(time.Time), y.(time.Time)
	if types.IsInfinite(a) || types.IsInfinite(b) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	// Unix seconds, not time.Sub, whose Duration spans only 292 years.
	micros := (a.Unix()-b.Unix())*1_000_000 + int64(a.Nanosecond()/1000-b.Nanosecond()/1000)
	const day = 86_400_000_000
	return types.Interval{Days: int32(micros / day), Micros: micros % day}, nil
}

func intervalPlus(minus bool) func(Env, any, any) (any, error) {
	return func(_ Env, x, y any) (any, error) {
		a, b := x.(types.Interval), y.(types.Interval)
		if minus {
			b = negInterval(b)
		}
		months, days := int64(a.Months)+int64(b.Months), int64(a.Days)+int64(b.Days)
		micros, ok := types.AddInt64(a.Micros, b.Micros)
		if !ok || months != int64(int32(months)) || days != int64(int32(days)) {
			return nil, types.ErrIntervalRange()
		}
		return types.Interval{Months: int32(months), Days: int32(days), Micros: micros}, nil
	}
}

func intervalTimes(div bool) func(Env, any, any) (any, error) {
	return func(_ Env, iv, f any) (any, error) {
		if div && f.(float64) == 0 {
			return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		return types.ScaleInterval(iv.(types.Interval), f.(float64), div)
	}
}

var (
	tsOps = []struct {
		t   types.T
		vol Volatility
	}{{types.Timestamp, Immutable}, {types.Timestamptz, Stable}}
	iv = types.IntervalType
)

func datePlus() []Overload {
	ovs := []Overload{
		op2(types.Date, types.Int4, types.Date, Immutable, datePlusInt(false)),
		op2(types.Date, iv, types.Timestamp, Immutable, datePlusInterval(false)),
		op2(types.Date, types.TimeType, types.Timestamp, Immutable, datePlusTime(false)),
		op2(types.TimeType, iv, types.TimeType, Immutable, timePlusInterval(false)),
		op2(iv, iv, iv, Immutable, intervalPlus(false)),
	}
	for _, t := range tsOps {
		ovs = append(ovs, op2(t.t, iv, t.t, t.vol, timestampPlus(t.t.Oid == types.OidTimestamptz, false)))
	}
	// int4 + date, interval + date and the rest the other way round;
	// interval + interval is its own.
	for _, o := range slices.Concat(ovs[:4], ovs[5:]) {
		ovs = append(ovs, swapped(o))
	}
	return ovs
}

func dateMinus() []Overload {
	ovs := []Overload{
		op2(types.Date, types.Date, types.Int4, Immutable, dateMinusDate),
		op2(types.Date, types.Int4, types.Date, Immutable, datePlusInt(true)),
		op2(types.Date, iv, types.Timestamp, Immutable, datePlusInterval(true)),
		op2(types.Date, types.TimeType, types.Timestamp, Immutable, datePlusTime(true)),
		op2(types.TimeType, types.TimeType, iv, Immutable, timeMinusTime),
		op2(types.TimeType, iv, types.TimeType, Immutable, timePlusInterval(true)),
		op2(iv, iv, iv, Immutable, intervalPlus(true)),
	}
	for _, t := range tsOps {
		ovs = append(ovs, op2(t.t, t.t, iv, Immutable, timestampMinus),
			op2(t.t, iv, t.t, t.vol, timestampPlus(t.t.Oid == types.OidTimestamptz, true)))
	}
	return ovs
}

func intervalTimesOps() []Overload {
	times := op2(iv, types.Float8, iv, Immutable, intervalTimes(false))
	return []Overload{times, swapped(times)}
}

func intervalDivOps() []Overload {
	return []Overload{op2(iv, types.Float8, iv, Immutable, intervalTimes(true))}
}
