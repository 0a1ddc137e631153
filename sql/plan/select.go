package plan

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// HiddenKey names the extra element a table row carries: its primary-index
// key. No SQL name can contain a NUL byte, so no query can name it.
const HiddenKey = "\x00key"

// QueryPlan is a planned query: a SELECT or a set operation, at the top
// of a statement, in FROM or in an expression. open runs it.
type QueryPlan interface {
	Source
	Columns() []Column
}

// PlanQuery plans a query at c's level.
func (c *Compiler) PlanQuery(n ast.Node) (QueryPlan, error) {
	switch n := n.(type) {
	case *ast.SelectStmt:
		return c.planSelect(n)
	case *ast.SetOprStmt:
		return c.planSetOpr(n)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "query %T is not supported", n)
}

// SelectPlan is a planned SELECT.
type SelectPlan struct {
	Cols     []Column
	keys     []string // each column's expression as SQL, for ORDER BY to match
	src      Source
	where    Expr
	srcCols  []ScopeCol // src's columns, which where reads, for EXPLAIN
	agg      *aggPlan
	having   Expr
	Exprs    []Expr // output columns, then hidden ORDER BY columns
	visible  int
	distinct bool
	order    []rowexec.SortKey
	limit    Expr
	offset   Expr
	ctes     []*CTE
	subs     []*subquery
	// untyped lists the output columns that are untyped literals or NULLs,
	// which a set operation types from its other inputs.
	untyped []int
	// windows and srfs are the steps that extend each row after WHERE, or
	// in a grouped query after HAVING:
	// window functions, then set-returning functions of the select list.
	windows *winPlan
	srfs    *srfPlan
	// Locking is the FOR UPDATE or FOR SHARE clause, or nil.
	Locking *rowLocking
	// checkWhere is the whole WHERE clause, which the locking step
	// re-checks; where holds what was not pushed down into the joins.
	checkWhere Expr
	// distinctOn keys DISTINCT ON: of each run of rows that agree on
	// these columns, in ORDER BY order, the first is kept.
	distinctOn []rowexec.SortKey
}

func (p *SelectPlan) Columns() []Column { return p.Cols[:p.visible] }

// oneRow is the FROM-less source: one empty row.
// valuesSource is a VALUES list's rows.
type valuesSource struct{ rows [][]Expr }

func (v *valuesSource) Open(x *ExecCtx) (rowexec.RowIter, error) {
	out := make([][]any, len(v.rows))
	e := x.Env(nil)
	for i, exprs := range v.rows {
		out[i] = make([]any, len(exprs))
		for j, ex := range exprs {
			var err error
			if out[i][j], err = ex.Eval(e); err != nil {
				return nil, err
			}
		}
	}
	return &rowexec.SliceIter{Rows: out}, nil
}

func (v *valuesSource) Describe(e *Explainer) *Node {
	rows := float64(len(v.rows))
	return &Node{Type: "Values Scan", Label: `Values Scan on "*VALUES*"`, Attrs: []Field{{"Alias", "*VALUES*"}},
		Est: Estimate{Total: rows * cpuTupleCost, Rows: rows, Width: 4 * len(v.rows[0])}}
}

// planValues compiles a VALUES list: each column takes the common type of
// its values, and the name PostgreSQL gives it, column1, column2, ...
func (c *Compiler) planValues(rows []*ast.RowExpr) (Source, *Scope, error) {
	width := len(rows[0].Values)
	v := &valuesSource{rows: make([][]Expr, len(rows))}
	c = c.WithScope(&Scope{}) // no columns of its own; an enclosing query's are still in reach
	for i, r := range rows {
		if len(r.Values) != width {
			return nil, nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		v.rows[i] = make([]Expr, width)
		for j, item := range r.Values {
			var err error
			if v.rows[i][j], err = c.Compile(item); err != nil {
				return nil, nil, err
			}
		}
	}
	sc := &Scope{}
	for j := range width {
		col := make([]Expr, len(rows))
		for i := range rows {
			col[i] = v.rows[i][j]
		}
		t, err := c.commonType("VALUES", col)
		if err != nil {
			return nil, nil, err
		}
		for i := range rows {
			v.rows[i][j] = col[i]
		}
		sc.Cols = append(sc.Cols, ScopeCol{Table: "*VALUES*", Name: fmt.Sprintf("column%d", j+1), T: t})
	}
	return v, sc, nil
}

type oneRow struct{}

func (oneRow) Open(*ExecCtx) (rowexec.RowIter, error) {
	return &rowexec.SliceIter{Rows: [][]any{{}}}, nil
}

func (oneRow) Describe(e *Explainer) *Node {
	return &Node{Type: "Result", Est: Estimate{Total: 0.01, Rows: 1}}
}

// planFrom builds the source and scope of a FROM clause.
func (c *Compiler) planFrom(from *ast.TableRefsClause) (Source, *Scope, error) {
	if from == nil {
		return oneRow{}, &Scope{}, nil
	}
	return c.PlanResultSet(from.TableRefs)
}

func (c *Compiler) PlanResultSet(n ast.ResultSetNode) (Source, *Scope, error) {
	switch n := n.(type) {
	case *ast.Join:
		if n.Right == nil {
			return c.PlanResultSet(n.Left)
		}
		return c.planJoin(n)
	case *ast.TableSource:
		if call := tableFuncCall(n); call != nil {
			return c.planTableFunc(n, call)
		}
		tn, ok := n.Source.(*ast.TableName)
		if !ok {
			return c.planDerived(n)
		}
		alias := n.AsName.O
		if alias == "" {
			alias = tn.Name.O
		}
		return c.planTable(tn, alias)
	}
	return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "FROM item %T is not supported", n)
}

func (c *Compiler) planTable(tn *ast.TableName, alias string) (Source, *Scope, error) {
	if d := c.ctes.lookup(tn.Name.O); d != nil && tn.Schema.O == "" {
		return c.planCTEScan(d, alias)
	}
	if tr := c.Host.Transition(tn.Name.O); tr != nil && tn.Schema.O == "" {
		return &transitionScan{tr: tr}, queryScope(tr.Cols, alias), nil
	}
	cat := c.Host.Catalog()
	q, err := cat.Resolve(c.SearchPath(), tn.Schema.O, tn.Name.O)
	if pgerr.Code(err) == pgerr.FeatureNotSupported {
		return nil, nil, err // another session's temporary table
	}
	if err != nil || !q.Found() {
		return nil, nil, ErrNoRelation(tn.Schema.O, tn.Name.O)
	}
	if src, sc, ok := c.Host.VirtualRelation(q, alias); ok {
		return src, sc, nil
	}
	if v := cat.ViewByName[q]; v != nil {
		return c.planView(v, alias)
	}
	if sq := cat.SequenceByName[q]; sq != nil && sq.Name[0] != 0 {
		return &seqSource{q: sq}, seqScope(sq, alias), nil
	}
	t := cat.TableByName[q]
	if t == nil {
		return nil, nil, ErrNoRelation(tn.Schema.O, tn.Name.O)
	}
	if t.Unpopulated {
		return nil, nil, errUnpopulated(t)
	}
	c.Host.NoteRead(t.ID)
	return &TableScan{Table: t, Access: Access{Kind: "seq"}, Alias: alias}, TableScope(t, alias), nil
}

// ErrNoRelation is 42P01 for the relation named schema.name, or name.
func ErrNoRelation(schema, name string) error {
	if schema != "" {
		name = schema + "." + name
	}
	return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// OldNewScope is the scope of a trigger's WHEN condition on table t: the
// visible columns of the old row, as old.c, then the new row's, as new.c.
func OldNewScope(t *catalog.Table) *Scope {
	sc := &Scope{}
	for _, alias := range []string{"old", "new"} {
		for _, c := range t.Columns {
			if c.Visible() {
				sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.Name, T: c.Type})
			}
		}
	}
	return sc
}

func TableScope(t *catalog.Table, alias string) *Scope {
	sc := PlainTableScope(t, alias)
	for i, col := range t.Columns {
		if col.Hidden && !col.Dropped {
			sc.Cols[i].hiddenExpr = col.Generated
		}
	}
	return sc
}

// PlainTableScope is TableScope without the hidden columns' expressions,
// for compiling what computes them: generation expressions.
func PlainTableScope(t *catalog.Table, alias string) *Scope {
	sc := &Scope{}
	for _, col := range t.Columns {
		name := col.Name
		if !col.Visible() {
			name = ""
		}
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: name, T: col.Type, TableOID: t.ID, AttNum: col.Num})
	}
	sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: HiddenKey, T: types.Bytea, TableOID: t.ID})
	return sc
}

