package plan

import (
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// setOpPlan is UNION, INTERSECT or EXCEPT of two queries. Rows are
// duplicates when each column is equal or NULL in both, as with DISTINCT.
// Without ALL the result has no duplicates; with ALL a row that occurs m
// times on the left and n times on the right occurs m+n times in UNION
// ALL, min(m, n) times in INTERSECT ALL and max(m-n, 0) times in EXCEPT
// ALL. Rows come out in the order of their first occurrence on the left,
// then (for UNION) on the right; PostgreSQL promises no order without
// ORDER BY either.
type setOpPlan struct {
	kind        string // "UNION", "INTERSECT" or "EXCEPT"
	all         bool
	left, right QueryPlan
	cols        []Column
	// conv converts the rows of each side to cols' types, or is nil when
	// the side's types are cols' already.
	conv [2][]Expr
}

func (p *setOpPlan) Columns() []Column { return p.cols }

func (p *setOpPlan) Describe(e *Explainer) *Node {
	left, right := e.Node(p.left), e.Node(p.right)
	sum := Estimate{Total: left.Est.Total + right.Est.Total, Rows: left.Est.Rows + right.Est.Rows, Width: max(left.Est.Width, right.Est.Width)}
	agg := sum
	agg.Startup = sum.Total + sum.Rows*cpuOperCost
	agg.Total = agg.Startup + sum.Rows*cpuTupleCost
	if p.kind != "UNION" {
		// HashSetOp reads both inputs, tagged, from an Append.
		cmd := p.kind[:1] + strings.ToLower(p.kind[1:])
		if p.all {
			cmd += " All"
		}
		app := &Node{Type: "Append", Parent: "Outer", Kids: []*Node{subqueryScan(left), subqueryScan(right)}, Est: sum, Stats: passedStats(left, right)}
		agg.Rows = left.Est.Rows
		return &Node{Type: "SetOp", Label: "HashSetOp " + cmd, Attrs: []Field{{"Command", cmd}, {"Strategy", "Hashed"}}, Kids: []*Node{app}, Est: agg}
	}
	app := &Node{Type: "Append", Kids: []*Node{left.as("Member"), right.as("Member")}, Est: sum, Stats: passedStats(left, right)}
	if p.all {
		return app
	}
	app.Parent = "Outer"
	return &Node{Type: "Aggregate", Label: "HashAggregate", Attrs: []Field{{"Strategy", "Hashed"}, {"Partial Mode", "Simple"}}, Kids: []*Node{app}, Est: agg}
}

// side opens one input, converted to the result's types.
func (p *setOpPlan) side(x *ExecCtx, i int) (rowexec.RowIter, error) {
	in := p.left
	if i == 1 {
		in = p.right
	}
	it, err := open(x, in)
	if err != nil || p.conv[i] == nil {
		return it, err
	}
	return &ProjectIter{In: it, X: x, Exprs: p.conv[i]}, nil
}

func (p *setOpPlan) key(row []any) string {
	var k []byte
	for i, col := range p.cols {
		k = types.AppendKey(k, col.Type, row[i], false)
	}
	return string(k)
}

func (p *setOpPlan) Open(x *ExecCtx) (rowexec.RowIter, error) {
	left, err := p.side(x, 0)
	if err != nil {
		return nil, err
	}
	if p.kind == "UNION" {
		return p.union(x, left), nil
	}
	// INTERSECT and EXCEPT count the right side's rows, then stream the
	// left side's through the counts; past work_mem, a pair of partitions
	// at a time (see counted).
	right, err := p.side(x, 1)
	if err != nil {
		left.Close()
		return nil, err
	}
	rrows, rest, err := rowexec.Gather(x, right)
	if err != nil {
		left.Close()
		return nil, err
	}
	if rest != nil {
		return p.partitioned(x, rowexec.Prepend(rrows, rest), left)
	}
	counts := make(map[string]int, len(rrows))
	for _, row := range rrows {
		counts[p.key(row)]++
	}
	return p.counted(left, counts), nil
}

// counted streams the left rows through the right rows' counts.
func (p *setOpPlan) counted(left rowexec.RowIter, counts map[string]int) rowexec.RowIter {
	intersect := p.kind == "INTERSECT"
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			row, err := left.Next()
			if row == nil || err != nil {
				return nil, err
			}
			k := p.key(row)
			n := counts[k]
			switch {
			case intersect && n == 0:
				continue
			case intersect && p.all:
				counts[k] = n - 1
			case intersect:
				counts[k] = 0 // emitted: later duplicates find no match
			case n > 0 && p.all:
				counts[k] = n - 1
				continue
			case n > 0:
				continue
			case !p.all:
				counts[k] = 1 // emitted: later duplicates are removed
			}
			return row, nil
		}
	}, Done: left.Close}
}

