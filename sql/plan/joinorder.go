package plan

import (
	"math"
	"slices"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Join order. FROM items are joined in the order written, a left-deep
// tree of nested loops (hash joins where an equality allows), into which
// PushDown moves the WHERE clause's conjuncts. Written orders are
// usually connected: each item after the first shares a conjunct with
// those before it. Generated SQL often is not, and an item that nothing
// connects yet is a cross product, of every row so far with all of its
// rows; over tens of tables that runs for hours.
//
// So for an inner join of base tables whose written order is not
// connected, the planner picks another: it starts at the first item a
// conjunct of its own filters (or else the first), and each time takes
// the first remaining item that a conjunct connects to those taken,
// preferring one that a conjunct of its own filters too, and an item
// that nothing connects only when none is. The tree's rows are permuted
// back into the written order, so that the scope, SELECT * and
// everything compiled over them are as if nothing had moved.
//
// With the statistics ANALYZE keeps (or its defaults without them), the
// order is chosen by estimated cost instead (costedOrder): dynamic
// programming over the subsets of up to dpLimit items, a greedy search
// beyond, among orders that never take an item no conjunct connects
// while one that a conjunct connects remains. A join's right side is the
// one its hash table holds, so the search also decides which side of a
// two-table join is hashed: the smaller.

// joinItem is one FROM item of an inner join: its source and scope, and
// where its columns sit in the written order's rows.
type joinItem struct {
	src   Source
	scope *Scope
	at    int
}

// conjunctRefs is a conjunct of the WHERE clause or of an ON condition
// and the items it reads; known is false when some column it names is
// no item's (an enclosing query's, or ambiguous).
type conjunctRefs struct {
	cond  ast.ExprNode
	items []int
	known bool
}

// planJoinOrder plans from, of whose FROM clause the syntactic plan is
// src and sc, in a connected order if its written one is not (see
// above). It returns a *permuted, with the ON conditions pushed into the
// tree, or src unchanged.
func (c *Compiler) planJoinOrder(from *ast.TableRefsClause, where ast.ExprNode, src Source, sc *Scope) Source {
	if from == nil {
		return src
	}
	var sources []*ast.TableSource
	var ons []ast.ExprNode
	if !c.innerTables(from.TableRefs, &sources, &ons) || len(sources) < 2 {
		return src
	}
	items := make([]joinItem, len(sources))
	width := 0
	for i, ts := range sources {
		tn := ts.Source.(*ast.TableName)
		alias := ts.AsName.O
		if alias == "" {
			alias = tn.Name.O
		}
		s, scope, err := c.planTable(tn, alias)
		if err != nil {
			return src
		}
		items[i] = joinItem{src: s, scope: scope, at: width}
		width += len(scope.Cols)
	}
	if width != len(sc.Cols) {
		return src
	}
	var conds []conjunctRefs
	var wheres []ast.ExprNode
	if where != nil {
		wheres = astConjuncts(where)
	}
	if len(wheres)+len(ons) == 0 {
		return src
	}
	for _, cond := range append(wheres, ons...) {
		if !HasSubquery(cond) {
			conds = append(conds, itemsRead(cond, items))
		} else if slices.Contains(ons, cond) {
			return src // an ON condition must go into the tree, and this one cannot
		}
	}
	order := c.costedOrder(items, conds)
	if order == nil {
		order = connectedOrder(len(items), conds)
	}
	if order == nil {
		return src
	}
	// The tree in the new order, and where each of the written order's
	// columns is in its rows.
	var tree Source
	var cols []ScopeCol
	perm := make([]int, width)
	for _, i := range order {
		it := items[i]
		for k := range it.scope.Cols {
			perm[it.at+k] = len(cols) + k
		}
		if tree == nil {
			tree, cols = it.src, slices.Clone(it.scope.Cols)
			continue
		}
		tree = &NestedJoin{Left: tree, Right: it.src, LeftWidth: len(cols), RightWidth: len(it.scope.Cols)}
		cols = append(cols, it.scope.Cols...)
	}
	for _, cond := range ons {
		var ok bool
		if tree, ok = c.pushInto(tree, cols, cond); !ok {
			e, ok := c.compileLocal(cols, cond, true)
			if !ok {
				return src
			}
			tree = &filtered{in: tree, pred: e, cols: cols}
		}
	}
	return &permuted{in: tree, cols: cols, perm: perm}
}

// innerTables flattens a join tree of inner joins of base tables into its
// items and the conjuncts of its ON conditions, and reports whether it is
// one: no outer join, USING, NATURAL, LATERAL, function, subquery, or
// name of a CTE or transition table.
func (c *Compiler) innerTables(n ast.ResultSetNode, items *[]*ast.TableSource, ons *[]ast.ExprNode) bool {
	switch n := n.(type) {
	case *ast.Join:
		if n.Right == nil {
			return c.innerTables(n.Left, items, ons)
		}
		if n.Tp != ast.CrossJoin || n.StraightJoin || n.NaturalJoin || len(n.Using) > 0 {
			return false
		}
		if !c.innerTables(n.Left, items, ons) || !c.innerTables(n.Right, items, ons) {
			return false
		}
		if n.On != nil {
			*ons = append(*ons, astConjuncts(n.On.Expr)...)
		}
		return true
	case *ast.TableSource:
		tn, ok := n.Source.(*ast.TableName)
		if !ok || n.Lateral || tableFuncCall(n) != nil {
			return false
		}
		if tn.Schema.O == "" && (c.ctes.lookup(tn.Name.O) != nil || c.Host.Transition(tn.Name.O) != nil) {
			return false
		}
		*items = append(*items, n)
		return true
	}
	return false
}

// itemsRead finds the items whose columns cond names.
func itemsRead(cond ast.ExprNode, items []joinItem) conjunctRefs {
	r := conjunctRefs{cond: cond, known: true}
	cond.Accept(&ColumnVisitor{Visit: func(cn *ast.ColumnNameExpr) {
		owner := -1
		for i, it := range items {
			if _, _, err := it.scope.resolve(cn.Name.Table.O, cn.Name.Name.O); err == nil {
				if owner >= 0 {
					r.known = false // ambiguous: compiling it will say so
				}
				owner = i
			}
		}
		switch {
		case owner < 0:
			r.known = false
		case !slices.Contains(r.items, owner):
			r.items = append(r.items, owner)
		}
	}})
	return r
}

// connectedOrder is the order in which to join n items that conds
// connect, or nil if the written order is connected already.
func connectedOrder(n int, conds []conjunctRefs) []int {
	filtered := make([]bool, n)
	for _, cr := range conds {
		if cr.known && len(cr.items) == 1 {
			filtered[cr.items[0]] = true
		}
	}
	// connects reports whether a conjunct joins item i to those in taken.
	connects := func(taken []bool, i int) bool {
		for _, cr := range conds {
			if !cr.known || len(cr.items) < 2 || !slices.Contains(cr.items, i) {
				continue
			}
			in, rest := false, true
			for _, j := range cr.items {
				if j != i {
					in = in || taken[j]
					rest = rest && taken[j]
				}
			}
			if in && rest {
				return true
			}
		}
		return false
	}
	taken := make([]bool, n)
	taken[0] = true
	written := true
	for i := 1; i < n && written; i++ {
		written = connects(taken, i)
		taken[i] = true
	}
	if written {
		return nil
	}
	clear(taken)
	start := max(0, slices.Index(filtered, true))
	order := []int{start}
	taken[start] = true
	for len(order) < n {
		next := -1
		for i := range n {
			if taken[i] || !connects(taken, i) {
				continue
			}
			if next < 0 || filtered[i] && !filtered[next] {
				next = i
			}
		}
		if next < 0 { // nothing connects to what is taken: a cross product
			next = slices.Index(taken, false)
		}
		order = append(order, next)
		taken[next] = true
	}
	return order
}

// permuted is a join tree in an order of its own, whose rows it gives in
// the written order's: column i of its rows is column perm[i] of the
// tree's, whose scope's columns are cols.
type permuted struct {
	in   Source
	cols []ScopeCol
	perm []int
}

func (p *permuted) Open(x *ExecCtx) (rowexec.RowIter, error) {
	it, err := open(x, p.in)
	if err != nil {
		return nil, err
	}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		r, err := it.Next()
		if r == nil || err != nil {
			return nil, err
		}
		out := make([]any, len(p.perm))
		for i, k := range p.perm {
			out[i] = r[k]
		}
		return out, nil
	}, Done: it.Close}, nil
}