// NestedJoin joins by reading the right side once and looping over it for
// each left row. LEFT JOIN pads unmatched left rows with NULLs, RIGHT JOIN
// unmatched right rows, once the left side is done; FULL JOIN both.
//
// However it runs (in memory, as a grace hash join, over a row store),
// each left row meets all of its matches before the next left row meets
// any: UPDATE ... FROM relies on a target row's matches coming together.
type NestedJoin struct {
	Left, Right           Source
	on                    Expr
	leftOuter, rightOuter bool
	LeftWidth, RightWidth int
	// hash, when set, are equalities of the join condition between an
	// expression of the left row and one of the right: the right rows are
	// put in buckets by their values, and a left row meets only its
	// bucket's (see hashjoin.go). on is still checked on each pair.
	hash []hashKey
	// using computes, over each joined pair (left, then right), the
	// columns of USING or NATURAL: the first non-NULL of the two sides'.
	// They come first in the join's rows, as in its scope and in SELECT *.
	using []Expr
	// lateral says the right side reads the left row's columns (LATERAL,
	// or a function in FROM, which is lateral without saying so): it is
	// opened again for each left row, as a correlated subquery is.
	lateral bool
	// indexed marks a lateral join that indexLoops made of a hash join:
	// its right side looks up each left row's match in an index, and
	// unserved are the hash keys the index does not serve.
	indexed  bool
	unserved []hashKey
	// merge marks a join whose sides both come in its one hash key's
	// order: it walks them together (see mergejoin.go).
	merge bool
}

// emit is the join's row for a pair: the USING columns, then the pair.
func (j *NestedJoin) emit(x *ExecCtx, pair []any) ([]any, error) {
	if len(j.using) == 0 {
		return pair, nil
	}
	row := make([]any, len(j.using), len(j.using)+len(pair))
	e := x.Env(pair)
	for i, u := range j.using {
		v, err := u.Eval(e)
		if err != nil {
			return nil, err
		}
		row[i] = v
	}
	return append(row, pair...), nil
}

// Describe is a Hash Join, whose inner side PostgreSQL shows under a
// Hash node, or a Nested Loop.
func (j *NestedJoin) Describe(e *Explainer) *Node {
	joinType := "Inner"
	switch {
	case j.leftOuter && j.rightOuter:
		joinType = "Full"
	case j.leftOuter:
		joinType = "Left"
	case j.rightOuter:
		joinType = "Right"
	}
	suffix := ""
	if joinType != "Inner" {
		suffix = " " + joinType + " Join"
	}
	left, right := e.Node(j.Left).as("Outer"), e.Node(j.Right).as("Inner")
	cols := append(make([]ScopeCol, len(j.using)), padCols(left.cols, j.LeftWidth)...)
	cols = append(cols, padCols(right.cols, j.RightWidth)...)
	rows := left.Est.Rows * right.Est.Rows * j.selectivity(e, left, right)
	if j.indexed {
		// The right side's estimate is per left row; the keys its index
		// does not serve filter the pairs.
		rows = left.Est.Rows * right.Est.Rows * keysSelectivity(e, left, right, j.unserved)
	}
	switch joinType {
	case "Left":
		rows = max(rows, left.Est.Rows)
	case "Right":
		rows = max(rows, right.Est.Rows)
	case "Full":
		rows = max(rows, left.Est.Rows+right.Est.Rows)
	}
	width := left.Est.Width + right.Est.Width
	if len(j.hash) == 0 {
		return &Node{Type: "Nested Loop", Label: "Nested Loop" + suffix, Attrs: []Field{{"Join Type", joinType}, {"Inner Unique", false}},
			Kids: []*Node{left, right}, cols: cols,
			Est: Estimate{Startup: left.Est.Startup + right.Est.Startup, Total: left.Est.Total + max(1, left.Est.Rows)*right.Est.Total + rows*cpuTupleCost, Rows: rows, Width: width}}
	}
	if suffix == "" {
		suffix = " Join"
	}
	if j.merge {
		k := j.hash[0]
		cond := "(" + e.qualified(k.left, left.cols) + " = " + e.qualified(k.right, right.cols) + ")"
		return &Node{Type: "Merge Join", Label: "Merge" + suffix, Attrs: []Field{{"Join Type", joinType}, {"Inner Unique", false}},
			Props: []Field{{"Merge Cond", cond}}, Kids: []*Node{left, right}, cols: cols,
			Est: Estimate{Startup: left.Est.Startup + right.Est.Startup, Total: left.Est.Total + right.Est.Total +
				(left.Est.Rows+right.Est.Rows)*cpuOperCost + rows*cpuTupleCost, Rows: rows, Width: width}}
	}
	hash := &Node{Type: "Hash", Parent: "Inner", Kids: []*Node{right.as("Outer")}, Est: right.Est}
	hash.Est.Startup = right.Est.Total
	if right.Stats != nil {
		hash.Stats = &NodeStats{Loops: right.Stats.Loops, Rows: right.Stats.Rows, Startup: right.Stats.Totals, Totals: right.Stats.Totals}
	}
	startup := right.Est.Total + right.Est.Rows*cpuOperCost
	var conds []string
	for _, k := range j.hash {
		l, r := e.qualified(k.left, left.cols), e.qualified(k.right, right.cols)
		conds = append(conds, l+" = "+r)
	}
	cond := "(" + strings.Join(conds, ") AND (") + ")"
	if len(conds) > 1 {
		cond = "(" + cond + ")"
	}
	return &Node{Type: "Hash Join", Label: "Hash" + suffix, Attrs: []Field{{"Join Type", joinType}, {"Inner Unique", false}},
		Props: []Field{{"Hash Cond", cond}}, Kids: []*Node{left, hash}, cols: cols,
		Est: Estimate{Startup: startup, Total: startup + left.Est.Total + left.Est.Rows*cpuOperCost + rows*cpuTupleCost, Rows: rows, Width: width}}
}

// padCols is cols, or n unknown columns where cols is unknown.
func padCols(cols []ScopeCol, n int) []ScopeCol {
	if len(cols) == n {
		return cols
	}
	return make([]ScopeCol, n)
}

// selectivity is the share of pairs the join keeps: by its hash keys'
// equalities where it has them, else by its whole condition.
func (j *NestedJoin) selectivity(e *Explainer, left, right *Node) float64 {
	if len(j.hash) == 0 {
		pair := append(padCols(left.cols, j.LeftWidth), padCols(right.cols, j.RightWidth)...)
		return e.estimator(pair).selectivity(j.on)
	}
	return keysSelectivity(e, left, right, j.hash)
}

// keysSelectivity is the share of pairs of left's and right's rows that
// the equalities keys keep, each judged as a join of its two columns.
func keysSelectivity(e *Explainer, left, right *Node, keys []hashKey) float64 {
	s := 1.0
	les, res := e.estimator(left.cols), e.estimator(right.cols)
	for _, k := range keys {
		l, lok := les.column(k.left)
		r, rok := res.column(k.right)
		switch {
		case lok && rok:
			s *= joinSel(l, r)
		case lok || rok:
			c := l
			if rok {
				c = r
			}
			s *= joinSel(c, colRef{t: c.t, col: c.col})
		default:
			s /= max(left.Est.Rows, right.Est.Rows, defaultGroups)
		}
	}
	return s
}

// Open runs the join. The right side's rows are read first, and held
// while they fit in work_mem; past that a hash join partitions both sides
// (graceJoin) and a join without hash keys reads its right rows from a
// row store for each left row (storeJoin).
func (j *NestedJoin) Open(x *ExecCtx) (rowexec.RowIter, error) {
	if j.merge {
		lit, err := open(x, j.Left)
		if err != nil {
			return nil, err
		}
		rit, err := open(x, j.Right)
		if err != nil {
			lit.Close()
			return nil, err
		}
		return j.mergeRows(x, lit, rit), nil
	}
	if j.lateral {
		lit, err := open(x, j.Left)
		if err != nil {
			return nil, err
		}
		return j.loop(x, lit, nil, nil), nil
	}
	rit, err := open(x, j.Right)
	if err != nil {
		return nil, err
	}
	right, rest, err := rowexec.Gather(x, rit)
	if err != nil {
		return nil, err
	}
	if rest != nil {
		if len(j.hash) > 0 {
			return j.graceJoin(x, rowexec.Prepend(right, rest))
		}
		return j.storeJoin(x, rowexec.Prepend(right, rest))
	}
	var buckets map[string][]int
	if len(j.hash) > 0 {
		if buckets, err = j.buckets(x, right); err != nil {
			return nil, err
		}
	}
	lit, err := open(x, j.Left)
	if err != nil {
		return nil, err
	}
	return j.loop(x, lit, right, buckets), nil
}

