package sql

import (
	"context"
	"strings"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// What pg_dump needs of a server, and what its output needs of one to load
// into: the settings it sets and the statements of a plain-format dump
// (LOCK, ALTER ... OWNER TO, ALTER SEQUENCE ... OWNED BY). Each answers as
// PostgreSQL 15 does for what epochdb has. The catalogs and functions it
// reads are sql/pgcatalog's.

// checkNamedBool is a Boolean setting whose error names it.
func checkNamedBool(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		b, err := checkBool(v)
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "parameter %q requires a Boolean value", name)
		}
		return b, nil
	}
}

// checkEnum is a setting that takes one of values.
func checkEnum(name string, values ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, x := range values {
			if strings.EqualFold(v, x) {
				return x, nil
			}
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v).
			WithHint("Available values: %s.", strings.Join(values, ", "))
	}
}

// checkTablespace takes the tablespaces pg_tablespace lists; "" means the
// database's own.
func checkTablespace(v string) (string, error) {
	if v == "" || v == "pg_default" || v == "pg_global" {
		return v, nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"default_tablespace\": %q", v).
		WithDetail("Tablespace \"%s\" does not exist.", v)
}

// checkTableAM takes the one table access method pg_am lists.
func checkTableAM(v string) (string, error) {
	switch v {
	case "heap":
		return v, nil
	case "btree":
		return "", pgerr.New(pgerr.ObjectNotInPrerequisiteState, "access method %q is not of type TABLE", v)
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"default_table_access_method\": %q", v).
		WithDetail("Table access method \"%s\" does not exist.", v)
}

// lockModes are the LOCK TABLE modes epochdb has a use of a table for
// (see locks.go): the ones that only keep DDL out. The stronger modes
// would also hold back other transactions' reads or writes.
var lockModes = map[string]useMode{"access share": useRead, "row share": useRead, "row exclusive": useWrite}

// lockTable runs LOCK TABLE, which pg_dump issues on every table it dumps
// so that no DDL changes them before it has read them.
func (s *Session) lockTable(ctx context.Context, cmd *parser.Lock) error {
	if !s.explicit {
		return pgerr.New(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
	}
	cat := s.catalog()
	var tables []*catalog.Table
	for _, name := range cmd.Tables {
		q, err := s.lookName(name)
		if err != nil {
			return err
		}
		t := cat.TableByName[q]
		switch {
		case t != nil:
		case cat.SequenceByName[q] != nil:
			return pgerr.New(pgerr.WrongObjectType, "cannot lock relation %q", q.Name).
				WithDetail("This operation is not supported for sequences.")
		case cat.ViewByName[q] != nil:
			return pgerr.New(pgerr.FeatureNotSupported, "LOCK TABLE on a view is not supported")
		default:
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
		}
		tables = append(tables, t)
	}
	mode, ok := lockModes[cmd.Mode]
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "LOCK TABLE ... IN %s MODE is not supported", strings.ToUpper(cmd.Mode))
	}
	if cmd.NoWait {
		return pgerr.New(pgerr.FeatureNotSupported, "LOCK TABLE ... NOWAIT is not supported")
	}
	for _, t := range tables {
		waited, err := s.e.locks.lockUse(ctx, s.tx, t.ID, mode)
		if err != nil {
			return pgerr.Convert(err)
		}
		if waited {
			if err := s.e.reloadCatalog(); err != nil {
				return err
			}
		}
	}
	return nil
}

// peekSequence returns where q has got to: its last value, and whether
// nextval has taken it.
func (s *Session) peekSequence(q *catalog.Sequence) (int64, bool, error) {
	return s.e.seqs.Peek(q)
}

// alterOwnerKinds are the relation kinds each ALTER ... OWNER TO takes,
// and how its error names the kind it wanted; ALTER TABLE takes any.
var alterOwnerKinds = map[string]struct{ kinds, want string }{
	"table": {"rivSm", ""}, "sequence": {"S", "a sequence"}, "view": {"v", "a view"}, "index": {"i", "an index"},
}

