package plan

import (
	"github.com/epochdb/epochdb/sql/builtins"
)

// An aggregate over a window frame. Every frame PostgreSQL knows moves
// only forward from one row to the next: its start and its end never go
// back. So one state follows the frame, as PostgreSQL's moving aggregates
// do, and what it does with the rows that leave the frame depends on the
// aggregate:
//
//   - frameInverse: those of sql/builtins with a moving state (count,
//     bool_and, bool_or, and sum and avg over integers, numeric and
//     intervals) take them back out exactly, so a sliding frame costs
//     O(1) a row. While the frame holds a numeric NaN or infinity, which
//     has no inverse, its value is computed afresh.
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
	x     *ExecCtx
	part  [][]any
	argAt int
	kind  int
	// The state holds the rows [head, tail) of the partition.
	head, tail int
	st         *aggState
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
func (call *winCall) frameAggregates(x *ExecCtx, part [][]any, argAt int, frame func(int) (int, int)) ([]any, error) {
	f := &frameAgg{call: call, x: x, part: part, argAt: argAt}
	switch c := call.agg; {
	case c.agg.NewMoving != nil:
		f.kind = frameInverse
	case c.agg.Extreme != 0:
		f.kind = frameExtreme
	}
	f.reset(0)
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

// move makes the state hold the rows [from, to).
func (f *frameAgg) move(x *ExecCtx, from, to int) error {
	if from < f.head || to < f.tail || from >= f.tail || f.kind == frameRecompute && from != f.head {
		f.reset(from)
	}
	for ; f.head < from; f.head++ {
		if err := x.Canceled(); err != nil {
			return err
		}
		if err := f.remove(f.head); err != nil {
			return err
		}
	}
	for ; f.tail < to; f.tail++ {
		if err := x.Canceled(); err != nil {
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
	f.st = &aggState{call: f.call.agg, acc: f.call.agg.newAccumulator(f.x, f.kind == frameInverse)}
	f.deque = f.deque[:0]
}

// args returns row j's arguments, and whether the aggregate takes them
// in: FILTER passes, and the argument is not NULL (or count(*)).
func (f *frameAgg) args(j int) ([]any, bool) {
	n := len(f.call.args)
	row := f.part[j]
	if f.call.filter != nil && !IsTrue(row[f.argAt+n]) {
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
	if f.kind == frameExtreme {
		// A row the new one replaces can no longer be the answer.
		for len(f.deque) > 0 && f.call.agg.agg.Beats(f.call.agg.t, vals[0], f.part[f.deque[len(f.deque)-1]][f.argAt]) {
			f.deque = f.deque[:len(f.deque)-1]
		}
		f.deque = append(f.deque, j)
		return nil
	}
	return f.st.add(vals)
}

// remove takes row j, the frame's first, back out of the state.
func (f *frameAgg) remove(j int) error {
	vals, ok := f.args(j)
	if !ok {
		return nil
	}
	if f.kind == frameExtreme {
		if len(f.deque) > 0 && f.deque[0] == j {
			f.deque = f.deque[1:]
		}
		return nil
	}
	return f.st.acc.(builtins.Remover).Remove(vals)
}

// result is the aggregate's value over the frame the state holds.
func (f *frameAgg) result(x *ExecCtx) (any, error) {
	if f.kind == frameExtreme {
		if len(f.deque) == 0 {
			return nil, nil
		}
		return f.part[f.deque[0]][f.argAt], nil
	}
	v, err := f.st.result(x)
	if !builtins.ErrRecompute(err) {
		return v, err
	}
	st := &aggState{call: f.call.agg, acc: f.call.agg.newAccumulator(x, false)}
	for j := f.head; j < f.tail; j++ {
		if err := x.Canceled(); err != nil {
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
