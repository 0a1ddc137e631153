package plan

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/types"
)

// Row and cost estimates, from the statistics ANALYZE keeps, with
// PostgreSQL's rules for selectivity (eqsel, scalarltsel, eqjoinsel) and
// its cost units: a sequential page read costs 1, a random one 4, a row
// 0.01 and an operator 0.0025. A table never analyzed is taken to have
// defaultRows rows, and a condition the rules cannot read passes
// defaultSel of them, as PostgreSQL assumes for an unknown operator.

const (
	defaultRows    = 1000
	defaultSel     = 0.25
	defaultEqSel   = 0.005
	defaultIneqSel = 1.0 / 3
	defaultGroups  = 200 // PostgreSQL's guess for the distinct values of an expression
	seqPageCost    = 1.0
	randomPageCost = 4.0
	cpuTupleCost   = 0.01
	cpuOperCost    = 0.0025
)

// tableRows is the number of rows ANALYZE found in t.
func tableRows(t *catalog.Table) float64 {
	if t.Stats != nil {
		return max(1, t.Stats.Rows)
	}
	return defaultRows
}

// rowWidth is the average width of t's rows in bytes.
func rowWidth(t *catalog.Table) int {
	w := 0
	for _, c := range t.Columns {
		if !c.Visible() {
			continue
		}
		switch {
		case c.Stats != nil:
			w += c.Stats.AvgWidth
		default:
			if in, ok := types.Lookup(c.Type.Oid); ok && in.Len > 0 {
				w += int(in.Len)
			} else {
				w += 32
			}
		}
	}
	return w
}

// colRef is a column of a table that an expression reads, with its
// statistics (nil if the table was never analyzed).
type colRef struct {
	t     *catalog.Table
	col   *catalog.TableColumn
	stats *catalog.ColumnStats
}

// estimator reads the columns of one scope: what the expressions it
// judges are compiled against.
type estimator struct {
	cols   []ScopeCol
	tables map[uint32]*catalog.Table
}

// column is the table column e reads directly (through casts), if any.
func (es estimator) column(e Expr) (colRef, bool) {
	ce, ok := uncast(e).(*ColExpr)
	if !ok || ce.Index >= len(es.cols) {
		return colRef{}, false
	}
	sc := es.cols[ce.Index]
	t := es.tables[sc.TableOID]
	if t == nil || sc.TableOID == 0 {
		return colRef{}, false
	}
	for _, c := range t.Columns {
		if c.Num == sc.AttNum {
			return colRef{t: t, col: c, stats: c.Stats}, true
		}
	}
	return colRef{}, false
}

// constValue is the value of e if it is a constant (through casts).
func constValue(e Expr) (any, types.T, bool) {
	if c, ok := uncast(e).(*ConstExpr); ok {
		return c.V, c.T, true
	}
	return nil, types.T{}, false
}

// isValue reports whether e has one value for the whole scan: a
// constant or a parameter.
func isValue(e Expr) bool {
	switch uncast(e).(type) {
	case *ConstExpr, *ParamExpr:
		return true
	}
	return false
}

// uncast is e without the casts around it: the estimates judge a cast
// column as the column, a cast constant as the constant.
func uncast(e Expr) Expr {
	for {
		c, ok := e.(*castExpr)
		if !ok {
			return e
		}
		e = c.e
	}
}

// selectivity is the fraction of rows for which x holds.
func (es estimator) selectivity(x Expr) float64 {
	if x == nil {
		return 1
	}
	// A conjunct bounding a column from below and one bounding it from
	// above select the range between, not two independent shares: as
	// PostgreSQL's clauselist_selectivity, their selectivities add, less
	// one.
	type bounds struct{ lo, hi float64 }
	ranges := make(map[*catalog.TableColumn]*bounds)
	s := 1.0
	for _, c := range Conjuncts(x) {
		if cmp, ok := c.(*cmpExpr); ok {
			col, op, ok := es.rangeOf(cmp)
			if ok {
				b := ranges[col.col]
				if b == nil {
					b = &bounds{1, 1}
					ranges[col.col] = b
				}
				sel := es.cmpSel(cmp)
				if op == ">" || op == ">=" {
					b.lo = min(b.lo, sel)
				} else {
					b.hi = min(b.hi, sel)
				}
				continue
			}
		}
		s *= es.sel(c)
	}
	for _, b := range ranges {
		switch {
		case b.lo < 1 && b.hi < 1:
			s *= max(b.lo+b.hi-1, 1e-4)
		default:
			s *= min(b.lo, b.hi)
		}
	}
	return min(1, max(s, 1e-7))
}

