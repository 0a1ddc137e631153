package sql

import (
	"context"
	"fmt"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// Temporary objects. A session's temporary tables, and the functions and
// types it makes in pg_temp, live in a schema of its own, pg_temp_N,
// which its first temporary object makes and which it drops, with
// everything in it, when it ends or runs DISCARD TEMP. In a statement
// pg_temp stands for that schema (catalog.TempAlias), and the search path
// looks in it first for relations and types, never for functions.
//
// The schema is an ordinary catalog schema, written and dropped by
// ordinary DDL, so it commits and rolls back with the transaction that
// makes it. N is a number the engine gives each session; a server that
// stopped without its sessions ending leaves their schemas behind, and a
// later session given the same N empties it before use, as PostgreSQL
// does with a backend's leftover temporary namespace.

// tempState is the session's temporary schema: its name, and whether the
// session made the schema of that name that the catalog holds (one it did
// not make is a leftover).
type tempState struct {
	name string
	made bool
}

// newTempState names the temporary schema of a new session of e.
func (e *Engine) newTempState() tempState {
	return tempState{name: fmt.Sprintf("%s%d", catalog.TempSchemaPrefix, e.tempSchemas.Add(1))}
}

// makeTempSchema makes the session's temporary schema in its transaction,
// unless it is there: a leftover of an earlier server's session is
// emptied first.
func (s *Session) makeTempSchema(ctx context.Context) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	if d.Cat.SchemaNamed(s.temp.name) != nil {
		if s.temp.made {
			return nil
		}
		if err := s.quietly(func() error {
			return s.dropSchemas(ctx, &parser.DropSchema{Names: []string{s.temp.name}, Cascade: true})
		}); err != nil {
			return err
		}
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return err
	}
	if err := d.ClaimSchemaName(ctx, s.temp.name, id); err != nil {
		return err
	}
	if err := d.PutSchema(ctx, &catalog.Schema{ID: id, Name: s.temp.name, Owner: s.user}); err != nil {
		return err
	}
	s.temp.made = true
	return nil
}

// tempCreate is the schema a CREATE TEMPORARY of schema.name puts its
// object in: pg_temp, which schema may name, or 42P16 for another.
func tempCreate(schema string) (string, error) {
	if schema != "" && schema != catalog.TempAlias {
		return "", pgerr.New(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	return catalog.TempAlias, nil
}

// dropTempSchema drops the session's temporary schema and everything in
// it, in the session's transaction; it is quiet, as PostgreSQL's cleanup
// at the end of a session is.
func (s *Session) dropTempSchema(ctx context.Context) error {
	if s.catalog().SchemaNamed(s.temp.name) == nil || !s.temp.made {
		return nil
	}
	return s.quietly(func() error {
		return s.dropSchemas(ctx, &parser.DropSchema{Names: []string{s.temp.name}, Cascade: true})
	})
}

// endTemp drops the temporary schema of a session that is ending, in a
// transaction of its own. Its transaction has ended.
func (s *Session) endTemp() error {
	if s.e.cat.Load().SchemaNamed(s.temp.name) == nil || !s.temp.made {
		return nil
	}
	if err := s.beginTxn(""); err != nil {
		return err
	}
	if err := s.dropTempSchema(context.Background()); err != nil {
		_ = s.endTxn(false)
		return err
	}
	return s.endTxn(true)
}

// quietly runs fn without sending its NOTICEs.
func (s *Session) quietly(fn func() error) error {
	saved := s.noticeFn
	s.noticeFn = nil
	defer func() { s.noticeFn = saved }()
	return fn()
}