// alterOwner runs ALTER ... OWNER TO. epochdb has one role, which owns
// everything, so giving an object to that role changes nothing and is
// all that is supported.
func (s *Session) alterOwner(cmd *parser.AlterOwner) error {
	schema, name, err := splitSchema(cmd.Name)
	if err != nil {
		return err
	}
	switch cmd.Kind {
	case "type":
		if s.enumNamed(cmd.Name) == nil {
			return pgerr.New(pgerr.UndefinedObject, "type %q does not exist", cmd.Name)
		}
	case "schema":
		if _, err := s.catalog().Schema(name); err != nil {
			return err
		}
	default:
		r, ok := pgcatalog.RelationByName(s.host(), schema, name)
		if !ok {
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", cmd.Name)
		}
		if k := alterOwnerKinds[cmd.Kind]; !strings.Contains(k.kinds, r.Kind) {
			return pgerr.New(pgerr.WrongObjectType, "%q is not %s", r.Name, k.want)
		}
	}
	switch cmd.Role {
	case "current_user", "session_user", s.user:
		return nil
	case "pg_database_owner":
		return pgerr.New(pgerr.FeatureNotSupported, "changing the owner of %q is not supported", name)
	}
	return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", cmd.Role)
}

// sequenceAs is the type of CREATE SEQUENCE ... AS type, bigint if none.
func sequenceAs(name string) (types.T, error) {
	if name == "" {
		return types.Int8, nil
	}
	t, err := types.ParseTypeName(name)
	if err != nil {
		return types.T{}, err
	}
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8:
		return t, nil
	}
	return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
}

// sequenceOwnedBy runs ALTER SEQUENCE ... OWNED BY: the sequence becomes
// the column's, as a serial column's is, and goes when its table does.
func (s *Session) sequenceOwnedBy(ctx context.Context, cmd *parser.SequenceOwnedBy) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	q, err := s.lookName(cmd.Name)
	if err != nil {
		return err
	}
	name := q.Name
	old := d.Cat.SequenceByName[q]
	switch {
	case old != nil:
	case d.Cat.TableByName[q] != nil || d.Cat.ViewByName[q] != nil:
		return pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", name)
	case cmd.IfExists:
		s.notice(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", name)
		return nil
	default:
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", cmd.Name)
	}
	var owner *catalog.Table
	var col *catalog.TableColumn
	if cmd.Table != "" {
		tq, err := s.lookName(cmd.Table)
		if err != nil {
			return err
		}
		tname := tq.Name
		if owner = d.Cat.TableByName[tq]; owner == nil {
			if d.Cat.ViewByName[tq] != nil || d.Cat.SequenceByName[tq] != nil {
				return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "sequence must have same owner as table it is linked to")
			}
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", cmd.Table)
		}
		if _, col = owner.Column(cmd.Column); col == nil {
			return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Column, tname)
		}
	}
	// The column that owned it before gives it up.
	if prev := d.Cat.TableByID[old.Owner]; prev != nil && prev != owner {
		t := prev.Clone()
		for _, c := range t.Columns {
			if c.Serial == old.ID {
				c.Serial = 0
			}
		}
		if err := d.PutTable(ctx, t); err != nil {
			return err
		}
	}
	seq := *old
	seq.Owner = 0
	if owner != nil {
		if err := s.lockTableForDDL(ctx, d, owner, true); err != nil {
			return err
		}
		t := owner.Clone()
		for _, c := range t.Columns {
			switch {
			case c.Num == col.Num:
				c.Serial = old.ID
			case c.Serial == old.ID:
				c.Serial = 0
			}
		}
		if err := d.PutTable(ctx, t); err != nil {
			return err
		}
		seq.Owner = t.ID
	}
	return d.PutSequence(ctx, &seq)
}
