package sql

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Functions in FROM. The parser writes FROM f(args) alias as the derived
// table (SELECT epochdb_table(f(args))) AS alias; its rows are the values
// f returns, in one column named by the alias. The arguments may read the
// enclosing queries' rows, not the other FROM items' (that would be
// LATERAL).

// tableFuncCall returns the call of a function in FROM, or nil if n is
// something else.
func tableFuncCall(n *ast.TableSource) *ast.FuncCallExpr {
	sel, ok := n.Source.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From != nil {
		return nil
	}
	f, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "epochdb_table" || len(f.Args) != 1 {
		return nil
	}
	call, _ := f.Args[0].(*ast.FuncCallExpr)
	return call
}

// tableFunc produces a set-returning function's rows from its evaluated
// arguments.
type tableFunc struct {
	name string
	t    types.T
	args []expr
	rows func(args []any) ([]any, error)
}

func (f *tableFunc) explain(indent string) string { return indent + "Function Scan on " + f.name }

func (f *tableFunc) open(x *execCtx) (rowIter, error) {
	e := x.env(nil)
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.eval(e)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return &sliceIter{}, nil // strict: a NULL argument gives no rows
		}
		vals[i] = v
	}
	out, err := f.rows(vals)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, len(out))
	for i, v := range out {
		rows[i] = []any{v}
	}
	return &sliceIter{rows: rows}, nil
}

func (c *compiler) planTableFunc(n *ast.TableSource, call *ast.FuncCallExpr) (source, *scope, error) {
	in := c.withScope(&scope{})
	var f *tableFunc
	var err error
	switch call.FnName.L {
	case "generate_series":
		f, err = in.generateSeries(call)
	case "unnest":
		f, err = in.unnest(call)
	default:
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "function %s in FROM is not supported", call.FnName.L)
	}
	if err != nil {
		return nil, nil, err
	}
	alias := n.AsName.O
	return f, &scope{cols: []scopeCol{{table: alias, name: alias, t: f.t}}}, nil
}

// generateSeries is generate_series(start, stop[, step]) over integers or
// numeric.
func (c *compiler) generateSeries(n *ast.FuncCallExpr) (*tableFunc, error) {
	if len(n.Args) != 2 && len(n.Args) != 3 {
		return nil, argCountErr(n, nil)
	}
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	t := types.Unknown
	for _, a := range args {
		u, ok := unify(t, a.typ())
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function generate_series(%s, %s) does not exist", args[0].typ(), a.typ())
		}
		t = u
	}
	switch {
	case t.Oid == types.OidInt2 || t.Oid == types.OidText:
		t = types.Int4 // literals and smallints pick the int4 version
	case t.Oid == types.OidFloat4 || t.Oid == types.OidFloat8:
		t = types.Numeric
	case t.Oid != types.OidInt4 && t.Oid != types.OidInt8 && t.Oid != types.OidNumeric:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "generate_series over %s is not supported", t)
	}
	for i := range args {
		if args[i], err = c.coerce(args[i], t); err != nil {
			return nil, err
		}
	}
	return &tableFunc{name: "generate_series", t: t, args: args, rows: func(a []any) ([]any, error) {
		if t.Oid == types.OidNumeric {
			return numericSeries(a)
		}
		start, stop, step := a[0].(int64), a[1].(int64), int64(1)
		if len(a) == 3 {
			step = a[2].(int64)
		}
		if step == 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		var out []any
		for v := start; step > 0 && v <= stop || step < 0 && v >= stop; v += step {
			out = append(out, v)
			if next := v + step; (next > v) != (step > 0) {
				break // the next value would overflow
			}
		}
		return out, nil
	}}, nil
}

func numericSeries(a []any) ([]any, error) {
	start, stop, step := a[0].(*apd.Decimal), a[1].(*apd.Decimal), apd.New(1, 0)
	if len(a) == 3 {
		step = a[2].(*apd.Decimal)
	}
	if step.IsZero() {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	var out []any
	for v := start; step.Sign() > 0 && v.Cmp(stop) <= 0 || step.Sign() < 0 && v.Cmp(stop) >= 0; {
		out = append(out, v)
		next := new(apd.Decimal)
		if _, err := numericCtx.Add(next, v, step); err != nil {
			return nil, err
		}
		v = next
	}
	return out, nil
}

// unnest is unnest(array): the elements, in order.
func (c *compiler) unnest(n *ast.FuncCallExpr) (*tableFunc, error) {
	if len(n.Args) != 1 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "unnest of several arrays is not supported")
	}
	arr, err := arrayOperand(c, n.Args[0], "function unnest requires an array argument")
	if err != nil {
		return nil, err
	}
	elem, _ := arr.typ().Elem()
	return &tableFunc{name: "unnest", t: elem, args: []expr{arr}, rows: func(a []any) ([]any, error) {
		return a[0].([]any), nil
	}}, nil
}
