package builtins

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The aggregate functions: count, sum, avg, min, max, the boolean and
// bitwise aggregates, string_agg, array_agg, json[b]_agg and
// json[b]_object_agg, and the statistics (stddev, variance and the
// regression aggregates of (Y, X) pairs). The planner groups the rows,
// and handles DISTINCT, ORDER BY and FILTER; an Accumulator folds one
// group's inputs, as PostgreSQL's transition and final functions do.
// The ordered-set aggregates are orderedset.go's.

// An Aggregate is one signature of an aggregate function: its parameters
// and result type, as an Overload's (whose Fn it leaves unset), and how
// it accumulates.
type Aggregate struct {
	Overload
	// New makes the state of one group, for a call whose parameter and
	// result types are args and ret.
	New func(env Env, args []types.T, ret types.T) Accumulator
	// NewMoving, if set, makes a state that can also take inputs back out
	// (a Remover), for a window frame whose start moves: PostgreSQL's
	// moving-aggregate implementation, which exists for the aggregates
	// whose inputs come back out exactly.
	NewMoving func(env Env, args []types.T, ret types.T) Accumulator
	// KeepsNulls takes in a row whose first argument is NULL; other
	// aggregates skip it, as a strict transition function does.
	KeepsNulls bool
	// Ordered says the result depends on the order of the inputs
	// (array_agg, string_agg), and Holds that the state grows with them.
	Ordered, Holds bool
	// Extreme is -1 for min and +1 for max, whose result is the least or
	// greatest input by the result type's order (a window frame keeps the
	// inputs that may still be it), and 0 for the others.
	Extreme int
	// NewOrderedSet, in place of New, makes the state of an ordered-set
	// aggregate (WITHIN GROUP): its first Direct parameters are direct
	// arguments, evaluated once (direct), and its last is the sort key,
	// whose values the state takes in order.
	NewOrderedSet func(env Env, direct []any, args []types.T, ret types.T) Accumulator
	Direct        int
}

// An Accumulator folds the inputs of one group: Add takes one row's
// arguments, Result gives the value over what it took so far, and may be
// called again after more Adds, as a window's running aggregate does.
type Accumulator interface {
	Add(args []any) error
	Result() (any, error)
}

// IntAdder and FloatAdder are Accumulators of one argument that also take
// it unboxed, as a fused scan in sql/plan hands it over: AddInt(v) is
// Add([]any{v}) without an allocation per row.
type (
	IntAdder   interface{ AddInt(v int64) error }
	FloatAdder interface{ AddFloat(v float64) error }
)

// A Merger takes in another state of its aggregate, made by AddInt or
// AddFloat over other rows: the workers of a parallel scan aggregate
// their shares apart. Only aggregates whose result does not depend on the
// order of their inputs merge: count, and min, max, sum and avg of
// integers (not of floats: sums round by order, and min(-0, 0) is the
// later).
type Merger interface{ Merge(other Accumulator) error }

func errNoMerge(a Accumulator) error {
	return fmt.Errorf("builtins: cannot merge %T into this state", a)
}

// A Remover takes a row's arguments back out of the state: the row Add
// took first of those it still holds.
type Remover interface {
	Remove(args []any) error
}

// LookupAggregate returns the overloads of the aggregate called name, nil
// if there is none.
func LookupAggregate(name string) []Aggregate { return aggregates[name] }

