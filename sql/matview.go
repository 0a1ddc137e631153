package sql

import (
	"context"
	"slices"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgcatalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// Materialized views: a table that holds a query's rows as of its last
// REFRESH, which only REFRESH writes. One is a Table whose MatView is the
// query's text and whose Deps are the relations the query reads, as a
// view's are; reads, indexes and the catalogs treat it as a table, of
// relkind 'm'. WITH NO DATA leaves it unpopulated, and reading it then
// fails with 55000, as in PostgreSQL.

// errMatViewWrite is the error of writing to a materialized view.
func errMatViewWrite(name string) error {
	return pgerr.New(pgerr.WrongObjectType, "cannot change materialized view %q", name)
}

// createMatView runs CREATE MATERIALIZED VIEW: a table of the query's
// columns, filled with its rows unless WITH NO DATA. It returns how many
// rows it stored, or -1 if it stored none by design (WITH NO DATA, or IF
// NOT EXISTS finding the view).
func (s *Session) createMatView(ctx context.Context, cmd *parser.CreateMatView) (int64, error) {
	d, err := s.ddl(ctx)
	if err != nil {
		return 0, err
	}
	q, err := s.createName(ctx, cmd.Name)
	if err != nil {
		return 0, err
	}
	name := q.Name
	if d.Cat.HasRelation(q.Schema, name) {
		if cmd.IfNotExists {
			s.notice(pgerr.DuplicateTable, "relation %q already exists, skipping", name)
			return -1, nil
		}
		return 0, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	path := s.searchPath()
	qp, err := plan.PlanViewQuery(s.host(), cmd.Query.SQL, &path, nil)
	if err != nil {
		return 0, err
	}
	cols := qp.Columns()
	if len(cmd.Columns) > len(cols) {
		return 0, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return 0, err
	}
	t := &catalog.Table{ID: id, Name: name, Schema: q.Schema, DataID: id, Options: map[string]string{}, MatView: cmd.Query.SQL,
		Path: path.NoTemp(), Unpopulated: cmd.NoData}
	if t.Deps, err = viewDeps(d.Cat, path, cmd.Query.AST); err != nil {
		return 0, err
	}
	if usesTemp(d.Cat, t.Deps) {
		return 0, pgerr.New(pgerr.FeatureNotSupported, "materialized views must not use temporary tables or views")
	}
	for i, c := range cols {
		colName := c.Name
		if i < len(cmd.Columns) {
			colName = cmd.Columns[i]
		}
		if _, dup := t.Column(colName); dup != nil {
			return 0, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", colName)
		}
		typ := c.Type
		if typ.Oid == types.OidUnknown {
			typ = types.Text
		}
		if err := pgcatalog.Storable(colName, typ); err != nil {
			return 0, err
		}
		t.NextNum++
		t.Columns = append(t.Columns, &catalog.TableColumn{Num: t.NextNum, Name: colName, Type: typ})
	}
	if err := s.addRowIDSeq(ctx, d, t); err != nil {
		return 0, err
	}
	if err := d.ClaimName(ctx, q, id); err != nil {
		return 0, err
	}
	if err := d.PutTable(ctx, t); err != nil {
		return 0, err
	}
	if cmd.NoData {
		return -1, nil
	}
	return s.fillMatView(ctx, d, t, qp)
}

// fillMatView writes the rows of qp, t's query, into t, and returns how
// many.
func (s *Session) fillMatView(ctx context.Context, d *catalog.DDL, t *catalog.Table, qp plan.QueryPlan) (int64, error) {
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: d.Tx}
	defer x.CloseTemps()
	it, err := qp.Open(x)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n int64
	for {
		r, err := it.Next()
		if err != nil || r == nil {
			return n, err
		}
		// The query gives the visible columns; an expression index's
		// hidden ones are computed as the row is written.
		row := make([]any, len(t.Columns)+1)
		copy(row, r[:min(len(r), len(t.Columns))])
		if err := s.insertRow(x, t, row); err != nil {
			return n, err
		}
		n++
	}
}

// refreshMatView runs REFRESH MATERIALIZED VIEW: the rows go, and the
// query's rows as of now take their place, unless WITH NO DATA leaves the
// view unpopulated. Readers wait, as for PostgreSQL's exclusive lock; a
// reader whose snapshot is older sees the old rows.
func (s *Session) refreshMatView(ctx context.Context, cmd *parser.RefreshMatView) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	q, err := s.lookName(cmd.Name)
	if err != nil {
		return err
	}
	name := q.Name
	old := d.Cat.TableByName[q]
	switch {
	case old == nil && d.Cat.ViewByName[q] != nil:
		return pgerr.New(pgerr.WrongObjectType, "%q is not a materialized view", name)
	case old == nil:
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	case !old.IsMatView():
		return pgerr.New(pgerr.FeatureNotSupported, "%q is not a materialized view", name) // PostgreSQL's code for it
	}
	if cmd.Concurrently {
		if err := s.concurrentRefresh(d.Cat, old); err != nil {
			return err
		}
	}
	if err := s.lockTableForDDL(ctx, d, old, true); err != nil {
		return err
	}
	t := old.Clone()
	t.Unpopulated = cmd.NoData
	if t.DataID, err = d.NextID(ctx); err != nil {
		return err
	}
	if err := d.DeleteData(ctx, old.DataID); err != nil {
		return err
	}
	if err := d.PutTable(ctx, t); err != nil {
		return err
	}
	if cmd.NoData {
		return nil
	}
	qp, err := plan.PlanViewQuery(s.host(), t.MatView, plan.ViewPath(t.MatViewAsView()), nil)
	if err != nil {
		return err
	}
	_, err = s.fillMatView(ctx, d, t, qp)
	return err
}

