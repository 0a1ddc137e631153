package plan

import (
	"slices"

	"github.com/epochdb/epochdb/sql/catalog"
)

// Index nested loops. A hash join reads its whole right side into a hash
// table before it meets a left row; when the left side has few rows and
// the right side is a table with an index on the join's columns, looking
// each left row's match up in the index costs far less (a join that
// picks one order and reads its customer: one lookup, not a scan of
// every customer). indexLoops makes such a join an index nested loop: its
// right side is opened again for each left row, as a LATERAL one is, with
// an access path that reads the left row's key values (outerColExpr) as
// a correlated subquery reads its enclosing row's.

// loopLookupCost is the estimated cost of one index lookup, in the cost
// units of estimate.go: a random page and an index descent.
const loopLookupCost = randomPageCost + 1

// lookupCost is the cost of one lookup through ix that finds matches
// rows: the primary index holds its rows together, a secondary index
// fetches each by its key (a random read, half of them cached).
func lookupCost(ix *catalog.Index, matches float64) float64 {
	per := cpuTupleCost
	if !ix.Primary {
		per += randomPageCost / 2
	}
	return loopLookupCost + matches*per
}

// indexLoops rewrites the inner and left joins of src's tree whose
// estimated cost is lower as index nested loops.
func (c *Compiler) indexLoops(src Source) Source {
	switch s := src.(type) {
	case *permuted:
		s.in = c.indexLoops(s.in)
	case *filtered:
		if !c.filteredScan(s) {
			s.in = c.indexLoops(s.in)
		}
	case *NestedJoin:
		s.Left = c.indexLoops(s.Left)
		c.filteredScan(s.Right)
		c.indexLoop(s)
		c.mergeJoin(s)
	}
	return src
}

// filteredScan gives a table scan under a run of pushed-down filters the
// access path their conjuncts allow (an index for id = 42), and reports
// whether src was such a run. The filters stay, so the access only has
// to find a superset of their rows.
func (c *Compiler) filteredScan(src Source) bool {
	_, pred, src := filterChain(src)
	ts, ok := src.(*TableScan)
	if !ok || pred == nil || ts.Access.Kind != "seq" {
		return false
	}
	ts.Access = ChooseAccess(ts.Table, pred, c.Host.PartialImplied(ts.Table, pred))
	return true
}

// indexLoop makes j an index nested loop if its right side is a table
// scan (under pushed-down filters) that an index serves for j's hash
// keys, and the estimates favor it.
func (c *Compiler) indexLoop(j *NestedJoin) {
	if j.lateral || j.rightOuter || len(j.hash) == 0 || len(j.using) > 0 {
		return
	}
	filters, filter, right := filterChain(j.Right)
	ts, ok := right.(*TableScan)
	if !ok || ts.Access.Kind != "seq" {
		return
	}
	t := ts.Table
	// The lookup's condition: each hash key's right column equal to the
	// left row's column, read from the enclosing row.
	var cond Expr
	for _, k := range j.hash {
		l, lok := k.left.(*ColExpr)
		r, rok := k.right.(*ColExpr)
		if !lok || !rok || r.Index >= len(t.Columns) || t.Columns[r.Index].Type.Oid != l.T.Oid {
			continue
		}
		eq := &cmpExpr{op: "=", t: t.Columns[r.Index].Type, l: r, r: &outerColExpr{t: l.T, depth: 1, idx: l.Index}}
		cond = andExpr(cond, eq)
	}
	if cond == nil {
		return
	}
	// A partial index serves only where the right side's own filters
	// imply its predicate.
	a := ChooseAccess(t, cond, c.Host.PartialImplied(t, andExpr(filter, cond)))
	if a.Kind == "seq" || len(a.eq) == 0 {
		return
	}
	// Cost it, in rows' worth of work: a lookup per left row, against
	// reading the right side and building a hash table of it (or, where
	// both sides come in key order, merging them) and reading the left.
	e := &Explainer{tables: make(map[uint32]*catalog.Table)}
	left := e.Node(j.Left).Est
	matches := tableRows(t) * a.selectivity(e.estimator(PlainTableScope(t, ts.Alias).Cols), t)
	loop := left.Rows * lookupCost(a.ix, matches)
	other := 2.5*tableRows(t) + left.Rows
	if c.canMerge(j) {
		other = tableRows(t) + left.Rows
	}
	if loop >= other {
		return
	}
	lookup := &TableScan{Table: t, Access: a, Alias: ts.Alias, lookup: true}
	// The keys the index does not serve still filter the pairs (the join
	// condition checks them), for the estimates.
	served := a.ix.Columns[:len(a.eq)]
	var rest []hashKey
	for _, k := range j.hash {
		if r, ok := k.right.(*ColExpr); !ok || !slices.Contains(served, r.Index) {
			rest = append(rest, k)
		}
	}
	j.unserved = rest
	var src Source = lookup
	for i := len(filters) - 1; i >= 0; i-- {
		src = &filtered{in: src, pred: filters[i].pred, cols: filters[i].cols}
	}
	j.Right, j.lateral, j.indexed, j.hash = src, true, true, nil
}