// pair joins left row l and right row r: their row, and whether the
// join condition holds for it.
func (j *NestedJoin) pair(x *ExecCtx, l, r []any) ([]any, bool, error) {
	row := append(append(make([]any, 0, len(l)+j.RightWidth), l...), r...)
	if j.on == nil {
		return row, true, nil
	}
	v, err := j.on.Eval(x.Env(row))
	return row, err == nil && IsTrue(v), err
}

// padLeft is the join's row for a right row no left row matched.
func (j *NestedJoin) padLeft(x *ExecCtx, r []any) ([]any, error) {
	return j.emit(x, append(make([]any, j.LeftWidth, j.LeftWidth+j.RightWidth), r...))
}

// padRight is the join's row for a left row that matched no right row.
func (j *NestedJoin) padRight(x *ExecCtx, l []any) ([]any, error) {
	return j.emit(x, append(append(make([]any, 0, len(l)+j.RightWidth), l...), make([]any, j.RightWidth)...))
}

// loop joins the rows of lit with right, each left row meeting its
// bucket's rows if buckets is set, else every right row (for a lateral
// join, those its own run of the right side returns).
func (j *NestedJoin) loop(x *ExecCtx, lit rowexec.RowIter, right [][]any, buckets map[string][]int) rowexec.RowIter {
	var cur []any
	var cands []int // with buckets, the right rows cur may meet
	i, matched := 0, false
	var rightMatched []bool // for RIGHT and FULL JOIN
	if j.rightOuter {
		rightMatched = make([]bool, len(right))
	}
	leftDone, r := false, 0
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			if leftDone {
				// The right rows no left row matched, padded on the left.
				for ; r < len(right); r++ {
					if !rightMatched[r] {
						r++
						return j.padLeft(x, right[r-1])
					}
				}
				return nil, nil
			}
			if cur == nil {
				l, err := lit.Next()
				if err != nil {
					return nil, err
				}
				if l == nil {
					if !j.rightOuter {
						return nil, nil
					}
					leftDone = true
					continue
				}
				cur, i, matched = l, 0, false
				if j.lateral {
					sub := &ExecCtx{Ctx: x.Ctx, Host: x.Host, Tx: x.Tx, Params: x.Params, outer: x.Env(l), FK: x.FK, analysis: x.analysis}
					right, err = j.rightRows(sub)
					sub.closeCTEs()
					if err != nil {
						return nil, err
					}
				}
				if buckets != nil {
					// A probe that finds nothing never reaches the
					// pair loop's check.
					if err := x.Canceled(); err != nil {
						return nil, err
					}
					if cands, err = j.probe(x, l, buckets); err != nil {
						return nil, err
					}
				}
			}
			n := len(right)
			if buckets != nil {
				n = len(cands)
			}
			for i < n {
				if err := x.Canceled(); err != nil {
					return nil, err
				}
				ri := i
				if buckets != nil {
					ri = cands[i]
				}
				row, ok, err := j.pair(x, cur, right[ri])
				i++
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				matched = true
				if rightMatched != nil {
					rightMatched[ri] = true
				}
				return j.emit(x, row)
			}
			l := cur
			cur = nil
			if j.leftOuter && !matched {
				return j.padRight(x, l)
			}
		}
	}, Done: lit.Close}
}

// rightRows reads the right side's rows.
func (j *NestedJoin) rightRows(x *ExecCtx) ([][]any, error) {
	it, err := open(x, j.Right)
	if err != nil {
		return nil, err
	}
	return rowexec.Drain(it)
}

func (c *Compiler) planJoin(n *ast.Join) (Source, *Scope, error) {
	left, ls, err := c.PlanResultSet(n.Left)
	if err != nil {
		return nil, nil, err
	}
	// The parser writes FULL JOIN as TiDB's STRAIGHT_JOIN, and NATURAL
	// FULL JOIN with a marker for USING list.
	full := n.StraightJoin
	if len(n.Using) == 1 && n.Using[0].Name.L == parser.NaturalFullMarker {
		n.Using, n.NaturalJoin = nil, true
	}
	right, rs, lateral, err := c.planJoinRight(n, ls)
	if err != nil {
		return nil, nil, err
	}
	if lateral && (n.Tp == ast.RightJoin || full) {
		if table := leftTableRead(n.Right, ls); table != "" {
			return nil, nil, pgerr.New(pgerr.InvalidColumnReference, "invalid reference to FROM-clause entry for table %q", table).
				WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
		}
		// The LATERAL item reads only FROM items before this join (it is
		// inside a lateral join itself): it is not lateral here.
		if right, rs, err = c.PlanResultSet(n.Right); err != nil {
			return nil, nil, err
		}
		lateral = false
	}
	sc := &Scope{Cols: append(append([]ScopeCol(nil), ls.Cols...), rs.Cols...)}
	j := &NestedJoin{Left: left, Right: right, leftOuter: n.Tp == ast.LeftJoin || full, rightOuter: n.Tp == ast.RightJoin || full,
		LeftWidth: len(ls.Cols), RightWidth: len(rs.Cols), lateral: lateral}
	if n.On != nil {
		if j.on, err = c.WithScope(sc).CompileAs(n.On.Expr, types.Bool); err != nil {
			return nil, nil, err
		}
		for _, cond := range astConjuncts(n.On.Expr) {
			if !HasSubquery(cond) {
				c.addHashKey(j, sc.Cols, cond)
			}
		}
	}
	if len(n.Using) > 0 || n.NaturalJoin {
		if sc, err = c.joinUsing(n, j, sc); err != nil {
			return nil, nil, err
		}
	}
	return j, sc, nil
}

// leftTableRead names the first table of the left side ls that the
// right side n reads, or "".
func leftTableRead(n ast.Node, ls *Scope) string {
	var table string
	n.Accept(&ColumnVisitor{Visit: func(cn *ast.ColumnNameExpr) {
		if _, col, err := ls.resolve(cn.Name.Table.O, cn.Name.Name.O); err == nil && table == "" {
			table = col.Table
		}
	}})
	return table
}

// ColumnVisitor calls visit for each column reference in a tree.
type ColumnVisitor struct{ Visit func(*ast.ColumnNameExpr) }

func (v *ColumnVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if cn, ok := n.(*ast.ColumnNameExpr); ok {
		v.Visit(cn)
	}
	return n, false
}

