package plan

import (
	"slices"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// WITH queries.
//
// A WITH query (CTE) belongs to the query level whose WITH clause defines
// it. Its rows are computed at most once per execution of that level, and
// only as far as its readers read: each reader has its own position in
// the one list of rows computed so far, and reading past its end computes
// more. So a WITH query no one reads is never run, and a LIMIT over an
// endless recursive one ends, as in PostgreSQL. (PostgreSQL inlines a WITH
// query read once instead, when that cannot change the result.)
//
// WITH RECURSIVE evaluates non-recursive-term UNION [ALL] recursive-term
// by iteration: the rows of the non-recursive term are the first working
// table; each round runs the recursive term, whose one reference to the
// query reads the working table, and its new rows (without UNION's
// duplicates) are the next; the query's rows are those of every round,
// and it ends with a round that adds none.

// CTE is a planned WITH query.
type CTE struct {
	name  string
	cols  []Column
	plan  QueryPlan
	depth int // of the level that defines it
	// Write is the statement of a data-modifying WITH query, or nil.
	Write *WritePlan

	// phase tells references made while a recursive query is planned
	// where they are: in the non-recursive term, which may not read the
	// query, or the recursive term, where the one reference reads the
	// working table.
	phase     recursionPhase
	selfRefs  int
	workTable *workTable
}

type recursionPhase int

const (
	planned recursionPhase = iota
	inNonRecursiveTerm
	inRecursiveTerm
)

// cteScope is the WITH queries visible to a query, innermost first.
type cteScope struct {
	cte  *CTE
	next *cteScope
}

func (s *cteScope) lookup(name string) *CTE {
	for ; s != nil; s = s.next {
		if s.cte.name == name {
			return s.cte
		}
	}
	return nil
}

// PlanWith plans a WITH clause. It returns the compiler for the query the
// clause belongs to, which sees the WITH queries, and their plans. Each
// WITH query sees the ones before it, and a recursive one itself.
func (c *Compiler) PlanWith(w *ast.WithClause) (*Compiler, []*CTE, error) {
	cc := *c
	var defs []*CTE
	for _, n := range w.CTEs {
		name := n.Name.O
		if slices.ContainsFunc(defs, func(d *CTE) bool { return d.name == name }) {
			return nil, nil, pgerr.New(pgerr.DuplicateAlias, "WITH query name %q specified more than once", name)
		}
		d := &CTE{name: name, depth: c.depth()}
		var err error
		if i, ok := parser.DMLIndex(n.Query.Query); ok && c.WithDML != nil {
			err = cc.planDMLCTE(d, n, i, w.IsRecursive)
		} else if w.IsRecursive && readsTable(n.Query.Query, name) {
			err = cc.planRecursive(d, n)
		} else {
			if d.plan, err = cc.PlanQuery(n.Query.Query); err == nil {
				d.cols, err = cteColumns(d, n, d.plan.Columns())
			}
		}
		if err != nil {
			return nil, nil, err
		}
		cc.ctes = &cteScope{cte: d, next: cc.ctes}
		defs = append(defs, d)
	}
	return &cc, defs, nil
}

// cteColumns names a WITH query's columns, from its column list if any.
func cteColumns(d *CTE, n *ast.CommonTableExpression, cols []Column) ([]Column, error) {
	cols = slices.Clone(cols)
	if len(n.ColNameList) > len(cols) {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified",
			d.name, len(cols), len(n.ColNameList))
	}
	for i, cn := range n.ColNameList {
		cols[i].Name = cn.O
	}
	return cols, nil
}

// readsTable reports whether a query names a table called name anywhere,
// subqueries included.
func readsTable(n ast.Node, name string) bool {
	f := &tableFinder{name: name}
	n.Accept(f)
	return f.found
}

type tableFinder struct {
	name  string
	found bool
}

func (f *tableFinder) Enter(n ast.Node) (ast.Node, bool) {
	if tn, ok := n.(*ast.TableName); ok && tn.Schema.O == "" && tn.Name.O == f.name {
		f.found = true
	}
	return n, f.found
}

