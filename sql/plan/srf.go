package plan

import (
	"context"
	"slices"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Set-returning functions in the select list (PostgreSQL's ProjectSet
// step): each input row becomes as many rows as its longest call returns,
// the shorter calls padded with NULLs, and a row for which every call
// returns nothing disappears. Each call adds a column, which the select
// list reads by the call's text, as window calls do. pgjdbc's
// getPrimaryKeys reads index columns this way, with
// (information_schema._pg_expandarray(indkey)).n.

// srfPlan is a query's set-returning step.
type srfPlan struct {
	base  int // the first added column's index in the row
	calls []*srfCall
}

type srfCall struct {
	key string
	f   *TableFunc
}

// planSRFs plans the set-returning calls of n's select list, and returns
// the compiler that compiles the select list over the rows they make.
func (p *SelectPlan) planSRFs(out, in *Compiler, n *ast.SelectStmt) (*Compiler, error) {
	var found []*ast.FuncCallExpr
	for _, f := range n.Fields.Fields {
		if f.Expr != nil {
			finder := &srfFinder{c: in, found: &found}
			f.Expr.Accept(finder)
			if finder.err != nil {
				return nil, finder.err
			}
		}
	}
	if len(found) == 0 {
		return out, nil
	}
	if p.agg != nil || p.windows != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "set-returning functions in a grouped or windowed query are not supported")
	}
	s := &srfPlan{base: len(in.Scope.Cols)}
	for _, call := range found {
		key := Restore(call)
		if slices.ContainsFunc(s.calls, func(c *srfCall) bool { return c.key == key }) {
			continue
		}
		f, err := in.compileTableFunc(call)
		if err != nil {
			return nil, err
		}
		s.calls = append(s.calls, &srfCall{key: key, f: f})
		in.Scope.Cols = append(in.Scope.Cols, ScopeCol{T: f.T})
	}
	p.srfs = s
	cc := *out
	cc.srf = s
	return &cc, nil
}

// srfFinder collects the set-returning calls of an expression, not those
// of its subqueries. As in PostgreSQL, one inside CASE or COALESCE, which
// would evaluate it conditionally, is an error.
type srfFinder struct {
	c     *Compiler
	found *[]*ast.FuncCallExpr
	// within counts the CASE and COALESCE expressions being walked, and
	// names the innermost.
	within []string
	err    error
}

func (f *srfFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.FuncCallExpr:
		if f.c.isTableFunc(n) {
			if len(f.within) > 0 && f.err == nil {
				f.err = pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not allowed in %s", f.within[len(f.within)-1])
			}
			*f.found = append(*f.found, n)
			return n, true
		}
		if n.FnName.L == "coalesce" {
			f.within = append(f.within, "COALESCE")
		}
	case *ast.CaseExpr:
		f.within = append(f.within, "CASE")
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, false
}

func (f *srfFinder) Leave(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.FuncCallExpr:
		if n.FnName.L == "coalesce" {
			f.within = f.within[:len(f.within)-1]
		}
	case *ast.CaseExpr:
		f.within = f.within[:len(f.within)-1]
	}
	return n, true
}

// CompileSRFRef compiles a set-returning call of the select list: the
// column its step added.
func CompileSRFRef(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	if c.srf != nil {
		key := Restore(n)
		for i, call := range c.srf.calls {
			if call.key == key {
				return &ColExpr{T: call.f.T, Index: c.srf.base + i}, nil
			}
		}
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "set-returning function %s is not allowed here", n.FnName.L)
}

// apply runs the set-returning step over the input rows. The calls'
// values are drawn one output row at a time, so a long series is never
// held whole and a LIMIT stops it early.
func (s *srfPlan) apply(x *ExecCtx, in rowexec.RowIter) rowexec.RowIter {
	var row []any
	nexts := make([]func() (any, bool, error), len(s.calls))
	live := 0 // calls with values still to come for row
	produced := 0
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			if live == 0 {
				r, err := in.Next()
				if r == nil || err != nil {
					return nil, err
				}
				row, live = r, len(s.calls)
				e := x.Env(r)
				for i, call := range s.calls {
					if nexts[i], err = call.f.iterate(e); err != nil {
						return nil, err
					}
				}
			}
			out := append(slices.Clip(row), make([]any, len(s.calls))...)
			got := false
			for i, next := range nexts {
				if next == nil {
					continue
				}
				v, ok, err := next()
				if err != nil {
					return nil, err
				}
				if !ok {
					nexts[i], live = nil, live-1
					continue
				}
				out[s.base+i], got = v, true
			}
			if !got {
				continue // every call has ended: the next input row
			}
			if produced++; produced%4096 == 0 && x.Ctx.Err() != nil {
				return nil, pgerr.Convert(context.Cause(x.Ctx))
			}
			return out, nil
		}
	}, Done: in.Close}
}

// compileField is (record).field, which the parser writes as
// epochdb_field.
func compileField(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	rec, err := c.Compile(n.Args[0])
	if err != nil {
		return nil, err
	}
	return FieldOf(rec, n.Args[1].(*driver.ValueExpr).GetString())
}

// FieldOf is field name of the record rec.
func FieldOf(rec Expr, name string) (Expr, error) {
	fields, ok := rec.Type().Fields()
	if !ok {
		return nil, pgerr.New(pgerr.WrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, rec.Type())
	}
	i := slices.IndexFunc(fields, func(f types.Field) bool { return f.Name == name })
	if i < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q not found in data type %s", name, rec.Type())
	}
	return &FuncExpr{Name: name, T: fields[i].T, Args: []Expr{rec}, Strict: true, Fn: func(_ *Env, a []any) (any, error) {
		return a[0].([]any)[i], nil
	}}, nil
}

var srfBuiltins = map[string]Builtin{
	"epochdb_field":          compileField,
	"_pg_expandarray":        CompileSRFRef,
	"pg_partition_ancestors": CompileSRFRef,
}