func (v *ColumnVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// planJoinRight plans a join's right side. A LATERAL item, or a function
// in FROM whose arguments name the left side's columns, is planned one
// level down, as a subquery of the left side: it reads the left row as
// an enclosing query's, and lateral says so.
//
// A join on the right, as in FROM a, b JOIN LATERAL (...), is planned so
// too when a LATERAL item or function in it names a column that only
// the left side has: in PostgreSQL a LATERAL item sees every FROM item
// before it.
func (c *Compiler) planJoinRight(n *ast.Join, ls *Scope) (src Source, sc *Scope, lateral bool, err error) {
	ts, _ := n.Right.(*ast.TableSource)
	if ts == nil || !ts.Lateral {
		src, sc, err = c.PlanResultSet(n.Right)
		code := pgerr.Code(err)
		if err == nil || code != pgerr.UndefinedColumn && code != pgerr.UndefinedTable {
			return src, sc, false, err
		}
		if ts != nil && tableFuncCall(ts) == nil || ts == nil && !hasLateralItem(n.Right) {
			if table := leftTableRead(n.Right, ls); code == pgerr.UndefinedTable && table != "" {
				err = pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table %q", table).
					WithHint("There is an entry for table %q, but it cannot be referenced from this part of the query.", table)
			}
			return src, sc, false, err
		}
	}
	src, sc, err = c.WithScope(ls).subqueryCompiler().PlanResultSet(n.Right)
	return src, sc, true, err
}

// hasLateralItem reports whether a join tree has a LATERAL item or a
// function in FROM, the items that may read earlier FROM items.
func hasLateralItem(n ast.ResultSetNode) bool {
	switch n := n.(type) {
	case *ast.Join:
		return hasLateralItem(n.Left) || n.Right != nil && hasLateralItem(n.Right)
	case *ast.TableSource:
		return n.Lateral || tableFuncCall(n) != nil
	}
	return false
}

// joinUsing plans JOIN USING (a, ...), or a NATURAL JOIN on the columns
// both sides have: its condition, each pair equal; and its USING columns,
// each the first non-NULL of the two sides' copies (a RIGHT or FULL JOIN
// pads the left one), which come first in the join's scope. Both copies
// are marked merged in the pair's scope sc: only a qualified name reads
// them. It returns the join's scope.
func (c *Compiler) joinUsing(n *ast.Join, j *NestedJoin, sc *Scope) (*Scope, error) {
	nLeft := j.LeftWidth
	left, right := &Scope{Cols: sc.Cols[:nLeft]}, &Scope{Cols: sc.Cols[nLeft:]}
	var names []string
	for _, u := range n.Using {
		names = append(names, u.Name.O)
	}
	if n.NaturalJoin {
		for _, col := range left.Cols {
			if col.merged || col.Name == "" || col.Name == HiddenKey || slices.Contains(names, col.Name) {
				continue
			}
			if _, _, err := right.resolve("", col.Name); err == nil || pgerr.Code(err) == pgerr.AmbiguousColumn {
				names = append(names, col.Name)
			}
		}
	}
	var on Expr
	var using []ScopeCol
	var merged []int
	for _, name := range names {
		li, lc, err := left.resolve("", name)
		if err != nil {
			return nil, usingError(err, name, "left")
		}
		ri, rc, err := right.resolve("", name)
		if err != nil {
			return nil, usingError(err, name, "right")
		}
		t, ok := unify(lc.T, rc.T)
		if !ok {
			return nil, noOperator("=", lc.T, rc.T)
		}
		l, err := c.Coerce(&ColExpr{T: lc.T, Index: li}, t)
		if err != nil {
			return nil, err
		}
		r, err := c.Coerce(&ColExpr{T: rc.T, Index: nLeft + ri}, t)
		if err != nil {
			return nil, err
		}
		merged = append(merged, li, nLeft+ri)
		on = andExpr(on, &cmpExpr{op: "=", t: t, l: l, r: r})
		if lc.T.Oid == rc.T.Oid && hashable(lc.T) {
			j.hash = append(j.hash, hashKey{left: &ColExpr{T: lc.T, Index: li}, right: &ColExpr{T: rc.T, Index: ri}, t: lc.T})
		}
		j.using = append(j.using, &coalesceExpr{t: t, args: []Expr{l, r}})
		using = append(using, ScopeCol{Name: name, T: t})
	}
	for _, i := range merged {
		sc.Cols[i].merged = true
	}
	if on == nil {
		on = &ConstExpr{T: types.Bool, V: true} // a NATURAL JOIN without common columns
	}
	j.on = on
	return &Scope{Cols: append(using, sc.Cols...)}, nil
}

// usingError is PostgreSQL's error for a USING column that one side of
// the join has not exactly once.
func usingError(err error, name, side string) error {
	if pgerr.Code(err) == pgerr.AmbiguousColumn {
		return pgerr.New(pgerr.AmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
	}
	return pgerr.New(pgerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
}

// planSelect plans a SELECT statement.
func (c *Compiler) planSelect(n *ast.SelectStmt) (*SelectPlan, error) {
	// VALUES is SELECT * over its rows, which ORDER BY and LIMIT may follow.
	var values []*ast.RowExpr
	switch n.Kind {
	case ast.SelectStmtKindSelect:
	case ast.SelectStmtKindValues:
		star := *n
		star.Kind, star.Lists = ast.SelectStmtKindSelect, nil
		star.Fields = &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}
		values, n = n.Lists, &star
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of SELECT is not supported yet")
	}
	n, on := distinctOnItems(n)
	p := &SelectPlan{distinct: n.Distinct}
	cc := *c
	cc.subs = &p.subs
	c = &cc
	var err error
	if n.With != nil {
		if c, p.ctes, err = c.PlanWith(n.With); err != nil {
			return nil, err
		}
	}
	var src Source
	var sc *Scope
	if values != nil {
		src, sc, err = c.planValues(values)
	} else {
		src, sc, err = c.planFrom(n.From)
	}
	if err != nil {
		return nil, err
	}
	if _, ok := src.(*NestedJoin); ok && values == nil {
		src = c.planJoinOrder(n.From, n.Where, src, sc)
	}
	in := c.WithScope(sc)
	if err := noWindows(n.Where, "WHERE"); err != nil {
		return nil, err
	}
	if n.Where != nil {
		if p.where, err = in.CompileAs(n.Where, types.Bool); err != nil {
			return nil, err
		}
		p.checkWhere = p.where
		switch s := src.(type) {
		case *TableScan:
			s.Access = ChooseAccess(s.Table, p.where, c.Host.PartialImplied(s.Table, p.where))
		case *NestedJoin, *permuted:
			var kept []int
			if pm, ok := s.(*permuted); ok {
				pm.in, kept = c.PushDown(pm.in, pm.cols, n.Where)
			} else {
				src, kept = c.PushDown(src, sc.Cols, n.Where)
			}
			if all := Conjuncts(p.where); len(all) == len(astConjuncts(n.Where)) {
				p.where = nil
				for _, i := range kept {
					p.where = andExpr(p.where, all[i])
				}
			} // else the compiled clause splits otherwise: keep it whole
		}
	}
	p.src, p.srcCols = c.indexLoops(src), sc.Cols

	// Grouping: GROUP BY, or an aggregate anywhere in the select list or
	// HAVING, makes the rest compile over the grouped rows.
	out := in
	if n.GroupBy != nil || n.Having != nil || hasAggregate(n.Fields) {
		agg := &aggPlan{input: in}
		if n.GroupBy != nil {
			for _, item := range n.GroupBy.Items {
				gn, err := groupItem(in, n.Fields, item.Expr)
				if err != nil {
					return nil, err
				}
				if err := noWindows(gn, "GROUP BY"); err != nil {
					return nil, err
				}
				ge, err := in.Compile(gn)
				if err != nil {
					return nil, err
				}
				if err := checkComparable(ge.Type(), false); err != nil {
					return nil, err
				}
				agg.groupExprs = append(agg.groupExprs, ge)
				agg.groupKeys = append(agg.groupKeys, Restore(gn))
				agg.groupTypes = append(agg.groupTypes, ge.Type())
			}
			agg.keyed = len(agg.groupExprs)
			agg.groupDependents(in.Scope, c.Host.Catalog())
		}
		out = c.WithScope(sc)
		out.agg = agg
		p.agg = agg
		if n.Having != nil {
			if err := noWindows(n.Having.Expr, "HAVING"); err != nil {
				return nil, err
			}
			if p.having, err = out.CompileAs(n.Having.Expr, types.Bool); err != nil {
				return nil, err
			}
		}
	}

	if out, err = p.planWindows(out, in, n); err != nil {
		return nil, err
	}
	if out, err = p.planSRFs(out, in, n); err != nil {
		return nil, err
	}

	for _, f := range n.Fields.Fields {
		if f.WildCard != nil {
			if err := p.ExpandStar(sc, f.WildCard.Table.O); err != nil {
				return nil, err
			}
			continue
		}
		e, err := out.Compile(f.Expr)
		if err != nil {
			return nil, err
		}
		if e.Type().Oid == types.OidUnknown {
			p.untyped = append(p.untyped, len(p.Exprs))
		}
		if e, err = out.ResolveUnknown(e); err != nil {
			return nil, err
		}
		col := Column{Name: f.AsName.O, Type: e.Type()}
		if col.Name == "" {
			col.Name = FieldName(f.Expr)
		}
		if ce, ok := e.(*ColExpr); ok && p.agg == nil {
			col.TableOID, col.AttNum = sc.Cols[ce.Index].TableOID, sc.Cols[ce.Index].AttNum
		}
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, col)
		p.keys = append(p.keys, Restore(f.Expr))
	}
	p.visible = len(p.Exprs)
	if p.distinct {
		for _, e := range p.Exprs {
			if err := checkComparable(e.Type(), false); err != nil {
				return nil, err
			}
		}
	}

	if n.OrderBy != nil {
		for _, item := range n.OrderBy.Items {
			if err := p.addOrder(out, item); err != nil {
				return nil, err
			}
		}
	}
	if on != nil {
		if err := p.planDistinctOn(out, on); err != nil {
			return nil, err
		}
	}
	if p.windows != nil {
		if err := p.windows.deferredErr(); err != nil {
			return nil, err
		}
	}
	if locking(n) {
		if err := p.planLocking(n, sc); err != nil {
			return nil, err
		}
		c.Host.NoteLocking(p.Locking.Word)
	}
	if p.limit, p.offset, err = c.planLimit(n.Limit); err != nil {
		return nil, err
	}
	if p.windows != nil && p.agg != nil {
		// Every aggregate is planned: the windows' columns follow them.
		p.windows.place(len(p.agg.groupExprs) + len(p.agg.calls))
	}
	return p, nil
}

// planLimit compiles LIMIT and OFFSET, which can read no column.
func (c *Compiler) planLimit(n *ast.Limit) (limit, offset Expr, err error) {
	if n == nil {
		return nil, nil, nil
	}
	if n.Count != nil && !unlimited(n.Count) {
		if limit, err = c.WithScope(&Scope{}).CompileAs(n.Count, types.Int8); err != nil {
			return nil, nil, err
		}
	}
	if n.Offset != nil {
		if offset, err = c.WithScope(&Scope{}).CompileAs(n.Offset, types.Int8); err != nil {
			return nil, nil, err
		}
	}
	return limit, offset, nil
}

// groupItem resolves a GROUP BY item to the expression it groups by: an
// output column's position, an input column, or else an output column's
// alias (PostgreSQL prefers the input column), or an expression over the
// input.
func groupItem(in *Compiler, fields *ast.FieldList, n ast.ExprNode) (ast.ExprNode, error) {
	pos, ok, err := ordinal(n, "GROUP BY")
	if err != nil {
		return nil, err
	}
	if ok {
		if pos < 1 || pos > len(fields.Fields) || fields.Fields[pos-1].WildCard != nil {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", pos)
		}
		return fields.Fields[pos-1].Expr, nil
	}
	if cn, ok := n.(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" {
		if _, _, err := in.Scope.resolve("", cn.Name.Name.O); err != nil {
			for _, f := range fields.Fields {
				if f.WildCard == nil && f.AsName.O == cn.Name.Name.O {
					return f.Expr, nil
				}
			}
		}
	}
	return n, nil
}

// ordinal reports the position an ORDER BY, GROUP BY or DISTINCT ON item
// of clause names: an integer constant as PostgreSQL's grammar reads one,
// which parentheses do not hide and into which a minus sign folds, as in
// ORDER BY (2) or -1. Any other constant is an error there.
func ordinal(n ast.ExprNode, clause string) (int, bool, error) {
	pos, isInt := 0, false
	if p, ok := n.(*ast.PositionExpr); ok && p.P == nil {
		pos, isInt = p.N, true
	} else if v, neg := sortConstant(n); v == nil {
		return 0, false, nil
	} else if i, ok := v.GetValue().(int64); ok && v.Type.GetFlag()&mysql.IsBooleanFlag == 0 {
		pos, isInt = int(i), true
		if neg {
			pos = -pos
		}
	}
	// PostgreSQL reads an integer too large for int4 as a numeric constant.
	if !isInt || pos < math.MinInt32 || pos > math.MaxInt32 {
		return 0, false, pgerr.New(pgerr.SyntaxError, "non-integer constant in %s", clause)
	}
	return pos, true, nil
}

// sortConstant finds the constant n is, looking through parentheses and,
// around a number, minus signs, which PostgreSQL's grammar folds into the
// number; neg reports an odd count of them.
func sortConstant(n ast.ExprNode) (v *driver.ValueExpr, neg bool) {
	switch n := n.(type) {
	case *ast.ParenthesesExpr:
		return sortConstant(n.Expr)
	case *ast.UnaryOperationExpr:
		if n.Op != opcode.Minus {
			return nil, false
		}
		v, neg := sortConstant(n.V)
		if v == nil {
			return nil, false
		}
		switch v.GetValue().(type) {
		case int64, uint64, float64, *driver.MyDecimal:
			return v, !neg
		}
		return nil, false
	case *driver.ValueExpr:
		return n, false
	}
	return nil, false
}

// unlimited reports whether a LIMIT count is the parser's stand-in for no
// limit, which it writes for OFFSET without LIMIT (TiDB needs a count).
func unlimited(n ast.ExprNode) bool {
	v, ok := n.(*driver.ValueExpr)
	if !ok {
		return false
	}
	u, ok := v.GetValue().(uint64)
	return ok && u == math.MaxUint64
}

func (p *SelectPlan) ExpandStar(sc *Scope, table string) error {
	found := false
	for i, col := range sc.Cols {
		if col.Name == "" || col.Name == HiddenKey || (table != "" && col.Table != table) || table == "" && col.merged {
			continue
		}
		found = true
		e := &ColExpr{T: col.T, Index: i}
		if p.agg != nil {
			// A grouped query's * reads the columns it groups by.
			g := slices.IndexFunc(p.agg.groupExprs, func(ge Expr) bool { ce, ok := ge.(*ColExpr); return ok && ce.Index == i })
			if g < 0 {
				return pgerr.New(pgerr.GroupingError, "column \"%s.%s\" must appear in the GROUP BY clause or be used in an aggregate function", col.Table, col.Name)
			}
			e = &ColExpr{T: p.agg.groupTypes[g], Index: g}
		}
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, Column{Name: col.Name, Type: col.T, TableOID: col.TableOID, AttNum: col.AttNum})
		p.keys = append(p.keys, Restore(&ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(col.Name)}}))
	}
	if !found && table != "" {
		return pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table)
	}
	return nil
}

