package plan

import (
	"slices"
	"strconv"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Subqueries.
//
// A statement is a tree of query levels: the statement is level 0, and a
// subquery in an expression (scalar, EXISTS, IN, ANY, ALL) is one level
// deeper than the query it is in. Derived tables, WITH queries and the
// operands of a set operation are not levels: they run as part of the
// query that contains them, and see the enclosing levels it sees.
//
// A name a level's FROM clause does not define is looked up in the
// enclosing levels, innermost first. Such an outer reference reads the
// enclosing query's current row: each evaluation of a subquery runs in an
// ExecCtx of its own, whose outer field is the env the expression was
// evaluated with.
//
// A subquery that reads no enclosing row is uncorrelated, and its result
// is cached: once per execution of the statement, or of the enclosing
// subquery whose WITH queries it reads, since those rows are fixed only
// for that long. A correlated subquery runs at every evaluation. These are
// PostgreSQL's InitPlan and SubPlan.

// level is one query level of a statement, as the compiler sees it.
type level struct {
	depth int
	// correlated: the level reads a row of an enclosing level.
	correlated bool
	// anchor is the depth of the innermost enclosing level whose WITH
	// queries this level reads, or 0.
	anchor int
	// refs and outerRefs count the column references compiled at this
	// level that resolved here and in an enclosing level.
	refs, outerRefs int
	// params are the enclosing rows' columns that the level, or a level
	// inside it, reads: what a correlated subquery's result depends on.
	params []outerParam
}

// outerParam is a column of an enclosing query's row, found from the env
// a subquery is evaluated in: hops levels further out, column idx.
type outerParam struct {
	hops, idx int
}

func (l *level) addParam(p outerParam) {
	if !slices.Contains(l.params, p) {
		l.params = append(l.params, p)
	}
}

func (c *Compiler) depth() int {
	if c.lvl == nil {
		return 0
	}
	return c.lvl.depth
}

// subqueryCompiler returns the compiler of a subquery in an expression c
// compiles.
func (c *Compiler) subqueryCompiler() *Compiler {
	return &Compiler{Host: c.Host, Params: c.Params, Order: c.Order, outer: c, lvl: &level{depth: c.depth() + 1}, ctes: c.ctes, views: c.views, path: c.path, Uses: c.Uses, ExtensionsOnPath: c.ExtensionsOnPath, Vars: c.Vars}
}

// column resolves a column reference: in c's scope, or else in an
// enclosing query's, which makes c's level (and every level between)
// correlated.
func (c *Compiler) column(n *ast.ColumnNameExpr) (Expr, error) {
	table, name := n.Name.Table.O, n.Name.Name.O
	i, col, err := c.Scope.resolve(table, name)
	switch {
	case err == nil && c.agg != nil:
		// compile has already matched the GROUP BY expressions.
		text := name
		if col.Table != "" {
			text = col.Table + "." + name
		}
		return nil, pgerr.New(pgerr.GroupingError,
			"column %q must appear in the GROUP BY clause or be used in an aggregate function", text)
	case err == nil:
		if c.lvl != nil {
			c.lvl.refs++
		}
		return &ColExpr{T: col.T, Index: i}, nil
	case pgerr.Code(err) != pgerr.UndefinedColumn:
		return nil, err
	}
	if e, ok, serr := c.tableOID(table, name); ok || serr != nil {
		return e, serr
	}
	if e, ok := c.wholeRow(table, name); ok {
		return e, nil
	}
	for o, d := c.outer, 1; o != nil; o, d = o.outer, d+1 {
		oi, ocol, oerr := o.Scope.resolve(table, name)
		if oerr != nil {
			if pgerr.Code(oerr) == pgerr.UndefinedColumn {
				continue
			}
			return nil, oerr
		}
		t := ocol.T
		if o.agg != nil {
			// The enclosing query is grouped: its rows are groups, and
			// only what it groups by has a value in them.
			g, ok := o.agg.groupIndex(n)
			if !ok {
				return nil, pgerr.New(pgerr.GroupingError, "subquery uses ungrouped column %q from outer query", columnText(n.Name))
			}
			oi, t = g, o.agg.groupTypes[g]
		}
		c.lvl.outerRefs++
		for cc, h := c, d; cc != o; cc, h = cc.outer, h-1 {
			cc.lvl.correlated = true
			cc.lvl.addParam(outerParam{hops: h - 1, idx: oi})
		}
		return &outerColExpr{t: t, depth: d, idx: oi}, nil
	}
	if c.Vars != nil && n.Name.Schema.O == "" {
		if e, ok := c.Vars(table, name); ok {
			return e, nil
		}
	}
	if table != "" && !c.seesTable(table) {
		return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table)
	}
	return nil, err
}