func (f *tableFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// planRecursive plans a WITH RECURSIVE query that reads itself.
func (c *Compiler) planRecursive(d *CTE, n *ast.CommonTableExpression) error {
	notForm := pgerr.New(pgerr.InvalidRecursion,
		"recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", d.name)
	body, ok := n.Query.Query.(*ast.SetOprStmt)
	if !ok || body.With != nil || body.SelectList.With != nil || len(body.SelectList.Selects) < 2 {
		return notForm
	}
	if body.OrderBy != nil || body.SelectList.OrderBy != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented")
	}
	if body.Limit != nil || body.SelectList.Limit != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented")
	}
	// The recursive term is the right side of the last UNION; INTERSECT
	// would bind it to the operand before it.
	items := body.SelectList.Selects
	last := items[len(items)-1]
	op := setOperator(last)
	if op == nil || (*op != ast.Union && *op != ast.UnionAll) {
		return notForm
	}
	d.workTable = &workTable{}
	cc := *c
	cc.ctes = &cteScope{cte: d, next: c.ctes}
	var left ast.Node = &ast.SetOprSelectList{Selects: items[:len(items)-1]}
	if len(items) == 2 {
		left = items[0]
	}
	d.phase = inNonRecursiveTerm
	lp, err := cc.planSetItem(left)
	if err != nil {
		return err
	}
	if d.cols, err = cteColumns(d, n, lp.Columns()); err != nil {
		return err
	}
	for i := range d.cols {
		// The rows come from both terms, not straight from one table.
		d.cols[i].TableOID, d.cols[i].AttNum = 0, 0
	}
	d.phase = inRecursiveTerm
	rp, err := cc.planSetItem(last)
	d.phase = planned
	if err != nil {
		return err
	}
	if sp, ok := rp.(*SelectPlan); ok && sp.agg != nil {
		return pgerr.New(pgerr.InvalidRecursion, "aggregate functions are not allowed in a recursive query's recursive term")
	}
	rc := InputTypes(rp)
	if len(rc) != len(d.cols) {
		return pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	p := &recursivePlan{d: d, left: lp, right: rp, distinct: *op == ast.Union}
	// The non-recursive term fixes the column types; the recursive term's
	// rows are converted to them, if they can be without changing them.
	conv := make([]Expr, len(rc))
	same := true
	for i, rt := range rc {
		lt := d.cols[i].Type
		conv[i] = &ColExpr{T: rt, Index: i}
		if rt == lt || (rt.Oid == types.OidUnknown && lt.Oid == types.OidText) {
			continue
		}
		if rt.Oid != types.OidUnknown {
			t, ok := unify(lt, rt)
			if !ok {
				return pgerr.New(pgerr.DatatypeMismatch, "UNION types %s and %s cannot be matched", lt, rt)
			}
			if t.Oid != lt.Oid {
				return pgerr.New(pgerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall",
					d.name, i+1, lt, t).WithHint("Cast the output of the non-recursive term to the correct type.")
			}
		}
		same = false
		if conv[i], err = c.Coerce(conv[i], lt); err != nil {
			return err
		}
	}
	if !same {
		p.conv = conv
	}
	d.plan = p
	return nil
}

// planSetItem plans an operand of a set operation.
func (c *Compiler) planSetItem(n ast.Node) (QueryPlan, error) {
	switch n := n.(type) {
	case *ast.SelectStmt:
		return c.planSelect(n)
	case *ast.SetOprSelectList:
		return c.planSetList(nil, n, nil, nil)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%T in a set operation is not supported", n)
}

// workTable keys a recursive query's working table in the ExecCtx of the
// level that defines the query.
type workTable struct{}

// recursivePlan is a recursive WITH query's iteration.
type recursivePlan struct {
	d           *CTE
	left, right QueryPlan
	distinct    bool   // UNION, not UNION ALL
	conv        []Expr // converts the recursive term's rows, or nil
}

func (p *recursivePlan) Columns() []Column { return p.d.cols }

func (p *recursivePlan) Describe(e *Explainer) *Node {
	l, r := e.Node(p.left).as("Outer"), e.Node(p.right).as("Inner")
	// PostgreSQL's guess: ten rounds of the recursive term.
	return &Node{Type: "Recursive Union", Kids: []*Node{l, r},
		Est: Estimate{Total: l.Est.Total + 10*r.Est.Total, Rows: l.Est.Rows + 10*r.Est.Rows, Width: l.Est.Width}}
}

func (p *recursivePlan) Open(x *ExecCtx) (rowexec.RowIter, error) {
	cur, err := open(x, p.left)
	if err != nil {
		return nil, err
	}
	var seen map[string]bool
	if p.distinct {
		seen = make(map[string]bool)
	}
	// next holds this round's rows, the next working table; work the one
	// the recursive term reads now. Both keep to work_mem.
	next, work := rowexec.NewRowStore(x), (*rowexec.RowStore)(nil)
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for cur != nil {
			row, err := cur.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				cur.Close()
				cur = nil
				if work != nil {
					work.Close()
				}
				work, next = next, nil
				if work.Len() == 0 {
					return nil, nil
				}
				if err := x.Ctx.Err(); err != nil {
					return nil, pgerr.Convert(err)
				}
				if x.cache == nil {
					x.cache = make(map[any]any)
				}
				x.cache[p.d.workTable], next = work, rowexec.NewRowStore(x)
				if cur, err = open(x, p.right); err != nil {
					return nil, err
				}
				if p.conv != nil {
					cur = &ProjectIter{In: cur, X: x, Exprs: p.conv}
				}
				continue
			}
			if seen != nil {
				var k []byte
				for i, col := range p.d.cols {
					k = types.AppendKey(k, col.Type, row[i], false)
				}
				if seen[string(k)] {
					continue
				}
				seen[string(k)] = true
			}
			if err := next.Add(row); err != nil {
				return nil, err
			}
			return row, nil
		}
		return nil, nil
	}, Done: func() {
		if cur != nil {
			cur.Close()
		}
		for _, st := range []*rowexec.RowStore{work, next} {
			if st != nil {
				st.Close()
			}
		}
	}}, nil
}