// rangeOf reads c as a column bounded by a value, with the operator
// turned to put the column on the left.
func (es estimator) rangeOf(c *cmpExpr) (colRef, string, bool) {
	switch c.op {
	case "<", "<=", ">", ">=":
	default:
		return colRef{}, "", false
	}
	if col, ok := es.column(c.l); ok && isValue(c.r) {
		return col, c.op, true
	}
	if col, ok := es.column(c.r); ok && isValue(c.l) {
		return col, flipOp(c.op), true
	}
	return colRef{}, "", false
}

func (es estimator) sel(x Expr) float64 {
	switch x := x.(type) {
	case *logicExpr:
		l, r := es.sel(x.l), es.sel(x.r)
		if x.and {
			return l * r
		}
		return l + r - l*r
	case *notExpr:
		return 1 - es.sel(x.e)
	case *ConstExpr:
		if x.V == true {
			return 1
		}
		return 0
	case *isNullExpr:
		c, ok := es.column(x.e)
		s := defaultEqSel
		if ok && c.stats != nil {
			s = c.stats.NullFrac
		}
		if x.not {
			return 1 - s
		}
		return s
	case *inExpr:
		c, ok := es.column(x.e)
		s := 0.0
		for _, v := range x.list {
			if ok && isValue(v) {
				s += es.eqSel(c, v)
			} else {
				s += defaultEqSel
			}
		}
		s = min(1, s)
		if x.not {
			return 1 - s
		}
		return s
	case *likeExpr:
		return es.likeSel(x)
	case *cmpExpr:
		return es.cmpSel(x)
	}
	return defaultSel
}

// cmpSel is the selectivity of a comparison: of a column with a value by
// its statistics, of two tables' columns as a join's.
func (es estimator) cmpSel(x *cmpExpr) float64 {
	l, lok := es.column(x.l)
	r, rok := es.column(x.r)
	op := x.op
	if !lok && rok {
		l, r, lok, rok = r, l, true, false
		x = &cmpExpr{op: flipOp(op), t: x.t, l: x.r, r: x.l}
		op = x.op
	}
	switch {
	case lok && rok && (op == "=" || op == "<>"):
		s := joinSel(l, r)
		if op == "<>" {
			return 1 - s
		}
		return s
	case lok && isValue(x.r):
		switch op {
		case "=":
			return es.eqSel(l, x.r)
		case "<>", "!=":
			return 1 - es.eqSel(l, x.r)
		case "<", "<=", ">", ">=":
			return es.rangeSel(l, op, x.r)
		}
	}
	if op == "=" {
		return defaultEqSel
	}
	return defaultIneqSel
}

// valueText is v as the statistics hold values: its text, in UTC.
func valueText(t types.T, v any) string {
	return string(types.AppendText(nil, t, v, time.UTC))
}

// eqSel is the selectivity of col = v, PostgreSQL's eqsel: v's frequency
// if it is a most common value, else an equal share of what the most
// common values leave.
func (es estimator) eqSel(c colRef, v Expr) float64 {
	cs := c.stats
	val, t, ok := constValue(v)
	if cs == nil || !ok {
		return eqSelUnknown(c)
	}
	nd := cs.Distinct(tableRows(c.t))
	if val == nil {
		return 0
	}
	if i := slices.Index(cs.MCV, valueText(t, val)); i >= 0 {
		return cs.MCF[i]
	}
	rest := 1 - cs.NullFrac
	for _, f := range cs.MCF {
		rest -= f
	}
	if others := nd - float64(len(cs.MCV)); others >= 1 {
		return max(0, rest) / others
	}
	return max(0, rest) / max(1, nd)
}