// seesTable reports whether a FROM item named table is in scope at c's
// level or an enclosing one.
func (c *Compiler) seesTable(table string) bool {
	for cc := c; cc != nil; cc = cc.outer {
		if cc.Scope != nil && slices.ContainsFunc(cc.Scope.Cols, func(col ScopeCol) bool { return col.Table == table }) {
			return true
		}
	}
	return false
}

// wholeRow compiles a FROM item's name used as a value, as in
// row_to_json(t): a record of its columns.
func (c *Compiler) wholeRow(table, name string) (Expr, bool) {
	if table != "" || c.agg != nil {
		return nil, false
	}
	var fields []types.Field
	var idx []int
	for i, col := range c.Scope.Cols {
		// A table's dropped and hidden columns have no name, and are no
		// part of its row.
		if col.Table == name && col.Name != HiddenKey && (col.Name != "" || col.TableOID == 0) {
			fields = append(fields, types.Field{Name: col.Name, T: col.T})
			idx = append(idx, i)
		}
	}
	if idx == nil {
		return nil, false
	}
	if c.lvl != nil {
		c.lvl.refs++
	}
	if len(idx) == 1 && c.Scope.Cols[idx[0]].funcValue {
		return &ColExpr{T: fields[0].T, Index: idx[0]}, true
	}
	return &wholeRowExpr{t: types.RecordOf(fields), idx: idx}, true
}

// wholeRowExpr is a FROM item's row as a record.
type wholeRowExpr struct {
	t   types.T
	idx []int
}

func (w *wholeRowExpr) Type() types.T { return w.t }

func (w *wholeRowExpr) Eval(e *Env) (any, error) {
	vals := make([]any, len(w.idx))
	for i, j := range w.idx {
		vals[i] = e.Row[j]
	}
	return vals, nil
}

// readsOnlyOuter runs compile, which compiles at c's level, and reports
// whether what it compiled read columns of enclosing queries and none of
// c's own.
func (c *Compiler) readsOnlyOuter(compile func() error) (bool, error) {
	if c.lvl == nil {
		return false, compile()
	}
	refs, outer := c.lvl.refs, c.lvl.outerRefs
	err := compile()
	return c.lvl.outerRefs > outer && c.lvl.refs == refs, err
}

// HasSubquery reports whether an expression holds a subquery.
func HasSubquery(n ast.Node) bool {
	f := &subqueryFinder{}
	n.Accept(f)
	return f.found
}

type subqueryFinder struct{ found bool }

func (f *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	_, ok := n.(*ast.SubqueryExpr)
	f.found = f.found || ok
	return n, f.found
}

func (f *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// outerColExpr reads column idx of the current row of the query depth
// levels out.
type outerColExpr struct {
	t     types.T
	depth int
	idx   int
}

func (o *outerColExpr) Type() types.T { return o.t }

func (o *outerColExpr) Eval(e *Env) (any, error) {
	for d := o.depth; d > 0; d-- {
		e = e.x.outer
	}
	return e.Row[o.idx], nil
}

// subquery is a planned query in an expression.
type subquery struct {
	plan QueryPlan
	lvl  *level // the subquery's own level
	// memo says a correlated subquery's results may be remembered by the
	// values of its params (see memoized): it calls no volatile function.
	memo bool
}

// planSubquery plans the query of a subquery expression.
func (c *Compiler) planSubquery(n ast.ExprNode) (*subquery, error) {
	sub, ok := n.(*ast.SubqueryExpr)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "expression %s is not supported", Restore(n))
	}
	inner := c.subqueryCompiler()
	plan, err := inner.PlanQuery(sub.Query)
	if err != nil {
		return nil, err
	}
	sq := &subquery{plan: plan, lvl: inner.lvl, memo: !callsMutable(sub.Query)}
	if c.subs != nil {
		*c.subs = append(*c.subs, sq)
	}
	return sq, nil
}