func (p *permuted) Describe(e *Explainer) *Node {
	n := e.Node(p.in)
	n.cols = p.cols
	return n
}

// dpLimit is the most items costedOrder searches exhaustively; beyond,
// it builds the order greedily, as PostgreSQL's geqo_threshold hands
// larger joins to its genetic search.
const dpLimit = 10

// joinEstimates are what costedOrder knows of the items: each one's
// rows after its own filters, and the selectivity of each conjunct that
// joins items, with the items it needs.
type joinEstimates struct {
	rows  []float64
	joins []joinConjunct
	// lookups[i] holds the items whose rows can find their match in i
	// through an index of i's (an equality of their column with a
	// leading indexed column of i's), with the cost of a lookup.
	lookups []map[int]float64
}

type joinConjunct struct {
	mask uint64 // the items it reads
	sel  float64
}

// card is the estimated rows of a join of the items in mask.
func (je *joinEstimates) card(mask uint64) float64 {
	r := 1.0
	for i, n := range je.rows {
		if mask&(1<<i) != 0 {
			r *= n
		}
	}
	for _, j := range je.joins {
		if j.mask&mask == j.mask {
			r *= j.sel
		}
	}
	return max(1, r)
}

// connected reports whether a conjunct joins item i to those in mask.
func (je *joinEstimates) connected(mask uint64, i int) bool {
	for _, j := range je.joins {
		if j.mask&(1<<i) != 0 && j.mask&^(1<<i)&^mask == 0 && j.mask&mask != 0 {
			return true
		}
	}
	return false
}

