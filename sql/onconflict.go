package sql

import (
	"errors"
	"slices"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

// onConflict is a planned ON CONFLICT clause. The arbiters are the indexes
// whose conflicts it handles: the one its column list names, or, for DO
// NOTHING without one, the primary key and every unique index. DO UPDATE
// evaluates its SET list and WHERE over the existing row followed by the
// proposed one, which the clause calls excluded.
type onConflict struct {
	arbiters []*catalog.Index
	update   bool
	sets     []conflictSet
	where    plan.Expr // nil: always
	// withDML is whether the statement has data-modifying WITH queries,
	// whose write of a row while SET is computed PostgreSQL counts as its
	// own command's.
	withDML bool
}

type conflictSet struct {
	col int
	e   plan.Expr
}

func planOnConflict(c *plan.Compiler, t *catalog.Table, alias string, defaults []plan.Expr, n *parser.OnConflict) (*onConflict, error) {
	oc := &onConflict{update: !n.DoNothing, withDML: len(sessionOf(c.Host).planDML) > 0}
	if len(n.Columns) > 0 {
		var want []int
		for k, name := range n.Columns {
			if k < len(n.Exprs) && n.Exprs[k] != nil {
				// An expression names the hidden column an index on it
				// keys on, if there is one (see exprindex.go).
				i := hiddenColumnOf(t, alias, n.Exprs[k])
				if i < 0 {
					return nil, pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
				}
				want = append(want, i)
				continue
			}
			i, col := t.Column(name)
			if col == nil {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
			}
			want = append(want, i)
		}
		slices.Sort(want)
		for _, ix := range t.Indexes {
			cols := slices.Sorted(slices.Values(ix.Columns))
			// A partial index arbitrates only when the clause repeats its
			// predicate, which epochdb does not read.
			if !ix.NonUnique && ix.Where == "" && slices.Equal(slices.Compact(cols), slices.Compact(want)) {
				oc.arbiters = []*catalog.Index{ix}
				break
			}
		}
		if oc.arbiters == nil {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
		}
	} else {
		for _, ix := range t.Indexes {
			if !ix.NonUnique {
				oc.arbiters = append(oc.arbiters, ix)
			}
		}
	}
	if !oc.update {
		return oc, nil
	}
	// The existing row's columns, then excluded's.
	sc := plan.TableScope(t, alias)
	sc.Cols = append(sc.Cols, plan.TableScope(t, "excluded").Cols...)
	in := c.WithScope(sc)
	for _, a := range n.Set {
		i, col, err := setTarget(t, a)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(oc.sets, func(s conflictSet) bool { return s.col == i }) {
			return nil, pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", col.Name)
		}
		e, err := assignment(in, a, col, defaults[i])
		if err != nil {
			return nil, err
		}
		if e == nil {
			continue // a generated column, computed with the rest of the row
		}
		oc.sets = append(oc.sets, conflictSet{i, e})
	}
	if n.Where != nil {
		var err error
		if oc.where, err = in.CompileAs(n.Where, types.Bool); err != nil {
			return nil, err
		}
	}
	return oc, nil
}

// conflictRun applies ON CONFLICT through one execution of an INSERT.
type conflictRun struct {
	oc       *onConflict
	affected map[string]bool // keys of the rows the statement inserted or updated
	skipped  int64           // proposed rows neither inserted nor updated
}

// upsert inserts a proposed row or handles its conflict: it skips the row
// (DO NOTHING, or DO UPDATE whose WHERE is not true) or updates the
// existing row, which it passes to done. It reports whether it inserted.
//
// Another session may insert a conflicting row after the lookup, or delete
// the conflicting one before the update. Then, as PostgreSQL's speculative
// insertion does, it tries again: the insert runs in a savepoint, and an
// arbiter's unique violation rolls it back. Its lookups wait for the
// concurrent writer, so the next round sees how that one ended.
func (r *conflictRun) upsert(x *plan.ExecCtx, t *catalog.Table, row []any, done func(updated []any) error) (bool, error) {
	for attempt := 0; ; attempt++ {
		if attempt == 100 {
			return false, pgerr.New(pgerr.SerializationFailure, "could not resolve ON CONFLICT after %d attempts", attempt)
		}
		key, err := r.conflictingRow(x, t, row)
		if err != nil {
			return false, err
		}
		if key == nil {
			inserted, err := r.insert(x, t, row)
			if err != nil || inserted {
				return inserted, err
			}
			continue // lost a race with a concurrent insert
		}
		if !r.oc.update {
			r.skipped++
			return false, nil
		}
		found, err := r.update(x, t, key, row, done)
		if err != nil || found {
			return false, err
		}
		// The conflicting row was deleted meanwhile: try again.
	}
}

// insert writes the row in a savepoint, and rolls it back if an arbiter
// index turns out to hold its key after all.
func (r *conflictRun) insert(x *plan.ExecCtx, t *catalog.Table, row []any) (bool, error) {
	sp, err := x.Tx.Savepoint()
	if err != nil {
		return false, err
	}
	err = sessionOf(x.Host).writeRow(x, t, row)
	if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.UniqueViolation &&
		slices.ContainsFunc(r.oc.arbiters, func(ix *catalog.Index) bool { return ix.Name == pe.Constraint }) {
		if err := x.Tx.RollbackTo(sp); err != nil {
			return false, err
		}
		return false, x.Tx.Release(sp)
	}
	if err != nil {
		return false, err
	}
	r.affected[string(sessionOf(x.Host).keyBuf)] = true // the key writeRow just wrote
	return true, x.Tx.Release(sp)
}

// update applies DO UPDATE to the existing row at key. It reports false if
// the row no longer exists.
func (r *conflictRun) update(x *plan.ExecCtx, t *catalog.Table, key []byte, row []any, done func(updated []any) error) (bool, error) {
	if r.affected[string(key)] {
		return false, errAffectedTwice()
	}
	// Rows carry their key after the columns, and so do scopes.
	n, w := len(t.Columns), len(t.Columns)+1
	both := make([]any, 2*w)
	copy(both[w:], row[:w])
	found := false
	eval := func(old []any) *plan.Env {
		found = true
		copy(both, old[:w])
		return x.Env(both)
	}
	pred := func(old []any) (bool, error) {
		e := eval(old)
		if r.oc.where == nil {
			return true, nil
		}
		v, err := r.oc.where.Eval(e)
		return plan.IsTrue(v), err
	}
	updated := false
	modify := sessionOf(x.Host).modifyUnlocked
	if t.HasTrigger("before", catalog.TriggerUpdate, true) {
		modify = func(x *plan.ExecCtx, t *catalog.Table, key []byte, pred func([]any) (bool, error), update func([]any) ([]any, error), done func([]any) error) error {
			return sessionOf(x.Host).modifyTriggered(x, t, key, true, pred, update, done, nil)
		}
	}
	// SET's expressions run without the row's lock: they may read a
	// data-modifying WITH query that writes the row.
	err := modify(x, t, key, pred, func(old []any) ([]any, error) {
		next := append([]any(nil), old...)
		e := eval(old)
		for _, st := range r.oc.sets {
			v, err := st.e.Eval(e)
			if err != nil {
				return nil, err
			}
			next[st.col] = v
		}
		return next, sessionOf(x.Host).checkRow(t, next)
	}, func(written []any) error {
		updated = true
		r.affected[string(written[n].([]byte))] = true
		return done(written)
	})
	switch {
	case errors.Is(err, txn.ErrWrittenByStatement), errors.Is(err, txn.ErrWrittenByTrigger) && !found:
		// A data-modifying WITH query of the statement, or a trigger
		// of this INSERT, wrote the row before the INSERT met it.
		return false, errAffectedTwice()
	case errors.Is(err, errWrittenMeanwhile) && r.oc.withDML:
		// One wrote it while SET was computed, which PostgreSQL's update
		// of the row it locked first finds done by its own command and
		// leaves alone.
		err = nil
	case errors.Is(err, errWrittenMeanwhile):
		// A function SET called wrote it, in a later command.
		return false, pgerr.Convert(txn.ErrRowHeld)
	case errors.Is(err, errRowGone):
		// Deleted before the update was written: the insert is tried
		// again, as PostgreSQL's speculative insertion retries.
		return false, nil
	}
	if err != nil || !found {
		return found, err
	}
	if !updated {
		r.skipped++
	}
	return true, nil
}

func errAffectedTwice() error {
	return pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
		WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
}

// conflictingRow returns the key of the row that row conflicts with in an
// arbiter index, or nil.
func (r *conflictRun) conflictingRow(x *plan.ExecCtx, t *catalog.Table, row []any) ([]byte, error) {
	for _, ix := range r.oc.arbiters {
		if catalog.HasNull(ix, row) {
			continue // NULLs never conflict
		}
		if ok, err := sessionOf(x.Host).hasEntry(t, ix, row); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue // a partial index the row is not in
		}
		var ik []byte
		if ix.Primary {
			ik = t.RowKey(row, 0)
		} else {
			ik = t.IndexKey(ix, row)
		}
		var found []byte
		err := x.Tx.Mutate(x.Ctx, ik, func(cur []byte, exists bool) ([]byte, txn.Op, error) {
			if exists {
				found = ik
				if !ix.Primary {
					found = append([]byte(nil), cur...) // the entry holds the row's key
				}
			}
			return nil, txn.Keep, nil
		})
		if err != nil || found != nil {
			return found, err
		}
	}
	return nil, nil
}
