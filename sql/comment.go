package sql

import (
	"context"
	"encoding/binary"
	"strings"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/txn"
)

// COMMENT ON. A comment is a key of its own in the catalog keyspace,
// written in the DDL's transaction: (pg_description's classoid, objoid,
// objsubid) → text. pg_description, obj_description and col_description
// read them; a dropped object's comment is left behind but shown nowhere,
// since object ids are never used again.

// commentKey identifies a commented object as pg_description does.
type commentKey struct {
	classOID, objOID uint32
	subID            int32
}

const oidPgConstraint = 2606

func (k commentKey) storeKey() []byte {
	b := binary.BigEndian.AppendUint32([]byte{sysPrefix, 'c'}, k.classOID)
	b = binary.BigEndian.AppendUint32(b, k.objOID)
	return binary.BigEndian.AppendUint32(b, uint32(k.subID))
}

// loadComments reads the comments into c.
func loadComments(tx *txn.Tx, c *Catalog) error {
	return tx.Scan([]byte{sysPrefix, 'c'}, []byte{sysPrefix, 'd'}, func(k, v []byte) bool {
		if len(k) == 14 {
			key := commentKey{binary.BigEndian.Uint32(k[2:]), binary.BigEndian.Uint32(k[6:]), int32(binary.BigEndian.Uint32(k[10:]))}
			c.comments[key] = string(v)
		}
		return true
	})
}

// comment runs COMMENT ON.
func (s *Session) comment(ctx context.Context, cmd *parser.Comment) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	key, err := d.cat.commentTarget(cmd)
	if err != nil {
		return err
	}
	if cmd.Text == nil || *cmd.Text == "" {
		delete(d.cat.comments, key)
		return d.tx.Delete(ctx, key.storeKey())
	}
	d.cat.comments[key] = *cmd.Text
	return d.tx.Put(ctx, key.storeKey(), []byte(*cmd.Text))
}

// commentTarget resolves the object a COMMENT ON names.
func (c *Catalog) commentTarget(cmd *parser.Comment) (commentKey, error) {
	name := strings.TrimPrefix(cmd.Name, "public.")
	missing := func(what string) error {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", what)
	}
	switch cmd.Kind {
	case "table", "view", "sequence", "index":
		var id uint32
		switch {
		case cmd.Kind == "table" && c.tables[name] != nil:
			id = c.tables[name].ID
		case cmd.Kind == "view" && c.views[name] != nil:
			id = c.views[name].ID
		case cmd.Kind == "sequence" && c.sequences[name] != nil:
			id = c.sequences[name].ID
		case cmd.Kind == "index":
			if _, ix := indexNamed(c, name); ix != nil {
				id = ix.OID
			}
		}
		if id == 0 {
			if relationNamed(c, name) {
				return commentKey{}, pgerr.New(pgerr.WrongObjectType, "%q is not a %s", name, cmd.Kind)
			}
			return commentKey{}, missing(name)
		}
		return commentKey{oidPgClass, id, 0}, nil
	case "column":
		table := strings.TrimPrefix(cmd.Table, "public.")
		var id uint32
		var cols func(string) int16
		switch {
		case c.tables[table] != nil:
			t := c.tables[table]
			id = t.ID
			cols = func(n string) int16 {
				if _, col := t.Column(n); col != nil {
					return col.Num
				}
				return 0
			}
		case c.views[table] != nil:
			v := c.views[table]
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
			return commentKey{}, missing(table)
		}
		num := cols(name)
		if num == 0 {
			return commentKey{}, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, table)
		}
		return commentKey{oidPgClass, id, int32(num)}, nil
	case "constraint":
		table := strings.TrimPrefix(cmd.Table, "public.")
		t := c.tables[table]
		if t == nil {
			return commentKey{}, missing(table)
		}
		for _, ck := range t.Checks {
			if ck.Name == name {
				return commentKey{oidPgConstraint, ck.OID, 0}, nil
			}
		}
		for _, fk := range t.ForeignKeys {
			if fk.Name == name {
				return commentKey{oidPgConstraint, fk.OID, 0}, nil
			}
		}
		for _, ix := range t.Indexes {
			if ix.Name == name && !ix.Standalone {
				return commentKey{oidPgConstraint, ix.OID, 0}, nil
			}
		}
		return commentKey{}, pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", name, table)
	}
	return commentKey{}, pgerr.New(pgerr.FeatureNotSupported, "COMMENT ON %s is not supported", strings.ToUpper(cmd.Kind))
}

// description is obj_description's and col_description's answer.
func (s *Session) description(classOID, objOID uint32, subID int32) any {
	if text, ok := s.catalog().comments[commentKey{classOID, objOID, subID}]; ok {
		return text
	}
	return nil
}