// concurrentRefresh checks what REFRESH ... CONCURRENTLY needs, as
// PostgreSQL does: rows to compare, and a unique index of plain columns
// with no WHERE clause to match them by. epochdb's refresh keeps readers
// on the old rows either way.
func (s *Session) concurrentRefresh(cat *catalog.Catalog, t *catalog.Table) error {
	if t.Unpopulated {
		return pgerr.New(pgerr.FeatureNotSupported, "CONCURRENTLY cannot be used when the materialized view is not populated")
	}
	for _, ix := range t.Indexes {
		if !ix.NonUnique && ix.Where == "" && !slices.ContainsFunc(ix.Columns, func(c int) bool { return t.Columns[c].Hidden }) {
			return nil
		}
	}
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cannot refresh materialized view \"%s.%s\" concurrently",
		parser.QuoteIdent(cat.SchemaName(t.Schema)), parser.QuoteIdent(t.Name)).
		WithHint("Create a unique index with no WHERE clause on one or more columns of the materialized view.")
}

// dropMatViews runs DROP MATERIALIZED VIEW.
func (s *Session) dropMatViews(ctx context.Context, cmd *parser.DropMatView) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	var views []*catalog.Table
	for _, qualified := range cmd.Names {
		q, ok, err := s.foundName(qualified, cmd.IfExists)
		if !ok {
			if err != nil {
				return err
			}
			continue
		}
		name := q.Name
		t := d.Cat.TableByName[q]
		switch {
		case t != nil && !t.IsMatView(), t == nil && d.Cat.ViewByName[q] != nil:
			return pgerr.New(pgerr.WrongObjectType, "%q is not a materialized view", name).
				WithHint("Use DROP %s to remove a %s.", map[bool]string{true: "TABLE", false: "VIEW"}[t != nil], map[bool]string{true: "table", false: "view"}[t != nil])
		case t == nil && cmd.IfExists:
			s.notice(pgerr.SuccessfulCompletion, "materialized view %q does not exist, skipping", name)
		case t == nil:
			return pgerr.New(pgerr.UndefinedTable, "materialized view %q does not exist", name)
		default:
			views = append(views, t)
		}
	}
	return s.dropRelations(ctx, d, views, "materialized view", cmd.Cascade)
}
