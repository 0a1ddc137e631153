package sql

import (
	"bytes"
	"errors"
	"slices"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
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
func planJoinedTarget(c *plan.Compiler, p *plan.WritePlan, refs *ast.TableRefsClause, where ast.ExprNode, returning *ast.FieldList) (*modifyTarget, error) {
	ts, rest := splitTarget(refs.TableRefs)
	if ts == nil || rest == nil {
		return nil, errWriteTarget()
	}
	t, alias, err := targetTableOf(c, ts, p.Verb)
	if err != nil {
		return nil, err
	}
	if t.IsView() {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s of a view with other FROM items is not supported", p.Verb)
	}
	from, fromScope, err := c.PlanResultSet(rest)
	if err != nil {
		return nil, err
	}
	target := plan.TableScope(t, alias)
	width := len(target.Cols)
	sc := &plan.Scope{Cols: append(slices.Clip(target.Cols), fromScope.Cols...)}
	m := &modifyTarget{t: t, in: c.WithScope(sc), scan: &plan.TableScan{Table: t, Access: plan.Access{Kind: "seq"}}, width: width}
	var src plan.Source = &plan.NestedJoin{Left: m.scan, Right: from, LeftWidth: width, RightWidth: len(fromScope.Cols)}
	if where != nil {
		if m.where, err = m.in.CompileAs(where, types.Bool); err != nil {
			return nil, err
		}
		src, _ = c.PushDown(src, sc.Cols, where)
	}
	m.joined = src
	p.Table = t
	if err := planReturning(c, p, sc, returning); err != nil {
		return nil, err
	}
	p.Describe = func(e *plan.Explainer) *plan.Node { return plan.ModifyNode(p.Verb, t.Name, "", e.Node(src)) }
	return m, nil
}

// modifyJoined is modifyRows for a target joined with FROM items: update
// and done see the target row followed by the items' row it matched.
func (s *Session) modifyJoined(x *plan.ExecCtx, m *modifyTarget, update func(joined []any) ([]any, error), done func(joined []any) error) error {
	it, err := plan.OpenTracked(x, m.joined)
	if err != nil {
		return err
	}
	// As in modifyRows, the candidates are written as the join finds them.
	candidates := &plan.FilterIter{In: it, X: x, Pred: trueIfNil(m.where)}
	defer candidates.Close()
	t, width := m.t, m.width
	// The target is the join's left side, each of whose rows meets all
	// its matches before the next row meets any (see NestedJoin), so a
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
				v, err := m.where.Eval(x.Env(join(old)))
				return plan.IsTrue(v), err
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
