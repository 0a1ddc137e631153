package plan

import (
	"fmt"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Row constructors. ROW(a, b), or (a, b), is an anonymous record as a
// value. Compared with another row it compares element by element, as
// PostgreSQL's row comparisons do: = and <> as the AND and OR of the pairs,
// and the orderings lexicographically, which is what keyset pagination
// (WHERE (created, id) > ($1, $2)) relies on.

// rowValue compiles a row constructor as a value: a record whose fields
// are f1, f2, ...
func (c *Compiler) rowValue(n *ast.RowExpr) (Expr, error) {
	r := &recordExpr{}
	fields := make([]types.Field, len(n.Values))
	for i, v := range n.Values {
		e, err := c.Compile(v)
		if err != nil {
			return nil, err
		}
		if e, err = c.ResolveUnknown(e); err != nil {
			return nil, err
		}
		r.elems = append(r.elems, e)
		fields[i] = types.Field{Name: fmt.Sprintf("f%d", i+1), T: e.Type()}
	}
	r.t = types.RecordOf(fields)
	return r, nil
}

// recordExpr makes a record of its elements' values.
type recordExpr struct {
	t     types.T
	elems []Expr
}

func (r *recordExpr) Type() types.T { return r.t }

func (r *recordExpr) Eval(e *Env) (any, error) {
	vals := make([]any, len(r.elems))
	for i, el := range r.elems {
		v, err := el.Eval(e)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// rowCompare compiles l op r for two row constructors: each pair of
// elements in the type they unify to.
func (c *Compiler) rowCompare(op string, l, r *ast.RowExpr) (Expr, error) {
	if len(l.Values) != len(r.Values) {
		return nil, pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions")
	}
	cmp := &rowCmpExpr{op: op}
	for i := range l.Values {
		le, err := c.Compile(l.Values[i])
		if err != nil {
			return nil, err
		}
		re, err := c.Compile(r.Values[i])
		if err != nil {
			return nil, err
		}
		t, ok := c.citextOps(comparisonType(le.Type(), re.Type()))
		if !ok {
			return nil, noOperator(op, le.Type(), re.Type())
		}
		if le, err = c.Coerce(le, t); err != nil {
			return nil, err
		}
		if re, err = c.Coerce(re, t); err != nil {
			return nil, err
		}
		cmp.ts, cmp.l, cmp.r = append(cmp.ts, t), append(cmp.l, le), append(cmp.r, re)
	}
	return cmp, nil
}

// rowCmpExpr compares two rows. = is false at the first unequal pair and
// <> true there; a NULL in a pair that decides nothing else makes either
// NULL. The orderings stop at the first pair that is unequal or has a
// NULL: that pair decides, and a NULL makes the result NULL.
type rowCmpExpr struct {
	op   string
	ts   []types.T
	l, r []Expr
}

func (c *rowCmpExpr) Type() types.T { return types.Bool }

func (c *rowCmpExpr) Eval(e *Env) (any, error) {
	sawNull := false
	for i := range c.l {
		l, err := c.l[i].Eval(e)
		if err != nil {
			return nil, err
		}
		r, err := c.r[i].Eval(e)
		if err != nil {
			return nil, err
		}
		if l == nil || r == nil {
			if c.op != "=" && c.op != "<>" {
				return nil, nil
			}
			sawNull = true
			continue
		}
		d := types.Compare(c.ts[i], l, r)
		switch {
		case c.op == "=" || c.op == "<>":
			if d != 0 {
				return c.op == "<>", nil
			}
		case d != 0 || i == len(c.l)-1:
			return cmpResult(c.op, d), nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return c.op == "=", nil
}

// rowIn compiles row IN (row, ...): the OR of the rows' equalities.
func (c *Compiler) rowIn(l *ast.RowExpr, list []ast.ExprNode, not bool) (Expr, error) {
	var out Expr
	for _, item := range list {
		r, ok := item.(*ast.RowExpr)
		if !ok {
			return nil, pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions")
		}
		eq, err := c.rowCompare("=", l, r)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = eq
		} else {
			out = &logicExpr{l: out, r: eq}
		}
	}
	if not {
		out = &notExpr{e: out}
	}
	return out, nil
}
