package sql

import (
	"context"
	"math"
	"slices"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// The statistical, bitwise and ordered-set aggregates, the FILTER clause
// and SELECT DISTINCT ON. The parser writes the syntax TiDB lacks as marker
// calls (see sql/parser/rewrite.go):
//
//	agg(args) FILTER (WHERE cond)              agg(epochdb_filter(cond, args...))
//	agg(direct) WITHIN GROUP (ORDER BY key)    agg(epochdb_within(direct, epochdb_order(key, 'asc', 'default')))
//	SELECT DISTINCT ON (a, b) ...              SELECT epochdb_distinct_on(a, b), ...
//	corr(y, x) OVER (...)                      max(epochdb_window_agg('corr', y, x)) OVER (...)
//
// The last is for the aggregates TiDB's grammar takes no OVER after.
//
// The statistical aggregates compute as PostgreSQL does, so that their
// results agree to the last digit: integer and numeric inputs in exact
// sums, with the division's scale chosen by select_div_scale; float inputs
// by the Youngs-Cramer updates of float.c, in the same order.

// markerCall returns n as a call of the parser's marker fn.
func markerCall(n ast.Node, fn string) (*ast.FuncCallExpr, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	return f, ok && f.FnName.L == fn
}

// aggFilter splits the FILTER condition off an aggregate's arguments.
func aggFilter(args []ast.ExprNode) ([]ast.ExprNode, ast.ExprNode) {
	if f, ok := markerCall(at0(args), "epochdb_filter"); ok && len(args) == 1 && len(f.Args) > 0 {
		return f.Args[1:], f.Args[0]
	}
	return args, nil
}

// withinKeys splits an aggregate's arguments with WITHIN GROUP into its
// direct arguments and its sort keys, in the form orderKeys returns them.
func withinKeys(args []ast.ExprNode) ([]ast.ExprNode, []ast.ExprNode, bool) {
	if f, ok := markerCall(at0(args), "epochdb_within"); ok && len(args) == 1 {
		direct, keys := orderKeys(f.Args)
		return direct, keys, true
	}
	return args, nil, false
}

// windowAgg reads the parser's max(epochdb_window_agg('fn', args...)) OVER
// (...), its form of an aggregate TiDB takes no OVER after: fn and args.
func windowAgg(wf *ast.WindowFuncExpr) (string, []ast.ExprNode, bool) {
	f, ok := markerCall(at0(wf.Args), "epochdb_window_agg")
	if !ok || len(wf.Args) != 1 || len(f.Args) == 0 {
		return "", nil, false
	}
	name, ok := f.Args[0].(*driver.ValueExpr)
	if !ok {
		return "", nil, false
	}
	return name.GetString(), f.Args[1:], true
}

// notAggregate is the error for FILTER or WITHIN GROUP on a function that
// is no aggregate, or nil.
func (c *compiler) notAggregate(f *ast.FuncCallExpr) error {
	if _, ok := markerCall(at0(f.Args), "epochdb_filter"); ok {
		return pgerr.New(pgerr.WrongObjectType, "FILTER specified, but %s is not an aggregate function", f.FnName.L)
	}
	if direct, keys, ok := withinKeys(f.Args); ok {
		return c.noWithinGroup(f.FnName.L, direct, keys, 0)
	}
	return nil
}

// noWithinGroup is PostgreSQL's error for WITHIN GROUP on fn, which is not
// an ordered-set aggregate: no function takes the direct arguments and
// the keys together, or fn, an aggregate of nargs arguments, does but is
// not ordered-set.
func (c *compiler) noWithinGroup(fn string, direct, keys []ast.ExprNode, nargs int) error {
	var args []expr
	for _, n := range direct {
		e, err := c.compile(n)
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	for i := 0; i+2 < len(keys); i += 3 {
		e, err := c.compile(keys[i])
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	if len(args) == nargs {
		return pgerr.New(pgerr.WrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", fn)
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", fn, argTypes(args))
}

// aggArity is how many arguments an aggregate takes.
func aggArity(fn string) int {
	switch {
	case regression(fn), fn == "string_agg", fn == "json_object_agg", fn == "jsonb_object_agg":
		return 2
	}
	return 1
}

func orderedSetAgg(fn string) bool {
	return fn == "percentile_cont" || fn == "percentile_disc" || fn == "mode"
}

// statAgg reports whether fn is one of this file's aggregates.
func statAgg(fn string) bool {
	switch fn {
	case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "bit_and", "bit_or", "bit_xor":
		return true
	}
	return regression(fn) || orderedSetAgg(fn)
}

// regression reports whether fn is an aggregate of (Y, X) pairs.
func regression(fn string) bool {
	switch fn {
	case "corr", "covar_pop", "covar_samp", "regr_slope", "regr_intercept", "regr_count", "regr_r2",
		"regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy":
		return true
	}
	return false
}

// typeCheckStat resolves the result type of a statistical or bitwise
// aggregate, coercing its arguments to what it reads.
func (call *aggCall) typeCheckStat(c *compiler) error {
	noFunc := func() error {
		return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", call.fn, argTypes(call.args))
	}
	switch {
	case regression(call.fn):
		if len(call.args) != 2 {
			return noFunc()
		}
		for i, a := range call.args {
			if numRank(a.typ().Oid) == 0 && a.typ().Oid != types.OidUnknown {
				return noFunc()
			}
			var err error
			if call.args[i], err = c.coerce(a, types.Float8); err != nil {
				return err
			}
		}
		call.t = types.Float8
		if call.fn == "regr_count" {
			call.t = types.Int8
		}
		return nil
	case len(call.args) != 1:
		return noFunc()
	}
	arg, err := c.resolveUnknown(call.args[0])
	if err != nil {
		return err
	}
	call.args[0] = arg
	switch o := arg.typ().Oid; {
	case call.fn == "bit_and" || call.fn == "bit_or" || call.fn == "bit_xor":
		if o != types.OidInt2 && o != types.OidInt4 && o != types.OidInt8 {
			return noFunc()
		}
		call.t = types.T{Oid: o, Mod: -1}
	case o == types.OidFloat4 || o == types.OidFloat8:
		call.t = types.Float8
	case numRank(o) > 0:
		call.t = types.Numeric
	default:
		return noFunc()
	}
	return nil
}

// planOrderedSet plans percentile_cont, percentile_disc and mode: their
// direct arguments, which must be constant, and their one sort key, which
// becomes the call's only argument.
func (call *aggCall) planOrderedSet(c *compiler, direct, keys []ast.ExprNode) error {
	var args []expr
	for _, n := range direct {
		e, err := c.compile(n)
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	for i := 0; i+2 < len(keys); i += 3 {
		e, err := c.compile(keys[i])
		if err != nil {
			return err
		}
		if e, err = c.resolveUnknown(e); err != nil {
			return err
		}
		args = append(args, e)
	}
	noFunc := func() error {
		return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", call.fn, argTypes(args))
	}
	wantDirect := 1
	if call.fn == "mode" {
		wantDirect = 0
	}
	if len(direct) != wantDirect || len(keys) != 3 {
		return noFunc()
	}
	key := args[wantDirect]
	kt := key.typ()
	var err error
	if wantDirect == 1 {
		d := args[0]
		fracT, array := types.Float8, false
		if _, ok := d.typ().Elem(); ok {
			fracT, array = types.T{Oid: types.OidFloat8Array, Mod: -1}, true
		}
		if d, err = c.coerce(d, fracT); err != nil {
			return noFunc()
		}
		if call.fn == "percentile_cont" {
			switch {
			case kt.Oid == types.OidInterval:
			case kt.Oid == types.OidTime:
				// Interpolated as intervals, by time's implicit cast.
				if key, err = c.coerce(key, types.IntervalType); err != nil {
					return err
				}
				kt = types.IntervalType
			case numRank(kt.Oid) > 0:
				if key, err = c.coerce(key, types.Float8); err != nil {
					return err
				}
				kt = types.Float8
			default:
				return noFunc()
			}
		}
		call.t = kt
		if array {
			var ok bool
			if call.t, ok = types.ArrayOf(kt); !ok {
				return noFunc()
			}
		}
		if !constant(d) {
			return pgerr.New(pgerr.FeatureNotSupported, "direct arguments of %s that are not constants are not supported", call.fn)
		}
		// Evaluated once; an error waits for the result, as in PostgreSQL.
		call.frac, call.fracErr = d.eval(&env{ctx: context.Background(), s: c.s})
	} else {
		call.t = kt
	}
	if err := checkComparable(kt, true); err != nil {
		return err
	}
	k := sortKey{idx: 0, t: kt, desc: keys[1].(*driver.ValueExpr).GetString() == "desc"}
	call.args, call.nargs, call.order = []expr{key}, 1, []sortKey{k}
	return nil
}

// numericMoments is the state of stddev and variance over integers and
// numerics: exact sums.
type numericMoments struct {
	n          int64
	sum, sumSq *apd.Decimal
	nonFinite  bool // a NaN or an infinity makes the result NaN
}

// floatMoments is the state of stddev and variance over floats, and
// regressionState that of the (Y, X) aggregates: float8_accum's and
// float8_regr_accum's N, Sx, Sxx and so on.
type floatMoments struct{ n, sx, sxx float64 }

type regressionState struct{ n, sx, sy, sxx, syy, sxy float64 }

func (st *aggState) accumulateStat(vals []any) error {
	c := st.call
	switch {
	case orderedSetAgg(c.fn):
		vs, _ := st.acc.([]any)
		st.acc = append(vs, vals[0])
	case regression(c.fn):
		if vals[1] == nil {
			return nil
		}
		r, _ := st.acc.(*regressionState)
		if r == nil {
			r = &regressionState{}
			st.acc = r
		}
		return r.add(vals[0].(float64), vals[1].(float64))
	case c.fn == "bit_and" || c.fn == "bit_or" || c.fn == "bit_xor":
		v := vals[0].(int64)
		if st.acc != nil {
			a := st.acc.(int64)
			switch c.fn {
			case "bit_and":
				v &= a
			case "bit_or":
				v |= a
			default:
				v ^= a
			}
		}
		st.acc = v
	default:
		switch v := vals[0].(type) {
		case float64:
			m, _ := st.acc.(*floatMoments)
			if m == nil {
				m = &floatMoments{}
				st.acc = m
			}
			return m.add(v)
		case int64:
			return st.addNumeric(apd.New(v, 0))
		case *apd.Decimal:
			return st.addNumeric(v)
		}
	}
	return nil
}

func (st *aggState) addNumeric(d *apd.Decimal) error {
	m, _ := st.acc.(*numericMoments)
	if m == nil {
		m = &numericMoments{sum: new(apd.Decimal), sumSq: new(apd.Decimal)}
		st.acc = m
	}
	m.n++
	if d.Form != apd.Finite {
		m.nonFinite = true
		return nil
	}
	sq := new(apd.Decimal)
	if _, err := builtins.NumericContext.Mul(sq, d, d); err != nil {
		return builtins.ErrNumericOverflow()
	}
	if _, err := builtins.NumericContext.Add(m.sum, m.sum, d); err != nil {
		return builtins.ErrNumericOverflow()
	}
	if _, err := builtins.NumericContext.Add(m.sumSq, m.sumSq, sq); err != nil {
		return builtins.ErrNumericOverflow()
	}
	return nil
}

func errFloatOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
}

func isInfOrNaN(f float64) bool { return math.IsInf(f, 0) || math.IsNaN(f) }

// add is float8_accum.
func (m *floatMoments) add(x float64) error {
	prevN, prevSx := m.n, m.sx
	m.n++
	m.sx += x
	if prevN > 0 {
		tmp := x*m.n - m.sx
		m.sxx += tmp * tmp / (m.n * prevN)
		if math.IsInf(m.sx, 0) || math.IsInf(m.sxx, 0) {
			if !math.IsInf(prevSx, 0) && !math.IsInf(x, 0) {
				return errFloatOverflow()
			}
			m.sxx = math.NaN()
		}
	} else if isInfOrNaN(x) {
		m.sxx = math.NaN()
	}
	return nil
}

// add is float8_regr_accum.
func (r *regressionState) add(y, x float64) error {
	prevN, prevSx, prevSy := r.n, r.sx, r.sy
	r.n++
	r.sx += x
	r.sy += y
	if prevN > 0 {
		tmpX, tmpY := x*r.n-r.sx, y*r.n-r.sy
		scale := 1.0 / (r.n * prevN)
		r.sxx += tmpX * tmpX * scale
		r.syy += tmpY * tmpY * scale
		r.sxy += tmpX * tmpY * scale
		if math.IsInf(r.sx, 0) || math.IsInf(r.sxx, 0) {
			if !math.IsInf(prevSx, 0) && !math.IsInf(x, 0) {
				return errFloatOverflow()
			}
			r.sxx = math.NaN()
		}
		if math.IsInf(r.sy, 0) || math.IsInf(r.syy, 0) {
			if !math.IsInf(prevSy, 0) && !math.IsInf(y, 0) {
				return errFloatOverflow()
			}
			r.syy = math.NaN()
		}
		if math.IsInf(r.sxy, 0) {
			if !math.IsInf(prevSx, 0) && !math.IsInf(x, 0) && !math.IsInf(prevSy, 0) && !math.IsInf(y, 0) {
				return errFloatOverflow()
			}
			r.sxy = math.NaN()
		}
		return nil
	}
	if isInfOrNaN(x) {
		r.sxx, r.sxy = math.NaN(), math.NaN()
	}
	if isInfOrNaN(y) {
		r.syy, r.sxy = math.NaN(), math.NaN()
	}
	return nil
}

// statResult is the final value of one of this file's aggregates.
func (st *aggState) statResult() (any, error) {
	c := st.call
	switch {
	case orderedSetAgg(c.fn):
		vs, _ := st.acc.([]any)
		return c.orderedSetResult(vs)
	case regression(c.fn):
		r, _ := st.acc.(*regressionState)
		if r == nil {
			r = &regressionState{}
		}
		return r.result(c.fn), nil
	}
	sample := c.fn != "stddev_pop" && c.fn != "var_pop"
	sqrt := c.fn == "stddev" || c.fn == "stddev_samp" || c.fn == "stddev_pop"
	switch m := st.acc.(type) {
	case *floatMoments:
		var v float64
		switch {
		case sample && m.n <= 1:
			return nil, nil
		case sample:
			v = m.sxx / (m.n - 1)
		default:
			v = m.sxx / m.n
		}
		if sqrt {
			v = math.Sqrt(v)
		}
		return v, nil
	case *numericMoments:
		return m.result(sample, sqrt)
	}
	return st.acc, nil // bit_and and its kin, or NULL over no rows
}

// result is numeric_stddev_internal: the numerator N*sum(x²) - sum(x)² is
// exact; the quotient takes select_div_scale's scale, and the square root
// the same.
func (m *numericMoments) result(sample, sqrt bool) (any, error) {
	switch {
	case m.nonFinite:
		return &apd.Decimal{Form: apd.NaN}, nil
	case m.n == 0 || sample && m.n == 1:
		return nil, nil
	}
	n := apd.New(m.n, 0)
	num, sq := new(apd.Decimal), new(apd.Decimal)
	if _, err := builtins.NumericContext.Mul(num, n, m.sumSq); err != nil {
		return nil, builtins.ErrNumericOverflow()
	}
	if _, err := builtins.NumericContext.Mul(sq, m.sum, m.sum); err != nil {
		return nil, builtins.ErrNumericOverflow()
	}
	if _, err := builtins.NumericContext.Sub(num, num, sq); err != nil {
		return nil, builtins.ErrNumericOverflow()
	}
	if num.Sign() <= 0 {
		return apd.New(0, 0), nil // roundoff cannot make it negative; zero is zero
	}
	den := apd.New(m.n-1, 0)
	if !sample {
		den = apd.New(m.n, 0)
	}
	if _, err := builtins.NumericContext.Mul(den, den, n); err != nil {
		return nil, builtins.ErrNumericOverflow()
	}
	scale := builtins.NumericDivScale(num, den)
	v := builtins.NumericDiv(num, den, scale)
	if !sqrt {
		return v, nil
	}
	w, _ := builtins.NBase(v)
	return builtins.EvalRounded(scale, (w+1)*4/2-1, func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
		return c.Sqrt(d, v)
	})
}

// result is the final functions of float.c's regression aggregates.
func (r *regressionState) result(fn string) any {
	if fn == "regr_count" {
		return int64(r.n)
	}
	if r.n < 1 || fn == "covar_samp" && r.n < 2 {
		return nil
	}
	switch fn {
	case "regr_sxx":
		return r.sxx
	case "regr_syy":
		return r.syy
	case "regr_sxy":
		return r.sxy
	case "regr_avgx":
		return r.sx / r.n
	case "regr_avgy":
		return r.sy / r.n
	case "covar_pop":
		return r.sxy / r.n
	case "covar_samp":
		return r.sxy / (r.n - 1)
	case "corr":
		if r.sxx == 0 || r.syy == 0 {
			return nil
		}
		return r.sxy / math.Sqrt(r.sxx*r.syy)
	case "regr_r2":
		switch {
		case r.sxx == 0:
			return nil
		case r.syy == 0:
			return 1.0
		}
		return r.sxy * r.sxy / (r.sxx * r.syy)
	case "regr_slope":
		if r.sxx == 0 {
			return nil
		}
		return r.sxy / r.sxx
	case "regr_intercept":
		if r.sxx == 0 {
			return nil
		}
		return (r.sy - r.sx*r.sxy/r.sxx) / r.n
	}
	return nil
}

// orderedSetResult computes an ordered-set aggregate over its sorted
// non-NULL inputs.
func (c *aggCall) orderedSetResult(vs []any) (any, error) {
	vs = slices.DeleteFunc(vs, func(v any) bool { return v == nil })
	if c.fn == "mode" {
		var best any
		bestN := 0
		for i := 0; i < len(vs); {
			j := i + 1
			for j < len(vs) && types.Compare(c.t, vs[i], vs[j]) == 0 {
				j++
			}
			if j-i > bestN {
				best, bestN = vs[i], j-i
			}
			i = j
		}
		return best, nil
	}
	if c.fracErr != nil {
		return nil, c.fracErr
	}
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
		if c.fn == "percentile_disc" {
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
	fracs, array := c.frac.([]any)
	if !array {
		return one(c.frac)
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

// distinctOnItems takes the parser's epochdb_distinct_on(...) off the
// front of a select list: it returns the query without it, and its
// expressions, or nil without DISTINCT ON.
func distinctOnItems(n *ast.SelectStmt) (*ast.SelectStmt, []ast.ExprNode) {
	if n.Fields == nil || len(n.Fields.Fields) == 0 {
		return n, nil
	}
	f, ok := markerCall(n.Fields.Fields[0].Expr, "epochdb_distinct_on")
	if !ok {
		return n, nil
	}
	m := *n
	m.Fields = &ast.FieldList{Fields: n.Fields.Fields[1:]}
	return &m, f.Args
}

// planDistinctOn resolves the DISTINCT ON expressions as ORDER BY items
// are resolved, and checks PostgreSQL's rule that they are the leading
// ORDER BY items, in any order among themselves.
func (p *selectPlan) planDistinctOn(c *compiler, items []ast.ExprNode) error {
	for _, item := range items {
		idx, err := p.target(c, item, "DISTINCT ON")
		if err != nil {
			return err
		}
		k := sortKey{idx: idx, t: p.exprs[idx].typ()}
		if err := checkComparable(k.t, true); err != nil {
			return err
		}
		p.distinctOn = append(p.distinctOn, k)
	}
	on := func(idx int) bool {
		return slices.ContainsFunc(p.distinctOn, func(k sortKey) bool { return k.idx == idx })
	}
	mismatch := pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
	skipped := false
	ordered := map[int]bool{}
	for i, k := range p.order {
		switch {
		case slices.ContainsFunc(p.order[:i], func(o sortKey) bool { return o.idx == k.idx }):
			// A repeated ORDER BY item is no item: PostgreSQL drops it.
		case !on(k.idx):
			skipped = true
		case skipped:
			return mismatch
		default:
			ordered[k.idx] = true
		}
	}
	for _, k := range p.distinctOn {
		if skipped && !ordered[k.idx] {
			return mismatch
		}
	}
	return nil
}
