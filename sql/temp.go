package sql

import (
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// Temporary objects. As in PostgreSQL, a session's temporary tables,
// views and sequences live in a schema of its own, pg_temp_N, N a slot
// number no other open session holds. The schema is an ordinary one in
// the catalog, made with the session's first temporary object: other
// sessions see it and its objects in the catalogs, but their search paths
// do not look in it and they may not touch its tables. The session's own
// path looks there first, for relations and types (catalog.Path). When
// the session ends the schema goes, with everything in it; one that a
// crash or a failed cleanup left behind goes when the engine starts, or
// when the next session to hold its slot makes a temporary object.
//
// ON COMMIT DELETE ROWS and ON COMMIT DROP act as the transaction
// commits, after its deferred checks and before its commit record.
//
// The rows of temporary tables go through the write-ahead log like any
// others; nothing depends on their being there after a crash, since the
// schema that holds them goes at the next start.

// tempSlots hands out the numbers of the sessions' temporary schemas: the
// lowest free one, as PostgreSQL's backend slots are.
type tempSlots struct {
	mu   sync.Mutex
	used []bool // by slot - 1
}

func (t *tempSlots) take() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.Index(t.used, false)
	if i < 0 {
		i = len(t.used)
		t.used = append(t.used, false)
	}
	t.used[i] = true
	return i + 1
}

func (t *tempSlots) give(slot int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.used[slot-1] = false
}

// tempSchemaName is the name of the session's temporary schema.
func (s *Session) tempSchemaName() string {
	return catalog.TempPrefix + strconv.Itoa(s.tempSlot)
}

