package sql

import (
	"fmt"
	"strings"

	"github.com/epochdb/epochdb/sql/rowexec"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// keyDescription renders "Key (a, b)=(1, x) already exists." for
// unique-violation details.
func keyDescription(t *catalog.Table, ix *catalog.Index, row []any, s *Session) string {
	return "Key " + keyValues(t, ix, row, s) + " already exists."
}

// keyValues renders "(a, b)=(1, x)": an index's columns and row's values.
func keyValues(t *catalog.Table, ix *catalog.Index, row []any, s *Session) string {
	names := make([]string, len(ix.Columns))
	vals := make([]string, len(ix.Columns))
	for i, ci := range ix.Columns {
		c := t.Columns[ci]
		names[i] = c.Name
		if c.Hidden {
			names[i] = s.indexColumnText(t, ci)
		}
		vals[i] = string(types.AppendText(nil, c.Type, row[ci], s.loc()))
	}
	return fmt.Sprintf("(%s)=(%s)", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// rowDescription renders a row for not-null violation details.
func rowDescription(t *catalog.Table, row []any, s *Session) string {
	var vals []string
	for i, c := range t.Columns {
		if !c.Visible() {
			continue
		}
		if row[i] == nil {
			vals = append(vals, "null")
		} else {
			vals = append(vals, string(types.AppendText(nil, c.Type, row[i], s.loc())))
		}
	}
	return "Failing row contains (" + strings.Join(vals, ", ") + ")."
}

// tableScan reads a table: the whole primary index, a range of it, or one
// key, chosen from the WHERE clause (see chooseAccess).
type tableScan struct {
	t      *catalog.Table
	access access
}

// access is how a scan reaches its rows.
type access struct {
	kind string // "seq", "pk-point", "pk-range", "unique-point", "index-scan"
	ix   *catalog.Index
	// eq holds the values of a leading run of index columns bound by
	// equality; lo and hi bound the next column (pk-range, index-scan).
	eq       []expr
	lo, hi   expr
	loIncl   bool
	hiIncl   bool
	loDesc   string
	describe string
}

func (ts *tableScan) Explain(indent string) string {
	switch ts.access.kind {
	case "seq":
		return indent + "Seq Scan on " + ts.t.Name
	default:
		return indent + "Index Scan using " + ts.access.ix.Name + " on " + ts.t.Name +
			"\n" + indent + "  Index Cond: " + ts.access.describe
	}
}

func (ts *tableScan) Open(x *execCtx) (rowexec.RowIter, error) {
	t := ts.t
	a := ts.access
	if a.ix != nil && !a.ix.Primary {
		ready, err := x.indexReady(t, a.ix)
		if err != nil {
			return nil, err
		}
		if !ready {
			a = access{kind: "seq"} // the WHERE clause filters the rows anyway
		}
	}
	prefix := catalog.IndexPrefix(t.DataID, catalog.PrimaryIndexID)
	start, end := prefix, catalog.PrefixEnd(prefix)
	if a.kind != "seq" {
		key := catalog.IndexPrefix(t.DataID, a.ix.ID)
		for i, e := range a.eq {
			v, err := e.Eval(x.env(nil))
			if err != nil {
				return nil, err
			}
			if v == nil {
				return &rowexec.SliceIter{}, nil // col = NULL matches nothing
			}
			key = types.AppendKey(key, t.Columns[a.ix.Columns[i]].Type, v, false)
		}
		start, end = key, catalog.PrefixEnd(key)
		if a.lo != nil || a.hi != nil {
			col := t.Columns[a.ix.Columns[len(a.eq)]]
			if a.lo != nil {
				v, err := a.lo.Eval(x.env(nil))
				if err != nil || v == nil {
					return &rowexec.SliceIter{}, err
				}
				start = types.AppendKey(bytesClone(key), col.Type, v, false)
				if !a.loIncl {
					start = catalog.PrefixEnd(start)
				}
			}
			if a.hi != nil {
				v, err := a.hi.Eval(x.env(nil))
				if err != nil || v == nil {
					return &rowexec.SliceIter{}, err
				}
				end = types.AppendKey(bytesClone(key), col.Type, v, false)
				if a.hiIncl {
					end = catalog.PrefixEnd(end)
				}
			}
		}
		switch a.kind {
		case "unique-point":
			return ts.uniqueLookup(x, start)
		case "index-scan":
			return ts.indexScan(x, start, end), nil
		}
	}
	scan := &catalog.KVScan{Tx: x.tx, Start: start, End: end}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		kv, ok, err := scan.Next()
		if !ok || err != nil {
			return nil, err
		}
		if err := x.ctx.Err(); err != nil {
			return nil, pgerr.Convert(err)
		}
		return t.DecodeRow(kv.K, kv.V)
	}}, nil
}

// uniqueLookup finds the row a unique index entry points to.
func (ts *tableScan) uniqueLookup(x *execCtx, key []byte) (rowexec.RowIter, error) {
	pk, ok, err := x.tx.Get(key)
	if err != nil || !ok {
		return &rowexec.SliceIter{}, err
	}
	v, ok, err := x.tx.Get(pk)
	if err != nil || !ok {
		return &rowexec.SliceIter{}, err
	}
	row, err := ts.t.DecodeRow(pk, v)
	if err != nil {
		return nil, err
	}
	return &rowexec.SliceIter{Rows: [][]any{row}}, nil
}

// indexScan reads the rows that the index entries in [start, end) point
// to, in index order.
func (ts *tableScan) indexScan(x *execCtx, start, end []byte) rowexec.RowIter {
	scan := &catalog.KVScan{Tx: x.tx, Start: start, End: end}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		entry, ok, err := scan.Next()
		if !ok || err != nil {
			return nil, err
		}
		if err := x.ctx.Err(); err != nil {
			return nil, pgerr.Convert(err)
		}
		v, ok, err := x.tx.Get(entry.V)
		if err != nil {
			return nil, err
		}
		if !ok {
			// An entry is written and deleted with its row, in the same
			// transaction: one without a row is a bug, never skipped.
			return nil, pgerr.New(pgerr.IndexCorrupted, "index %q of %q has an entry for a missing row", ts.access.ix.Name, ts.t.Name)
		}
		return ts.t.DecodeRow(entry.V, v)
	}}
}

func bytesClone(b []byte) []byte { return append([]byte(nil), b...) }
