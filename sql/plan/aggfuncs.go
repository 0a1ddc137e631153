package plan

import (
	"context"
	"slices"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
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
func (c *Compiler) notAggregate(f *ast.FuncCallExpr) error {
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
func (c *Compiler) noWithinGroup(fn string, direct, keys []ast.ExprNode, nargs int) error {
	var args []Expr
	for _, n := range direct {
		e, err := c.Compile(n)
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	for i := 0; i+2 < len(keys); i += 3 {
		e, err := c.Compile(keys[i])
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

// orderedSetAgg reports whether fn is an ordered-set aggregate, called
// WITHIN GROUP.
func orderedSetAgg(fn string) bool {
	aggs := builtins.LookupAggregate(fn)
	return aggs != nil && aggs[0].NewOrderedSet != nil
}

// planOrderedSet plans an ordered-set aggregate (percentile_cont,
// percentile_disc, mode): its call resolves against its overloads with
// the direct arguments, which must be constant and are evaluated here,
// followed by its one sort key, which becomes the call's only argument.
func (call *aggCall) planOrderedSet(c *Compiler, direct, keys []ast.ExprNode) error {
	var args []Expr
	for _, n := range direct {
		e, err := c.Compile(n)
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	for i := 0; i+2 < len(keys); i += 3 {
		e, err := c.Compile(keys[i])
		if err != nil {
			return err
		}
		if e, err = c.ResolveUnknown(e); err != nil {
			return err
		}
		args = append(args, e)
	}
	if len(keys) != 3 {
		return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", call.fn, argTypes(args))
	}
	call.args = args
	if err := call.typeCheck(c); err != nil {
		return err
	}
	args = call.args
	nd := call.agg.Direct
	for _, d := range args[:nd] {
		if !constant(d) {
			return pgerr.New(pgerr.FeatureNotSupported, "direct arguments of %s that are not constants are not supported", call.fn)
		}
		// Evaluated once; an error waits for the result, as in PostgreSQL.
		v, err := d.Eval(&Env{Ctx: context.Background(), Host: c.Host})
		call.direct = append(call.direct, v)
		if call.directErr == nil {
			call.directErr = err
		}
	}
	key := args[nd]
	if err := checkComparable(key.Type(), true); err != nil {
		return err
	}
	k := rowexec.SortKey{Idx: 0, T: key.Type(), Desc: keys[1].(*driver.ValueExpr).GetString() == "desc"}
	call.args, call.nargs, call.order = []Expr{key}, 1, []rowexec.SortKey{k}
	call.argTypes = argTypesOf(call.args)
	return nil
}

// failedState is the state of an ordered-set aggregate whose direct
// argument failed to evaluate: its result is the failure.
type failedState struct{ err error }

func (f failedState) Add([]any) error { return nil }

func (f failedState) Result() (any, error) { return nil, f.err }

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
func (p *SelectPlan) planDistinctOn(c *Compiler, items []ast.ExprNode) error {
	for _, item := range items {
		idx, err := p.target(c, item, "DISTINCT ON")
		if err != nil {
			return err
		}
		k := rowexec.SortKey{Idx: idx, T: p.Exprs[idx].Type()}
		if err := checkComparable(k.T, true); err != nil {
			return err
		}
		p.distinctOn = append(p.distinctOn, k)
	}
	on := func(idx int) bool {
		return slices.ContainsFunc(p.distinctOn, func(k rowexec.SortKey) bool { return k.Idx == idx })
	}
	mismatch := pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
	skipped := false
	ordered := map[int]bool{}
	for i, k := range p.order {
		switch {
		case slices.ContainsFunc(p.order[:i], func(o rowexec.SortKey) bool { return o.Idx == k.Idx }):
			// A repeated ORDER BY item is no item: PostgreSQL drops it.
		case !on(k.Idx):
			skipped = true
		case skipped:
			return mismatch
		default:
			ordered[k.Idx] = true
		}
	}
	for _, k := range p.distinctOn {
		if skipped && !ordered[k.Idx] {
			return mismatch
		}
	}
	return nil
}