var aggregates = map[string][]Aggregate{
	"count": {
		{Overload: Overload{Ret: types.Int8}, New: newCount, NewMoving: newCount},
		{Overload: Overload{Args: []types.T{Any}, Ret: types.Int8}, New: newCount, NewMoving: newCount},
	},
	"sum": sumOverloads(false),
	"avg": sumOverloads(true),
	"min": extremes(-1),
	"max": extremes(1),
	"bool_and": {{Overload: Overload{Args: []types.T{types.Bool}, Ret: types.Bool}, New: newBool(true),
		NewMoving: newBool(true)}},
	"every": {{Overload: Overload{Args: []types.T{types.Bool}, Ret: types.Bool}, New: newBool(true),
		NewMoving: newBool(true)}},
	"bool_or": {{Overload: Overload{Args: []types.T{types.Bool}, Ret: types.Bool}, New: newBool(false),
		NewMoving: newBool(false)}},
	"bit_and": bitAggregates("&"),
	"bit_or":  bitAggregates("|"),
	"bit_xor": bitAggregates("#"),
	"string_agg": {{Overload: Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Text},
		New: newStringAgg, Ordered: true, Holds: true}},
	// TiDB's grammar reads string_agg as its group_concat.
	"group_concat": {{Overload: Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Text},
		New: newStringAgg, Ordered: true, Holds: true}},
	"array_agg": {{Overload: Overload{Args: []types.T{AnyNonArray}, Ret: AnyArray},
		New: newArrayAgg, KeepsNulls: true, Ordered: true, Holds: true}},
	"json_agg":         jsonAgg(types.JSONType, 1),
	"jsonb_agg":        jsonAgg(types.JSONBType, 1),
	"json_object_agg":  jsonAgg(types.JSONType, 2),
	"jsonb_object_agg": jsonAgg(types.JSONBType, 2),
	"stddev":           moments(true, true),
	"stddev_samp":      moments(true, true),
	"stddev_pop":       moments(false, true),
	"variance":         moments(true, false),
	"var_samp":         moments(true, false),
	"var_pop":          moments(false, false),
	"corr":             regression("corr"),
	"covar_pop":        regression("covar_pop"),
	"covar_samp":       regression("covar_samp"),
	"regr_slope":       regression("regr_slope"),
	"regr_intercept":   regression("regr_intercept"),
	"regr_count":       regression("regr_count"),
	"regr_r2":          regression("regr_r2"),
	"regr_avgx":        regression("regr_avgx"),
	"regr_avgy":        regression("regr_avgy"),
	"regr_sxx":         regression("regr_sxx"),
	"regr_syy":         regression("regr_syy"),
	"regr_sxy":         regression("regr_sxy"),
	"percentile_cont":  percentiles(true),
	"percentile_disc":  percentiles(false),
	"mode":             {withinGroup([]types.T{AnyElement}, AnyElement, 0, mode)},
}

// count is count(*) and count(x): the rows, or those with x not NULL.
type count struct{ n int64 }

func newCount(Env, []types.T, types.T) Accumulator { return &count{} }

func (c *count) Add([]any) error        { c.n++; return nil }
func (c *count) AddInt(int64) error     { c.n++; return nil }
func (c *count) AddFloat(float64) error { c.n++; return nil }
func (c *count) Remove([]any) error     { c.n--; return nil }
func (c *count) Result() (any, error)   { return c.n, nil }

func (c *count) Merge(a Accumulator) error {
	o, ok := a.(*count)
	if !ok {
		return errNoMerge(a)
	}
	c.n += o.n
	return nil
}

// sumOverloads are sum's, or with avg avg's: integer sums are exact
// (numeric), float sums float8's.
func sumOverloads(avg bool) []Aggregate {
	sig := func(arg, ret types.T) Aggregate {
		a := Aggregate{Overload: Overload{Args: []types.T{arg}, Ret: ret}, New: newSum(avg, false)}
		if arg.Oid != types.OidFloat4 && arg.Oid != types.OidFloat8 {
			a.NewMoving = newSum(avg, true)
		}
		return a
	}
	if avg {
		return []Aggregate{sig(types.Int2, types.Numeric), sig(types.Int4, types.Numeric), sig(types.Int8, types.Numeric),
			sig(types.Numeric, types.Numeric), sig(types.Float4, types.Float8), sig(types.Float8, types.Float8),
			sig(types.IntervalType, types.IntervalType)}
	}
	return []Aggregate{sig(types.Int2, types.Int8), sig(types.Int4, types.Int8), sig(types.Int8, types.Numeric),
		sig(types.Numeric, types.Numeric), sig(types.Float4, types.Float4), sig(types.Float8, types.Float8),
		sig(types.IntervalType, types.IntervalType)}
}