// partitioned is INTERSECT or EXCEPT whose right rows pass work_mem: both
// sides go to partitions by the hash of the whole row (each record the
// row's key, then the row), and each pair of partitions is counted and
// streamed on its own; a right partition that still does not fit is split
// again. Rows come out a pair of partitions at a time.
func (p *setOpPlan) partitioned(x *ExecCtx, right, left rowexec.RowIter) (rowexec.RowIter, error) {
	rparts, lparts := rowexec.NewPartitions(x, 0), rowexec.NewPartitions(x, 0)
	err := p.partitionRows(x, right, rparts)
	if err == nil {
		err = p.partitionRows(x, left, lparts)
	} else {
		left.Close()
	}
	var rf, lf [rowexec.SpillParts]*spill.File
	if err == nil {
		rf, err = rparts.TakeAll()
	}
	if err == nil {
		lf, err = lparts.TakeAll()
	}
	if err != nil {
		spill.RemoveAll(rf[:])
		rparts.Close()
		lparts.Close()
		return nil, err
	}
	var queue []rowexec.PartPair
	for i := range rowexec.SpillParts {
		if rf[i] != nil || lf[i] != nil {
			queue = append(queue, rowexec.PartPair{Right: rf[i], Left: lf[i], Level: 1})
		}
	}
	var cur rowexec.RowIter
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			if cur != nil {
				row, err := cur.Next()
				if row != nil || err != nil {
					return row, err
				}
				cur.Close()
				cur = nil
			}
			if len(queue) == 0 {
				return nil, nil
			}
			pair := queue[0]
			queue = queue[1:]
			var more []rowexec.PartPair
			var err error
			if cur, more, err = p.countPair(x, pair); err != nil {
				return nil, err
			}
			queue = append(more, queue...)
		}
	}, Done: func() {
		if cur != nil {
			cur.Close()
		}
		for _, pair := range queue {
			pair.Remove()
		}
	}}, nil
}

// partitionRows writes each row of it, after its key, to its partition.
func (p *setOpPlan) partitionRows(x *ExecCtx, it rowexec.RowIter, ps *rowexec.Partitions) error {
	defer it.Close()
	for {
		row, err := it.Next()
		if err == nil && row != nil {
			err = x.Canceled()
		}
		if err != nil || row == nil {
			return err
		}
		k := []byte(p.key(row))
		if err := ps.Add(k, append([]any{k}, row...)); err != nil {
			return err
		}
	}
}

// countPair counts a right partition and streams its left partition
// through the counts, or if the right one does not fit, splits the pair.
func (p *setOpPlan) countPair(x *ExecCtx, pair rowexec.PartPair) (rowexec.RowIter, []rowexec.PartPair, error) {
	if pair.Left == nil {
		pair.Remove() // right rows with no left rows to meet
		return &rowexec.SliceIter{}, nil, nil
	}
	counts := make(map[string]int)
	if pair.Right != nil {
		limit := x.WorkMem()
		var mem int64
		r := pair.Right.Reader(0)
		for {
			rec, err := r.Next()
			if err == nil && rec != nil {
				err = x.Canceled()
			}
			if err != nil {
				pair.Remove()
				return nil, nil, err
			}
			if rec == nil {
				break
			}
			k := string(rec[0].([]byte))
			if counts[k] == 0 {
				mem += 2*int64(len(k)) + 48
			}
			counts[k]++
			if mem > limit && pair.Level <= rowexec.MaxSpillLevel {
				pairs, err := rowexec.SplitPair(x, &rowexec.SpilledRows{File: pair.Right}, pair)
				return nil, pairs, err
			}
		}
		pair.Right.Remove()
	}
	return p.counted(withoutKeys(&rowexec.SpilledRows{File: pair.Left}), counts), nil, nil
}

