package sql

import (
	"slices"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Writes to views. A view has no rows of its own, and epochdb's views are
// not automatically updatable: INSERT, UPDATE and DELETE on a view run its
// INSTEAD OF ROW triggers, as PostgreSQL does, and fail without one.
//
// The write plans against the view's RowTable, which describes its rows
// as a table's and carries its triggers, so that column lists, VALUES,
// SET and RETURNING compile as they do for a table. Its run never writes:
//
//   - INSERT fires the triggers with each row as NEW;
//   - UPDATE and DELETE read the view's query, keep the rows the WHERE
//     clause holds for, and fire the triggers with each as OLD (and, for
//     UPDATE, with SET applied, as NEW).
//
// A row a trigger returns NULL for is skipped; the others are counted,
// and RETURNING sees what the last trigger returned (OLD for DELETE).
// BEFORE and AFTER STATEMENT triggers on the view fire around it all.

// viewWriteTarget is the RowTable of view v that a write of verb plans
// against, or PostgreSQL's error for a view without an INSTEAD OF trigger
// of the verb's event.
func viewWriteTarget(v *catalog.View, verb string) (*catalog.Table, error) {
	event := map[string]int{"INSERT": catalog.TriggerInsert, "UPDATE": catalog.TriggerUpdate, "DELETE": catalog.TriggerDelete}[verb]
	t := v.RowTable()
	if t.HasTrigger("instead", event, true) {
		return t, nil
	}
	what := map[string]string{"INSERT": "insert into", "UPDATE": "update", "DELETE": "delete from"}[verb]
	enable := map[string]string{"INSERT": "inserting into", "UPDATE": "updating", "DELETE": "deleting from"}[verb]
	return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cannot %s view %q", what, v.Name).
		WithDetail("Views are not automatically updatable in epochdb.").
		WithHint("To enable %s the view, provide an INSTEAD OF %s trigger or an unconditional ON %s DO INSTEAD rule.", enable, verb, verb)
}

// planInstead makes an INSERT into a view's run: each row goes to the
// view's INSTEAD OF INSERT triggers.
func (ins *insert) planInstead(p *plan.WritePlan) *plan.WritePlan {
	t, targets, rows := ins.t, ins.targets, ins.rows
	p.Run = withTriggers(t, catalog.TriggerInsert, false, nil, func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error) {
		vals, err := rows(x)
		if err != nil {
			return nil, 0, err
		}
		defer vals.Close()
		out := p.Returned(x)
		s := sessionOf(x.Host)
		var n int64
		for {
			v, err := vals.Next()
			if err != nil {
				return plan.FailRun(out, err)
			}
			if v == nil {
				break
			}
			// A view's columns have no defaults: those left out are NULL.
			row := make([]any, len(t.Columns)+1)
			for i, ti := range targets {
				row[ti] = v[i]
			}
			if err := s.checkRow(t, row); err != nil {
				return plan.FailRun(out, err)
			}
			if err := s.insteadRow(x, p, out, &n, catalog.TriggerInsert, nil, row); err != nil {
				return plan.FailRun(out, err)
			}
		}
		return out, n, nil
	})
	p.Describe = func(e *plan.Explainer) *plan.Node {
		return plan.ModifyNode("Insert", t.Name, "", &plan.Node{Type: "Result"})
	}
	return p
}

// insteadRow fires the INSTEAD OF triggers of event for one row, and
// counts it and adds its RETURNING row unless a trigger skipped it.
func (s *Session) insteadRow(x *plan.ExecCtx, p *plan.WritePlan, out *rowexec.RowStore, n *int64, event int, old, row []any) error {
	fired, skip, err := s.rowTriggers(x, p.Table, "instead", event, old, row)
	if err != nil || skip {
		return err
	}
	*n++
	if p.Returning == nil {
		return nil
	}
	if event == catalog.TriggerDelete {
		fired = old
	}
	r, err := p.Project(x, fired)
	if err != nil {
		return err
	}
	return out.Add(r)
}

// planViewTarget is planTarget for an UPDATE or DELETE of view t (its
// RowTable): its rows come from the view's query, compiled as a FROM
// item, and carry an empty slot where a table's row carries its key.
func planViewTarget(c *plan.Compiler, p *plan.WritePlan, t *catalog.Table, refs *ast.TableRefsClause, where ast.ExprNode, returning *ast.FieldList) (*modifyTarget, error) {
	src, sc, err := c.PlanResultSet(refs.TableRefs)
	if err != nil {
		return nil, err
	}
	sc = &plan.Scope{Cols: append(slices.Clip(sc.Cols), plan.ScopeCol{Name: plan.HiddenKey})}
	m := &modifyTarget{t: t, in: c.WithScope(sc), view: src}
	if where != nil {
		if m.where, err = m.in.CompileAs(where, types.Bool); err != nil {
			return nil, err
		}
	}
	p.Table = t
	if err := planReturning(c, p, sc, returning); err != nil {
		return nil, err
	}
	p.Describe = func(e *plan.Explainer) *plan.Node { return plan.ModifyNode(p.Verb, t.Name, "", e.Node(src)) }
	return m, nil
}

// insteadModify is an UPDATE's or DELETE's run on a view: update (nil
// for DELETE) makes NEW of each row the view's query gives and the WHERE
// clause holds for.
func insteadModify(p *plan.WritePlan, m *modifyTarget, event int, update func(x *plan.ExecCtx, old []any) ([]any, error)) func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error) {
	return func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error) {
		it, err := m.view.Open(x)
		if err != nil {
			return nil, 0, err
		}
		candidates := &plan.FilterIter{In: &keySlot{it}, X: x, Pred: trueIfNil(m.where)}
		defer candidates.Close()
		out := p.Returned(x)
		s := sessionOf(x.Host)
		var n int64
		for {
			old, err := candidates.Next()
			if err != nil {
				return plan.FailRun(out, err)
			}
			if old == nil {
				return out, n, nil
			}
			row := old
			if update != nil {
				if row, err = update(x, old); err != nil {
					return plan.FailRun(out, err)
				}
			}
			if err := s.insteadRow(x, p, out, &n, event, old, row); err != nil {
				return plan.FailRun(out, err)
			}
		}
	}
}

// keySlot gives each row of a view's query the empty slot of a table
// row's key.
type keySlot struct{ rowexec.RowIter }

func (k *keySlot) Next() ([]any, error) {
	row, err := k.RowIter.Next()
	if row == nil || err != nil {
		return nil, err
	}
	return append(slices.Clip(row), nil), nil
}
