package sql

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// rowKey builds the primary-index key of row: the primary key columns, or
// the hidden row id for a table without one.
func (t *Table) rowKey(row []any, rowID int64) []byte {
	return t.appendRowKey(make([]byte, 0, 32), row, rowID)
}

func (t *Table) appendRowKey(k []byte, row []any, rowID int64) []byte {
	k = appendIndexPrefix(k, t.DataID, primaryIndex)
	if pk := t.PrimaryKey(); pk != nil {
		for _, ci := range pk.Columns {
			k = types.AppendKey(k, t.Columns[ci].Type, row[ci], false)
		}
		return k
	}
	return binary.BigEndian.AppendUint64(k, uint64(rowID)^1<<63)
}

// indexKey builds the key of a unique index entry for row.
func (t *Table) indexKey(ix *Index, row []any) []byte {
	k := indexPrefix(t.DataID, ix.ID)
	for _, ci := range ix.Columns {
		k = types.AppendKey(k, t.Columns[ci].Type, row[ci], false)
	}
	return k
}

// hasNull reports whether any of ix's columns is NULL in row: such an entry
// never conflicts, as in PostgreSQL's unique indexes.
func hasNull(ix *Index, row []any) bool {
	for _, ci := range ix.Columns {
		if row[ci] == nil {
			return true
		}
	}
	return false
}

// decodeRow decodes a stored row. The row carries its primary-index key as
// one extra, unnamed last element, so UPDATE and DELETE can find it again
// (a table without primary key has nothing else to find it by).
func (t *Table) decodeRow(key, b []byte) ([]any, error) {
	row := make([]any, len(t.Columns)+1)
	if err := types.DecodeRow(t.types(), b, row[:len(t.Columns)]); err != nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "corrupt row in table %q: %v", t.Name, err)
	}
	row[len(t.Columns)] = key
	return row, nil
}

func (t *Table) encodeRow(row []any) []byte {
	return types.EncodeRow(nil, t.types(), row[:len(t.Columns)])
}

// keyDescription renders "Key (a, b)=(1, x) already exists." for
// unique-violation details.
func (t *Table) keyDescription(ix *Index, row []any, s *Session) string {
	return "Key " + t.keyValues(ix, row, s) + " already exists."
}

// keyValues renders "(a, b)=(1, x)": an index's columns and row's values.
func (t *Table) keyValues(ix *Index, row []any, s *Session) string {
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
func (t *Table) rowDescription(row []any, s *Session) string {
	var vals []string
	for i, c := range t.Columns {
		if !c.visible() {
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
	t      *Table
	access access
}

// access is how a scan reaches its rows.
type access struct {
	kind string // "seq", "pk-point", "pk-range", "unique-point", "index-scan"
	ix   *Index
	// eq holds the values of a leading run of index columns bound by
	// equality; lo and hi bound the next column (pk-range, index-scan).
	eq       []expr
	lo, hi   expr
	loIncl   bool
	hiIncl   bool
	loDesc   string
	describe string
}

func (ts *tableScan) explain(indent string) string {
	switch ts.access.kind {
	case "seq":
		return indent + "Seq Scan on " + ts.t.Name
	default:
		return indent + "Index Scan using " + ts.access.ix.Name + " on " + ts.t.Name +
			"\n" + indent + "  Index Cond: " + ts.access.describe
	}
}

func (ts *tableScan) open(x *execCtx) (rowIter, error) {
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
	prefix := indexPrefix(t.DataID, primaryIndex)
	start, end := prefix, prefixEnd(prefix)
	if a.kind != "seq" {
		key := indexPrefix(t.DataID, a.ix.ID)
		for i, e := range a.eq {
			v, err := e.eval(x.env(nil))
			if err != nil {
				return nil, err
			}
			if v == nil {
				return &sliceIter{}, nil // col = NULL matches nothing
			}
			key = types.AppendKey(key, t.Columns[a.ix.Columns[i]].Type, v, false)
		}
		start, end = key, prefixEnd(key)
		if a.lo != nil || a.hi != nil {
			col := t.Columns[a.ix.Columns[len(a.eq)]]
			if a.lo != nil {
				v, err := a.lo.eval(x.env(nil))
				if err != nil || v == nil {
					return &sliceIter{}, err
				}
				start = types.AppendKey(bytesClone(key), col.Type, v, false)
				if !a.loIncl {
					start = prefixEnd(start)
				}
			}
			if a.hi != nil {
				v, err := a.hi.eval(x.env(nil))
				if err != nil || v == nil {
					return &sliceIter{}, err
				}
				end = types.AppendKey(bytesClone(key), col.Type, v, false)
				if a.hiIncl {
					end = prefixEnd(end)
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
	scan := &kvScan{tx: x.tx, start: start, end: end}
	return &funcIter{f: func() ([]any, error) {
		kv, ok, err := scan.nextKV()
		if !ok || err != nil {
			return nil, err
		}
		if err := x.ctx.Err(); err != nil {
			return nil, pgerr.Convert(err)
		}
		return t.decodeRow(kv.k, kv.v)
	}}, nil
}

// uniqueLookup finds the row a unique index entry points to.
func (ts *tableScan) uniqueLookup(x *execCtx, key []byte) (rowIter, error) {
	pk, ok, err := x.tx.Get(key)
	if err != nil || !ok {
		return &sliceIter{}, err
	}
	v, ok, err := x.tx.Get(pk)
	if err != nil || !ok {
		return &sliceIter{}, err
	}
	row, err := ts.t.decodeRow(pk, v)
	if err != nil {
		return nil, err
	}
	return &sliceIter{rows: [][]any{row}}, nil
}

// indexScan reads the rows that the index entries in [start, end) point
// to, in index order.
func (ts *tableScan) indexScan(x *execCtx, start, end []byte) rowIter {
	scan := &kvScan{tx: x.tx, start: start, end: end}
	return &funcIter{f: func() ([]any, error) {
		entry, ok, err := scan.nextKV()
		if !ok || err != nil {
			return nil, err
		}
		if err := x.ctx.Err(); err != nil {
			return nil, pgerr.Convert(err)
		}
		v, ok, err := x.tx.Get(entry.v)
		if err != nil {
			return nil, err
		}
		if !ok {
			// An entry is written and deleted with its row, in the same
			// transaction: one without a row is a bug, never skipped.
			return nil, pgerr.New(pgerr.IndexCorrupted, "index %q of %q has an entry for a missing row", ts.access.ix.Name, ts.t.Name)
		}
		return ts.t.decodeRow(entry.v, v)
	}}
}

func bytesClone(b []byte) []byte { return append([]byte(nil), b...) }
