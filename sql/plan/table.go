package plan

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
)

// TableScan reads a table: the whole primary index, a range of it, or one
// key, chosen from the WHERE clause (see ChooseAccess).
type TableScan struct {
	Table  *catalog.Table
	Access Access
	Alias  string // the name the query gives the table, for EXPLAIN
	// lookup marks an index nested loop's inner scan, whose filters do
	// not repeat its index condition (a query's WHERE clause does).
	lookup bool
}

// Access is how a scan reaches its rows.
type Access struct {
	Kind string // "seq", "pk-point", "pk-range", "unique-point", "index-scan"
	ix   *catalog.Index
	// eq holds the values of a leading run of index columns bound by
	// equality; lo and hi bound the next column (pk-range, index-scan).
	eq     []Expr
	lo, hi Expr
	loIncl bool
	hiIncl bool
	loDesc string
	// in, or inArray, holds the values that the column after the eq run
	// takes (IN (...), or = ANY (array)): the scan looks up each.
	in      []Expr
	inArray Expr
}

// residual is where without the conjuncts the access binds: those its
// index condition holds.
func (a Access) residual(where Expr) Expr {
	if a.ix == nil {
		return where
	}
	bound := func(e Expr) bool {
		return slices.Contains(a.eq, e) || e == a.lo || e == a.hi
	}
	var rest Expr
	for _, c := range Conjuncts(where) {
		switch x := c.(type) {
		case *cmpExpr:
			if bound(x.l) || bound(x.r) {
				continue
			}
		case *inExpr:
			if a.in != nil && len(x.list) == len(a.in) && len(x.list) > 0 && &x.list[0] == &a.in[0] {
				continue
			}
		case *quantifiedExpr:
			if a.inArray != nil && x.arr == a.inArray {
				continue
			}
		}
		rest = andExpr(rest, c)
	}
	return rest
}

// hasIn reports whether the access looks up a list of values.
func (a Access) hasIn() bool { return a.in != nil || a.inArray != nil }