// sameOutput reports whether output columns i and j compute the same: read
// the same input column, or are written the same.
func (p *SelectPlan) sameOutput(i, j int) bool {
	a, aok := p.Exprs[i].(*ColExpr)
	b, bok := p.Exprs[j].(*ColExpr)
	if aok && bok {
		return a.Index == b.Index
	}
	return !aok && !bok && i < len(p.keys) && j < len(p.keys) && p.keys[i] == p.keys[j]
}

// addOrder adds one ORDER BY item.
func (p *SelectPlan) addOrder(c *Compiler, item *ast.ByItem) error {
	e, key := orderItem(item)
	idx, err := p.target(c, e, "ORDER BY")
	if err != nil {
		return err
	}
	key.Idx, key.T = idx, p.Exprs[idx].Type()
	p.order = append(p.order, key)
	return checkComparable(key.T, true)
}

// target finds the column an ORDER BY or DISTINCT ON item names: an output
// position, an output alias, or an expression, computed as a hidden extra
// column unless an earlier column computes it already.
func (p *SelectPlan) target(c *Compiler, e ast.ExprNode, clause string) (int, error) {
	pos, ok, err := ordinal(e, clause)
	if err != nil {
		return 0, err
	}
	if ok {
		if pos < 1 || pos > p.visible {
			return 0, pgerr.New(pgerr.InvalidColumnReference, "%s position %d is not in select list", clause, pos)
		}
		return pos - 1, nil
	}
	// A bare name is an output column's first (SQL-92), then an input
	// column's; an expression written as in the select list is that column.
	match := -1
	if cn, ok := e.(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" {
		for i, col := range p.Cols[:p.visible] {
			if col.Name != cn.Name.Name.O {
				continue
			}
			// Two output columns of the name must compute the same.
			if match >= 0 && !p.sameOutput(i, match) {
				return 0, pgerr.New(pgerr.AmbiguousColumn, "%s %q is ambiguous", clause, cn.Name.Name.O)
			}
			if match < 0 {
				match = i
			}
		}
	}
	if match < 0 {
		match = slices.Index(p.keys, Restore(e))
	}
	if match >= 0 {
		return match, nil
	}
	ex, err := c.Compile(e)
	if err != nil {
		return 0, err
	}
	if ex, err = c.ResolveUnknown(ex); err != nil {
		return 0, err
	}
	// An input column is the output column that reads it, however either
	// is written: ORDER BY a after SELECT DISTINCT d.a AS x.
	if col, ok := ex.(*ColExpr); ok {
		for i, out := range p.Exprs[:p.visible] {
			if oc, ok := out.(*ColExpr); ok && oc.Index == col.Index {
				return i, nil
			}
		}
	}
	if p.distinct {
		return 0, pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
	}
	p.Exprs = append(p.Exprs, ex)
	p.keys = append(p.keys, Restore(e))
	return len(p.Exprs) - 1, nil
}

