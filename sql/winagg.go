package sql

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/types"
)

// An aggregate over a window frame. Every frame PostgreSQL knows moves
// only forward from one row to the next: its start and its end never go
// back. So one state follows the frame, as PostgreSQL's moving aggregates
// do, and what it does with the rows that leave the frame depends on the
// aggregate:
//
//   - frameInverse: count, bool_and, bool_or, and sum and avg over
//     integers, numeric and intervals take them back out exactly, so a
//     sliding frame costs O(1) a row. A numeric sum remembers how many of
//     its inputs have each scale, so that it can give the scale that
//     adding up the frame afresh would. NaN and infinities have no
//     inverse: while the frame holds one, its value is computed afresh.
//   - frameExtreme: min and max keep the frame's rows that a later row
//     has not yet beaten, a deque whose front is the answer.
//   - frameRecompute: the others (float sums and averages, whose rounding
//     would change if values were subtracted, as PostgreSQL's do not;
//     string_agg, the statistics) fold the frame afresh for each row whose
//     frame start moved, and extend the previous state when it did not.
//     That is quadratic for a sliding frame, as in PostgreSQL, but it
//     notices cancellation.
type frameAgg struct {
	call  *winCall
	part  [][]any
	argAt int
	kind  int
	// The state holds the rows [head, tail) of the partition.
	head, tail int
	st         *aggState
	// frameInverse: how many true inputs a bool aggregate holds, how many
	// numeric inputs of each exponent a sum holds, and how many of them
	// are NaN or infinite.
	trues     int64
	exponents map[int32]int64
	nonFinite int
	// frameExtreme: rows in order, none of which a later one replaces.
	deque []int
}

const (
	frameRecompute = iota
	frameInverse
	frameExtreme
)