// inValues evaluates the values of an IN list or an ANY array.
func (a Access) inValues(x *ExecCtx) ([]any, error) {
	env := x.Env(nil)
	if a.inArray != nil {
		v, err := a.inArray.Eval(env)
		if err != nil || v == nil {
			return nil, err
		}
		return v.([]any), nil
	}
	vals := make([]any, len(a.in))
	for i, e := range a.in {
		v, err := e.Eval(env)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

func (ts *TableScan) Describe(e *Explainer) *Node {
	alias := ts.Alias
	if alias == "" {
		alias = ts.Table.Name
	}
	alias = e.uniqueAlias(alias)
	on := aliased(ts.Table.Name, alias)
	rel := []Field{{"Relation Name", ts.Table.Name}, {"Alias", alias}}
	t := ts.Table
	e.tables[t.ID] = t
	rows, width := tableRows(t), rowWidth(t)
	cols := PlainTableScope(t, alias).Cols
	if ts.Access.Kind == "seq" {
		pages := math.Ceil(rows * float64(width+24) / 8192)
		if t.Stats != nil {
			pages = float64(t.Stats.Pages)
		}
		return &Node{Type: "Seq Scan", Label: "Seq Scan on " + on, Attrs: rel, cols: cols, base: rows,
			Est: Estimate{Total: pages*seqPageCost + rows*cpuTupleCost, Rows: rows, Width: width}}
	}
	found := rows * ts.Access.selectivity(e.estimator(cols), t)
	base := rows
	if ts.lookup {
		base = 0
	}
	return &Node{Type: "Index Scan", Label: "Index Scan using " + ts.Access.ix.Name + " on " + on,
		Attrs: append([]Field{{"Scan Direction", "Forward"}, {"Index Name", ts.Access.ix.Name}}, rel...),
		Props: []Field{{"Index Cond", ts.Access.condText(t)}}, cols: cols, base: base,
		Est: Estimate{Startup: 0.29, Total: 0.29 + randomPageCost*max(1, found/4) + found*(cpuTupleCost+cpuOperCost), Rows: found, Width: width}}
}

// condText is the index condition as EXPLAIN shows it: each bound
// column with its value, "(id = 42)", "((k = 'a'::text) AND (at < 5))".
func (a Access) condText(t *catalog.Table) string {
	value := func(v Expr) string {
		text, ok := Deparser{}.Print(v)
		if !ok {
			return "?"
		}
		return text
	}
	name := func(i int) string { return parser.QuoteIdent(t.Columns[a.ix.Columns[i]].Name) }
	var parts []string
	for i, v := range a.eq {
		parts = append(parts, name(i)+" = "+value(v))
	}
	if n := len(a.eq); n < len(a.ix.Columns) && a.hasIn() {
		list := "?"
		if a.inArray != nil {
			list = value(a.inArray)
		} else {
			items := make([]string, len(a.in))
			for i, v := range a.in {
				items[i] = value(v)
			}
			list = "ARRAY[" + strings.Join(items, ", ") + "]"
		}
		parts = append(parts, name(n)+" = ANY ("+list+")")
	} else if n < len(a.ix.Columns) {
		if a.lo != nil {
			parts = append(parts, name(n)+map[bool]string{true: " >= ", false: " > "}[a.loIncl]+value(a.lo))
		}
		if a.hi != nil {
			parts = append(parts, name(n)+map[bool]string{true: " <= ", false: " < "}[a.hiIncl]+value(a.hi))
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ")"
	}
	return "((" + strings.Join(parts, ") AND (") + "))"
}

// selectivity is the share of t's rows the index access reads: its
// equalities on the leading columns, and the range on the next.
func (a Access) selectivity(es estimator, t *catalog.Table) float64 {
	s := 1.0
	col := func(i int) (colRef, bool) {
		if a.ix == nil || i >= len(a.ix.Columns) || a.ix.Columns[i] >= len(t.Columns) {
			return colRef{}, false
		}
		c := t.Columns[a.ix.Columns[i]]
		return colRef{t: t, col: c, stats: c.Stats}, true
	}
	for i, v := range a.eq {
		c, ok := col(i)
		if !ok {
			s *= defaultEqSel
			continue
		}
		s *= es.eqSel(c, v)
	}
	if c, ok := col(len(a.eq)); ok && a.hasIn() {
		in := 0.0
		for _, v := range a.in {
			in += es.eqSel(c, v)
		}
		if a.inArray != nil {
			in = 10 * es.eqSel(c, a.inArray) // an array's length is unknown until it runs
		}
		s *= min(1, in)
	} else if c, ok := col(len(a.eq)); ok && (a.lo != nil || a.hi != nil) {
		r := 1.0
		if a.lo != nil {
			r = es.rangeSel(c, map[bool]string{true: ">=", false: ">"}[a.loIncl], a.lo)
		}
		if a.hi != nil {
			hi := es.rangeSel(c, map[bool]string{true: "<=", false: "<"}[a.hiIncl], a.hi)
			if a.lo != nil {
				r = max(r+hi-1, 1e-4)
			} else {
				r = hi
			}
		}
		s *= r
	}
	return s
}

func (ts *TableScan) Open(x *ExecCtx) (rowexec.RowIter, error) {
	t := ts.Table
	a := ts.Access
	if a.ix != nil && !a.ix.Primary {
		ready, err := x.indexReady(t, a.ix)
		if err != nil {
			return nil, err
		}
		if !ready {
			a = Access{Kind: "seq"} // the WHERE clause filters the rows anyway
		}
	}
	if a.Kind == "seq" {
		prefix := catalog.IndexPrefix(t.DataID, catalog.PrimaryIndexID)
		return ts.rowScan(x, prefix, catalog.PrefixEnd(prefix)), nil
	}
	env := x.Env(nil) // the bounds are constants and parameters: one environment serves them all
	key := catalog.IndexPrefix(t.DataID, a.ix.ID)
	for i, e := range a.eq {
		v, err := e.Eval(env)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return &rowexec.SliceIter{}, nil // col = NULL matches nothing
		}
		key = types.AppendKey(key, t.Columns[a.ix.Columns[i]].Type, v, false)
	}
	start, end := key, []byte(nil) // end is PrefixEnd(key) unless hi bounds it
	if a.hasIn() {
		return ts.lookupEach(x, a, key)
	}
	if a.lo != nil || a.hi != nil {
		col := t.Columns[a.ix.Columns[len(a.eq)]]
		if a.lo != nil {
			v, err := a.lo.Eval(env)
			if err != nil || v == nil {
				return &rowexec.SliceIter{}, err
			}
			start = types.AppendKey(bytesClone(key), col.Type, v, false)
			if !a.loIncl {
				start = catalog.PrefixEnd(start)
			}
		}
		if a.hi != nil {
			v, err := a.hi.Eval(env)
			if err != nil || v == nil {
				return &rowexec.SliceIter{}, err
			}
			end = types.AppendKey(bytesClone(key), col.Type, v, false)
			if a.hiIncl {
				end = catalog.PrefixEnd(end)
			}
		}
	}
	switch a.Kind {
	case "pk-point":
		return ts.pointLookup(x, start)
	case "unique-point":
		return ts.uniqueLookup(x, start)
	}
	if end == nil {
		end = catalog.PrefixEnd(key)
	}
	if a.Kind == "index-scan" {
		return ts.indexScan(x, start, end), nil
	}
	return ts.rowScan(x, start, end), nil
}

// rowScan reads the rows of the primary index in [start, end).
func (ts *TableScan) rowScan(x *ExecCtx, start, end []byte) rowexec.RowIter {
	scan := &catalog.KVScan{Tx: x.Tx, Start: start, End: end}
	dec := ts.Table.Decoder()
	return &rowexec.FuncIter{F: func() ([]any, error) {
		kv, ok, err := scan.Next()
		if !ok || err != nil {
			return nil, err
		}
		if err := x.Canceled(); err != nil {
			return nil, pgerr.Convert(err)
		}
		return dec.Decode(kv.K, kv.V)
	}}
}

// lookupEach reads, for each value of a's IN list or array, the rows
// whose index key is key (the eq run's) followed by the value: each
// value once, in index order, as PostgreSQL's index scans with
// ScalarArrayOpExpr do.
func (ts *TableScan) lookupEach(x *ExecCtx, a Access, key []byte) (rowexec.RowIter, error) {
	vals, err := a.inValues(x)
	if err != nil {
		return nil, err
	}
	col := ts.Table.Columns[a.ix.Columns[len(a.eq)]]
	var keys [][]byte
	for _, v := range vals {
		if v != nil { // = NULL matches nothing
			keys = append(keys, types.AppendKey(bytesClone(key), col.Type, v, false))
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	whole := len(a.eq)+1 == len(a.ix.Columns)
	var cur rowexec.RowIter
	next := func() (rowexec.RowIter, error) {
		k := keys[0]
		keys = keys[1:]
		switch {
		case a.ix.Primary && whole:
			return ts.pointLookup(x, k)
		case a.ix.Primary:
			return ts.rowScan(x, k, catalog.PrefixEnd(k)), nil
		case !a.ix.NonUnique && whole:
			return ts.uniqueLookup(x, k)
		}
		return ts.indexScan(x, k, catalog.PrefixEnd(k)), nil
	}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			if cur == nil {
				if len(keys) == 0 {
					return nil, nil
				}
				if cur, err = next(); err != nil {
					return nil, err
				}
			}
			row, err := cur.Next()
			if row != nil || err != nil {
				return row, err
			}
			cur.Close()
			cur = nil
		}
	}, Done: func() {
		if cur != nil {
			cur.Close()
		}
	}}, nil
}

// pointLookup reads the row whose whole primary key is key: a point read,
// which the sstables' bloom filters serve, not a scan of a range.
func (ts *TableScan) pointLookup(x *ExecCtx, key []byte) (rowexec.RowIter, error) {
	v, ok, err := x.Tx.Get(key)
	if err != nil || !ok {
		return &rowexec.SliceIter{}, err
	}
	row, err := ts.Table.DecodeRow(key, v)
	if err != nil {
		return nil, err
	}
	return &rowexec.OneRow{Row: row}, nil
}

// uniqueLookup finds the row a unique index entry points to.
func (ts *TableScan) uniqueLookup(x *ExecCtx, key []byte) (rowexec.RowIter, error) {
	pk, ok, err := x.Tx.Get(key)
	if err != nil || !ok {
		return &rowexec.SliceIter{}, err
	}
	return ts.pointLookup(x, pk)
}

// indexScan reads the rows that the index entries in [start, end) point
// to, in index order.
func (ts *TableScan) indexScan(x *ExecCtx, start, end []byte) rowexec.RowIter {
	scan := &catalog.KVScan{Tx: x.Tx, Start: start, End: end}
	dec := ts.Table.Decoder()
	return &rowexec.FuncIter{F: func() ([]any, error) {
		entry, ok, err := scan.Next()
		if !ok || err != nil {
			return nil, err
		}
		if err := x.Canceled(); err != nil {
			return nil, pgerr.Convert(err)
		}
		v, ok, err := x.Tx.Get(entry.V)
		if err != nil {
			return nil, err
		}
		if !ok {
			// An entry is written and deleted with its row, in the same
			// transaction: one without a row is a bug, never skipped.
			return nil, pgerr.New(pgerr.IndexCorrupted, "index %q of %q has an entry for a missing row", ts.Access.ix.Name, ts.Table.Name)
		}
		return dec.Decode(entry.V, v)
	}}
}

func bytesClone(b []byte) []byte { return append([]byte(nil), b...) }

// indexReady reports whether the statement's snapshot may read ix's
// entries: whether the index is in the catalog the snapshot sees. If the
// DDL that made it committed after the snapshot, rows the snapshot sees
// may lack entries; if DDL dropped it before the snapshot, its entries are
// gone. The plan was made from the newest catalog, and the snapshot's may
// differ, under REPEATABLE READ or when DDL commits between planning and
// the statement's start.
func (x *ExecCtx) indexReady(t *catalog.Table, ix *catalog.Index) (bool, error) {
	var v []byte
	var ok bool
	err := x.Tx.Untracked(func() (err error) {
		v, ok, err = x.Tx.Get(catalog.KeyCatalogVersion)
		return err
	})
	if err != nil {
		return false, err
	}
	var version uint64
	if ok {
		version, _ = strconv.ParseUint(string(v), 10, 64)
	}
	cat := x.Host.Catalog()
	if cat.Version != version {
		// Rare: load the catalog the snapshot sees.
		if cat, err = catalog.Load(x.Tx); err != nil {
			return false, err
		}
	}
	if now := cat.TableByID[t.ID]; now != nil && now.DataID == t.DataID {
		for _, other := range now.Indexes {
			if other.OID == ix.OID && other.ID == ix.ID {
				return true, nil
			}
		}
	}
	return false, nil
}

// seqSource reads a sequence as a relation, one row of its state, as
// pg_dump does to dump where the sequence has got to.
type seqSource struct{ q *catalog.Sequence }

var seqColumns = []struct {
	name string
	t    types.T
}{{"last_value", types.Int8}, {"log_cnt", types.Int8}, {"is_called", types.Bool}}

func seqScope(q *catalog.Sequence, alias string) *Scope {
	sc := &Scope{}
	for i, c := range seqColumns {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.name, T: c.t, TableOID: q.ID, AttNum: int16(i + 1)})
	}
	sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: HiddenKey, T: types.Bytea, TableOID: q.ID})
	return sc
}

func (ss *seqSource) Describe(e *Explainer) *Node {
	return &Node{Type: "Seq Scan", Label: "Seq Scan on " + ss.q.Name, Attrs: []Field{{"Relation Name", ss.q.Name}},
		Est: Estimate{Total: 1.01, Rows: 1, Width: 16}}
}

func (ss *seqSource) Open(x *ExecCtx) (rowexec.RowIter, error) {
	last, called, err := x.Host.PeekSequence(ss.q)
	if err != nil {
		return nil, err
	}
	// log_cnt counts values logged ahead; epochdb reserves blocks instead.
	return &rowexec.SliceIter{Rows: [][]any{{last, int64(0), called, PresentKey}}}, nil
}