// sum is the state of sum and avg: the inputs counted, and their sum as
// an int64 while integers' sum fits one (ints), else as a numeric
// (integers and numerics), a float64 or an interval. A moving
// one, which may take inputs back out, keeps the numeric infinities and
// NaNs apart, which have no inverse, and how many inputs of each scale it
// holds, to give the scale adding up its inputs afresh would.
type sum struct {
	avg, moving bool
	ret         types.T
	n           int64
	i           int64
	ints        bool
	f           float64 // the sum of float inputs, once floats
	floats      bool
	acc         any
	nonFinite   int
	exponents   map[int32]int64
}

func newSum(avg, moving bool) func(Env, []types.T, types.T) Accumulator {
	return func(_ Env, _ []types.T, ret types.T) Accumulator { return &sum{avg: avg, moving: moving, ret: ret} }
}

func (s *sum) Add(a []any) error {
	switch x := a[0].(type) {
	case int64:
		return s.AddInt(x)
	case float64:
		return s.AddFloat(x)
	}
	s.n++
	switch x := a[0].(type) {
	case *apd.Decimal:
		if s.moving {
			if x.Form != apd.Finite {
				s.nonFinite++
				return nil
			}
			if s.exponents == nil {
				s.exponents = make(map[int32]int64)
			}
			s.exponents[x.Exponent]++
		}
		return s.addNumeric(x)
	case types.Interval:
		if s.acc == nil {
			s.acc = x
		} else {
			y := s.acc.(types.Interval)
			s.acc = types.Interval{Months: y.Months + x.Months, Days: y.Days + x.Days, Micros: y.Micros + x.Micros}
		}
	}
	return nil
}

// AddInt adds an integer input: in int64 while the sum fits, then in
// numeric, so that sum(int8) is exact.
func (s *sum) AddInt(x int64) error {
	s.n++
	return s.addInt(x)
}

// addInt adds x to the integer sum, counting no input.
func (s *sum) addInt(x int64) error {
	if s.acc == nil {
		if !s.ints {
			s.i, s.ints = x, true
			return nil
		}
		if r := s.i + x; (r > s.i) == (x > 0) {
			s.i = r
			return nil
		}
		s.acc, s.ints = apd.New(s.i, 0), false // past int64: go on in numeric
	}
	d := apd.New(x, 0)
	// d is this call's own: it takes the sum.
	if _, err := NumericContext.Add(d, s.acc.(*apd.Decimal), d); err != nil {
		return err
	}
	s.acc = d
	return nil
}

// Merge adds another integer sum in.
func (s *sum) Merge(a Accumulator) error {
	o, ok := a.(*sum)
	if !ok || s.floats || o.floats || s.moving || o.moving {
		return errNoMerge(a)
	}
	if o.n == 0 {
		return nil
	}
	s.n += o.n
	if o.ints {
		return s.addInt(o.i)
	}
	d, ok := o.acc.(*apd.Decimal)
	if !ok {
		return errNoMerge(a)
	}
	if s.ints {
		s.acc, s.ints = apd.New(s.i, 0), false
	}
	return s.addNumeric(d)
}

// AddFloat adds a float input, into a float64 that Result boxes. Like
// PostgreSQL's float8pl it fails where finite inputs overflow.
func (s *sum) AddFloat(x float64) error {
	s.n++
	switch {
	case !s.floats && !s.avg:
		s.f, s.floats = x, true // not 0 + x: the sum of -0 alone is -0
	case !s.floats:
		s.f, s.floats = 0+x, true // avg's sum starts at 0: avg(-0) is 0
	default:
		r := s.f + x
		if math.IsInf(r, 0) && !math.IsInf(s.f, 0) && !math.IsInf(x, 0) {
			return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
		}
		s.f = r
	}
	return nil
}

// addNumeric adds d to the numeric sum, a new value each time: results
// already given may hold the old one.
func (s *sum) addNumeric(d *apd.Decimal) error {
	if s.acc == nil {
		s.acc = new(apd.Decimal).Set(d)
		return nil
	}
	r := new(apd.Decimal)
	if _, err := NumericContext.Add(r, s.acc.(*apd.Decimal), d); err != nil {
		return err
	}
	s.acc = r
	return nil
}

