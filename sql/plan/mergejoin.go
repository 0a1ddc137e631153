package plan

import (
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
)

// Merge joins. Rows of a table scan come in primary key order, so an
// inner join of two scans on their primary keys' leading columns (orders
// with their line items, by order key) can walk both sides together:
// no hash table of either side, no memory beyond one key's run of right
// rows, and the rows come out in key order. mergeJoin chooses it where
// it applies and the right side is large enough that a hash table of it
// costs more than reading the left side in step with it.

// mergeMinRows is the least estimated right side a merge join is chosen
// for: below it the hash table is small and either way is cheap.
const mergeMinRows = 1000

// mergeJoin makes j a merge join if both its sides are table scans in
// the order of its one hash key.
func (c *Compiler) mergeJoin(j *NestedJoin) {
	if !c.canMerge(j) {
		return
	}
	e := &Explainer{tables: make(map[uint32]*catalog.Table)}
	if e.Node(j.Right).Est.Rows < mergeMinRows {
		return
	}
	j.merge = true
}

// canMerge reports whether j's sides both come in the order of its one
// hash key.
func (c *Compiler) canMerge(j *NestedJoin) bool {
	if j.lateral || j.leftOuter || j.rightOuter || len(j.hash) != 1 || len(j.using) > 0 {
		return false
	}
	k := j.hash[0]
	return mergeable(k.t) && sortedBy(j.Left, k.left) && sortedBy(j.Right, k.right) &&
		k.left.Type().Oid == k.t.Oid && k.right.Type().Oid == k.t.Oid
}

// mergeable reports whether the key order of t's values, which a table
// scan returns them in, is their comparison order.
func mergeable(t types.T) bool {
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidDate:
		return true
	}
	return false
}

// sortedBy reports whether src's rows come in the order of e: a table
// scan in primary key order (through filters, which keep the order)
// whose key's first column e is.
func sortedBy(src Source, e Expr) bool {
	_, _, src = filterChain(src)
	ts, ok := src.(*TableScan)
	ce, cok := e.(*ColExpr)
	if !ok || !cok {
		return false
	}
	switch ts.Access.Kind {
	case "seq", "pk-range", "pk-point":
	default:
		return false
	}
	pk := ts.Table.PrimaryKey()
	return pk != nil && len(pk.Columns) > 0 && pk.Columns[0] == ce.Index
}

// mergeRows joins the sorted left and right rows: for each left row, the
// run of right rows with its key, found by walking the right side
// forward.
func (j *NestedJoin) mergeRows(x *ExecCtx, lit, rit rowexec.RowIter) rowexec.RowIter {
	k := j.hash[0]
	key := func(e Expr, row []any) (any, error) { return e.Eval(x.Env(row)) }
	var (
		cur     []any   // the left row being joined
		run     [][]any // the right rows with runKey
		runKey  any
		i       int
		peek    []any // the first right row past the run
		rdone   bool
		started bool
	)
	nextRight := func() ([]any, error) {
		if peek != nil || rdone {
			r := peek
			peek = nil
			return r, nil
		}
		r, err := rit.Next()
		if r == nil {
			rdone = true
		}
		return r, err
	}
	// fill makes run the right rows whose key is lk.
	fill := func(lk any) error {
		if started && runKey != nil && types.Compare(k.t, runKey, lk) == 0 {
			return nil // the previous left row's key: the same run
		}
		started, run, runKey = true, run[:0], lk
		for {
			r, err := nextRight()
			if err != nil || r == nil {
				return err
			}
			rk, err := key(k.right, r)
			if err != nil {
				return err
			}
			if rk == nil {
				continue // a NULL key meets nothing
			}
			switch c := types.Compare(k.t, rk, lk); {
			case c < 0:
				continue
			case c == 0:
				run = append(run, r)
			default:
				peek = r
				return nil
			}
		}
	}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			if cur == nil {
				l, err := lit.Next()
				if l == nil || err != nil {
					return nil, err
				}
				lk, err := key(k.left, l)
				if err != nil {
					return nil, err
				}
				if lk == nil {
					continue
				}
				if err := fill(lk); err != nil {
					return nil, err
				}
				cur, i = l, 0
			}
			for i < len(run) {
				if err := x.Canceled(); err != nil {
					return nil, err
				}
				row, ok, err := j.pair(x, cur, run[i])
				i++
				if err != nil {
					return nil, err
				}
				if ok {
					return j.emit(x, row)
				}
			}
			cur = nil
		}
	}, Done: func() {
		lit.Close()
		rit.Close()
	}}
}