// eqSelUnknown is the selectivity of col = a value not known until it
// runs (a parameter, an outer row's column): any of the distinct values,
// as likely as another.
func eqSelUnknown(c colRef) float64 {
	switch {
	case c.stats != nil:
		return (1 - c.stats.NullFrac) / c.stats.Distinct(tableRows(c.t))
	case isUnique(c):
		return 1 / tableRows(c.t)
	}
	return defaultEqSel
}

// isUnique reports whether c alone is a unique index's column.
func isUnique(c colRef) bool {
	for _, ix := range c.t.Indexes {
		if len(ix.Columns) == 1 && !ix.NonUnique && ix.Columns[0] == columnIndex(c.t, c.col) {
			return true
		}
	}
	return false
}

func columnIndex(t *catalog.Table, col *catalog.TableColumn) int {
	return slices.Index(t.Columns, col)
}

// joinSel is PostgreSQL's eqjoinsel without MCV matching: 1 over the
// larger number of distinct values.
func joinSel(l, r colRef) float64 {
	nd := func(c colRef) float64 {
		switch {
		case c.stats != nil:
			return c.stats.Distinct(tableRows(c.t))
		case isUnique(c):
			return tableRows(c.t)
		}
		return defaultGroups
	}
	s := 1 / max(nd(l), nd(r))
	if l.stats != nil {
		s *= 1 - l.stats.NullFrac
	}
	if r.stats != nil {
		s *= 1 - r.stats.NullFrac
	}
	return s
}

// rangeSel is the selectivity of col op v, PostgreSQL's scalarltsel: the
// most common values that satisfy it, and the histogram's share of the
// rest, interpolated within the bucket v falls in.
func (es estimator) rangeSel(c colRef, op string, v Expr) float64 {
	cs := c.stats
	val, vt, ok := constValue(v)
	if cs == nil || !ok || val == nil {
		return defaultIneqSel
	}
	cmpText := textComparer(c.col.Type, vt, val)
	if cmpText == nil {
		return defaultIneqSel
	}
	less := op == "<" || op == "<="
	holds := func(text string) bool {
		d := cmpText(text) // sign of (value - v)
		switch op {
		case "<":
			return d < 0
		case "<=":
			return d <= 0
		case ">":
			return d > 0
		}
		return d >= 0
	}
	mcv, mcvTotal := 0.0, 0.0
	for i, text := range cs.MCV {
		mcvTotal += cs.MCF[i]
		if holds(text) {
			mcv += cs.MCF[i]
		}
	}
	rest := max(0, 1-cs.NullFrac-mcvTotal)
	if len(cs.Bounds) < 2 {
		if len(cs.MCV) > 0 {
			return mcv
		}
		return defaultIneqSel
	}
	// The fraction of the histogram below v.
	b := cs.Bounds
	below := 0.0
	switch {
	case cmpText(b[0]) >= 0:
		below = 0
	case cmpText(b[len(b)-1]) < 0:
		below = 1
	default:
		i := 1
		for i < len(b) && cmpText(b[i]) < 0 {
			i++
		}
		frac := 0.5
		if lo, hi, x, ok := numericBounds(b[i-1], b[i], c.col.Type, vt, val); ok && hi > lo {
			frac = (x - lo) / (hi - lo)
		}
		below = (float64(i-1) + frac) / float64(len(b)-1)
	}
	hist := below
	if !less {
		hist = 1 - below
	}
	return mcv + rest*hist
}

// textComparer returns a function that compares a value of column type
// ct, given as its text, with v of type vt: negative if the column's
// value is smaller. Nil where the types do not compare so.
func textComparer(ct, vt types.T, v any) func(string) int {
	if f, ok := asFloat(vt, v); ok && isNumber(ct) {
		return func(s string) int {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return 0
			}
			switch {
			case x < f:
				return -1
			case x > f:
				return 1
			}
			return 0
		}
	}
	if s, ok := v.(string); ok && orderedText(ct) {
		return func(t string) int { return strings.Compare(t, s) }
	}
	if orderedText(ct) || ct.Oid == types.OidDate || ct.Oid == types.OidTimestamp || ct.Oid == types.OidTimestamptz {
		text := valueText(vt, v)
		return func(t string) int { return strings.Compare(t, text) }
	}
	return nil
}

func isNumber(t types.T) bool {
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidFloat4, types.OidFloat8, types.OidNumeric:
		return true
	}
	return false
}

