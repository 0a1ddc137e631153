package sql

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// UPDATE ... FROM and DELETE ... USING: the target table joined with other
// FROM items. The parser writes them as TiDB's multiple-table forms, whose
// first table is the target. The join finds the candidates with the
// statement's snapshot; each target row is then written once, with the
// first joined row that matched it, as in PostgreSQL. Under READ COMMITTED
// the WHERE clause is re-checked on the row's newest version together
// with the same rows of the other items, which is what PostgreSQL's
// EvalPlanQual does for them.

// splitTarget takes the write target, the first table of a multiple-table
// UPDATE or DELETE, out of its join tree, and returns it and the rest.
func splitTarget(n ast.ResultSetNode) (*ast.TableSource, ast.ResultSetNode) {
	j, ok := n.(*ast.Join)
	if !ok {
		ts, _ := n.(*ast.TableSource)
		return ts, nil
	}
	if j.Right == nil {
		return splitTarget(j.Left)
	}
	ts, rest := splitTarget(j.Left)
	if rest == nil {
		return ts, j.Right
	}
	joined := *j
	joined.Left = rest
	return ts, &joined
}

// planJoinedTarget plans the target and FROM items of a multiple-table
// UPDATE or DELETE: expressions compile over the target's row followed by
// the items' rows.
func (c *compiler) planJoinedTarget(p *writePlan, refs *ast.TableRefsClause, where ast.ExprNode, returning *ast.FieldList) (*modifyTarget, error) {
	ts, rest := splitTarget(refs.TableRefs)
	if ts == nil || rest == nil {
		return nil, errWriteTarget()
	}
	t, alias, err := c.targetTableOf(ts, p.verb)
	if err != nil {
		return nil, err
	}
	from, fromScope, err := c.planResultSet(rest)
	if err != nil {
		return nil, err
	}
	target := tableScope(t, alias)
	width := len(target.cols)
	sc := &scope{cols: append(slices.Clip(target.cols), fromScope.cols...)}
	m := &modifyTarget{t: t, in: c.withScope(sc), scan: &tableScan{t: t, access: access{kind: "seq"}}, width: width}
	var src source = &nestedJoin{left: m.scan, right: from, leftWidth: width, rightWidth: len(fromScope.cols)}
	if where != nil {
		if m.where, err = m.in.compileAs(where, types.Bool); err != nil {
			return nil, err
		}
		src, _ = c.pushDown(src, sc.cols, where)
	}
	m.joined = src
	p.t = t
	if err := c.planReturning(p, sc, returning); err != nil {
		return nil, err
	}
	p.explain = func() string {
		return strings.ToUpper(p.verb[:1]) + strings.ToLower(p.verb[1:]) + " on " + t.Name + "\n" + src.Explain("  ")
	}
	return m, nil
}

// modifyJoined is modifyRows for a target joined with FROM items: update
// and done see the target row followed by the items' row it matched.
func (s *Session) modifyJoined(x *execCtx, m *modifyTarget, update func(joined []any) ([]any, error), done func(joined []any) error) error {
	it, err := m.joined.Open(x)
	if err != nil {
		return err
	}
	// As in modifyRows, the candidates are written as the join finds them.
	candidates := &filterIter{in: it, x: x, pred: trueIfNil(m.where)}
	defer candidates.Close()
	t, width := m.t, m.width
	// The target is the join's left side, each of whose rows meets all
	// its matches before the next row meets any (see nestedJoin), so a
	// target row's candidates come one after another.
	var last []byte
	for {
		cand, err := candidates.Next()
		if err != nil || cand == nil {
			return err
		}
		key := cand[len(t.Columns)].([]byte)
		if last != nil && bytes.Equal(key, last) {
			continue // a target row is written once, with its first match
		}
		last = key
		if modifyHook != nil {
			modifyHook()
		}
		other := cand[width:]
		join := func(row []any) []any { return append(slices.Clip(row[:width]), other...) }
		var pred func(old []any) (bool, error)
		if m.where != nil {
			pred = func(old []any) (bool, error) {
				v, err := m.where.Eval(x.env(join(old)))
				return isTrue(v), err
			}
		}
		var up func(old []any) ([]any, error)
		if update != nil {
			up = func(old []any) ([]any, error) { return update(join(old)) }
		}
		err = s.modifyRow(x, t, key, true, pred, up, func(row []any) error { return done(join(row)) })
		if err != nil && !errors.Is(err, txn.ErrWrittenByStatement) {
			return err
		}
	}
}