// frameAggregates computes call's aggregate over each row's frame in part:
// frame(i) is [from, to), and the arguments start at argAt in each row.
func (call *winCall) frameAggregates(x *execCtx, part [][]any, argAt int, frame func(int) (int, int)) ([]any, error) {
	f := &frameAgg{call: call, part: part, argAt: argAt, st: &aggState{call: call.agg}}
	switch c := call.agg; {
	case invertible(c):
		f.kind = frameInverse
	case c.fn == "min" || c.fn == "max":
		f.kind = frameExtreme
	}
	out := make([]any, len(part))
	for i := range part {
		from, to := frame(i)
		if err := f.move(x, from, max(from, to)); err != nil {
			return nil, err
		}
		v, err := f.result(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// invertible reports whether c's state can take an input back out exactly.
func invertible(c *aggCall) bool {
	switch c.fn {
	case "count", "bool_and", "bool_or", "every":
		return true
	case "sum", "avg":
		switch c.args[0].typ().Oid {
		case types.OidInt2, types.OidInt4, types.OidInt8, types.OidNumeric, types.OidInterval:
			return true
		}
	}
	return false
}

// move makes the state hold the rows [from, to).
func (f *frameAgg) move(x *execCtx, from, to int) error {
	if from < f.head || to < f.tail || from >= f.tail || f.kind == frameRecompute && from != f.head {
		f.reset(from)
	}
	for ; f.head < from; f.head++ {
		if err := x.canceled(); err != nil {
			return err
		}
		if err := f.remove(f.head); err != nil {
			return err
		}
	}
	for ; f.tail < to; f.tail++ {
		if err := x.canceled(); err != nil {
			return err
		}
		if err := f.add(f.tail); err != nil {
			return err
		}
	}
	return nil
}

// reset empties the state, to fill it from row from on.
func (f *frameAgg) reset(from int) {
	f.head, f.tail = from, from
	f.st = &aggState{call: f.call.agg}
	f.trues, f.exponents, f.nonFinite = 0, nil, 0
	f.deque = f.deque[:0]
}

// args returns row j's arguments, and whether the aggregate takes them
// in: FILTER passes, and the argument is not NULL (or count(*)).
func (f *frameAgg) args(j int) ([]any, bool) {
	n := len(f.call.args)
	row := f.part[j]
	if f.call.filter != nil && !isTrue(row[f.argAt+n]) {
		return nil, false
	}
	vals := row[f.argAt : f.argAt+n]
	return vals, f.call.agg.args == nil || vals[0] != nil
}

// add takes row j into the state.
func (f *frameAgg) add(j int) error {
	vals, ok := f.args(j)
	if !ok {
		return nil
	}
	switch {
	case f.kind == frameExtreme:
		// A row the new one replaces can no longer be the answer.
		for len(f.deque) > 0 && f.call.agg.replacesExtreme(vals[0], f.part[f.deque[len(f.deque)-1]][f.argAt]) {
			f.deque = f.deque[:len(f.deque)-1]
		}
		f.deque = append(f.deque, j)
		return nil
	case f.kind == frameInverse && f.call.agg.fn != "count":
		switch v := vals[0].(type) {
		case *apd.Decimal:
			if v.Form != apd.Finite {
				f.nonFinite++
				return nil
			}
			if f.exponents == nil {
				f.exponents = make(map[int32]int64)
			}
			f.exponents[v.Exponent]++
		case bool:
			if v {
				f.trues++
			}
		}
	}
	return f.st.add(vals)
}

// remove takes row j, the frame's first, back out of the state.
func (f *frameAgg) remove(j int) error {
	vals, ok := f.args(j)
	if !ok {
		return nil
	}
	st := f.st
	switch v := vals[0]; {
	case f.kind == frameExtreme:
		if len(f.deque) > 0 && f.deque[0] == j {
			f.deque = f.deque[1:]
		}
		return nil
	case st.call.fn == "count":
		st.count--
		return nil
	case isNonFinite(v):
		f.nonFinite--
		return nil
	}
	if st.count--; st.count == 0 {
		st.acc = nil // the sum of no rows is NULL
		clear(f.exponents)
		f.trues = 0
		return nil
	}
	switch v := vals[0].(type) {
	case bool:
		if v {
			f.trues--
		}
		if st.call.fn == "bool_or" {
			st.acc = f.trues > 0
		} else {
			st.acc = f.trues == st.count
		}
	case int64:
		return f.subtract(apd.New(v, 0))
	case *apd.Decimal:
		if f.exponents[v.Exponent]--; f.exponents[v.Exponent] == 0 {
			delete(f.exponents, v.Exponent)
		}
		return f.subtract(v)
	case types.Interval:
		a := st.acc.(types.Interval)
		st.acc = types.Interval{Months: a.Months - v.Months, Days: a.Days - v.Days, Micros: a.Micros - v.Micros}
	}
	return nil
}

// isNonFinite reports whether v is a numeric NaN or infinity, which a sum
// cannot take back out.
func isNonFinite(v any) bool {
	d, ok := v.(*apd.Decimal)
	return ok && d.Form != apd.Finite
}

// subtract takes d out of a numeric sum. The sum is a new value: results
// already given may hold the old one.
func (f *frameAgg) subtract(d *apd.Decimal) error {
	sum := new(apd.Decimal)
	if _, err := builtins.NumericContext.Sub(sum, f.st.acc.(*apd.Decimal), d); err != nil {
		return err
	}
	f.st.acc = sum
	return nil
}

// result is the aggregate's value over the frame the state holds.
func (f *frameAgg) result(x *execCtx) (any, error) {
	switch {
	case f.kind == frameExtreme:
		if len(f.deque) == 0 {
			return nil, nil
		}
		return f.part[f.deque[0]][f.argAt], nil
	case f.nonFinite > 0:
		st := &aggState{call: f.call.agg}
		for j := f.head; j < f.tail; j++ {
			if err := x.canceled(); err != nil {
				return nil, err
			}
			if vals, ok := f.args(j); ok {
				if err := st.add(vals); err != nil {
					return nil, err
				}
			}
		}
		return st.result(x)
	}
	// A numeric sum has the scale of its input of the largest scale, as
	// adding the frame's values afresh would give it, not that of a
	// larger one gone from the frame.
	if sum, ok := f.st.acc.(*apd.Decimal); ok && len(f.exponents) > 0 {
		exp := int32(math.MaxInt32)
		for e := range f.exponents {
			exp = min(exp, e)
		}
		if exp > sum.Exponent {
			d := new(apd.Decimal)
			if _, err := builtins.NumericContext.Quantize(d, sum, exp); err != nil {
				return nil, err
			}
			f.st.acc = d
		}
	}
	return f.st.result(x)
}