// workScan is the recursive term's reference to its own query: the rows
// of the last round.
type workScan struct {
	d     *CTE
	alias string
}

func (s *workScan) Open(x *ExecCtx) (rowexec.RowIter, error) {
	work, _ := x.cache[s.d.workTable].(*rowexec.RowStore)
	if work == nil {
		return &rowexec.SliceIter{}, nil
	}
	return work.Cursor(), nil
}

func (s *workScan) Describe(e *Explainer) *Node {
	return &Node{Type: "WorkTable Scan", Label: "WorkTable Scan on " + aliased(s.d.name, s.alias),
		Attrs: []Field{{"CTE Name", s.d.name}, {"Alias", s.alias}}, Est: Estimate{Total: 2, Rows: 10, Width: 32}}
}

// cteRows is a WITH query's rows in one execution: those computed so far,
// which every reader shares, in a row store (within work_mem), and the
// running query that computes more.
type cteRows struct {
	rows *rowexec.RowStore
	more rowexec.RowIter // nil once every row is computed
}

// next returns the row c, one of the readers, reads next, computing it if
// need be; nil past the last.
func (r *cteRows) next(c *rowexec.StoreCursor) ([]any, error) {
	for c.Pos() >= r.rows.Len() && r.more != nil {
		row, err := r.more.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			r.more.Close()
			r.more = nil
			break
		}
		if err := r.rows.Add(row); err != nil {
			return nil, err
		}
	}
	return c.Next()
}

// close ends the query and drops its rows, once the execution is done.
func (r *cteRows) close() {
	if r.more != nil {
		r.more.Close()
		r.more = nil
	}
	r.rows.Close()
}

// cteScan reads a WITH query.
type cteScan struct {
	d     *CTE
	alias string
	up    int // how many levels out the WITH query's level is
}

func (s *cteScan) Open(x *ExecCtx) (rowexec.RowIter, error) {
	r, err := s.d.rowsIn(x.up(s.up))
	if err != nil {
		return nil, err
	}
	c := r.rows.Cursor()
	return &rowexec.FuncIter{F: func() ([]any, error) { return r.next(c) }}, nil
}

// rowsIn returns d's rows in x, the execution of the level that defines
// it, starting the query the first time.
func (d *CTE) rowsIn(x *ExecCtx) (*cteRows, error) {
	if r, ok := x.cache[d].(*cteRows); ok {
		return r, nil
	}
	it, err := open(x, d.plan)
	if err != nil {
		return nil, err
	}
	r := &cteRows{rows: rowexec.NewRowStore(x), more: it}
	if x.cache == nil {
		x.cache = make(map[any]any)
	}
	x.cache[d] = r
	return r, nil
}

func (s *cteScan) Describe(e *Explainer) *Node {
	// The WITH query's own node is its parent's InitPlan; this scan reads
	// its rows, as many as a throwaway description of it expects.
	in := (&Explainer{tables: e.tables}).Node(s.d.plan).Est
	return &Node{Type: "CTE Scan", Label: "CTE Scan on " + aliased(s.d.name, s.alias),
		Attrs: []Field{{"CTE Name", s.d.name}, {"Alias", s.alias}},
		Est:   Estimate{Total: in.Rows * cpuTupleCost * 2, Rows: in.Rows, Width: in.Width}}
}

func aliased(name, alias string) string {
	if alias != name {
		return name + " " + alias
	}
	return name
}

// planCTEScan plans a reference to a WITH query. A subquery that reads a
// WITH query of an enclosing level can be cached no further out than that
// level, whose execution the rows belong to.
func (c *Compiler) planCTEScan(d *CTE, alias string) (Source, *Scope, error) {
	switch d.phase {
	case inNonRecursiveTerm:
		return nil, nil, pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", d.name)
	case inRecursiveTerm:
		if c.depth() != d.depth {
			return nil, nil, pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within a subquery", d.name)
		}
		if d.selfRefs++; d.selfRefs > 1 {
			return nil, nil, pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear more than once", d.name)
		}
		return &workScan{d: d, alias: alias}, queryScope(d.cols, alias), nil
	}
	if d.Write != nil && d.Write.Returning == nil {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "WITH query %q does not have a RETURNING clause", d.name)
	}
	for cc := c; cc.depth() > d.depth; cc = cc.outer {
		cc.lvl.anchor = max(cc.lvl.anchor, d.depth)
	}
	return &cteScan{d: d, alias: alias, up: c.depth() - d.depth}, queryScope(d.cols, alias), nil
}
