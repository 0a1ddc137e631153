package plan

import (
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ROWS FROM (f(...), g(...)) in FROM, and unnest(a, b, ...), which
// PostgreSQL reads as ROWS FROM (unnest(a), unnest(b), ...): the rows of
// the functions side by side, each function's columns padded with NULLs
// once it has no more, until the last one ends. The parser writes ROWS FROM
// as the call epochdb_rows_from(f(...), g(...)) in its FROM marker.

func init() {
	FromPlanners["epochdb_rows_from"] = func(c *Compiler, n *ast.TableSource, call *ast.FuncCallExpr) (Source, *Scope, error) {
		calls := make([]*ast.FuncCallExpr, len(call.Args))
		for i, a := range call.Args {
			fc, ok := a.(*ast.FuncCallExpr)
			if !ok {
				return nil, nil, pgerr.New(pgerr.SyntaxError, "ROWS FROM takes function calls")
			}
			calls[i] = fc
		}
		return c.planRowsFrom(n, calls)
	}
}

// zippedUnnest returns unnest(a, b, ...)'s calls of unnest of one array
// each, or nil if call is anything else.
func zippedUnnest(call *ast.FuncCallExpr) []*ast.FuncCallExpr {
	if call.FnName.L != "unnest" || len(call.Args) < 2 || !systemCall(call) {
		return nil
	}
	calls := make([]*ast.FuncCallExpr, len(call.Args))
	for i, a := range call.Args {
		calls[i] = &ast.FuncCallExpr{Tp: call.Tp, Schema: call.Schema, FnName: call.FnName, Args: []ast.ExprNode{a}}
	}
	return calls
}

// rowsFrom is ROWS FROM's functions, read side by side.
type rowsFrom struct {
	funcs []*TableFunc
	// widths are the number of columns of each function: its record's
	// fields, or one.
	widths     []int
	ordinality bool
}

func (c *Compiler) planRowsFrom(n *ast.TableSource, calls []*ast.FuncCallExpr) (Source, *Scope, error) {
	r := &rowsFrom{ordinality: withOrdinality(n)}
	alias, names := n.AsName.O, columnAliases(n)
	var cols []ScopeCol
	for _, call := range calls {
		f, err := c.WithScope(&Scope{}).compileTableFunc(call)
		if err != nil {
			return nil, nil, err
		}
		r.funcs = append(r.funcs, f)
		if fields, ok := f.T.Fields(); ok {
			for _, fl := range fields {
				cols = append(cols, ScopeCol{Table: alias, Name: fl.Name, T: fl.T})
			}
			r.widths = append(r.widths, len(fields))
			continue
		}
		name := f.Name
		switch {
		case f.column != "":
			name = f.column
		case len(calls) == 1:
			name = alias
		}
		cols = append(cols, ScopeCol{Table: alias, Name: name, T: f.T})
		r.widths = append(r.widths, 1)
	}
	if r.ordinality {
		cols = append(cols, ScopeCol{Table: alias, Name: "ordinality", T: types.Int8})
	}
	if len(names) > len(cols) {
		return nil, nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", alias, len(cols), len(names))
	}
	for i, name := range names {
		cols[i].Name = name
	}
	return r, &Scope{Cols: cols}, nil
}

func (r *rowsFrom) Describe(e *Explainer) *Node {
	names := make([]string, len(r.funcs))
	for i, f := range r.funcs {
		names[i] = f.Name
	}
	return &Node{Type: "Function Scan", Label: "Function Scan on " + strings.Join(names, ", "),
		Attrs: []Field{{"Function Name", names[0]}}, Est: Estimate{Total: 10, Rows: 1000, Width: 32}}
}

func (r *rowsFrom) Open(x *ExecCtx) (rowexec.RowIter, error) {
	e := x.Env(nil)
	nexts := make([]func() (any, bool, error), len(r.funcs))
	width := 0
	for i, f := range r.funcs {
		next, err := f.iterate(e)
		if err != nil {
			return nil, err
		}
		nexts[i] = next
		width += r.widths[i]
	}
	if r.ordinality {
		width++
	}
	var n int64
	return &rowexec.FuncIter{F: func() ([]any, error) {
		row := make([]any, 0, width)
		more := false
		for i, f := range r.funcs {
			var v any
			if nexts[i] != nil {
				var ok bool
				var err error
				if v, ok, err = nexts[i](); err != nil {
					return nil, err
				}
				if !ok {
					nexts[i] = nil
				}
				more = more || ok
			}
			if _, record := f.T.Fields(); record {
				fields, _ := v.([]any)
				if fields == nil {
					fields = make([]any, r.widths[i])
				}
				row = append(row, fields...)
			} else {
				row = append(row, v)
			}
		}
		if !more {
			return nil, nil
		}
		n++
		if r.ordinality {
			row = append(row, n)
		}
		return row, nil
	}}, nil
}
