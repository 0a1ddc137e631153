package builtins

import (
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The set-returning functions of values: generate_series over integers,
// numeric and timestamps, and unnest. A series yields its values one at a
// time, so a long one is never held whole and a LIMIT stops it early.

func generateSeries() []Overload {
	var ovs []Overload
	for _, t := range []types.T{types.Int4, types.Int8, types.Numeric} {
		rows := intSeries
		if t.Oid == types.OidNumeric {
			rows = numericSeries
		}
		ovs = append(ovs, Overload{Args: []types.T{t, t}, Ret: t, Rows: rows}, Overload{Args: []types.T{t, t, t}, Ret: t, Rows: rows})
	}
	for _, t := range []types.T{types.Timestamp, types.Timestamptz} {
		vol := Immutable
		if t.Oid == types.OidTimestamptz {
			vol = Stable
		}
		ovs = append(ovs, Overload{Args: []types.T{t, t, types.IntervalType}, Ret: t, Volatility: vol, Rows: timestampSeries(t)})
	}
	return ovs
}

// intSeries is generate_series over int4 or int8.
func intSeries(_ Env, a []any) (func() (any, bool, error), error) {
	v, stop, step := a[0].(int64), a[1].(int64), int64(1)
	if len(a) == 3 {
		step = a[2].(int64)
	}
	if step == 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	done := false
	return func() (any, bool, error) {
		if done || step > 0 && v > stop || step < 0 && v < stop {
			return nil, false, nil
		}
		cur := v
		if next := v + step; (next > v) != (step > 0) {
			done = true // the next value would overflow
		} else {
			v = next
		}
		return cur, true, nil
	}, nil
}

// numericSeries is generate_series over numeric.
func numericSeries(_ Env, a []any) (func() (any, bool, error), error) {
	start, stop, step := a[0].(*apd.Decimal), a[1].(*apd.Decimal), apd.New(1, 0)
	if len(a) == 3 {
		step = a[2].(*apd.Decimal)
	}
	for _, bound := range []struct {
		what string
		d    *apd.Decimal
	}{{"start value", start}, {"stop value", stop}, {"step size", step}} {
		switch bound.d.Form {
		case apd.NaN, apd.NaNSignaling:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s cannot be NaN", bound.what)
		case apd.Infinite:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s cannot be infinity", bound.what)
		}
	}
	if step.IsZero() {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	v := start
	return func() (any, bool, error) {
		if step.Sign() > 0 && v.Cmp(stop) > 0 || step.Sign() < 0 && v.Cmp(stop) < 0 {
			return nil, false, nil
		}
		cur, next := v, new(apd.Decimal)
		if _, err := NumericContext.Add(next, v, step); err != nil {
			return nil, false, err
		}
		v = next
		return cur, true, nil
	}, nil
}

// timestampSeries is generate_series(start, stop, step) over timestamps
// or timestamptzs (t), these stepping in the session's time zone. It
// yields the values one at a time.
func timestampSeries(t types.T) func(Env, []any) (func() (any, bool, error), error) {
	tz := t.Oid == types.OidTimestamptz
	return func(e Env, a []any) (func() (any, bool, error), error) {
		cur, stop, step := a[0].(time.Time), a[1].(time.Time), a[2].(types.Interval)
		sign := types.IntervalSign(step)
		if sign == 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		loc := e.Location()
		up, down := sign > 0 && cur.Compare(stop) <= 0, sign < 0 && cur.Compare(stop) >= 0
		if up && cur.Equal(types.TimeNegInfinity) || down && cur.Equal(types.TimeInfinity) {
			// Infinity plus a step is infinity: the series would repeat
			// its first value forever.
			return func() (any, bool, error) { return nil, false, types.ErrTimestampRange() }, nil
		}
		// A series up to infinity runs until the timestamps run out of
		// range, which fails it; a LIMIT may stop it before.
		return func() (any, bool, error) {
			if c := cur.Compare(stop); sign > 0 && c > 0 || sign < 0 && c < 0 {
				return nil, false, nil
			}
			v := cur
			next, err := types.TimestampPlusInterval(cur, step, tz, loc)
			if err != nil {
				return nil, false, err
			}
			cur = next
			return v, true, nil
		}, nil
	}
}

// generateSubscripts is generate_subscripts(array, dim [, reverse]): the
// subscripts of the array's dimension dim from its lower bound up, or
// down. An array has one dimension, or none if it is empty.
func generateSubscripts() []Overload {
	rows := func(ts []types.T) func(Env, []any) (func() (any, bool, error), error) {
		lower := int64(types.LowerBound(ts[0]))
		return func(_ Env, a []any) (func() (any, bool, error), error) {
			n := int64(len(a[0].([]any)))
			if a[1].(int64) != 1 || n == 0 {
				n = 0
			}
			reverse := len(a) == 3 && a[2].(bool)
			i := int64(0)
			return func() (any, bool, error) {
				if i == n {
					return nil, false, nil
				}
				i++
				if reverse {
					return lower + n - i, true, nil
				}
				return lower + i - 1, true, nil
			}, nil
		}
	}
	return []Overload{
		{Args: []types.T{AnyArray, types.Int4}, Ret: types.Int4, TypedRows: rows},
		{Args: []types.T{AnyArray, types.Int4, types.Bool}, Ret: types.Int4, TypedRows: rows},
	}
}

// unnest is unnest(array): the elements, in order.
func unnest(_ Env, a []any) (func() (any, bool, error), error) { return sliceRows(a[0].([]any)), nil }
