package sql

import (
	"context"
	"slices"

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
func (s *Session) deferredNow(fk *ForeignKey) bool {
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
func (s *Session) checkDeferred(tx *txn.Tx, only func(*ForeignKey) bool) error {
	if len(s.deferredFK.children) == 0 && len(s.deferredFK.parents) == 0 {
		return nil
	}
	x := &execCtx{ctx: context.Background(), s: s, tx: tx, fk: &fkState{}}
	keep := func(fk *ForeignKey) bool { return only != nil && !only(fk) }
	for _, c := range s.deferredFK.children {
		if !keep(c.fk) {
			x.fk.children = append(x.fk.children, c)
		}
	}
	for _, c := range s.deferredFK.parents {
		if !keep(c.ref.fk) {
			x.fk.parents = append(x.fk.parents, c)
		}
	}
	s.deferredFK.children = slices.DeleteFunc(s.deferredFK.children, func(c childCheck) bool { return !keep(c.fk) })
	s.deferredFK.parents = slices.DeleteFunc(s.deferredFK.parents, func(c parentCheck) bool { return !keep(c.ref.fk) })
	// Run them now, whatever the constraints' modes say.
	modes := s.constraintModes
	immediate := false
	s.constraintModes = &constraintModes{all: &immediate}
	defer func() { s.constraintModes = modes }()
	return x.flushFK()
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
	var named []*ForeignKey
	if cmd.All {
		d := cmd.Deferred
		m.all = &d
		clear(m.byName)
	} else {
		for _, name := range cmd.Names {
			var found []*ForeignKey
			for _, t := range s.catalog().tables {
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
	return s.checkDeferred(s.tx, func(fk *ForeignKey) bool { return cmd.All || slices.Contains(named, fk) })
}