func (s *sum) Remove(a []any) error {
	if d, ok := a[0].(*apd.Decimal); ok && d.Form != apd.Finite {
		s.n--
		s.nonFinite--
		return nil
	}
	if s.n--; s.n == 0 {
		s.acc, s.ints, s.nonFinite = nil, false, 0 // the sum of no rows is NULL
		clear(s.exponents)
		return nil
	}
	switch x := a[0].(type) {
	case int64:
		if s.ints {
			if r := s.i - x; (r < s.i) == (x > 0) {
				s.i = r
				return nil
			}
			s.acc, s.ints = apd.New(s.i, 0), false
		}
		return s.subtract(apd.New(x, 0))
	case *apd.Decimal:
		if s.exponents[x.Exponent]--; s.exponents[x.Exponent] == 0 {
			delete(s.exponents, x.Exponent)
		}
		return s.subtract(x)
	case types.Interval:
		y := s.acc.(types.Interval)
		s.acc = types.Interval{Months: y.Months - x.Months, Days: y.Days - x.Days, Micros: y.Micros - x.Micros}
	}
	return nil
}

func (s *sum) subtract(d *apd.Decimal) error {
	r := new(apd.Decimal)
	if _, err := NumericContext.Sub(r, s.acc.(*apd.Decimal), d); err != nil {
		return err
	}
	s.acc = r
	return nil
}

// errRecompute is what a moving sum's Result gives while it holds an
// infinity or a NaN, whose sum with the rest it cannot know without them:
// the frame's value is computed afresh.
var errRecompute = pgerr.New(pgerr.InternalError, "moving aggregate holds a value it cannot take back out")

// ErrRecompute reports whether err is a moving state's request that its
// value be computed afresh, from a state that is not moving.
func ErrRecompute(err error) bool { return err == errRecompute }

func (s *sum) Result() (any, error) {
	if s.floats {
		s.acc = s.f
	}
	if s.nonFinite > 0 {
		return nil, errRecompute
	}
	if s.avg {
		if s.n == 0 {
			return nil, nil
		}
		switch acc := s.acc.(type) {
		case float64:
			return acc / float64(s.n), nil
		case types.Interval:
			return types.ScaleInterval(acc, float64(s.n), true)
		}
		return numericDivide(s.numericSum(), apd.New(s.n, 0))
	}
	if s.ints {
		if s.ret.Oid == types.OidInt8 {
			return s.i, nil
		}
		return apd.New(s.i, 0), nil
	}
	if s.acc == nil {
		return nil, nil
	}
	switch acc := s.acc.(type) {
	case *apd.Decimal:
		d := s.numericSum()
		if s.ret.Oid == types.OidInt8 {
			i, err := d.Int64()
			if err != nil {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
			}
			return i, nil
		}
		return d, nil
	case float64:
		if s.ret.Oid == types.OidFloat4 {
			return float64(float32(acc)), nil
		}
	}
	return s.acc, nil
}

// numericSum is the numeric sum, with the scale of its input of the
// largest scale, as adding its inputs afresh would give it, not that of
// a larger one a moving state has given back.
func (s *sum) numericSum() *apd.Decimal {
	if s.ints {
		return apd.New(s.i, 0)
	}
	d := s.acc.(*apd.Decimal)
	if len(s.exponents) == 0 {
		return d
	}
	exp := int32(math.MaxInt32)
	for e := range s.exponents {
		exp = min(exp, e)
	}
	if exp <= d.Exponent {
		return d
	}
	r := new(apd.Decimal)
	if _, err := NumericContext.Quantize(r, d, exp); err != nil {
		return d
	}
	return r
}

// numericDivide is numeric division with PostgreSQL's result scale.
func numericDivide(l, r *apd.Decimal) (any, error) {
	if l.Form != apd.Finite || r.Form != apd.Finite {
		d := new(apd.Decimal)
		if _, err := NumericContext.Quo(d, l, r); err != nil {
			return nil, errNumericOverflow()
		}
		return d, nil
	}
	return OwnNumeric(NumericDiv(l, r, NumericDivScale(l, r))), nil
}

