package sql

import (
	"context"
	"maps"
	"slices"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/txn"
)

// Deferred foreign keys. A DEFERRABLE constraint that is deferred in a
// transaction (INITIALLY DEFERRED, or SET CONSTRAINTS ... DEFERRED) has
// the checks its statements owe kept until COMMIT, which runs them before
// the commit record is written: a violation fails the COMMIT and rolls
// the transaction back, as in PostgreSQL. SET CONSTRAINTS ... IMMEDIATE
// runs the kept checks of the constraints it names at once. Applications
// use this to insert rows that reference each other in any order; Django
// declares every foreign key DEFERRABLE INITIALLY DEFERRED.

// constraintModes is what SET CONSTRAINTS said in a transaction: for all
// deferrable constraints, and by name.
type constraintModes struct {
	all    *bool // deferred or not; nil: each constraint's own
	byName map[string]bool
}

// deferredNow reports whether fk's checks wait for the commit. Outside a
// transaction block the statement's end is its commit, and the checks run
// there, before its result is reported.
func (s *Session) deferredNow(fk *catalog.ForeignKey) bool {
	if !fk.Deferrable || s.tx == nil || !s.explicit {
		return false
	}
	if m := s.constraintModes; m != nil {
		if d, ok := m.byName[fk.Name]; ok {
			return d
		}
		if m.all != nil {
			return *m.all
		}
	}
	return fk.InitiallyDeferred
}

// checkDeferred runs the kept checks of the foreign keys only selects
// (nil: all of them), in tx.
func (s *Session) checkDeferred(tx *txn.Tx, only func(*catalog.ForeignKey) bool) error {
	if len(s.deferredFK.children) == 0 && len(s.deferredFK.parents) == 0 {
		return nil
	}
	fks := &fkState{}
	x := &plan.ExecCtx{Ctx: context.Background(), Host: s.host(), Tx: tx, FK: fks}
	defer x.CloseTemps()
	keep := func(fk *catalog.ForeignKey) bool { return only != nil && !only(fk) }
	// The checks kept are new slices: savepoints hold the old ones.
	var kept fkState
	for _, c := range s.deferredFK.children {
		if keep(c.fk) {
			kept.children = append(kept.children, c)
		} else {
			fks.children = append(fks.children, c)
		}
	}
	for _, c := range s.deferredFK.parents {
		if keep(c.ref.FK) {
			kept.parents = append(kept.parents, c)
		} else {
			fks.parents = append(fks.parents, c)
		}
	}
	s.deferredFK = kept
	// Run them now, whatever the constraints' modes say.
	modes := s.constraintModes
	immediate := false
	s.constraintModes = &constraintModes{all: &immediate}
	defer func() { s.constraintModes = modes }()
	return flushFK(x)
}

// setConstraints runs SET CONSTRAINTS { ALL | name, ... } { DEFERRED |
// IMMEDIATE }.
func (s *Session) setConstraints(cmd *parser.SetConstraints) error {
	if !s.explicit {
		s.warning(pgerr.NoActiveSQLTransaction, "SET CONSTRAINTS can only be used in transaction blocks")
		return nil
	}
	if s.constraintModes == nil {
		s.constraintModes = &constraintModes{byName: map[string]bool{}}
	}
	m := s.constraintModes
	if m.byName == nil {
		m.byName = map[string]bool{}
	}
	var named []*catalog.ForeignKey
	if cmd.All {
		d := cmd.Deferred
		m.all = &d
		clear(m.byName)
	} else {
		for _, name := range cmd.Names {
			var found []*catalog.ForeignKey
			for _, t := range s.catalog().TableByName {
				for _, fk := range t.ForeignKeys {
					if fk.Name == name {
						found = append(found, fk)
					}
				}
				if tableConstraintNamed(t, name) && len(found) == 0 {
					return pgerr.New(pgerr.WrongObjectType, "constraint %q is not deferrable", name)
				}
			}
			if len(found) == 0 {
				return pgerr.New(pgerr.UndefinedObject, "constraint %q does not exist", name)
			}
			for _, fk := range found {
				if !fk.Deferrable {
					return pgerr.New(pgerr.WrongObjectType, "constraint %q is not deferrable", name)
				}
			}
			m.byName[name] = cmd.Deferred
			named = append(named, found...)
		}
	}
	if cmd.Deferred {
		return nil
	}
	return s.checkDeferred(s.tx, func(fk *catalog.ForeignKey) bool { return cmd.All || slices.Contains(named, fk) })
}

// refusePendingChecks fails DDL that would change or drop t while a
// deferred check of one of its rows waits for the commit: the check
// holds the row as t stored it, and would pass unexamined once t is
// rewritten. PostgreSQL refuses such DDL the same way.
func (s *Session) refusePendingChecks(t *catalog.Table, what string) error {
	pending := slices.ContainsFunc(s.deferredFK.children, func(c childCheck) bool { return c.t.ID == t.ID }) ||
		slices.ContainsFunc(s.deferredFK.parents, func(c parentCheck) bool { return c.parent.ID == t.ID })
	if pending {
		return pgerr.New(pgerr.ObjectInUse, "cannot %s %q because it has pending trigger events", what, t.Name)
	}
	return nil
}

// forgetDeferred drops the pending checks of the foreign key name of the
// table with id, which DROP ... CASCADE removed: nothing is owed to a
// constraint that is gone. The lists are replaced, not changed in place,
// as savepoints hold them.
func (s *Session) forgetDeferred(table uint32, name string) {
	var kept fkState
	for _, c := range s.deferredFK.children {
		if c.t.ID != table || c.fk.Name != name {
			kept.children = append(kept.children, c)
		}
	}
	for _, c := range s.deferredFK.parents {
		if c.ref.Child.ID != table || c.ref.FK.Name != name {
			kept.parents = append(kept.parents, c)
		}
	}
	s.deferredFK = kept
}

// deferredState is what a savepoint keeps of the deferred checks and
// SET CONSTRAINTS modes, for ROLLBACK TO to restore: the checks that
// SET CONSTRAINTS ... IMMEDIATE ran and removed after the savepoint are
// owed again, and the checks of rows written after it are gone with them.
//
// The check lists are kept without copying. They only grow by append,
// which leaves the part a savepoint holds as it was, and checkDeferred
// replaces them rather than removing from them in place.
type deferredState struct {
	fk    fkState
	modes *constraintModes
}

func (s *Session) saveDeferred() deferredState {
	return deferredState{fk: s.deferredFK, modes: s.constraintModes.clone()}
}

// restoreDeferred goes back to st; st stays as it is, for a later
// rollback to the same savepoint.
func (s *Session) restoreDeferred(st deferredState) {
	s.deferredFK, s.constraintModes = st.fk, st.modes.clone()
}

func (m *constraintModes) clone() *constraintModes {
	if m == nil {
		return nil
	}
	c := &constraintModes{byName: maps.Clone(m.byName)}
	if m.all != nil {
		all := *m.all
		c.all = &all
	}
	return c
}
