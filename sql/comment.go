package sql

import (
	"context"
	"strings"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// COMMENT ON. A comment is a key of its own in the catalog keyspace,
// written in the DDL's transaction: (pg_description's classoid, objoid,
// objsubid) → text. pg_description, obj_description and col_description
// read them; a dropped object's comment is left behind but shown nowhere,
// since object ids are never used again.

// comment runs COMMENT ON.
func (s *Session) comment(ctx context.Context, cmd *parser.Comment) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	key, err := s.commentTarget(d.Cat, cmd)
	if err != nil {
		return err
	}
	if cmd.Text == nil || *cmd.Text == "" {
		delete(d.Cat.Comments, key)
		return d.Tx.Delete(ctx, key.StoreKey())
	}
	d.Cat.Comments[key] = *cmd.Text
	return d.Tx.Put(ctx, key.StoreKey(), []byte(*cmd.Text))
}

// commentTarget resolves the object a COMMENT ON names.
func (s *Session) commentTarget(c *catalog.Catalog, cmd *parser.Comment) (catalog.CommentKey, error) {
	var q catalog.QName
	var err error
	if cmd.Func != nil {
		f, _, err := s.lookupRoutine(*cmd.Func, cmd.Kind, false)
		if err != nil {
			return catalog.CommentKey{}, err
		}
		return catalog.CommentKey{ClassOID: pgcatalog.OidPgProc, ObjOID: f.ID}, nil
	}
	switch cmd.Kind {
	case "extension", "schema":
		var schema string
		if schema, q.Name, err = splitSchema(cmd.Name); err == nil && schema != "" {
			err = pgerr.New(pgerr.SyntaxError, "%s name cannot be qualified", cmd.Kind)
		}
	case "column", "constraint":
		q.Name = cmd.Name
	default:
		q, err = s.lookName(cmd.Name)
	}
	if err != nil {
		return catalog.CommentKey{}, err
	}
	name := q.Name
	missing := func(what string) error {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", what)
	}
	switch cmd.Kind {
	case "extension":
		if e := c.ExtensionByName[name]; e != nil {
			return catalog.CommentKey{ClassOID: pgcatalog.OidPgExtension, ObjOID: e.ID}, nil
		}
		if a, ok := pgcatalog.AvailableExtension(name); ok && a.Builtin {
			return catalog.CommentKey{ClassOID: pgcatalog.OidPgExtension, ObjOID: pgcatalog.OidPlpgsql}, nil
		}
		return catalog.CommentKey{}, pgerr.New(pgerr.UndefinedObject, "extension %q does not exist", name)
	case "schema":
		if sc := c.SchemaNamed(name); sc != nil {
			return catalog.CommentKey{ClassOID: pgcatalog.OidPgNamespace, ObjOID: sc.ID}, nil
		}
		return catalog.CommentKey{}, catalog.ErrNoSchema(name)
	case "table", "view", "sequence", "index":
		var id uint32
		switch {
		case cmd.Kind == "table" && c.TableByName[q] != nil:
			id = c.TableByName[q].ID
		case cmd.Kind == "view" && c.ViewByName[q] != nil:
			id = c.ViewByName[q].ID
		case cmd.Kind == "sequence" && c.SequenceByName[q] != nil:
			id = c.SequenceByName[q].ID
		case cmd.Kind == "index":
			if _, ix := c.IndexNamed(q); ix != nil {
				id = ix.OID
			}
		}
		if id == 0 {
			if q.Found() {
				return catalog.CommentKey{}, pgerr.New(pgerr.WrongObjectType, "%q is not a %s", name, cmd.Kind)
			}
			return catalog.CommentKey{}, missing(name)
		}
		return catalog.CommentKey{ClassOID: pgcatalog.OidPgClass, ObjOID: id, SubID: 0}, nil
	case "column":
		table, err := s.lookName(cmd.Table)
		if err != nil {
			return catalog.CommentKey{}, err
		}
		var id uint32
		var cols func(string) int16
		switch {
		case c.TableByName[table] != nil:
			t := c.TableByName[table]
			id = t.ID
			cols = func(n string) int16 {
				if _, col := t.Column(n); col != nil {
					return col.Num
				}
				return 0
			}
		case c.ViewByName[table] != nil:
			v := c.ViewByName[table]
			id = v.ID
			cols = func(n string) int16 {
				for i, col := range v.Columns {
					if col.Name == n {
						return int16(i + 1)
					}
				}
				return 0
			}
		default:
			return catalog.CommentKey{}, missing(table.Name)
		}
		num := cols(name)
		if num == 0 {
			return catalog.CommentKey{}, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, table.Name)
		}
		return catalog.CommentKey{ClassOID: pgcatalog.OidPgClass, ObjOID: id, SubID: int32(num)}, nil
	case "constraint":
		table, err := s.lookName(cmd.Table)
		if err != nil {
			return catalog.CommentKey{}, err
		}
		t := c.TableByName[table]
		if t == nil {
			return catalog.CommentKey{}, missing(table.Name)
		}
		for _, ck := range t.Checks {
			if ck.Name == name {
				return catalog.CommentKey{ClassOID: pgcatalog.OidPgConstraint, ObjOID: ck.OID, SubID: 0}, nil
			}
		}
		for _, fk := range t.ForeignKeys {
			if fk.Name == name {
				return catalog.CommentKey{ClassOID: pgcatalog.OidPgConstraint, ObjOID: fk.OID, SubID: 0}, nil
			}
		}
		for _, ix := range t.Indexes {
			if ix.Name == name && !ix.Standalone {
				return catalog.CommentKey{ClassOID: pgcatalog.OidPgConstraint, ObjOID: ix.OID, SubID: 0}, nil
			}
		}
		return catalog.CommentKey{}, pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", name, table.Name)
	}
	return catalog.CommentKey{}, pgerr.New(pgerr.FeatureNotSupported, "COMMENT ON %s is not supported", strings.ToUpper(cmd.Kind))
}

// description is obj_description's and col_description's answer.
func (s *Session) description(classOID, objOID uint32, subID int32) any {
	if text, ok := s.catalog().Comments[catalog.CommentKey{ClassOID: classOID, ObjOID: objOID, SubID: subID}]; ok {
		return text
	}
	return nil
}