// union streams the left side, then the right, dropping duplicates
// unless ALL. Without ALL it keeps a set of the rows it has returned while
// the set fits in work_mem; past that, a row the set does not hold goes,
// after its key, to a partition by the key's hash, and once both sides
// are done each partition is deduplicated on its own (see dedupPass).
func (p *setOpPlan) union(x *ExecCtx, left rowexec.RowIter) rowexec.RowIter {
	var seen map[string]bool
	if !p.all {
		seen = make(map[string]bool)
	}
	limit := x.WorkMem()
	var mem int64
	var parts *rowexec.Partitions
	var pending [][]any // rows a partition's pass kept
	var queue []spillPart
	cur, onRight := left, false
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			if len(pending) > 0 {
				row := pending[0]
				pending[0], pending = nil, pending[1:]
				return row, nil
			}
			if cur == nil {
				if len(queue) == 0 {
					return nil, nil
				}
				part := queue[0]
				queue = queue[1:]
				var more []spillPart
				var err error
				if pending, more, err = p.dedupPass(x, part); err != nil {
					return nil, err
				}
				queue = append(more, queue...) // deeper first: fewer files open
				continue
			}
			row, err := cur.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				cur.Close()
				cur = nil
				if !onRight {
					onRight = true
					if cur, err = p.side(x, 1); err != nil {
						return nil, err
					}
				} else if parts != nil {
					files, err := parts.Take()
					parts = nil
					if err != nil {
						return nil, err
					}
					for _, f := range files {
						queue = append(queue, spillPart{f, 1})
					}
				}
				continue
			}
			if seen != nil {
				k := p.key(row)
				if seen[k] {
					continue
				}
				if parts != nil {
					kb := []byte(k)
					if err := parts.Add(kb, append([]any{kb}, row...)); err != nil {
						return nil, err
					}
					continue
				}
				seen[k] = true
				if mem += 2*int64(len(k)) + 48; mem > limit {
					parts = rowexec.NewPartitions(x, 0)
				}
			}
			return row, nil
		}
	}, Done: func() {
		if cur != nil {
			cur.Close()
		}
		if parts != nil {
			parts.Close()
		}
		for _, part := range queue {
			part.f.Remove()
		}
	}}
}

// dedupPass keeps the first of each row of a partition of UNION's rows,
// as long as the set of them fits in work_mem; the rest go to partitions
// of the next level.
func (p *setOpPlan) dedupPass(x *ExecCtx, part spillPart) ([][]any, []spillPart, error) {
	it := &rowexec.SpilledRows{File: part.f}
	defer it.Close()
	seen := make(map[string]bool)
	limit := x.WorkMem()
	var mem int64
	var rows [][]any
	var parts *rowexec.Partitions
	for {
		rec, err := it.Next()
		if err == nil && rec != nil {
			err = x.Canceled()
		}
		if err != nil {
			if parts != nil {
				parts.Close()
			}
			return nil, nil, err
		}
		if rec == nil {
			break
		}
		kb := rec[0].([]byte)
		if seen[string(kb)] {
			continue
		}
		if parts != nil {
			if err := parts.Add(kb, rec); err != nil {
				parts.Close()
				return nil, nil, err
			}
			continue
		}
		seen[string(kb)] = true
		rows = append(rows, rec[1:])
		if mem += 2*int64(len(kb)) + spill.RowSize(rec) + 48; mem > limit && part.level <= rowexec.MaxSpillLevel {
			parts = rowexec.NewPartitions(x, part.level)
		}
	}
	if parts == nil {
		return rows, nil, nil
	}
	files, err := parts.Take()
	if err != nil {
		return nil, nil, err
	}
	var more []spillPart
	for _, f := range files {
		more = append(more, spillPart{f, part.level + 1})
	}
	return rows, more, nil
}

// setOpQuery is a set operation statement, or a parenthesized part of one,
// with what applies to its whole result: ORDER BY, OFFSET and LIMIT, and
// the WITH queries it defines.
type setOpQuery struct {
	in            QueryPlan
	order         []rowexec.SortKey
	limit, offset Expr
	ctes          []*CTE
	subs          []*subquery
}