// orderItem reads an ORDER BY item: its expression, and the direction and
// NULLs placement of its sort key.
func orderItem(item *ast.ByItem) (ast.ExprNode, rowexec.SortKey) {
	e := item.Expr
	key := rowexec.SortKey{Desc: item.Desc, NullsFirst: item.Desc}
	if f, ok := e.(*ast.FuncCallExpr); ok && f.FnName.L == "epochdb_nulls" {
		e = f.Args[0]
		key.NullsFirst = f.Args[1].(*driver.ValueExpr).GetString() == "first"
	}
	return e, key
}

func hasAggregate(fields *ast.FieldList) bool {
	for _, f := range fields.Fields {
		if f.Expr != nil && hasAggregateIn(f.Expr) {
			return true
		}
	}
	return false
}

// hasAggregateIn reports whether n calls an aggregate, outside its
// subqueries.
func hasAggregateIn(n ast.Node) bool {
	found := false
	n.Accept(&aggFinder{found: &found})
	return found
}

type aggFinder struct{ found *bool }

func (a *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SubqueryExpr); ok {
		return n, true // a subquery's aggregates are its own
	}
	if _, ok := asAggregate(n); ok {
		*a.found = true
		return n, true
	}
	if _, ok := n.(*ast.AggregateFuncExpr); ok {
		*a.found = true
		return n, true
	}
	return n, false
}

func (a *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// FieldName is the output column name PostgreSQL gives an unaliased
// select-list expression.
func FieldName(n ast.ExprNode) string {
	name, _ := figureName(n)
	return name
}

// figureName is PostgreSQL's FigureColname: a name, and how strongly the
// expression suggests it. A column or function name (2) survives a cast
// around it; a cast's type name (1) gives way to an outer cast's, as does
// CASE's. TiDB's forms of PostgreSQL syntax map back to PostgreSQL's names.
func figureName(n ast.ExprNode) (string, int) {
	switch n := n.(type) {
	case *ast.ColumnNameExpr:
		return n.Name.Name.O, 2
	case *ast.ParenthesesExpr:
		return figureName(n.Expr)
	case *ast.AggregateFuncExpr:
		return strings.ToLower(n.F), 2
	case *ast.WindowFuncExpr:
		if fn, _, ok := windowAgg(n); ok {
			return fn, 2
		}
		return strings.ToLower(n.Name), 2
	case *ast.FuncCallExpr:
		switch n.FnName.L {
		case "epochdb_cast":
			if name, strength := figureName(n.Args[0]); strength > 1 {
				return name, strength
			}
			typeName := n.Args[1].(*driver.ValueExpr).GetString()
			t, err := types.ParseTypeName(typeName)
			if err != nil {
				// A type the catalogs define, an enum: PostgreSQL names the
				// column after it.
				if i := strings.LastIndexByte(typeName, '.'); i >= 0 {
					typeName = typeName[i+1:]
				}
				return strings.Trim(typeName, `"`), 1
			}
			if elem, ok := t.Elem(); ok {
				t = elem // int[] is named int4, not _int4
			}
			info, _ := types.Lookup(t.Oid)
			return info.Name, 1
		case "epochdb_extract":
			return "extract", 2
		case "epochdb_array", "epochdb_array_query":
			return "array", 2
		case "epochdb_subscript":
			return figureName(n.Args[0])
		case "epochdb_field":
			return n.Args[1].(*driver.ValueExpr).GetString(), 2
		case "epochdb_any", "epochdb_all", "epochdb_arrow", "epochdb_arrow_text", "epochdb_path", "epochdb_path_text",
			"epochdb_delete_path", "epochdb_contains", "epochdb_contained", "epochdb_exists", "epochdb_exists_any",
			"epochdb_exists_all", "epochdb_overlap", "epochdb_match", "epochdb_concat_op", "epochdb_op", "epochdb_numeric":
			return "?column?", 0 // operators
		case "trim":
			if len(n.Args) == 3 {
				if d, ok := n.Args[2].(*ast.TrimDirectionExpr); ok {
					switch d.Direction {
					case ast.TrimLeading:
						return "ltrim", 2
					case ast.TrimTrailing:
						return "rtrim", 2
					}
				}
			}
			return "btrim", 2
		}
		return n.FnName.L, 2
	case *ast.RowExpr:
		return "row", 2
	case *ast.CaseExpr:
		if n.ElseClause != nil {
			if name, strength := figureName(n.ElseClause); strength > 1 {
				return name, strength
			}
		}
		return "case", 1
	case *ast.ExistsSubqueryExpr:
		if !n.Not {
			return "exists", 2
		}
	case *ast.SubqueryExpr:
		// A scalar subquery is named after its one column.
		if sel := firstSelect(n.Query); sel != nil && sel.Fields != nil && len(sel.Fields.Fields) == 1 && sel.Fields.Fields[0].WildCard == nil {
			f := sel.Fields.Fields[0]
			if f.AsName.O != "" {
				return f.AsName.O, 2
			}
			return FieldName(f.Expr), 2
		}
	}
	return "?column?", 0
}

// firstSelect is the SELECT that names a query's columns: the first of a
// set operation's, without its DISTINCT ON.
func firstSelect(n ast.Node) *ast.SelectStmt {
	switch n := n.(type) {
	case *ast.SelectStmt:
		sel, _ := distinctOnItems(n)
		return sel
	case *ast.SetOprStmt:
		return firstSelect(n.SelectList)
	case *ast.SetOprSelectList:
		if len(n.Selects) > 0 {
			return firstSelect(n.Selects[0])
		}
	}
	return nil
}

// Describe shows the query's steps as PostgreSQL's nodes, innermost
// first: the FROM items (with WHERE as their Filter), Aggregate,
// WindowAgg, ProjectSet, then Sort or Unique, then Limit.
func (p *SelectPlan) Describe(e *Explainer) *Node {
	n := e.Node(p.src)
	if p.where != nil {
		e.Where(n, p.src, p.where, p.srcCols)
		e.attach(n, p, "where")
	}
	es := e.estimator(p.srcCols)
	// wrap puts parent over n, with rows rows, costing cost more than n
	// from its first row (startup) or over all (run), and the counts of
	// the step stage ("" for a node no step of its own measures).
	wrap := func(parent *Node, stage string, rows, startup, run float64) {
		parent.Kids = append([]*Node{n.as("Outer")}, parent.Kids...)
		parent.Est = Estimate{Startup: n.Est.Startup + startup, Total: n.Est.Total + startup + run, Rows: max(1, rows), Width: n.Est.Width}
		if stage != "" {
			e.attach(parent, p, stage)
		}
		n = parent
	}
	if a := p.agg; a != nil {
		agg := &Node{Type: "Aggregate", Attrs: []Field{{"Strategy", "Plain"}, {"Partial Mode", "Simple"}}}
		groups, in := 1.0, n.Est.Rows
		work := in * cpuOperCost * float64(max(1, len(a.calls)))
		if a.keyed > 0 {
			agg.Label, agg.Attrs[0].Value = "HashAggregate", "Hashed"
			agg.Props = append(agg.Props, Field{"Group Key", keyTexts(a.groupKeys[:a.keyed])})
			groups = es.groups(a.groupExprs[:a.keyed], in)
			work += in * cpuOperCost * float64(a.keyed)
		}
		if p.having != nil {
			agg.Props = append(agg.Props, Field{"Filter", e.expr(p.having, nil)})
			groups *= defaultIneqSel
		}
		wrap(agg, "agg", groups, work, groups*cpuTupleCost)
		n.Est.Width = 8 * max(1, len(p.Cols))
	}
	if p.windows != nil {
		wrap(&Node{Type: "WindowAgg"}, "windows", n.Est.Rows, 0, n.Est.Rows*cpuOperCost)
	}
	if p.srfs != nil {
		wrap(&Node{Type: "ProjectSet"}, "srfs", n.Est.Rows*10, 0, n.Est.Rows*10*cpuTupleCost)
	}
	switch {
	case len(p.order) > 0 || p.distinctOn != nil:
		var keys []string
		for _, k := range p.order {
			keys = append(keys, p.sortKeyText(k))
		}
		n = sortNode(n)
		n.Props = []Field{{"Sort Key", keys}}
		// Under a Unique, which measures the step, the Sort's counts are
		// the rows it sorted: all of its input's.
		n.Stats = passedStats(n.Kids[0])
		if p.distinct || p.distinctOn != nil {
			wrap(&Node{Type: "Unique"}, "sort", max(1, n.Est.Rows/2), 0, n.Est.Rows*cpuOperCost)
		} else {
			e.attach(n, p, "sort")
		}
	case p.distinct:
		rows := n.Est.Rows
		if p.agg == nil {
			rows = es.groups(p.Exprs[:p.visible], rows)
		}
		wrap(&Node{Type: "Aggregate", Label: "HashAggregate", Attrs: []Field{{"Strategy", "Hashed"}, {"Partial Mode", "Simple"}},
			Props: []Field{{"Group Key", keyTexts(p.keys[:p.visible])}}}, "sort", rows, n.Est.Rows*cpuOperCost, rows*cpuTupleCost)
	}
	if p.Locking != nil {
		n = &Node{Type: "LockRows", Kids: []*Node{n.as("Outer")}, Est: n.Est}
	}
	if p.limit != nil || p.offset != nil {
		n = limitNode(n, p.limit)
		e.attach(n, p, "limit")
	}
	e.parts(n, p.ctes, p.subs)
	return n
}

// sortKeyText is an ORDER BY key as EXPLAIN's Sort Key shows it.
func (p *SelectPlan) sortKeyText(k rowexec.SortKey) string {
	text := "?"
	if k.Idx < len(p.keys) {
		text = keyTexts(p.keys[k.Idx : k.Idx+1])[0]
	}
	if k.Desc {
		text += " DESC"
	}
	return text
}

// Open executes the plan and returns its output rows as an iterator.
func (p *SelectPlan) Open(x *ExecCtx) (rowexec.RowIter, error) {
	it, err := p.openGrouped(x)
	if err != nil {
		return nil, err
	}
	if p.windows != nil {
		began := x.began()
		it, err = p.windows.apply(x, it)
		if it, err = x.tracked(p, "windows", began, it, err); err != nil {
			return nil, err
		}
	}
	if p.srfs != nil {
		began := x.began()
		it, _ = x.tracked(p, "srfs", began, p.srfs.apply(x, it), nil)
	}
	it = &ProjectIter{In: it, X: x, Exprs: p.Exprs}
	if !p.distinct && p.distinctOn == nil && len(p.order) == 0 {
		if p.Locking != nil {
			it = &lockIter{in: it, x: x, p: p}
		}
		return p.window(x, it)
	}
	began := x.began()
	it, err = p.ordered(x, it)
	if it, err = x.tracked(p, "sort", began, it, err); err != nil {
		return nil, err
	}
	if p.Locking != nil {
		return p.window(x, &lockIter{in: it, x: x, p: p})
	}
	visible := it
	it = &rowexec.FuncIter{F: func() ([]any, error) {
		row, err := visible.Next()
		if row == nil || err != nil {
			return nil, err
		}
		return row[:p.visible], nil
	}, Done: visible.Close}
	return p.window(x, it)
}

// openGrouped opens the source, filtered by WHERE, and then grouped and
// filtered by HAVING if the query aggregates.
func (p *SelectPlan) openGrouped(x *ExecCtx) (rowexec.RowIter, error) {
	if f := p.fuseAggregate(x); f != nil {
		it, err := f.run(x)
		if err == nil && p.having != nil {
			it = &FilterIter{In: it, X: x, Pred: p.having}
		}
		return it, err
	}
	it, err := open(x, p.src)
	if err != nil {
		return nil, err
	}
	// Under EXPLAIN ANALYZE each step is a node of its own, which
	// x.tracked measures from the time x.began gave it.
	if p.where != nil {
		began := x.began()
		it, _ = x.tracked(p, "where", began, &FilterIter{In: it, X: x, Pred: p.where}, nil)
	}
	if p.agg == nil {
		return it, nil
	}
	began := x.began()
	it, err = p.aggregate(x, it)
	if err == nil && p.having != nil {
		it = &FilterIter{In: it, X: x, Pred: p.having}
	}
	return x.tracked(p, "agg", began, it, err)
}

// window applies the query's OFFSET and LIMIT to it, as its Limit node.
func (p *SelectPlan) window(x *ExecCtx, it rowexec.RowIter) (rowexec.RowIter, error) {
	if p.limit == nil && p.offset == nil {
		return it, nil
	}
	began := x.began()
	it, err := window(x, it, p.limit, p.offset)
	return x.tracked(p, "limit", began, it, err)
}

// window applies OFFSET and LIMIT to it. It reads no more rows than it
// returns or skips, so a LIMIT ends even an endless recursive query, as
// in PostgreSQL.
func window(x *ExecCtx, it rowexec.RowIter, limit, offset Expr) (rowexec.RowIter, error) {
	if limit == nil && offset == nil {
		return it, nil
	}
	skip, take := int64(0), int64(-1) // -1: no limit
	if offset != nil {
		v, err := offset.Eval(x.Env(nil))
		if err != nil {
			it.Close()
			return nil, err
		}
		if v != nil {
			if skip = v.(int64); skip < 0 {
				it.Close()
				return nil, pgerr.New(pgerr.InvalidRowCountInResultOffset, "OFFSET must not be negative")
			}
		}
	}
	if limit != nil {
		v, err := limit.Eval(x.Env(nil))
		if err != nil {
			it.Close()
			return nil, err
		}
		if v != nil {
			if take = v.(int64); take < 0 {
				it.Close()
				return nil, pgerr.New(pgerr.InvalidRowCountInLimitClause, "LIMIT must not be negative")
			}
		}
	}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for ; skip > 0; skip-- {
			if row, err := it.Next(); row == nil || err != nil {
				return nil, err
			}
		}
		if take == 0 {
			return nil, nil
		}
		if take > 0 {
			take--
		}
		return it.Next()
	}, Done: it.Close}, nil
}