// result computes f over the subquery's rows for the expression's env e:
// every time if the subquery is correlated, else once per execution of the
// level it is anchored to.
func (sq *subquery) result(e *Env, f func(x *ExecCtx, it rowexec.RowIter) (any, error)) (any, error) {
	return sq.resultFor(e, nil, f)
}

// resultFor is result for an f whose answer depends, besides the
// subquery's rows, on the values extra.
func (sq *subquery) resultFor(e *Env, extra []any, f func(x *ExecCtx, it rowexec.RowIter) (any, error)) (any, error) {
	if sq.lvl.correlated {
		if sq.memo {
			return sq.memoized(e, extra, f)
		}
		return sq.run(e, f)
	}
	x := e.x.up(sq.lvl.depth - 1 - sq.lvl.anchor)
	if v, ok := x.cache[sq]; ok {
		return v, nil
	}
	v, err := sq.run(e, f)
	if err != nil {
		return nil, err
	}
	if x.cache == nil {
		x.cache = make(map[any]any)
	}
	x.cache[sq] = v
	return v, nil
}

func (sq *subquery) run(e *Env, f func(x *ExecCtx, it rowexec.RowIter) (any, error)) (any, error) {
	x := &ExecCtx{Ctx: e.x.Ctx, Host: e.x.Host, Tx: e.x.Tx, Params: e.x.Params, outer: e, analysis: e.x.analysis}
	defer x.closeCTEs()
	it, err := open(x, sq.plan)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	return f(x, it)
}

func (sq *subquery) describe(e *Explainer, number int) *Node {
	// PostgreSQL's names: an InitPlan runs once, a SubPlan per row.
	kind := "InitPlan"
	if sq.lvl.correlated {
		kind = "SubPlan"
	}
	n := e.Node(sq.plan).as(kind)
	n.SubplanName = kind + " " + strconv.Itoa(number)
	return n
}

// scalarSubquery is (SELECT ...) as a value: NULL for no row, an error for
// more than one.
type scalarSubquery struct {
	sq *subquery
	t  types.T
}

func (c *Compiler) scalarSubquery(n *ast.SubqueryExpr) (Expr, error) {
	sq, err := c.planSubquery(n)
	if err != nil {
		return nil, err
	}
	cols := sq.plan.Columns()
	if len(cols) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column")
	}
	return &scalarSubquery{sq: sq, t: cols[0].Type}, nil
}

func (s *scalarSubquery) Type() types.T { return s.t }

