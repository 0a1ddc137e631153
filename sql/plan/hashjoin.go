package plan

import (
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Hash joins. A join condition's equalities between an expression of the
// left row and one of the right (l.a = r.b) let the join put the right
// rows in buckets by their values and meet each left row with its bucket
// only, instead of with every right row. The whole condition is still
// checked on each pair that meets, so the buckets only narrow: a NULL
// value meets nothing, as NULL = anything is never true.
//
// Values go in buckets by their key encoding (types.AppendKey), which is
// equal exactly when the values are equal for the types listed in
// hashable; the two sides must have the same type, so that one encoding
// serves both.

// hashKey is one equality of a join condition: left over the left row,
// right over the right row.
type hashKey struct {
	left, right Expr
	t           types.T
}

// hashable reports whether equal values of t have equal key encodings
// and unequal ones unequal.
func hashable(t types.T) bool {
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidText, types.OidVarchar, types.OidName, types.OidCitext,
		types.OidBool, types.OidUUID, types.OidDate, types.OidTime, types.OidOid,
		types.OidInet, types.OidCidr, types.OidMacaddr, types.OidMacaddr8:
		return true
	}
	return false
}

// addHashKey makes cond a hash key of j if it is an equality between the
// two sides, whose rows have the columns cols (left, then right).
func (c *Compiler) addHashKey(j *NestedJoin, cols []ScopeCol, cond ast.ExprNode) {
	if j.lateral {
		return // its right rows change with each left row
	}
	eq, ok := Unparen(cond).(*ast.BinaryOperationExpr)
	if !ok || eq.Op != opcode.EQ {
		return
	}
	left, right := cols[:j.LeftWidth], cols[j.LeftWidth:]
	for _, sides := range [][2]ast.ExprNode{{eq.L, eq.R}, {eq.R, eq.L}} {
		l, lok := c.compileLocal(left, sides[0], false)
		r, rok := c.compileLocal(right, sides[1], false)
		if lok && rok && l.Type().Oid == r.Type().Oid && hashable(l.Type()) {
			j.hash = append(j.hash, hashKey{left: l, right: r, t: l.Type()})
			return
		}
	}
}

// hashValue is the bucket key of row for the expressions of one side, and
// false if one is NULL.
func hashValue(x *ExecCtx, row []any, keys []hashKey, left bool) (string, bool, error) {
	var b []byte
	e := x.Env(row)
	for _, k := range keys {
		ex := k.right
		if left {
			ex = k.left
		}
		v, err := ex.Eval(e)
		if err != nil || v == nil {
			return "", false, err
		}
		b = types.AppendKey(b, k.t, v, false)
	}
	return string(b), true, nil
}

// buckets puts the right rows in buckets by their hash key values.
func (j *NestedJoin) buckets(x *ExecCtx, right [][]any) (map[string][]int, error) {
	m := make(map[string][]int, len(right))
	for i, row := range right {
		if err := x.Canceled(); err != nil {
			return nil, err
		}
		k, ok, err := hashValue(x, row, j.hash, false)
		if err != nil {
			return nil, err
		}
		if ok {
			m[k] = append(m[k], i)
		}
	}
	return m, nil
}

// probe returns the right rows the left row l may meet.
func (j *NestedJoin) probe(x *ExecCtx, l []any, buckets map[string][]int) ([]int, error) {
	k, ok, err := hashValue(x, l, j.hash, true)
	if err != nil || !ok {
		return nil, err
	}
	return buckets[k], nil
}

// graceJoin is the hash join whose right rows pass work_mem: both sides
// go to partitions by the hash of their join keys (the key, then the
// row, in each record), and each pair of partitions is joined in memory,
// the right one in buckets, as a join that fits is. A row with a NULL key
// meets nothing: an outer join's such rows are kept apart and padded. A
// right partition that still passes work_mem is partitioned again, with
// its left partition, by another hash. The pairs come out one after
// another, so the rows do not come in the left side's order.
func (j *NestedJoin) graceJoin(x *ExecCtx, right rowexec.RowIter) (rowexec.RowIter, error) {
	rparts, lparts := rowexec.NewPartitions(x, 0), rowexec.NewPartitions(x, 0)
	var nullRight, nullLeft *rowexec.RowStore
	if j.rightOuter {
		nullRight = rowexec.NewRowStore(x)
	}
	if j.leftOuter {
		nullLeft = rowexec.NewRowStore(x)
	}
	var queue []rowexec.PartPair
	var cur rowexec.RowIter
	closeAll := func() {
		if cur != nil {
			cur.Close()
			cur = nil
		}
		rparts.Close()
		lparts.Close()
		for _, p := range queue {
			p.Remove()
		}
		queue = nil
		for _, st := range []*rowexec.RowStore{nullRight, nullLeft} {
			if st != nil {
				st.Close()
			}
		}
	}
	err := j.partitionSide(x, right, false, rparts, nullRight)
	var lit rowexec.RowIter
	if err == nil {
		lit, err = open(x, j.Left)
	}
	if err == nil {
		err = j.partitionSide(x, lit, true, lparts, nullLeft)
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
		closeAll()
		return nil, err
	}
	for i := range rowexec.SpillParts {
		if rf[i] != nil || lf[i] != nil {
			queue = append(queue, rowexec.PartPair{Right: rf[i], Left: lf[i], Level: 1})
		}
	}
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
			switch {
			case nullLeft != nil:
				cur = padded(rowexec.StoreRows(nullLeft), func(l []any) ([]any, error) { return j.padRight(x, l) })
				nullLeft = nil
			case len(queue) > 0:
				p := queue[0]
				queue = queue[1:]
				var more []rowexec.PartPair
				var err error
				if cur, more, err = j.joinPair(x, p); err != nil {
					return nil, err
				}
				queue = append(more, queue...)
			case nullRight != nil:
				cur = padded(rowexec.StoreRows(nullRight), func(r []any) ([]any, error) { return j.padLeft(x, r) })
				nullRight = nil
			default:
				return nil, nil
			}
		}
	}, Done: closeAll}, nil
}