// extremes are min's (sign -1) or max's (+1) overloads: the types with
// an order, their result the input type itself.
func extremes(sign int) []Aggregate {
	var aggs []Aggregate
	for _, t := range []types.T{types.Int2, types.Int4, types.Int8, types.Numeric, types.Float4, types.Float8,
		types.Text, {Oid: types.OidBpchar, Mod: -1}, types.Date, types.TimeType, types.Timestamp, types.Timestamptz,
		types.IntervalType, {Oid: types.OidOid, Mod: -1}, AnyEnum, types.InetType} {
		aggs = append(aggs, Aggregate{Overload: Overload{Args: []types.T{t}, Ret: t}, New: newExtreme(sign), Extreme: sign})
	}
	// citext's, which compare as citext does, with the later of two equal
	// inputs winning, as citext_smaller and citext_larger keep it.
	return append(aggs, Aggregate{Overload: Overload{Args: []types.T{types.Citext}, Ret: types.Citext, Extension: "citext"},
		New: newExtreme(sign), Extreme: sign})
}

// extreme is min's or max's state. Of two equal inputs the later wins,
// as PostgreSQL's numeric_smaller and the like do, which shows when
// equal values print differently (1.0 and 1.00, '1 day' and '24 hours').
type extreme struct {
	sign int
	t    types.T
	v    any
	// An unboxed input's extreme, kept as its type until Result boxes it.
	i     int64
	f     float64
	typed bool
}

func newExtreme(sign int) func(Env, []types.T, types.T) Accumulator {
	return func(_ Env, args []types.T, _ types.T) Accumulator { return &extreme{sign: sign, t: args[0]} }
}

func (x *extreme) Add(a []any) error {
	if x.v == nil || beats(x.sign, x.t, a[0], x.v) {
		x.v = a[0]
	}
	return nil
}

// AddInt is Add of an integer.
func (x *extreme) AddInt(v int64) error {
	if !x.typed || cmp.Compare(v, x.i)*x.sign >= 0 {
		x.i, x.typed = v, true
	}
	return nil
}

// Merge takes in another state's integer extreme. Float extremes do not
// merge: -0 and 0 are equal, and which of them min gives depends on the
// order of the inputs.
func (x *extreme) Merge(a Accumulator) error {
	o, ok := a.(*extreme)
	switch {
	case !ok || o.v != nil || x.v != nil || x.t.Oid == types.OidFloat4 || x.t.Oid == types.OidFloat8:
		return errNoMerge(a)
	case !o.typed:
		return nil
	}
	return x.AddInt(o.i)
}

// AddFloat is Add of a float.
func (x *extreme) AddFloat(v float64) error {
	if !x.typed || types.CompareFloat(v, x.f)*x.sign >= 0 {
		x.f, x.typed = v, true
	}
	return nil
}

// beats reports whether v, an input of type t later than cur, takes its
// place as the result of min (sign -1) or max (+1).
func beats(sign int, t types.T, v, cur any) bool { return types.Compare(t, v, cur)*sign >= 0 }

// Beats reports, for an Extreme aggregate, whether v, an input of type t
// later than cur, takes its place as the result: a window frame asks it
// of the inputs it keeps.
func (a *Aggregate) Beats(t types.T, v, cur any) bool { return beats(a.Extreme, t, v, cur) }

func (x *extreme) Result() (any, error) {
	switch {
	case !x.typed:
		return x.v, nil
	case x.t.Oid == types.OidFloat4 || x.t.Oid == types.OidFloat8:
		return x.f, nil
	}
	return x.i, nil
}

// boolAgg is bool_and and every (all) or bool_or: the true inputs
// counted, so that they can come back out.
type boolAgg struct {
	all      bool
	n, trues int64
}

func newBool(all bool) func(Env, []types.T, types.T) Accumulator {
	return func(Env, []types.T, types.T) Accumulator { return &boolAgg{all: all} }
}

func (b *boolAgg) Add(a []any) error {
	b.n++
	if a[0].(bool) {
		b.trues++
	}
	return nil
}