func orderedText(t types.T) bool {
	switch t.Oid {
	case types.OidText, types.OidVarchar, types.OidBpchar:
		return true
	}
	return false
}

// asFloat is v as a float64, if it is a number.
func asFloat(t types.T, v any) (float64, bool) {
	if !isNumber(t) {
		return 0, false
	}
	f, err := strconv.ParseFloat(valueText(t, v), 64)
	return f, err == nil
}

// numericBounds reads a histogram bucket's bounds and v as numbers, for
// interpolating within the bucket.
func numericBounds(lo, hi string, ct, vt types.T, v any) (float64, float64, float64, bool) {
	if !isNumber(ct) {
		return 0, 0, 0, false
	}
	l, err1 := strconv.ParseFloat(lo, 64)
	h, err2 := strconv.ParseFloat(hi, 64)
	x, ok := asFloat(vt, v)
	return l, h, x, err1 == nil && err2 == nil && ok
}

// likeSel is the selectivity of LIKE: a pattern without wildcards is an
// equality; one with a fixed prefix is the range of values with that
// prefix; anything else PostgreSQL's guess.
func (es estimator) likeSel(x *likeExpr) float64 {
	s := es.likeMatch(x)
	if x.not {
		return 1 - s
	}
	return s
}

func (es estimator) likeMatch(x *likeExpr) float64 {
	c, ok := es.column(x.e)
	pv, _, pok := constValue(x.pattern)
	pattern, isText := pv.(string)
	if !ok || !pok || !isText || c.stats == nil || x.ci {
		return defaultEqSel
	}
	prefix := pattern
	if i := strings.IndexAny(pattern, "%_\\"); i >= 0 {
		prefix = pattern[:i]
	}
	if prefix == pattern {
		return es.eqSel(c, x.pattern)
	}
	if prefix == "" {
		return defaultEqSel * 10
	}
	cs := c.stats
	mcv, mcvTotal := 0.0, 0.0
	for i, text := range cs.MCV {
		mcvTotal += cs.MCF[i]
		if strings.HasPrefix(text, prefix) {
			mcv += cs.MCF[i]
		}
	}
	rest := max(0, 1-cs.NullFrac-mcvTotal)
	if len(cs.Bounds) < 2 {
		return mcv
	}
	in := 0
	for _, b := range cs.Bounds {
		if strings.HasPrefix(b, prefix) {
			in++
		}
	}
	share := max(float64(in), 0.5) / float64(len(cs.Bounds))
	return mcv + rest*share
}

// groups estimates the number of distinct values of exprs over rows
// rows: the product of the columns' distinct counts, at most rows.
func (es estimator) groups(exprs []Expr, rows float64) float64 {
	n := 1.0
	for _, e := range exprs {
		c, ok := es.column(e)
		switch {
		case ok && c.stats != nil:
			n *= c.stats.Distinct(tableRows(c.t))
		case ok && isUnique(c):
			n *= tableRows(c.t)
		default:
			n *= defaultGroups
		}
	}
	return max(1, min(n, rows))
}

// sortNode is a Sort over n, with its estimate.
func sortNode(n *Node) *Node {
	est := n.Est
	est.Startup = n.Est.Total + sortCost(n.Est.Rows)
	est.Total = est.Startup + n.Est.Rows*cpuOperCost
	return &Node{Type: "Sort", Kids: []*Node{n.as("Outer")}, Est: est}
}

// limitNode is a Limit over n: as many rows as a constant limit allows,
// at that share of n's cost beyond its startup.
func limitNode(n *Node, limit Expr) *Node {
	est := n.Est
	if v, t, ok := constValue(limit); ok && v != nil {
		if k, ok := asFloat(t, v); ok && k < est.Rows {
			est.Total = est.Startup + (est.Total-est.Startup)*k/est.Rows
			est.Rows = max(1, k)
		}
	}
	return &Node{Type: "Limit", Kids: []*Node{n.as("Outer")}, Est: est}
}

// sortCost is the cost of sorting rows rows, PostgreSQL's cost_sort.
func sortCost(rows float64) float64 {
	if rows < 2 {
		return 0
	}
	return 2 * cpuOperCost * rows * math.Log2(rows)
}
