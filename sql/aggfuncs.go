package sql

import (
	"context"
	"math"
	"slices"

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
	if aggs := builtins.LookupAggregate(fn); aggs != nil {
		return len(aggs[len(aggs)-1].Args)
	}
	return 1
}

func orderedSetAgg(fn string) bool {
	return fn == "percentile_cont" || fn == "percentile_disc" || fn == "mode"
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

// orderedSetState is the state of an ordered-set aggregate: its inputs,
// which arrive sorted by the call's one key.
type orderedSetState struct {
	call *aggCall
	vs   []any
}

func (o *orderedSetState) Add(vals []any) error { o.vs = append(o.vs, vals[0]); return nil }

func (o *orderedSetState) Result() (any, error) { return o.call.orderedSetResult(o.vs) }

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