func (s *scalarSubquery) Eval(e *Env) (any, error) {
	return s.sq.result(e, func(_ *ExecCtx, it rowexec.RowIter) (any, error) {
		row, err := it.Next()
		if row == nil || err != nil {
			return nil, err
		}
		more, err := it.Next()
		if err != nil {
			return nil, err
		}
		if more != nil {
			return nil, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
		return row[0], nil
	})
}

// existsExpr is [NOT] EXISTS (SELECT ...): whether the query returns a row.
type existsExpr struct {
	sq  *subquery
	not bool
}

func (c *Compiler) exists(n *ast.ExistsSubqueryExpr) (Expr, error) {
	sq, err := c.planSubquery(n.Sel)
	if err != nil {
		return nil, err
	}
	return &existsExpr{sq: sq, not: n.Not}, nil
}

func (x *existsExpr) Type() types.T { return types.Bool }

func (x *existsExpr) Eval(e *Env) (any, error) {
	v, err := x.sq.result(e, func(_ *ExecCtx, it rowexec.RowIter) (any, error) {
		row, err := it.Next()
		return row != nil, err
	})
	if err != nil {
		return nil, err
	}
	return v.(bool) != x.not, nil
}

// quantifiedSubquery is l op ANY (subquery) or l op ALL (subquery), and so
// IN (subquery). l may be a row, (a, b) IN (SELECT x, y ...), compared
// column by column; rows only compare with = and <>.
//
// ANY is true if the comparison is true for some row, false if it is
// false for every row (or there are none), and NULL otherwise; ALL is the
// dual. So x NOT IN (subquery) is NULL, not true, when the subquery
// returns a NULL and no x.
type quantifiedSubquery struct {
	op   string
	all  bool
	t    []types.T // the comparison type of each column
	l    []Expr
	conv []Expr // converts each column of a subquery row to t
	sq   *subquery
}

func (c *Compiler) quantified(ln ast.ExprNode, op string, all bool, sub ast.ExprNode) (Expr, error) {
	if op == "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "expression %s is not supported", Restore(sub))
	}
	lns := []ast.ExprNode{ln}
	if row, ok := ln.(*ast.RowExpr); ok {
		lns = row.Values
	}
	sq, err := c.planSubquery(sub)
	if err != nil {
		return nil, err
	}
	cols := sq.plan.Columns()
	switch {
	case len(cols) > len(lns):
		return nil, pgerr.New(pgerr.SyntaxError, "subquery has too many columns")
	case len(cols) < len(lns):
		return nil, pgerr.New(pgerr.SyntaxError, "subquery has too few columns")
	case len(lns) > 1 && op != "=" && op != "<>":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "row comparison with %s is not supported", op)
	}
	q := &quantifiedSubquery{op: op, all: all, sq: sq}
	// Each column compares as the operator would: both sides in the type
	// they unify to.
	for i, n := range lns {
		l, err := c.Compile(n)
		if err != nil {
			return nil, err
		}
		t, ok := c.citextOps(unify(l.Type(), cols[i].Type))
		if !ok {
			return nil, noOperator(op, l.Type(), cols[i].Type)
		}
		if l, err = c.Coerce(l, t); err != nil {
			return nil, err
		}
		conv, err := c.Coerce(&ColExpr{T: cols[i].Type, Index: i}, t)
		if err != nil {
			return nil, err
		}
		q.t, q.l, q.conv = append(q.t, t), append(q.l, l), append(q.conv, conv)
	}
	return q, nil
}

func (q *quantifiedSubquery) Type() types.T { return types.Bool }

// quantSet is an uncorrelated subquery's rows, converted, kept for the
// rest of the execution: hashed for = ANY when they hold no NULL.
type quantSet struct {
	rows     [][]any
	hashed   map[string]bool // = ANY only: the rows without NULLs
	withNull [][]any         // = ANY only: the rows with NULLs
}