// ordered returns it's rows in ORDER BY order, without DISTINCT's or
// DISTINCT ON's duplicates, sorting within work_mem (see sorter).
func (p *SelectPlan) ordered(x *ExecCtx, it rowexec.RowIter) (rowexec.RowIter, error) {
	if p.distinct {
		return p.distinctRows(x, it)
	}
	if p.distinctOn == nil {
		// Locking may pass rows over, so it needs them all.
		var n int64
		if p.Locking == nil {
			n = rowsRead(x, p.limit, p.offset)
		}
		return rowexec.SortFirst(x, it, rowexec.ByKeys(p.order), n)
	}
	// DISTINCT ON keeps the first row of each group in ORDER BY order, or
	// without ORDER BY in the order of its keys. The keys ORDER BY leaves
	// out sort after its own, as in PostgreSQL's plan, so that a group's
	// rows come together; the sort is stable, so its first row is the
	// group's first in ORDER BY order.
	keys := slices.Clip(p.order)
	for _, k := range p.distinctOn {
		if !slices.ContainsFunc(keys, func(o rowexec.SortKey) bool { return o.Idx == k.Idx }) {
			keys = append(keys, k)
		}
	}
	sorted, err := rowexec.SortIter(x, it, rowexec.ByKeys(keys))
	if err != nil {
		return nil, err
	}
	var last []byte
	first := true
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			row, err := sorted.Next()
			if row == nil || err != nil {
				return nil, err
			}
			var k []byte
			for _, key := range p.distinctOn {
				k = types.AppendKey(k, key.T, row[key.Idx], false)
			}
			if first || !bytes.Equal(k, last) {
				first, last = false, k
				return row, nil
			}
		}
	}, Done: sorted.Close}, nil
}

// distinctRows is SELECT DISTINCT: each row's first occurrence, in ORDER
// BY order, ties (and without ORDER BY, all rows) in the order of those
// first occurrences. In memory a hash set finds them. Past work_mem, two
// external sorts do: the first by each row's DISTINCT key and then input
// position, which puts a row's first occurrence first among its
// duplicates, and the second, of those, by ORDER BY and then position.
func (p *SelectPlan) distinctRows(x *ExecCtx, it rowexec.RowIter) (rowexec.RowIter, error) {
	rows, rest, err := rowexec.Gather(x, it)
	if err != nil {
		return nil, err
	}
	if rest == nil {
		rows = distinctRows(rows, p.Exprs[:p.visible])
		if len(p.order) > 0 {
			if err := rowexec.SortRows(x, rows, p.order); err != nil {
				return nil, err
			}
		}
		return &rowexec.SliceIter{Rows: rows}, nil
	}
	width := len(p.Exprs)
	in := rowexec.Prepend(rows, rest)
	var seq int64
	keyed := &rowexec.FuncIter{F: func() ([]any, error) {
		row, err := in.Next()
		if row == nil || err != nil {
			return nil, err
		}
		var k []byte
		for i, e := range p.Exprs[:p.visible] {
			k = types.AppendKey(k, e.Type(), row[i], false)
		}
		seq++
		return append(row[:width:width], k, seq), nil
	}, Done: in.Close}
	byKey, err := rowexec.SortIter(x, keyed, func(a, b []any) int { return bytes.Compare(a[width].([]byte), b[width].([]byte)) })
	if err != nil {
		return nil, err
	}
	var last []byte
	firsts := &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			row, err := byKey.Next()
			if row == nil || err != nil {
				return nil, err
			}
			if k := row[width].([]byte); last == nil || !bytes.Equal(k, last) {
				last = k
				return row, nil
			}
		}
	}, Done: byKey.Close}
	sorted, err := rowexec.SortIter(x, firsts, func(a, b []any) int {
		if c := rowexec.CompareRows(a, b, p.order); c != 0 {
			return c
		}
		return cmp.Compare(a[width+1].(int64), b[width+1].(int64))
	})
	if err != nil {
		return nil, err
	}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		row, err := sorted.Next()
		if row == nil || err != nil {
			return nil, err
		}
		return row[:width], nil
	}, Done: sorted.Close}, nil
}

