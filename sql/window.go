package sql

import (
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Window functions: the ranking functions row_number, rank and dense_rank
// over (PARTITION BY ... ORDER BY ...), which pgjdbc's getColumns uses to
// number a table's columns. They run after WHERE, on the rows it kept: each
// call adds a column to every row, which the select list reads by the call's
// text. Window frames do not matter to ranking functions; aggregates over
// windows and windows of a grouped query are not supported.

// winPlan is a query's window step.
type winPlan struct {
	base  int // the first added column's index in the row
	calls []*winCall
}

type winCall struct {
	key       string // the call as SQL, as the select list names it
	fn        string
	partition []expr
	order     []sortKey // over the values of orderBy
	orderBy   []expr
}

// planWindows plans the window calls of n's select list, and returns the
// compiler that compiles the select list over the rows they extend.
func (p *selectPlan) planWindows(out, in *compiler, n *ast.SelectStmt) (*compiler, error) {
	var found []*ast.WindowFuncExpr
	for _, f := range n.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(&windowFinder{found: &found})
		}
	}
	if len(found) == 0 {
		return out, nil
	}
	if p.agg != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "window functions in a grouped query are not supported")
	}
	w := &winPlan{base: len(in.scope.cols)}
	for _, wf := range found {
		key := restore(wf)
		if slices.ContainsFunc(w.calls, func(c *winCall) bool { return c.key == key }) {
			continue
		}
		call := &winCall{key: key, fn: strings.ToLower(wf.Name)}
		switch call.fn {
		case "row_number", "rank", "dense_rank":
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "window function %s is not supported", call.fn)
		}
		if len(wf.Args) > 0 {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s with arguments does not exist", call.fn)
		}
		spec := wf.Spec
		if spec.Name.L != "" || spec.Ref.L != "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "named windows are not supported")
		}
		if spec.PartitionBy != nil {
			for _, item := range spec.PartitionBy.Items {
				e, err := in.compile(item.Expr)
				if err != nil {
					return nil, err
				}
				call.partition = append(call.partition, e)
			}
		}
		if spec.OrderBy != nil {
			for _, item := range spec.OrderBy.Items {
				e := item.Expr
				k := sortKey{desc: item.Desc, nullsFirst: item.Desc}
				if f, ok := e.(*ast.FuncCallExpr); ok && f.FnName.L == "epochdb_nulls" {
					e = f.Args[0]
					k.nullsFirst = f.Args[1].(*driver.ValueExpr).GetString() == "first"
				}
				oe, err := in.compile(e)
				if err != nil {
					return nil, err
				}
				if oe, err = in.resolveUnknown(oe); err != nil {
					return nil, err
				}
				k.idx, k.t = len(call.partition)+len(call.orderBy), oe.typ()
				call.order = append(call.order, k)
				call.orderBy = append(call.orderBy, oe)
			}
		}
		w.calls = append(w.calls, call)
	}
	// The added columns have no names: only the calls read them.
	for range w.calls {
		in.scope.cols = append(in.scope.cols, scopeCol{t: types.Int8})
	}
	p.windows = w
	cc := *out
	cc.win = w
	return &cc, nil
}

// windowFinder collects the window calls of an expression, not those of
// its subqueries, which are planned with their own queries.
type windowFinder struct{ found *[]*ast.WindowFuncExpr }

func (f *windowFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.WindowFuncExpr:
		*f.found = append(*f.found, n)
		return n, true
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, false
}
func (f *windowFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// windowRef compiles a window call of the select list: the column its step
// added.
func (c *compiler) windowRef(n *ast.WindowFuncExpr) (expr, error) {
	if c.win == nil {
		return nil, pgerr.New(pgerr.WindowingError, "window functions are not allowed here")
	}
	key := restore(n)
	for i, call := range c.win.calls {
		if call.key == key {
			return &colExpr{t: types.Int8, idx: c.win.base + i}, nil
		}
	}
	return nil, pgerr.New(pgerr.WindowingError, "window function %s is not allowed here", n.Name)
}

// apply runs the window step: it reads every input row and returns them
// with one column added per call, in their input order.
func (w *winPlan) apply(x *execCtx, it rowIter) (rowIter, error) {
	rows, err := drain(it)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		rows[i] = slices.Grow(slices.Clip(r), len(w.calls))
	}
	for _, call := range w.calls {
		vals, err := call.rank(x, rows)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			rows[i] = append(rows[i], vals[i])
		}
	}
	return &sliceIter{rows: rows}, nil
}

// rank numbers rows within their partitions, in the window's order.
func (call *winCall) rank(x *execCtx, rows [][]any) ([]any, error) {
	exprs := append(slices.Clip(call.partition), call.orderBy...)
	nk := len(exprs)
	keyed := make([][]any, len(rows))
	for i, r := range rows {
		e := x.env(r)
		k := make([]any, nk+1)
		for j, pe := range exprs {
			v, err := pe.eval(e)
			if err != nil {
				return nil, err
			}
			k[j] = v
		}
		k[nk] = int64(i)
		keyed[i] = k
	}
	keys := make([]sortKey, 0, nk)
	for j, pe := range call.partition {
		keys = append(keys, sortKey{idx: j, t: pe.typ()})
	}
	keys = append(keys, call.order...)
	sortRows(keyed, keys)

	vals := make([]any, len(rows))
	var n, rank, dense int64
	for i, k := range keyed {
		switch {
		case i == 0 || !sameKeys(keyed[i-1], k, keys[:len(call.partition)]):
			n, rank, dense = 1, 1, 1
		case !sameKeys(keyed[i-1], k, call.order):
			n++
			rank, dense = n, dense+1
		default:
			n++
		}
		switch call.fn {
		case "row_number":
			vals[k[nk].(int64)] = n
		case "rank":
			vals[k[nk].(int64)] = rank
		default:
			vals[k[nk].(int64)] = dense
		}
	}
	return vals, nil
}

// sameKeys reports whether two key rows agree on keys, NULL agreeing with
// NULL, as peers in a window do.
func sameKeys(a, b []any, keys []sortKey) bool {
	for _, k := range keys {
		x, y := a[k.idx], b[k.idx]
		if x == nil || y == nil {
			if x != y {
				return false
			}
			continue
		}
		if types.Compare(k.t, x, y) != 0 {
			return false
		}
	}
	return true
}