func (b *boolAgg) Remove(a []any) error {
	b.n--
	if a[0].(bool) {
		b.trues--
	}
	return nil
}

func (b *boolAgg) Result() (any, error) {
	switch {
	case b.n == 0:
		return nil, nil
	case b.all:
		return b.trues == b.n, nil
	}
	return b.trues > 0, nil
}

// bitAggregates are bit_and's, bit_or's or bit_xor's overloads.
func bitAggregates(op string) []Aggregate {
	var aggs []Aggregate
	for _, t := range intTypes {
		aggs = append(aggs, Aggregate{Overload: Overload{Args: []types.T{t}, Ret: t},
			New: func(Env, []types.T, types.T) Accumulator { return &bitAgg{op: op} }})
	}
	return aggs
}

type bitAgg struct {
	op string
	v  any
}

func (b *bitAgg) Add(a []any) error {
	v := a[0].(int64)
	if b.v != nil {
		v = bitwise(b.op, 64, b.v.(int64), v)
	}
	b.v = v
	return nil
}

func (b *bitAgg) Result() (any, error) { return b.v, nil }

// stringAgg is string_agg(s, sep): a builder, not a string, since
// appending to a string copies it, which made the aggregate quadratic.
type stringAgg struct{ b *strings.Builder }

func newStringAgg(Env, []types.T, types.T) Accumulator { return &stringAgg{} }

func (s *stringAgg) Add(a []any) error {
	if s.b == nil {
		s.b = new(strings.Builder)
	} else if a[1] != nil {
		s.b.WriteString(a[1].(string))
	}
	s.b.WriteString(a[0].(string))
	return nil
}

func (s *stringAgg) Result() (any, error) {
	if s.b == nil {
		return nil, nil
	}
	return s.b.String(), nil
}

// arrayAgg is array_agg: the inputs, NULLs too.
type arrayAgg struct{ vs []any }

func newArrayAgg(Env, []types.T, types.T) Accumulator { return &arrayAgg{} }

func (s *arrayAgg) Add(a []any) error { s.vs = append(s.vs, a[0]); return nil }

func (s *arrayAgg) Result() (any, error) {
	if s.vs == nil {
		return nil, nil
	}
	return s.vs, nil
}

// jsonAgg are json[b]_agg's overloads (one argument) or
// json[b]_object_agg's (two: a key and a value).
func jsonAgg(jt types.T, nargs int) []Aggregate {
	args := []types.T{AnyElement}
	if nargs == 2 {
		args = []types.T{Any, Any}
	}
	return []Aggregate{{Overload: Overload{Args: args, Ret: jt, Volatility: Stable}, KeepsNulls: true, Ordered: true, Holds: true,
		New: func(e Env, args []types.T, ret types.T) Accumulator {
			return &jsonAggState{env: e, args: args, ret: ret}
		}}}
}

// jsonAggState gathers the inputs, and writes them at the end: json_agg
// writes [1, 2], arrays and records each on a line of their own;
// json_object_agg writes { "a" : 1, "b" : 2 }.
type jsonAggState struct {
	env    Env
	args   []types.T
	ret    types.T
	inputs [][]any
}

func (s *jsonAggState) Add(a []any) error {
	if len(s.args) == 2 && a[0] == nil {
		return pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
	}
	s.inputs = append(s.inputs, slices.Clone(a[:len(s.args)]))
	return nil
}

func (s *jsonAggState) Result() (any, error) {
	if s.inputs == nil {
		return nil, nil
	}
	return makeJSON(s.ret, func(b *jsonBuilder) {
		if len(s.args) == 1 {
			t := s.args[0]
			sep := ", "
			if _, rec := t.Fields(); rec || t.IsArray() {
				sep = ", \n "
			}
			b.array(len(s.inputs), sep, func(i int) { b.value(t, s.inputs[i][0]) })
			return
		}
		b.object(len(s.inputs), "{ ", ", ", " }", func(i int) {
			b.key(s.args[0], s.inputs[i][0], " : ")
			b.value(s.args[1], s.inputs[i][1])
		})
	}, s.env.Location())
}
