package sql

import (
	"context"
	"slices"
	"strconv"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// createIndex runs CREATE [UNIQUE] INDEX: it adds the index to the table
// and writes an entry for every row the table holds, all in the DDL's
// transaction, so the index appears with its entries or not at all.
func (s *Session) createIndex(ctx context.Context, st *parser.Statement, n *ast.CreateIndexStmt) error {
	q, err := s.lookIn(n.Table.Schema.O, n.Table.Name.O)
	if err != nil {
		return err
	}
	d, old, err := s.ddlTable(ctx, q, "create index", false)
	if err != nil {
		return err
	}
	if parts := st.IndexNameParts; parts != nil {
		// ChooseRelationName: the first of t_a_idx, t_a_idx1, ... free.
		for i := 1; d.Cat.HasRelation(old.Schema, n.IndexName); i++ {
			n.IndexName = parser.ObjectName(parts[0], parts[1], parts[2]+strconv.Itoa(i))
		}
	}
	if d.Cat.HasRelation(old.Schema, n.IndexName) {
		if n.IfNotExists {
			s.notice(pgerr.DuplicateTable, "relation %q already exists, skipping", n.IndexName)
			return nil
		}
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", n.IndexName)
	}
	t := old.Clone()
	ix := &catalog.Index{Name: n.IndexName, NonUnique: n.KeyType != ast.IndexKeyTypeUnique, Standalone: true, NullEntries: true}
	if ix.ID, err = t.NextIndexID(); err != nil {
		return err
	}
	rewrite := false
	for _, part := range n.IndexPartSpecifications {
		if part.Expr != nil {
			i, added, err := s.hiddenColumnFor(t, part.Expr)
			if err != nil {
				return err
			}
			ix.Columns, rewrite = append(ix.Columns, i), rewrite || added
			continue
		}
		i, col := t.Column(part.Column.Name.O)
		if col == nil {
			return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", part.Column.Name.O)
		}
		ix.Columns = append(ix.Columns, i)
	}
	if st.IndexPredicate != nil {
		if err := s.indexPredicate(t, ix, st.IndexPredicate); err != nil {
			return err
		}
	}
	t.Indexes = append(t.Indexes, ix)
	if rewrite {
		// Every row needs the new column's value: a rewrite, which writes
		// the new index's entries with the rest.
		if err := s.rebuild(ctx, d, old, t, nil, nil); err != nil {
			return err
		}
		return d.PutTable(ctx, t)
	}

	err = s.eachRow(ctx, d, t, func(x *plan.ExecCtx, row []any) error {
		err := s.insertIndexEntry(x, t, ix, row, row[len(t.Columns)].([]byte))
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.UniqueViolation {
			return pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", ix.Name).
				WithDetail("Key %s is duplicated.", keyValues(t, ix, row, s))
		}
		return err
	})
	if err != nil {
		return err
	}
	return d.PutTable(ctx, t)
}

// eachRow calls fn for each row of t that the DDL transaction sees.
func (s *Session) eachRow(ctx context.Context, d *catalog.DDL, t *catalog.Table, fn func(x *plan.ExecCtx, row []any) error) error {
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: d.Tx}
	defer x.CloseTemps()
	it, err := (&plan.TableScan{Table: t, Access: plan.Access{Kind: "seq"}}).Open(x)
	if err != nil {
		return err
	}
	defer it.Close()
	for {
		row, err := it.Next()
		if err != nil || row == nil {
			return err
		}
		if err := fn(x, row); err != nil {
			return err
		}
	}
}

// dropIndex runs DROP INDEX: it deletes the index's entries and takes it
// out of its table. Indexes that constraints own go with the constraint.
func (s *Session) dropIndex(ctx context.Context, n *ast.DropIndexStmt, cascade bool) error {
	q, ok, err := s.findIn(n.Table.Schema.O, n.IndexName, n.IfExists)
	if !ok {
		return err
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	if err := viewMisuse(d.Cat, q, "index"); err != nil {
		return err
	}
	old, ix := d.Cat.IndexNamed(q)
	if old != nil {
		// Writers in flight may hold entries the drop must delete, and
		// readers may be scanning the index.
		if err := s.refusePendingChecks(old, "DROP INDEX"); err != nil {
			return err
		}
		if err := s.lockTableForDDL(ctx, d, old, true); err != nil {
			return err
		}
	}
	switch {
	case ix == nil && n.IfExists:
		s.notice(pgerr.SuccessfulCompletion, "index %q does not exist, skipping", n.IndexName)
		return nil
	case ix == nil:
		return pgerr.New(pgerr.UndefinedObject, "index %q does not exist", n.IndexName)
	case !ix.Standalone:
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it",
			ix.Name, ix.Name, old.Name).
			WithHint("You can drop constraint %s on table %s instead.", ix.Name, old.Name)
	}
	deps, err := s.checkDependents(d.Cat, []dropTarget{{kind: "index", name: ix.Name, id: ix.OID, table: old, index: ix}}, nil, cascade)
	if err != nil {
		return err
	}
	if err := s.dropDependents(ctx, d, deps); err != nil {
		return err
	}
	t := d.Cat.TableByID[old.ID].Clone() // a foreign key of its own may have gone
	t.Indexes = slices.DeleteFunc(t.Indexes, func(other *catalog.Index) bool { return other.ID == ix.ID })
	dropUnusedHidden(t)
	if err := d.DeleteRange(ctx, catalog.IndexPrefix(t.DataID, ix.ID)); err != nil {
		return err
	}
	return d.PutTable(ctx, t)
}