func (q *setOpQuery) Columns() []Column { return q.in.Columns() }

func (q *setOpQuery) Open(x *ExecCtx) (rowexec.RowIter, error) {
	it, err := open(x, q.in)
	if err != nil {
		return nil, err
	}
	if len(q.order) > 0 {
		began := x.began()
		it, err = rowexec.SortFirst(x, it, rowexec.ByKeys(q.order), rowsRead(x, q.limit, q.offset))
		if it, err = x.tracked(q, "sort", began, it, err); err != nil {
			return nil, err
		}
	}
	if q.limit == nil && q.offset == nil {
		return it, nil
	}
	began := x.began()
	it, err = window(x, it, q.limit, q.offset)
	return x.tracked(q, "limit", began, it, err)
}

func (q *setOpQuery) Describe(e *Explainer) *Node {
	n := e.Node(q.in)
	if len(q.order) > 0 {
		n = sortNode(n)
		e.attach(n, q, "sort")
	}
	if q.limit != nil || q.offset != nil {
		n = limitNode(n, q.limit)
		e.attach(n, q, "limit")
	}
	e.parts(n, q.ctes, q.subs)
	return n
}

// planSetOpr plans a set operation statement.
func (c *Compiler) planSetOpr(n *ast.SetOprStmt) (QueryPlan, error) {
	return c.planSetList(n.With, n.SelectList, n.OrderBy, n.Limit)
}

// planSetList plans a list of queries joined by set operators, and the
// WITH, ORDER BY and LIMIT around it. TiDB gives the list flat, each
// operand after the first carrying the operator before it, and a
// parenthesized group as a nested list; as in PostgreSQL, INTERSECT binds
// more tightly than UNION and EXCEPT, which associate to the left.
func (c *Compiler) planSetList(with *ast.WithClause, l *ast.SetOprSelectList, order *ast.OrderByClause, limit *ast.Limit) (QueryPlan, error) {
	q := &setOpQuery{}
	cc := *c
	cc.subs = &q.subs
	c = &cc
	var err error
	for _, w := range []*ast.WithClause{with, l.With} {
		if w != nil {
			var ctes []*CTE
			if c, ctes, err = c.PlanWith(w); err != nil {
				return nil, err
			}
			q.ctes = append(q.ctes, ctes...)
		}
	}
	if order == nil && limit == nil {
		order, limit = l.OrderBy, l.Limit
	} else if l.OrderBy != nil || l.Limit != nil {
		return nil, pgerr.New(pgerr.SyntaxError, "multiple ORDER BY or LIMIT clauses not allowed")
	}
	var terms []QueryPlan
	var ops []ast.SetOprType
	for i, item := range l.Selects {
		if sel, ok := item.(*ast.SelectStmt); ok && locking(sel) && len(l.Selects) > 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with UNION/INTERSECT/EXCEPT", lockWord(sel.LockInfo))
		}
		plan, err := c.planSetItem(item)
		if err != nil {
			return nil, err
		}
		op := setOperator(item)
		switch {
		case i == 0:
			terms = append(terms, plan)
		case op == nil:
			return nil, pgerr.New(pgerr.InternalError, "set operation without an operator")
		case *op == ast.Intersect || *op == ast.IntersectAll:
			if terms[len(terms)-1], err = c.setOp(*op, terms[len(terms)-1], plan); err != nil {
				return nil, err
			}
		default:
			ops = append(ops, *op)
			terms = append(terms, plan)
		}
	}
	result := terms[0]
	for i, op := range ops {
		if result, err = c.setOp(op, result, terms[i+1]); err != nil {
			return nil, err
		}
	}
	q.in = result
	if order != nil {
		for _, item := range order.Items {
			key, err := setOpOrder(item, result.Columns())
			if err != nil {
				return nil, err
			}
			q.order = append(q.order, key)
		}
	}
	if q.limit, q.offset, err = c.planLimit(limit); err != nil {
		return nil, err
	}
	if q.order == nil && q.limit == nil && q.offset == nil && q.ctes == nil && q.subs == nil {
		return result, nil
	}
	return q, nil
}