// padded yields pad of each row of it.
func padded(it rowexec.RowIter, pad func([]any) ([]any, error)) rowexec.RowIter {
	return &rowexec.FuncIter{F: func() ([]any, error) {
		row, err := it.Next()
		if row == nil || err != nil {
			return nil, err
		}
		return pad(row)
	}, Done: it.Close}
}

// partitionSide writes the rows of one side of the join to partitions,
// each after its key; a row with a NULL key goes to nulls, or nowhere.
func (j *NestedJoin) partitionSide(x *ExecCtx, it rowexec.RowIter, left bool, ps *rowexec.Partitions, nulls *rowexec.RowStore) error {
	defer it.Close()
	for {
		row, err := it.Next()
		if err == nil && row != nil {
			err = x.Canceled()
		}
		if err != nil || row == nil {
			return err
		}
		k, ok, err := hashValue(x, row, j.hash, left)
		switch {
		case err != nil:
			return err
		case !ok && nulls != nil:
			err = nulls.Add(row)
		case ok:
			err = ps.Add([]byte(k), append([]any{[]byte(k)}, row...))
		}
		if err != nil {
			return err
		}
	}
}

// joinPair joins a pair of partitions: it returns their joined rows, or,
// if the right one does not fit in work_mem, no rows but the pairs it
// split the two into.
func (j *NestedJoin) joinPair(x *ExecCtx, p rowexec.PartPair) (rowexec.RowIter, []rowexec.PartPair, error) {
	var right [][]any
	if p.Right != nil {
		recs, rest, err := rowexec.Gather(x, &rowexec.SpilledRows{File: p.Right})
		if err != nil {
			p.Remove()
			return nil, nil, err
		}
		if rest != nil && p.Level <= rowexec.MaxSpillLevel {
			pairs, err := rowexec.SplitPair(x, rowexec.Prepend(recs, rest), p)
			return nil, pairs, err
		}
		if rest != nil {
			// As deep as partitions go: the rest is held, fit or not.
			more, err := rowexec.Drain(rest)
			if err != nil {
				if p.Left != nil {
					p.Left.Remove()
				}
				return nil, nil, err
			}
			recs = append(recs, more...)
		}
		right = make([][]any, len(recs))
		for i, rec := range recs {
			right[i] = rec[1:]
		}
	}
	var left rowexec.RowIter = &rowexec.SliceIter{}
	if p.Left != nil {
		left = withoutKeys(&rowexec.SpilledRows{File: p.Left})
	}
	buckets, err := j.buckets(x, right)
	if err != nil {
		left.Close()
		return nil, nil, err
	}
	return j.loop(x, left, right, buckets), nil, nil
}

// withoutKeys strips the key from each record of a join partition.
func withoutKeys(it rowexec.RowIter) rowexec.RowIter {
	return &rowexec.FuncIter{F: func() ([]any, error) {
		rec, err := it.Next()
		if rec == nil || err != nil {
			return nil, err
		}
		return rec[1:], nil
	}, Done: it.Close}
}

// storeJoin is the join without hash keys whose right rows pass
// work_mem: they go to a row store, read again for each left row.
func (j *NestedJoin) storeJoin(x *ExecCtx, right rowexec.RowIter) (rowexec.RowIter, error) {
	store := rowexec.NewRowStore(x)
	if err := store.AddAll(right); err != nil {
		store.Close()
		return nil, err
	}
	lit, err := open(x, j.Left)
	if err != nil {
		store.Close()
		return nil, err
	}
	var matched []uint64 // a bit per right row, for RIGHT and FULL JOIN
	if j.rightOuter {
		matched = make([]uint64, (store.Len()+63)/64)
	}
	rc := store.Cursor()
	var cur []any
	curMatched, leftDone := false, false
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for {
			if leftDone {
				// The right rows no left row matched, padded on the left.
				for {
					ri := rc.Pos()
					r, err := rc.Next()
					if r == nil || err != nil {
						return nil, err
					}
					if matched[ri/64]&(1<<(ri%64)) == 0 {
						return j.padLeft(x, r)
					}
				}
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
					rc.Rewind()
					continue
				}
				cur, curMatched = l, false
				rc.Rewind()
			}
			for {
				if err := x.Canceled(); err != nil {
					return nil, err
				}
				ri := rc.Pos()
				r, err := rc.Next()
				if err != nil {
					return nil, err
				}
				if r == nil {
					break
				}
				row, ok, err := j.pair(x, cur, r)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				curMatched = true
				if matched != nil {
					matched[ri/64] |= 1 << (ri % 64)
				}
				return j.emit(x, row)
			}
			l := cur
			cur = nil
			if j.leftOuter && !curMatched {
				return j.padRight(x, l)
			}
		}
	}, Done: func() {
		lit.Close()
		store.Close()
	}}, nil
}