// hasEntry reports whether ix has an entry for row: a partial index only
// for the rows its predicate holds for.
func (s *Session) hasEntry(t *catalog.Table, ix *catalog.Index, row []any) (bool, error) {
	if !ix.NullEntries && catalog.HasNull(ix, row) {
		return false, nil
	}
	if ix.Where == "" {
		return true, nil
	}
	pred, err := s.predicateOf(t, ix)
	if err != nil {
		return false, err
	}
	v, err := pred.Eval(&plan.Env{Ctx: context.Background(), Row: row, Host: s.host()})
	return v == true, err
}

// insertIndexEntry writes ix's entry for a new row; a unique index that
// already has the row's values fails with 23505.
func (s *Session) insertIndexEntry(x *plan.ExecCtx, t *catalog.Table, ix *catalog.Index, row []any, rowKey []byte) error {
	if ok, err := s.hasEntry(t, ix, row); !ok || err != nil {
		return err
	}
	unique := !ix.NonUnique && !catalog.HasNull(ix, row)
	return x.Tx.MutateNew(x.Ctx, t.IndexEntryKey(ix, row, rowKey), func(_ []byte, exists bool) ([]byte, txn.Op, error) {
		if exists && unique {
			return nil, txn.Keep, s.uniqueViolation(t, ix, row)
		}
		return rowKey, txn.Put, nil
	})
}

// Partial indexes. CREATE INDEX ... WHERE pred keeps entries only for the
// rows pred holds for. A unique one enforces uniqueness among those rows
// alone, which is what it is made for (one live row per key, say). The
// planner does not read partial indexes, since it would have to prove the
// query's WHERE clause implies pred; nor do foreign keys and ON CONFLICT,
// as in PostgreSQL without a matching predicate.

// indexPredicate checks a partial index's WHERE clause, given as the
// select list of a SELECT, and keeps it on ix.
func (s *Session) indexPredicate(t *catalog.Table, ix *catalog.Index, st *parser.Statement) error {
	sel, ok := st.AST.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From != nil || sel.Where != nil {
		return pgerr.New(pgerr.SyntaxError, "syntax error in index predicate")
	}
	n := sel.Fields.Fields[0].Expr
	if plan.HasSubquery(n) {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in index predicate")
	}
	var params []types.T
	vol := builtins.Immutable
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: plan.TableScope(t, t.Name), Volatility: &vol}
	if _, err := c.CompileAs(n, types.Bool); err != nil {
		return err
	}
	if !immutable(n, vol) {
		return pgerr.New(pgerr.InvalidObjectDefinition, "functions in index predicate must be marked IMMUTABLE")
	}
	ix.Where = s.storedExpr(n)
	_, err := s.predicateOf(t, ix)
	return err
}

// partialImplied tells, for each index of t, whether a scan under where
// may read it: -1 for a partial index whose predicate where does not
// imply, else the number of the predicate's conjuncts (0 for a full
// index). As in PostgreSQL's simplest proof, each conjunct of the
// predicate must be one of where's, compared as pg_get_expr prints them;
// constants must match, so a predicate is never proved by a parameter's
// value.
func (s *Session) partialImplied(t *catalog.Table, where plan.Expr) func(*catalog.Index) int {
	var have map[string]bool
	return func(ix *catalog.Index) int {
		if ix.Where == "" {
			return 0
		}
		if where == nil {
			return -1
		}
		pred, err := s.predicateOf(t, ix)
		if err != nil {
			return -1
		}
		names := columnNames(t)
		if have == nil {
			have = map[string]bool{}
			for _, cj := range plan.Conjuncts(where) {
				if text, ok := plan.Deparse(nil, cj, names); ok {
					have[text] = true
				}
			}
		}
		preds := plan.Conjuncts(pred)
		for _, pj := range preds {
			if text, ok := plan.Deparse(nil, pj, names); !ok || !have[text] {
				return -1
			}
		}
		return len(preds)
	}
}

// predicateOf compiles ix's predicate over t's rows.
func (s *Session) predicateOf(t *catalog.Table, ix *catalog.Index) (plan.Expr, error) {
	key := predicateKey{t, ix}
	if e, ok := s.predCache[key]; ok {
		return e, nil
	}
	n, err := plan.ParseExpr(ix.Where)
	if err != nil {
		return nil, err
	}
	var params []types.T
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: plan.TableScope(t, t.Name)}
	e, err := c.CompileAs(n, types.Bool)
	if err != nil {
		return nil, err
	}
	if s.predCache == nil || len(s.predCache) > 64 {
		s.predCache = map[predicateKey]plan.Expr{}
	}
	s.predCache[key] = e
	return e, nil
}

type predicateKey struct {
	t  *catalog.Table
	ix *catalog.Index
}