// setOperator is the operator before an operand of a set operation, nil
// before the first.
func setOperator(n ast.Node) *ast.SetOprType {
	switch n := n.(type) {
	case *ast.SelectStmt:
		return n.AfterSetOperator
	case *ast.SetOprSelectList:
		return n.AfterSetOperator
	}
	return nil
}

// setOpOrder resolves an ORDER BY item of a set operation, which can name
// only a result column, by name or position.
func setOpOrder(item *ast.ByItem, cols []Column) (rowexec.SortKey, error) {
	e, key := orderItem(item)
	key.Idx = -1
	pos, ok, err := ordinal(e, "ORDER BY")
	if err != nil {
		return key, err
	}
	if ok {
		if pos < 1 || pos > len(cols) {
			return key, pgerr.New(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", pos)
		}
		key.Idx = pos - 1
	} else if cn, ok := e.(*ast.ColumnNameExpr); ok {
		if cn.Name.Table.O != "" {
			return key, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", cn.Name.Table.O)
		}
		for i, col := range cols {
			if col.Name != cn.Name.Name.O {
				continue
			}
			if key.Idx >= 0 {
				return key, pgerr.New(pgerr.AmbiguousColumn, "ORDER BY %q is ambiguous", col.Name)
			}
			key.Idx = i
		}
		if key.Idx < 0 {
			return key, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", cn.Name.Name.O)
		}
	} else {
		return key, pgerr.New(pgerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
			WithDetail("Only result column names can be used, not expressions or functions.").
			WithHint("Add the expression/function to every SELECT, or move the UNION into a FROM clause.")
	}
	key.T = cols[key.Idx].Type
	return key, nil
}

// setOp combines two queries. Each result column takes the type its two
// inputs resolve to, as PostgreSQL resolves each set operation on its own,
// innermost first: an untyped literal or NULL column takes the other
// side's type, and two of them are text.
func (c *Compiler) setOp(op ast.SetOprType, l, r QueryPlan) (*setOpPlan, error) {
	p := &setOpPlan{left: l, right: r}
	switch op {
	case ast.Union, ast.UnionAll:
		p.kind = "UNION"
	case ast.Intersect, ast.IntersectAll:
		p.kind = "INTERSECT"
	default:
		p.kind = "EXCEPT"
	}
	p.all = op == ast.UnionAll || op == ast.IntersectAll || op == ast.ExceptAll
	lc, rc := l.Columns(), r.Columns()
	if len(lc) != len(rc) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", p.kind)
	}
	in := [2][]types.T{InputTypes(l), InputTypes(r)}
	for i := range lc {
		lt, rt := in[0][i], in[1][i]
		var t types.T
		switch {
		case lt.Oid == types.OidUnknown && rt.Oid == types.OidUnknown:
			t = types.Text
		case lt == rt:
			t = lt
		default:
			var err error
			if t, err = selectCommonType(p.kind, []types.T{lt, rt}); err != nil {
				return nil, err
			}
		}
		if !p.all || p.kind != "UNION" {
			if err := checkComparable(t, false); err != nil {
				return nil, err
			}
		}
		p.cols = append(p.cols, Column{Name: lc[i].Name, Type: t})
	}
	for side, ts := range in {
		conv := make([]Expr, len(ts))
		same := true
		for i, t := range ts {
			conv[i] = &ColExpr{T: t, Index: i}
			if t == p.cols[i].Type || (t.Oid == types.OidUnknown && p.cols[i].Type.Oid == types.OidText) {
				continue
			}
			same = false
			if err := c.toCommonType(p.kind, conv[i:i+1], p.cols[i].Type); err != nil {
				return nil, err
			}
		}
		if !same {
			p.conv[side] = conv
		}
	}
	return p, nil
}

// InputTypes are a set operation input's column types, with unknown for
// a SELECT's untyped literals and NULLs, which the input itself gave the
// type text.
func InputTypes(plan QueryPlan) []types.T {
	var ts []types.T
	sp, _ := plan.(*SelectPlan)
	for i, col := range plan.Columns() {
		if sp != nil && slices.Contains(sp.untyped, i) {
			ts = append(ts, types.Unknown)
		} else {
			ts = append(ts, col.Type)
		}
	}
	return ts
}