// step is the cost of joining item i to the items in mask: a hash join
// builds a table of i's rows and probes it with mask's; an item no
// conjunct connects is a nested loop over every pair.
func (je *joinEstimates) step(mask uint64, i int) float64 {
	left, right, out := je.card(mask), je.rows[i], je.card(mask|1<<i)
	if !je.connected(mask, i) {
		return left*right + out
	}
	cost := 1.5*right + left + out
	for j, lookup := range je.lookups[i] {
		if mask&(1<<j) != 0 {
			// An index nested loop: a lookup per row so far.
			cost = min(cost, left*lookup+out)
		}
	}
	return cost
}

// costedOrder is the cheapest order of items by the estimates, or nil
// when the written order is as cheap (or the estimates cannot be made).
func (c *Compiler) costedOrder(items []joinItem, conds []conjunctRefs) []int {
	n := len(items)
	if n > 64 {
		return nil
	}
	je := &joinEstimates{rows: make([]float64, n), lookups: make([]map[int]float64, n)}
	tables := make(map[uint32]*catalog.Table)
	for i, it := range items {
		ts, ok := it.src.(*TableScan)
		if !ok {
			return nil
		}
		tables[ts.Table.ID] = ts.Table
		je.rows[i] = tableRows(ts.Table)
	}
	for _, cr := range conds {
		if !cr.known || len(cr.items) == 0 {
			continue
		}
		var cols []ScopeCol
		var mask uint64
		for _, i := range cr.items {
			cols = append(cols, items[i].scope.Cols...)
			mask |= 1 << i
		}
		sel := defaultSel
		if e, ok := c.compileLocal(cols, cr.cond, true); ok {
			sel = estimator{cols: cols, tables: tables}.selectivity(e)
		}
		if len(cr.items) == 1 {
			je.rows[cr.items[0]] = max(1, je.rows[cr.items[0]]*sel)
			continue
		}
		je.joins = append(je.joins, joinConjunct{mask: mask, sel: sel})
		if len(cr.items) == 2 {
			je.noteLookup(items, cr.items[0], cr.items[1], cr.cond)
			je.noteLookup(items, cr.items[1], cr.items[0], cr.cond)
		}
	}
	cost := func(order []int) float64 {
		total, mask := 0.0, uint64(1)<<order[0]
		for _, i := range order[1:] {
			total += je.step(mask, i)
			mask |= 1 << i
		}
		return total
	}
	var best []int
	if n <= dpLimit {
		best = je.dp(n)
	} else {
		best = je.greedy(n)
	}
	written := make([]int, n)
	for i := range written {
		written[i] = i
	}
	if best == nil || slices.Equal(best, written) || cost(best) >= 0.9*cost(written) {
		return nil
	}
	return best
}

