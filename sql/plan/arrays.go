package plan

import (
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// One-dimensional arrays in expressions. The parser writes ARRAY[...],
// x[i] and x op ANY|ALL (array) as calls of epochdb_array,
// epochdb_subscript, epochdb_any and epochdb_all; an array datum is a
// []any of its elements' datums. Arrays index from 1, except the catalogs'
// int2vector and oidvector, which index from 0 (types.LowerBound).

var arrayBuiltins = map[string]Builtin{
	"epochdb_array":       compileArray,
	"epochdb_array_query": compileArrayQuery,
	"epochdb_subscript":   compileSubscript,
	"epochdb_any":         compileQuantified(false),
	"epochdb_all":         compileQuantified(true),
	"current_schemas": Fixed(types.NameArray, []types.T{types.Bool}, func(e *Env, a []any) (any, error) {
		return e.Host.CurrentSchemas(a[0].(bool)), nil
	}),
	"current_schema": Fixed(types.Name, nil, func(e *Env, _ []any) (any, error) {
		if path := e.Host.CurrentSchemas(false); len(path) > 0 {
			return path[0], nil
		}
		return nil, nil
	}),
}

// compileArray is ARRAY[a, b, ...]: its elements in their common type.
func compileArray(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	if len(n.Args) == 0 {
		// ARRAY[]::t[] is read by compileCast.
		return nil, pgerr.New(pgerr.IndeterminateDatatype, "cannot determine type of empty array").
			WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
	}
	args, err := CompileArgs(c, n)
	if err != nil {
		return nil, err
	}
	t, err := c.commonType("ARRAY", args)
	if err != nil {
		return nil, err
	}
	at, ok := types.ArrayOf(types.T{Oid: t.Oid, Mod: -1})
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", t)
	}
	return &FuncExpr{Name: "array", T: at, Args: args, Fn: func(_ *Env, a []any) (any, error) {
		return append([]any(nil), a...), nil
	}}, nil
}

// isEmptyArray reports whether n is ARRAY[], which has a type only when
// cast.
func isEmptyArray(n ast.ExprNode) bool {
	f, ok := n.(*ast.FuncCallExpr)
	return ok && f.FnName.L == "epochdb_array" && len(f.Args) == 0
}

// compileArrayQuery is ARRAY(subquery): the subquery's one column as an
// array, in the order of its rows.
func compileArrayQuery(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	sq, err := c.planSubquery(n.Args[0])
	if err != nil {
		return nil, err
	}
	cols := sq.plan.Columns()
	if len(cols) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column")
	}
	at, ok := types.ArrayOf(types.T{Oid: cols[0].Type.Oid, Mod: -1})
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", cols[0].Type)
	}
	return &arrayQueryExpr{sq: sq, t: at}, nil
}

type arrayQueryExpr struct {
	sq *subquery
	t  types.T
}

func (a *arrayQueryExpr) Type() types.T { return a.t }

func (a *arrayQueryExpr) Eval(e *Env) (any, error) {
	return a.sq.result(e, func(_ *ExecCtx, it rowexec.RowIter) (any, error) {
		vals := []any{}
		for {
			row, err := it.Next()
			if row == nil || err != nil {
				return vals, err
			}
			vals = append(vals, row[0])
		}
	})
}