func distinctRows(rows [][]any, exprs []Expr) [][]any {
	seen := make(map[string]bool, len(rows))
	out := rows[:0]
	for _, row := range rows {
		var k []byte
		for i, e := range exprs {
			k = types.AppendKey(k, e.Type(), row[i], false)
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			out = append(out, row)
		}
	}
	return out
}

// ChooseAccess picks an index for a table scan from WHERE's conjuncts:
// equality on every primary-key column (a point lookup), equality on a
// leading part plus a range on the next column, or equality on every column
// of a unique constraint. The WHERE clause is still applied to every row,
// so the access path only has to return a superset. A partial index
// serves only if the WHERE clause implies its predicate, which implied
// tells with the number of the predicate's conjuncts (0 for a full
// index, -1 if not implied); each counts as a column bound by equality.
func ChooseAccess(t *catalog.Table, where Expr, implied func(*catalog.Index) int) Access {
	eq := map[int]Expr{}
	type bound struct {
		e    Expr
		incl bool
	}
	lo, hi := map[int]bound{}, map[int]bound{}
	// lists are the columns an IN list or = ANY (array) of values binds.
	type list struct {
		in  []Expr
		arr Expr
	}
	lists := map[int]list{}
	column := func(e Expr, t2 types.T) (int, bool) {
		ce, ok := e.(*ColExpr)
		if !ok || ce.Index >= len(t.Columns) || t.Columns[ce.Index].Type.Oid != t2.Oid {
			return 0, false
		}
		return ce.Index, true
	}
	for _, cj := range Conjuncts(where) {
		switch x := cj.(type) {
		case *inExpr:
			if ci, ok := column(x.e, x.t); ok && !x.not && !slices.ContainsFunc(x.list, func(e Expr) bool { return !rowIndependent(e) }) {
				lists[ci] = list{in: x.list}
			}
			continue
		case *quantifiedExpr:
			if ci, ok := column(x.x, x.t); ok && x.op == "=" && !x.all && rowIndependent(x.arr) {
				lists[ci] = list{arr: x.arr}
			}
			continue
		}
		cmp, ok := cj.(*cmpExpr)
		if !ok {
			continue
		}
		op := cmp.op
		col, other := cmp.l, cmp.r
		if _, ok := col.(*ColExpr); !ok {
			col, other = cmp.r, cmp.l
			op = flipOp(op)
		}
		ce, ok := col.(*ColExpr)
		if !ok || ce.Index >= len(t.Columns) || !rowIndependent(other) || t.Columns[ce.Index].Type.Oid != cmp.t.Oid {
			continue
		}
		switch op {
		case "=":
			eq[ce.Index] = other
		case ">":
			lo[ce.Index] = bound{other, false}
		case ">=":
			lo[ce.Index] = bound{other, true}
		case "<":
			hi[ce.Index] = bound{other, false}
		case "<=":
			hi[ce.Index] = bound{other, true}
		}
	}
	// bounded is the access through ix that binds the longest leading run
	// of its columns by equality, then the next column by a range if the
	// WHERE clause has one; score counts what it binds.
	bounded := func(kind string, ix *catalog.Index) (a Access, score int) {
		a = Access{Kind: kind, ix: ix}
		for _, ci := range ix.Columns {
			v, ok := eq[ci]
			if !ok {
				break
			}
			a.eq = append(a.eq, v)
		}
		score = 2 * len(a.eq)
		if len(a.eq) == len(ix.Columns) {
			return a, score
		}
		next := ix.Columns[len(a.eq)]
		if l, ok := lists[next]; ok {
			a.in, a.inArray = l.in, l.arr
			return a, score + 2
		}
		l, hasLo := lo[next]
		h, hasHi := hi[next]
		if !hasLo && !hasHi {
			return a, score
		}
		if hasLo {
			a.lo, a.loIncl = l.e, l.incl
		}
		if hasHi {
			a.hi, a.hiIncl = h.e, h.incl
		}
		return a, score + 1
	}
	if pk := t.PrimaryKey(); pk != nil {
		if a, score := bounded("pk-range", pk); len(a.eq) == len(pk.Columns) {
			a.Kind = "pk-point"
			return a
		} else if score > 0 {
			return a
		}
	}
	for _, ix := range t.Indexes {
		if ix.Primary || ix.NonUnique || implied(ix) < 0 {
			continue
		}
		if a, _ := bounded("unique-point", ix); len(a.eq) == len(ix.Columns) {
			return a
		} else if a.hasIn() && len(a.eq)+1 == len(ix.Columns) {
			a.Kind = "index-scan"
			return a
		}
	}
	best, bestScore := Access{Kind: "seq"}, 0
	for _, ix := range t.Indexes {
		n := implied(ix)
		if ix.Primary || !ix.NullEntries || n < 0 {
			continue
		}
		a, score := bounded("index-scan", ix)
		if score > 0 && score+2*n > bestScore {
			best, bestScore = a, score+2*n
		}
	}
	return best
}

func Conjuncts(e Expr) []Expr {
	if l, ok := e.(*logicExpr); ok && l.and {
		return append(Conjuncts(l.l), Conjuncts(l.r)...)
	}
	return []Expr{e}
}

func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// rowIndependent reports whether e's value does not depend on the row.
func rowIndependent(e Expr) bool {
	switch x := e.(type) {
	case *ConstExpr, *ParamExpr, *outerColExpr:
		return true
	case *castExpr:
		return rowIndependent(x.e)
	}
	return false
}

// Column describes one result column, as RowDescription carries it.
type Column struct {
	Name     string
	Type     types.T
	TableOID uint32 // 0 unless the column comes straight from a table
	AttNum   int16  // the table column's number (1-based), or 0
}

// errUnpopulated is the error of reading a materialized view that WITH
// NO DATA left empty.
func errUnpopulated(t *catalog.Table) error {
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "materialized view %q has not been populated", t.Name).
		WithHint("Use the REFRESH MATERIALIZED VIEW command.")
}

// TableOID reads the system column tableoid of a table or catalog in
// FROM: the oid of the relation a row comes from, which pg_dump reads of
// every catalog it lists. A table's row is the one scope column after its
// columns that names the relation (the hidden key); a subquery or a
// function in FROM has none, as in PostgreSQL.
func (c *Compiler) tableOID(table, name string) (Expr, bool, error) {
	if name != "tableoid" {
		return nil, false, nil
	}
	var e *tableOIDExpr
	for i, col := range c.Scope.Cols {
		if col.Name != HiddenKey || col.TableOID == 0 || (table != "" && col.Table != table) {
			continue
		}
		if e != nil {
			return nil, false, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
		}
		e = &tableOIDExpr{key: i, oid: int64(col.TableOID)}
	}
	if e == nil {
		return nil, false, nil
	}
	if c.lvl != nil {
		c.lvl.refs++
	}
	return e, true, nil
}

// tableOIDExpr is tableoid: the oid of the relation the row comes from,
// and NULL in a row an outer join padded, whose hidden key is NULL. Rows
// of catalogs and sequences carry PresentKey there for that reason.
type tableOIDExpr struct {
	key int // the hidden key's place in the row
	oid int64
}

func (e *tableOIDExpr) Type() types.T { return types.OidType }

func (e *tableOIDExpr) Eval(env *Env) (any, error) {
	if env.Row[e.key] == nil {
		return nil, nil
	}
	return e.oid, nil
}

// PresentKey fills the hidden key slot of a row that has no key, a
// catalog's or a sequence's, to tell it from a NULL-padded one.
var PresentKey = []byte{}