// createRelIn is the qualified name a CREATE of relation schema.name
// gives it: as createIn, except that a temporary relation goes in the
// session's temporary schema, made if need be, which must be the schema
// named if one is. One made in pg_temp, by name or as the search path's
// first schema, is temporary too, as PostgreSQL makes it.
func (s *Session) createRelIn(ctx context.Context, schema, name string, temp bool) (catalog.QName, error) {
	path := s.searchPath()
	own := schema == catalog.TempAlias || schema == s.tempSchemaName() || schema == "" && path.CreateTemp
	if temp && schema != "" && !own {
		if sc := s.catalog().SchemaNamed(schema); sc != nil && sc.IsTemp() {
			return catalog.QName{}, pgerr.New(pgerr.InvalidTableDefinition, "cannot create relations in temporary schemas of other sessions")
		}
		return catalog.QName{}, pgerr.New(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	if !temp && !own {
		return s.createIn(schema, name)
	}
	nsp, err := s.tempSchema(ctx)
	return catalog.QName{Schema: nsp, Name: name}, err
}

// isTemp reports whether schema nsp is a temporary schema.
func isTemp(cat *catalog.Catalog, nsp uint32) bool {
	sc := cat.SchemaByID[nsp]
	return sc != nil && sc.IsTemp()
}

// usesTemp reports whether any of the relations ids names (a view's
// dependencies) is temporary.
func usesTemp(cat *catalog.Catalog, ids []uint32) bool {
	for _, id := range ids {
		if t := cat.TableByID[id]; t != nil && isTemp(cat, t.Schema) {
			return true
		}
		if q := cat.SequenceByID[id]; q != nil && isTemp(cat, q.Schema) {
			return true
		}
	}
	return slices.ContainsFunc(cat.Views(), func(v *catalog.View) bool {
		return slices.Contains(ids, v.ID) && isTemp(cat, v.Schema)
	})
}

// tempSchema is the oid of the session's temporary schema, which it
// makes in the transaction's DDL if it has none. A schema of that name
// that the session did not make is what a session that held the slot
// before left behind: it goes first.
func (s *Session) tempSchema(ctx context.Context) (uint32, error) {
	d, err := s.ddl(ctx)
	if err != nil {
		return 0, err
	}
	name := s.tempSchemaName()
	if sc := d.Cat.SchemaNamed(name); sc != nil {
		if s.tempMade {
			return sc.ID, nil
		}
		if err := s.dropSchemasQuietly(ctx, []string{name}); err != nil {
			return 0, err
		}
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return 0, err
	}
	if err := d.ClaimSchemaName(ctx, name, id); err != nil {
		return 0, err
	}
	if err := d.PutSchema(ctx, &catalog.Schema{ID: id, Name: name, Owner: s.user}); err != nil {
		return 0, err
	}
	s.tempMade = true
	return id, nil
}

// dropSchemasQuietly drops schemas and all they hold, in the
// transaction, without the notices DROP SCHEMA ... CASCADE sends: a
// session's temporary objects go silently, as PostgreSQL's do.
func (s *Session) dropSchemasQuietly(ctx context.Context, names []string) error {
	saved := s.noticeFn
	s.noticeFn = nil
	defer func() { s.noticeFn = saved }()
	return s.dropSchemas(ctx, &parser.DropSchema{Names: names, IfExists: true, Cascade: true})
}

// discardTemp drops the session's temporary objects in its transaction,
// for DISCARD TEMP and DISCARD ALL.
func (s *Session) discardTemp(ctx context.Context) error {
	clear(s.onCommit)
	if !s.tempMade || s.catalog().SchemaNamed(s.tempSchemaName()) == nil {
		return nil
	}
	return s.dropSchemasQuietly(ctx, []string{s.tempSchemaName()})
}

// closeTemp drops the session's temporary objects as it ends, in a
// transaction of their own, and gives up its slot. A failure leaves the
// schema to the next session in the slot, or the next start.
func (s *Session) closeTemp() {
	defer s.e.tempSlots.give(s.tempSlot)
	if !s.tempMade || s.catalog().SchemaNamed(s.tempSchemaName()) == nil {
		return
	}
	if err := s.beginTxn(""); err != nil {
		return
	}
	err := s.discardTemp(context.Background())
	_ = s.endTxn(err == nil)
}

// dropStaleTemp drops the temporary schemas that sessions of an earlier
// run left, as the engine starts: no session holds them now.
func (e *Engine) dropStaleTemp() error {
	var names []string
	for _, sc := range e.cat.Load().Schemas() {
		if sc.IsTemp() {
			names = append(names, sc.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	s, err := e.NewSession(SessionParams{})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.beginTxn(""); err != nil {
		return err
	}
	if err := s.dropSchemasQuietly(context.Background(), names); err != nil {
		_ = s.endTxn(false)
		return err
	}
	return s.endTxn(true)
}

// onCommitAction is what a commit does to a temporary table made with ON
// COMMIT DELETE ROWS or DROP.
type onCommitAction uint8

const (
	onCommitDelete onCommitAction = iota + 1
	onCommitDrop
)

// noteOnCommit records what commits do to the temporary table t, made
// with clause oc; any ON COMMIT but on a temporary table is 42P16.
func (s *Session) noteOnCommit(cat *catalog.Catalog, t *catalog.Table, oc parser.OnCommit) error {
	if oc == parser.OnCommitNone {
		return nil
	}
	if !isTemp(cat, t.Schema) {
		return pgerr.New(pgerr.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
	}
	switch oc {
	case parser.OnCommitDelete:
		s.onCommit[t.ID] = onCommitDelete
	case parser.OnCommitDrop:
		s.onCommit[t.ID] = onCommitDrop
	}
	return nil
}

// runOnCommit empties the ON COMMIT DELETE ROWS tables and drops the ON
// COMMIT DROP ones, in the committing transaction. A table that is gone
// (its transaction rolled back, or it was dropped) is forgotten.
func (s *Session) runOnCommit(ctx context.Context) error {
	if len(s.onCommit) == 0 {
		return nil
	}
	s.tx.NextStatement() // the scans below see every row the transaction wrote
	cat := s.catalog()
	var drop []*catalog.Table
	for id, a := range s.onCommit {
		t := cat.TableByID[id]
		switch {
		case t == nil:
			delete(s.onCommit, id)
		case a == onCommitDrop:
			drop = append(drop, t)
			delete(s.onCommit, id)
		default:
			if err := catalog.DeleteRange(ctx, s.tx, catalog.TablePrefix(t.DataID)); err != nil {
				return err
			}
		}
	}
	if len(drop) == 0 {
		return nil
	}
	slices.SortFunc(drop, func(a, b *catalog.Table) int { return int(a.ID) - int(b.ID) })
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	saved := s.noticeFn
	s.noticeFn = nil
	defer func() { s.noticeFn = saved }()
	return s.dropRelations(ctx, d, drop, "table", true)
}
