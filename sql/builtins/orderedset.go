package builtins

import (
	"math"
	"slices"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The ordered-set aggregates: percentile_cont, percentile_disc and mode,
// called with WITHIN GROUP (ORDER BY key). Their signatures list the
// direct arguments (the fraction, or an array of fractions), then the
// key; the planner evaluates the direct arguments once, which must be
// constants, sorts the keys, and hands them to the state in order.

// withinGroup is an ordered-set aggregate's overload: direct then key
// parameters, and result ret.
func withinGroup(args []types.T, ret types.T, direct int, f func(direct any, vs []any, ret types.T) (any, error)) Aggregate {
	return Aggregate{Overload: Overload{Args: args, Ret: ret}, Direct: direct,
		NewOrderedSet: func(_ Env, direct []any, _ []types.T, ret types.T) Accumulator {
			var d any
			if len(direct) > 0 {
				d = direct[0]
			}
			return &orderedSet{direct: d, ret: ret, f: f}
		}}
}

// percentiles are percentile_cont's (cont) or percentile_disc's overloads.
func percentiles(cont bool) []Aggregate {
	f8, f8s := types.Float8, types.T{Oid: types.OidFloat8Array, Mod: -1}
	if !cont {
		return []Aggregate{
			withinGroup([]types.T{f8, AnyElement}, AnyElement, 1, percentileDisc),
			withinGroup([]types.T{f8s, AnyElement}, AnyArray, 1, percentileDisc),
		}
	}
	ivs := types.T{Oid: types.OidIntervalArray, Mod: -1}
	return []Aggregate{
		withinGroup([]types.T{f8, f8}, f8, 1, percentileCont),
		withinGroup([]types.T{f8, types.IntervalType}, types.IntervalType, 1, percentileCont),
		withinGroup([]types.T{f8s, f8}, f8s, 1, percentileCont),
		withinGroup([]types.T{f8s, types.IntervalType}, ivs, 1, percentileCont),
	}
}

// orderedSet is an ordered-set aggregate's state: the keys, which arrive
// sorted.
type orderedSet struct {
	direct any
	ret    types.T
	vs     []any
	f      func(direct any, vs []any, ret types.T) (any, error)
}

func (o *orderedSet) Add(a []any) error { o.vs = append(o.vs, a[0]); return nil }

func (o *orderedSet) Result() (any, error) {
	return o.f(o.direct, slices.DeleteFunc(slices.Clone(o.vs), func(v any) bool { return v == nil }), o.ret)
}

// mode is the most frequent key, the first of those tied.
func mode(_ any, vs []any, ret types.T) (any, error) {
	var best any
	bestN := 0
	for i := 0; i < len(vs); {
		j := i + 1
		for j < len(vs) && types.Compare(ret, vs[i], vs[j]) == 0 {
			j++
		}
		if j-i > bestN {
			best, bestN = vs[i], j-i
		}
		i = j
	}
	return best, nil
}

func percentileCont(frac any, vs []any, _ types.T) (any, error) { return percentile(frac, vs, true) }

func percentileDisc(frac any, vs []any, _ types.T) (any, error) { return percentile(frac, vs, false) }

// percentile is the value at fraction frac of the sorted keys vs (or an
// array of them, for an array of fractions): with cont interpolated
// between the two keys around it, else the first key at or past it.
func percentile(frac any, vs []any, cont bool) (any, error) {
	one := func(frac any) (any, error) {
		if frac == nil {
			return nil, nil
		}
		p := frac.(float64)
		if p < 0 || p > 1 || math.IsNaN(p) {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "percentile value %g is not between 0 and 1", p)
		}
		if len(vs) == 0 {
			return nil, nil
		}
		if !cont {
			row := max(int64(math.Ceil(p*float64(len(vs)))), 1)
			return vs[row-1], nil
		}
		at := p * float64(len(vs)-1)
		lo, hi := math.Floor(at), math.Ceil(at)
		first := vs[int(lo)]
		if hi == lo {
			return first, nil
		}
		return lerp(first, vs[int(hi)], at-lo)
	}
	fracs, array := frac.([]any)
	if !array {
		return one(frac)
	}
	if len(vs) == 0 {
		return nil, nil
	}
	out := make([]any, len(fracs))
	for i, f := range fracs {
		v, err := one(f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// lerp is float8_lerp and interval_lerp: lo + (hi - lo) * p.
func lerp(lo, hi any, p float64) (any, error) {
	if l, ok := lo.(float64); ok {
		return l + p*(hi.(float64)-l), nil
	}
	l, h := lo.(types.Interval), hi.(types.Interval)
	m, err := types.ScaleInterval(types.Interval{Months: h.Months - l.Months, Days: h.Days - l.Days, Micros: h.Micros - l.Micros}, p, false)
	if err != nil {
		return nil, err
	}
	return types.Interval{Months: m.Months + l.Months, Days: m.Days + l.Days, Micros: m.Micros + l.Micros}, nil
}