// arrayOperand compiles the first argument of a call of an array
// function, which must be an array.
func arrayOperand(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	e, err := c.Compile(n.Args[0])
	if err != nil {
		return nil, err
	}
	t := e.Type()
	switch {
	case t.IsArray():
		return e, nil
	case t.Oid == types.OidUnknown:
		return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
	}
	// No version of the function takes a t: say which call has none.
	names := []string{t.String()}
	for _, a := range n.Args[1:] {
		e, err := c.Compile(a)
		if err != nil {
			return nil, err
		}
		names = append(names, e.Type().String())
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", n.FnName.L, strings.Join(names, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

// compileSubscript is x[i]: the element, or NULL past either end.
// ZeroBased is an array whose subscripts start at 0, as PL/pgSQL's
// TG_ARGV's do.
type ZeroBased struct{ Expr }

func compileSubscript(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	arr, err := c.Compile(n.Args[0])
	if err != nil {
		return nil, err
	}
	t := arr.Type()
	elem, ok := t.Elem()
	if t.Oid == types.OidName {
		return c.nameSubscript(arr, n.Args[1])
	}
	if !ok {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", t)
	}
	i, err := c.CompileAs(n.Args[1], types.Int4)
	if err != nil {
		return nil, err
	}
	lower := int64(types.LowerBound(t))
	if _, ok := arr.(ZeroBased); ok {
		lower = 0
	}
	return &FuncExpr{Name: "subscript", T: elem, Args: []Expr{arr, i}, Strict: true, Fn: func(_ *Env, a []any) (any, error) {
		vals, k := a[0].([]any), a[1].(int64)-lower
		if k < 0 || k >= int64(len(vals)) {
			return nil, nil
		}
		return vals[k], nil
	}}, nil
}

// compileQuantified is x op ANY (array), or with all, x op ALL (array). An
// untyped array (a literal or a parameter) takes x's type: pgx sends
// WHERE id = ANY($1) with $1 described as int4[] for an int4 id.
func compileQuantified(all bool) Builtin {
	return func(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
		x, err := c.Compile(n.Args[0])
		if err != nil {
			return nil, err
		}
		op := n.Args[1].(*driver.ValueExpr).GetString()
		arr, err := c.Compile(n.Args[2])
		if err != nil {
			return nil, err
		}
		at := arr.Type()
		if at.Oid == types.OidUnknown {
			xt, err := c.ResolveUnknown(x)
			if err != nil {
				return nil, err
			}
			x = xt
			a, ok := types.ArrayOf(types.T{Oid: x.Type().Oid, Mod: -1})
			if !ok {
				return nil, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", x.Type())
			}
			if arr, err = c.Coerce(arr, a); err != nil {
				return nil, err
			}
			at = a
		}
		elem, ok := at.Elem()
		if !ok {
			return nil, pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side")
		}
		t, ok := unify(x.Type(), elem)
		if !ok {
			return nil, noOperator(op, x.Type(), elem)
		}
		if x, err = c.Coerce(x, t); err != nil {
			return nil, err
		}
		if t.Oid != elem.Oid {
			to, _ := types.ArrayOf(t)
			arr = &castExpr{e: arr, from: at, to: to}
		}
		return &quantifiedExpr{op: op, all: all, t: t, x: x, arr: arr}, nil
	}
}

// quantifiedExpr is x op ANY|ALL (array) with SQL's three-valued logic: an
// empty array gives false (ANY) or true (ALL) whatever x is; otherwise a
// NULL x or element makes an undecided result NULL.
type quantifiedExpr struct {
	op     string
	all    bool
	t      types.T
	x, arr Expr
}

func (q *quantifiedExpr) Type() types.T { return types.Bool }

func (q *quantifiedExpr) Eval(e *Env) (any, error) {
	a, err := q.arr.Eval(e)
	if err != nil || a == nil {
		return nil, err
	}
	vals := a.([]any)
	if len(vals) == 0 {
		return q.all, nil
	}
	v, err := q.x.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	sawNull := false
	for _, w := range vals {
		if w == nil {
			sawNull = true
			continue
		}
		if cmpResult(q.op, types.Compare(q.t, v, w)) != q.all {
			return !q.all, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return q.all, nil
}

// arrayCoercible reports whether an array converts implicitly to another
// array type: when its elements do.
func arrayCoercible(from, to types.T) bool {
	fe, ok1 := from.Elem()
	te, ok2 := to.Elem()
	return ok1 && ok2 && implicitOK(fe, te)
}

// arrayConcat is the || operator with an array on either side: array ||
// array, array || element or element || array. An untyped literal on the
// other side is an array of the same type.
func (c *Compiler) arrayConcat(l, r Expr) (Expr, error) {
	at, lt, rt := l.Type(), l.Type(), r.Type()
	if !at.IsArray() {
		at = rt
	}
	elem, _ := at.Elem()
	at = types.T{Oid: at.Oid, Mod: -1}
	var err error
	// Each side is the array type, or else its element type.
	side := func(e Expr) (Expr, bool, error) {
		t := e.Type()
		if t.Oid == at.Oid || t.Oid == types.OidUnknown {
			e, err := c.Coerce(e, at)
			return e, true, err
		}
		if _, ok := unify(t, elem); !ok || t.IsArray() {
			return nil, false, noOperator("||", lt, rt)
		}
		e, err := c.Coerce(e, types.T{Oid: elem.Oid, Mod: -1})
		return e, false, err
	}
	var lArr, rArr bool
	if l, lArr, err = side(l); err != nil {
		return nil, err
	}
	if r, rArr, err = side(r); err != nil {
		return nil, err
	}
	isArr := [2]bool{lArr, rArr}
	return &FuncExpr{Name: "||", T: at, Args: []Expr{l, r}, Fn: func(_ *Env, a []any) (any, error) {
		if lArr && rArr && a[0] == nil && a[1] == nil {
			return nil, nil
		}
		out := []any{}
		for i, v := range a {
			switch {
			case !isArr[i]:
				out = append(out, v)
			case v != nil:
				out = append(out, v.([]any)...)
			}
		}
		return out, nil
	}}, nil
}

// nameSubscript is name[i]: a name is a fixed array of NAMEDATALEN
// "char"s from 0, NUL past its end, as pg_dump's typname[0] = '_' reads it.
func (c *Compiler) nameSubscript(name Expr, index ast.ExprNode) (Expr, error) {
	i, err := c.CompileAs(index, types.Int4)
	if err != nil {
		return nil, err
	}
	return &FuncExpr{Name: "subscript", T: types.Char, Args: []Expr{name, i}, Strict: true, Fn: func(_ *Env, a []any) (any, error) {
		s, k := a[0].(string), a[1].(int64)
		switch {
		case k < 0 || k >= namedatalen:
			return nil, nil
		case k >= int64(len(s)):
			return "", nil
		}
		return s[k : k+1], nil
	}}, nil
}

// namedatalen is the size of a name, its NUL included.
const namedatalen = 64
