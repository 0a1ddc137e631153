package plan

import (
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Pushing WHERE down into joins. A join of several FROM items is a tree
// of nested loops; with the WHERE clause applied only on top, a query over
// many tables (the catalog queries of JDBC's DatabaseMetaData join nine)
// builds their whole cross product first. Each conjunct of the WHERE
// clause that reads only some of the items is applied where those items
// meet instead: a conjunct over one table filters its rows before any
// join, one over two becomes part of the condition of the join that first
// brings them together.
//
// Only inner joins take conjuncts, and an outer join only on the side it
// preserves: a conjunct applied to the padded side before the join would
// let the join pad rows the WHERE clause would have dropped. Conjuncts
// with subqueries stay on top, and so do those that read the enclosing
// query's columns: each is compiled against the items it is pushed to,
// with no enclosing query, and stays on top where that fails.

// astConjuncts splits a WHERE clause into the operands of its top-level ANDs.
func astConjuncts(n ast.ExprNode) []ast.ExprNode {
	switch e := n.(type) {
	case *ast.ParenthesesExpr:
		return astConjuncts(e.Expr)
	case *ast.BinaryOperationExpr:
		if e.Op == opcode.LogicAnd {
			return append(astConjuncts(e.L), astConjuncts(e.R)...)
		}
	}
	return []ast.ExprNode{n}
}

// Unparen is n without the parentheses around it.
func Unparen(n ast.ExprNode) ast.ExprNode {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			return n
		}
		n = p.Expr
	}
}

// PushDown pushes what it can of the conjuncts of where into the join
// tree src, whose rows have the columns cols, and returns the tree and
// the positions of the conjuncts left for the WHERE clause.
func (c *Compiler) PushDown(src Source, cols []ScopeCol, where ast.ExprNode) (Source, []int) {
	var kept []int
	for i, cond := range astConjuncts(where) {
		if HasSubquery(cond) {
			kept = append(kept, i)
			continue
		}
		var ok bool
		if src, ok = c.pushInto(src, cols, cond); !ok {
			kept = append(kept, i)
		}
	}
	return src, kept
}

// andExpr is a AND b, or b alone if a is nil.
func andExpr(a, b Expr) Expr {
	if a == nil {
		return b
	}
	return &logicExpr{and: true, l: a, r: b}
}

// pushInto applies cond as deep in src as it compiles, and reports
// whether it could.
func (c *Compiler) pushInto(src Source, cols []ScopeCol, cond ast.ExprNode) (Source, bool) {
	j, ok := src.(*NestedJoin)
	if !ok {
		e, ok := c.compileLocal(cols, cond, true)
		if !ok {
			return src, false
		}
		return &filtered{in: src, pred: e, cols: cols}, true
	}
	// The join's rows are its USING columns, then the pair it joined,
	// on which its condition runs.
	pair := cols[len(j.using):]
	lw := j.LeftWidth
	if !j.rightOuter {
		if l, ok := c.pushInto(j.Left, pair[:lw], cond); ok {
			j.Left = l
			return j, true
		}
	}
	if !j.leftOuter {
		if r, ok := c.pushInto(j.Right, pair[lw:], cond); ok {
			j.Right = r
			return j, true
		}
	}
	if j.leftOuter || j.rightOuter {
		return src, false // the join condition of an outer join is no filter
	}
	e, ok := c.compileLocal(pair, cond, true)
	if !ok {
		return src, false
	}
	j.on = andExpr(j.on, e)
	c.addHashKey(j, pair, cond)
	return j, true
}

// compileLocal compiles n over the columns cols alone: no enclosing
// query, no aggregates; as a boolean condition, or else as a value.
func (c *Compiler) compileLocal(cols []ScopeCol, n ast.ExprNode, cond bool) (Expr, bool) {
	cc := *c
	cc.outer, cc.lvl, cc.agg, cc.win, cc.srf = nil, nil, nil, nil, nil
	in := cc.WithScope(&Scope{Cols: cols})
	if !cond {
		e, err := in.Compile(n)
		return e, err == nil
	}
	e, err := in.CompileAs(n, types.Bool)
	return e, err == nil
}

// filtered is a FROM item whose rows a pushed-down conjunct filters.
type filtered struct {
	in   Source
	pred Expr
	cols []ScopeCol // what pred reads, for EXPLAIN
}

func (f *filtered) Open(x *ExecCtx) (rowexec.RowIter, error) {
	it, err := open(x, f.in)
	if err != nil {
		return nil, err
	}
	return &FilterIter{In: it, X: x, Pred: f.pred}, nil
}

// filterChain splits src into its run of pushed-down filters, outermost
// first, their conjunction (in the order pushed, nil for none), and the
// source they filter. The filters of one run read the same columns: they
// were pushed into the same FROM item.
func filterChain(src Source) ([]*filtered, Expr, Source) {
	var fs []*filtered
	for {
		f, ok := src.(*filtered)
		if !ok {
			break
		}
		fs, src = append(fs, f), f.in
	}
	var pred Expr
	for i := len(fs) - 1; i >= 0; i-- {
		pred = andExpr(pred, fs[i].pred)
	}
	return fs, pred, src
}

// Describe shows a run of conjuncts pushed into the same FROM item as
// one Filter, which is judged as a whole (a range's two bounds select
// the range between them).
func (f *filtered) Describe(e *Explainer) *Node {
	_, pred, in := filterChain(f)
	n := e.Node(in)
	n.Props = append(n.Props, Field{"Filter", e.expr(pred, f.cols)})
	e.filter(n, pred, f.cols)
	return n
}
