package sql

import (
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
	left, right expr
	t           types.T
}

// hashable reports whether equal values of t have equal key encodings
// and unequal ones unequal.
func hashable(t types.T) bool {
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidText, types.OidVarchar, types.OidName,
		types.OidBool, types.OidUUID, types.OidDate, types.OidTime, types.OidOid:
		return true
	}
	return false
}

// addHashKey makes cond a hash key of j if it is an equality between the
// two sides, whose rows have the columns cols (left, then right).
func (c *compiler) addHashKey(j *nestedJoin, cols []scopeCol, cond ast.ExprNode) {
	if j.lateral {
		return // its right rows change with each left row
	}
	for {
		p, ok := cond.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		cond = p.Expr
	}
	eq, ok := cond.(*ast.BinaryOperationExpr)
	if !ok || eq.Op != opcode.EQ {
		return
	}
	left, right := cols[:j.leftWidth], cols[j.leftWidth:]
	for _, sides := range [][2]ast.ExprNode{{eq.L, eq.R}, {eq.R, eq.L}} {
		l, lok := c.compileLocal(left, sides[0], false)
		r, rok := c.compileLocal(right, sides[1], false)
		if lok && rok && l.typ().Oid == r.typ().Oid && hashable(l.typ()) {
			j.hash = append(j.hash, hashKey{left: l, right: r, t: l.typ()})
			return
		}
	}
}

// hashValue is the bucket key of row for the expressions of one side, and
// false if one is NULL.
func hashValue(x *execCtx, row []any, keys []hashKey, left bool) (string, bool, error) {
	var b []byte
	e := x.env(row)
	for _, k := range keys {
		ex := k.right
		if left {
			ex = k.left
		}
		v, err := ex.eval(e)
		if err != nil || v == nil {
			return "", false, err
		}
		b = types.AppendKey(b, k.t, v, false)
	}
	return string(b), true, nil
}

// buckets puts the right rows in buckets by their hash key values.
func (j *nestedJoin) buckets(x *execCtx, right [][]any) (map[string][]int, error) {
	m := make(map[string][]int, len(right))
	for i, row := range right {
		if err := x.canceled(); err != nil {
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
func (j *nestedJoin) probe(x *execCtx, l []any, buckets map[string][]int) ([]int, error) {
	k, ok, err := hashValue(x, l, j.hash, true)
	if err != nil || !ok {
		return nil, err
	}
	return buckets[k], nil
}