// dp finds the cheapest left-deep order of n items: for each subset, the
// cheapest order of it, built from its subsets one item smaller. It
// extends a subset by an item no conjunct connects only when none that
// one connects is left.
func (je *joinEstimates) dp(n int) []int {
	type entry struct {
		cost  float64
		order []int
	}
	full := uint64(1)<<n - 1
	best := make(map[uint64]entry, 1<<n)
	for i := range n {
		best[1<<i] = entry{0, []int{i}}
	}
	for size := 1; size < n; size++ {
		for mask, e := range best {
			if bitsSet(mask) != size {
				continue
			}
			anyConnected := false
			for i := range n {
				if mask&(1<<i) == 0 && je.connected(mask, i) {
					anyConnected = true
					break
				}
			}
			for i := range n {
				if mask&(1<<i) != 0 || anyConnected && !je.connected(mask, i) {
					continue
				}
				next := mask | 1<<i
				cost := e.cost + je.step(mask, i)
				if old, ok := best[next]; !ok || cost < old.cost {
					best[next] = entry{cost, append(slices.Clone(e.order), i)}
				}
			}
		}
	}
	return best[full].order
}

func bitsSet(m uint64) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// greedy builds an order of n items one at a time: it starts with the
// item whose cheapest first join is cheapest, then takes the connected
// item that is cheapest to join next.
func (je *joinEstimates) greedy(n int) []int {
	var bestOrder []int
	bestCost := math.Inf(1)
	for start := range n {
		mask, order, total := uint64(1)<<start, []int{start}, 0.0
		for len(order) < n {
			next, nextCost := -1, math.Inf(1)
			connected := false
			for i := range n {
				if mask&(1<<i) != 0 {
					continue
				}
				ok := je.connected(mask, i)
				if connected && !ok {
					continue
				}
				cost := je.step(mask, i)
				if ok && !connected || cost < nextCost {
					next, nextCost, connected = i, cost, connected || ok
				}
			}
			order, mask, total = append(order, next), mask|1<<next, total+nextCost
		}
		if total < bestCost {
			bestOrder, bestCost = order, total
		}
	}
	return bestOrder
}

// noteLookup records that item i can look up the rows of item j's
// matches through an index of i's, if cond equates a column of j with a
// leading indexed column of i.
func (je *joinEstimates) noteLookup(items []joinItem, i, j int, cond ast.ExprNode) {
	eq, ok := Unparen(cond).(*ast.BinaryOperationExpr)
	if !ok || eq.Op != opcode.EQ {
		return
	}
	ts := items[i].src.(*TableScan)
	for _, side := range []ast.ExprNode{eq.L, eq.R} {
		cn, ok := Unparen(side).(*ast.ColumnNameExpr)
		if !ok {
			continue
		}
		idx, _, err := items[i].scope.resolve(cn.Name.Table.O, cn.Name.Name.O)
		if err != nil {
			continue
		}
		for _, ix := range ts.Table.Indexes {
			// A partial index may not serve (indexLoop decides, from the
			// filters); leave it out of the estimate.
			if len(ix.Columns) > 0 && ix.Columns[0] == idx && ix.Where == "" {
				c := ts.Table.Columns[idx]
				matches := 1.0
				if len(ix.Columns) > 1 || ix.NonUnique {
					matches = tableRows(ts.Table) * eqSelUnknown(colRef{t: ts.Table, col: c, stats: c.Stats})
				}
				if je.lookups[i] == nil {
					je.lookups[i] = make(map[int]float64)
				}
				je.lookups[i][j] = lookupCost(ix, matches)
				return
			}
		}
	}
}