func (q *quantifiedSubquery) Eval(e *Env) (any, error) {
	l := make([]any, len(q.l))
	lnull := false
	for i, le := range q.l {
		v, err := le.Eval(e)
		if err != nil {
			return nil, err
		}
		l[i], lnull = v, lnull || v == nil
	}
	if q.sq.lvl.correlated {
		// Stream: the answer is often known before the last row.
		v, err := q.sq.resultFor(e, l, func(x *ExecCtx, it rowexec.RowIter) (any, error) {
			res := any(q.all)
			for {
				row, err := it.Next()
				if row == nil || err != nil {
					return res, err
				}
				if row, err = q.convert(x, row); err != nil {
					return nil, err
				}
				if done, r := q.step(l, row, &res); done {
					return r, nil
				}
			}
		})
		return v, err
	}
	v, err := q.sq.result(e, func(x *ExecCtx, it rowexec.RowIter) (any, error) {
		set := &quantSet{}
		if q.op == "=" && !q.all {
			set.hashed = make(map[string]bool)
		}
		for {
			row, err := it.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				return set, nil
			}
			if row, err = q.convert(x, row); err != nil {
				return nil, err
			}
			set.rows = append(set.rows, row)
			if set.hashed != nil {
				if k, ok := q.key(row); ok {
					set.hashed[k] = true
				} else {
					set.withNull = append(set.withNull, row)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	set := v.(*quantSet)
	rows := set.rows
	if set.hashed != nil && !lnull {
		if k, _ := q.key(l); set.hashed[k] {
			return true, nil
		}
		rows = set.withNull
	}
	res := any(q.all)
	for _, row := range rows {
		if done, r := q.step(l, row, &res); done {
			return r, nil
		}
	}
	return res, nil
}

// convert converts a subquery row to the comparison types.
func (q *quantifiedSubquery) convert(x *ExecCtx, row []any) ([]any, error) {
	e := x.Env(row)
	out := make([]any, len(q.conv))
	for i, c := range q.conv {
		var err error
		if out[i], err = c.Eval(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// key is row's hash key, unless it holds a NULL.
func (q *quantifiedSubquery) key(row []any) (string, bool) {
	var k []byte
	for i, v := range row {
		if v == nil {
			return "", false
		}
		k = types.AppendKey(k, q.t[i], v, false)
	}
	return string(k), true
}

// step folds the comparison of l with one row into res (true, false or
// NULL), and reports whether that decides the result.
func (q *quantifiedSubquery) step(l, row []any, res *any) (bool, any) {
	c := q.compare(l, row)
	switch {
	case c == nil:
		*res = nil
		return false, nil
	case c.(bool) != q.all: // true for ANY, false for ALL
		return true, c
	}
	return false, nil
}

// compare is l op row: for rows, = holds when every column is equal, and
// <> when some column differs; either is NULL when a NULL leaves it open.
func (q *quantifiedSubquery) compare(l, row []any) any {
	if len(l) == 1 {
		if l[0] == nil || row[0] == nil {
			return nil
		}
		return cmpResult(q.op, types.Compare(q.t[0], l[0], row[0]))
	}
	unknown := false
	for i := range l {
		if l[i] == nil || row[i] == nil {
			unknown = true
			continue
		}
		if types.Compare(q.t[i], l[i], row[i]) != 0 {
			return q.op == "<>"
		}
	}
	if unknown {
		return nil
	}
	return q.op == "="
}

// derived is a subquery in FROM: the rows of its query, under an alias.
type derived struct {
	plan  QueryPlan
	alias string
}

func (d *derived) Open(x *ExecCtx) (rowexec.RowIter, error) { return d.plan.Open(x) }

func (d *derived) Describe(e *Explainer) *Node {
	in := e.Node(d.plan).as("Subquery")
	est := in.Est
	est.Total += est.Rows * cpuTupleCost
	return &Node{Type: "Subquery Scan", Label: "Subquery Scan on " + d.alias, Attrs: []Field{{"Alias", d.alias}},
		Kids: []*Node{in}, Est: est}
}

// planDerived plans a subquery in FROM. It runs as part of the query whose
// FROM it is in, and so is compiled at c's level; it cannot see the other
// FROM items (that would be LATERAL), only enclosing queries.
func (c *Compiler) planDerived(n *ast.TableSource) (Source, *Scope, error) {
	if sel, ok := n.Source.(*ast.SelectStmt); ok && sel.Fields != nil && len(sel.Fields.Fields) == 1 {
		// The parser's form of a function call in FROM (see parser.doc).
		if f, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr); ok && isTableMarker(f.FnName.L) {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "functions in FROM are not supported yet")
		}
	}
	if n.AsName.O == "" {
		return nil, nil, pgerr.New(pgerr.SyntaxError, "subquery in FROM must have an alias").
			WithHint("For example, FROM (SELECT ...) [AS] foo.")
	}
	query, names := columnAliasList(n.Source)
	plan, err := c.PlanQuery(query)
	if err != nil {
		return nil, nil, err
	}
	cols := plan.Columns()
	if len(names) > len(cols) {
		return nil, nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified",
			n.AsName.O, len(cols), len(names))
	}
	if names != nil {
		cols = slices.Clone(cols)
		for i, name := range names {
			cols[i].Name = name
		}
	}
	return &derived{plan: plan, alias: n.AsName.O}, queryScope(cols, n.AsName.O), nil
}

// columnAliasList undoes the parser's form of a FROM item with a column
// alias list, (SELECT epochdb_columns('a', 'b'), * FROM item AS t) AS t:
// it returns the query without the marker, and the names.
func columnAliasList(n ast.ResultSetNode) (ast.ResultSetNode, []string) {
	sel, ok := n.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 2 {
		return n, nil
	}
	f, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "epochdb_columns" {
		return n, nil
	}
	names := make([]string, len(f.Args))
	for i, a := range f.Args {
		names[i] = a.(*driver.ValueExpr).GetString()
	}
	inner := *sel
	inner.Fields = &ast.FieldList{Fields: sel.Fields.Fields[1:]}
	return &inner, names
}

// queryScope is the scope of a query's result read under alias.
func queryScope(cols []Column, alias string) *Scope {
	sc := &Scope{}
	for _, col := range cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: col.Name, T: col.Type, TableOID: col.TableOID, AttNum: col.AttNum})
	}
	return sc
}

// rowSubquery is the (SELECT ...) of UPDATE's SET (a, b) = (SELECT ...):
// its row, NULLs for none, an error for more than one. Each column it
// sets reads its field (rowFieldExpr), and the subquery runs once per
// updated row for all of them, as in PostgreSQL.
type rowSubquery struct {
	sq *subquery
	// last is the row read for the env lastEnv, which it holds, so that
	// no other env can take its address.
	lastEnv *Env
	last    []any
}

func (r *rowSubquery) row(e *Env) ([]any, error) {
	if r.lastEnv == e {
		return r.last, nil
	}
	v, err := r.sq.result(e, func(_ *ExecCtx, it rowexec.RowIter) (any, error) {
		row, err := it.Next()
		if row == nil || err != nil {
			return nil, err
		}
		more, err := it.Next()
		if err != nil {
			return nil, err
		}
		if more != nil {
			return nil, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
		return slices.Clone(row), nil
	})
	if err != nil {
		return nil, err
	}
	r.lastEnv, r.last = e, nil
	if v != nil {
		r.last = v.([]any)
	}
	return r.last, nil
}

// rowFieldExpr is field i of a rowSubquery's row.
type rowFieldExpr struct {
	r *rowSubquery
	i int
	t types.T
}

func (f *rowFieldExpr) Type() types.T { return f.t }

func (f *rowFieldExpr) Eval(e *Env) (any, error) {
	row, err := f.r.row(e)
	if row == nil || err != nil {
		return nil, err
	}
	return row[f.i], nil
}

// compileRowField compiles epochdb_rowfield((SELECT ...), i, key, n), the
// parser's form of column i of n in SET (...) = (SELECT ...).
func compileRowField(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	sub, ok := n.Args[0].(*ast.SubqueryExpr)
	if len(n.Args) != 4 || !ok {
		return nil, pgerr.New(pgerr.InternalError, "malformed epochdb_rowfield")
	}
	i := int(n.Args[1].(*driver.ValueExpr).GetInt64())
	key := n.Args[2].(*driver.ValueExpr).GetInt64()
	width := int(n.Args[3].(*driver.ValueExpr).GetInt64())
	r := c.rowSubqueries[key]
	if r == nil {
		sq, err := c.planSubquery(sub)
		if err != nil {
			return nil, err
		}
		if len(sq.plan.Columns()) != width {
			return nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values")
		}
		r = &rowSubquery{sq: sq}
		if c.rowSubqueries == nil {
			c.rowSubqueries = map[int64]*rowSubquery{}
		}
		c.rowSubqueries[key] = r
	}
	return &rowFieldExpr{r: r, i: i, t: r.sq.plan.Columns()[i].Type}, nil
}
