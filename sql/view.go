package sql

import (
	"context"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// createView runs CREATE [OR REPLACE] VIEW.
func (s *Session) createView(ctx context.Context, cv *parser.CreateView) error {
	schema, name, err := splitSchema(cv.Name)
	if err != nil {
		return err
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	path := s.searchPath()
	v := &catalog.View{Name: name, SQL: cv.Query.SQL}
	qp, err := plan.PlanViewQuery(s.host(), v.SQL, &path, nil)
	if err != nil {
		return err
	}
	cols := qp.Columns()
	if len(cv.Columns) > len(cols) {
		return pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	for i, col := range cols {
		vc := catalog.ViewColumn{Name: col.Name, Type: col.Type}
		if i < len(cv.Columns) {
			vc.Name = cv.Columns[i]
		}
		if vc.Type.Oid == types.OidUnknown {
			vc.Type = types.Text
		}
		if elem, _ := vc.Type.Elem(); vc.Type.Oid == types.OidRecord || elem.Oid == types.OidRecord {
			return pgerr.New(pgerr.InvalidTableDefinition, "column %q has pseudo-type %s", vc.Name, vc.Type)
		}
		if slices.ContainsFunc(v.Columns, func(o catalog.ViewColumn) bool { return o.Name == vc.Name }) {
			return pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", vc.Name)
		}
		v.Columns = append(v.Columns, vc)
	}
	if v.Deps, err = viewDeps(d.Cat, path, cv.Query.AST); err != nil {
		return err
	}
	// A view of a temporary relation is temporary, as in PostgreSQL; only
	// a temporary one keeps the temporary schema on its path.
	temp := cv.Temp
	if !temp && usesTemp(d.Cat, v.Deps) {
		s.notice(pgerr.SuccessfulCompletion, "view %q will be a temporary view", name)
		temp = true
	}
	q, err := s.createRelIn(ctx, schema, name, temp)
	if err != nil {
		return err
	}
	v.Schema, v.Path = q.Schema, path.NoTemp()
	if isTemp(d.Cat, q.Schema) {
		v.Path = path.Schemas
	}
	old := d.Cat.ViewByName[q]
	if old == nil && d.Cat.HasRelation(q.Schema, q.Name) || old != nil && !cv.OrReplace {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", q.Name)
	}
	if old != nil {
		// OR REPLACE may add columns at the end, not change the others.
		if len(v.Columns) < len(old.Columns) {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop columns from view")
		}
		for i, oc := range old.Columns {
			if v.Columns[i].Name != oc.Name {
				return pgerr.New(pgerr.InvalidTableDefinition, "cannot change name of view column %q to %q", oc.Name, v.Columns[i].Name)
			}
			if v.Columns[i].Type != oc.Type {
				return pgerr.New(pgerr.InvalidTableDefinition, "cannot change data type of view column %q from %s to %s", oc.Name, oc.Type, v.Columns[i].Type)
			}
		}
		v.ID, v.Triggers = old.ID, old.Triggers
		return d.PutView(ctx, v)
	}
	if v.ID, err = d.NextID(ctx); err != nil {
		return err
	}
	if err := d.ClaimName(ctx, q, v.ID); err != nil {
		return err
	}
	return d.PutView(ctx, v)
}

// viewDeps lists the tables, views and sequences a query reads, and the
// user-defined functions it may call: those of each name it calls that
// take its number of arguments. A
// sequence named to nextval must exist, as PostgreSQL's regclass
// constant requires.
func viewDeps(cat *catalog.Catalog, path catalog.Path, n ast.Node) ([]uint32, error) {
	f := &plan.TableNameFinder{}
	n.Accept(f)
	var deps []uint32
	add := func(id uint32) {
		if id != 0 && !slices.Contains(deps, id) {
			deps = append(deps, id)
		}
	}
	for _, name := range f.Sequences {
		sq := plan.ResolveSequence(cat, path, name)
		if sq == nil {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
		}
		add(sq.ID)
	}
	for _, call := range f.Calls {
		fs, err := cat.FunctionOverloads(path, call.Schema, call.Name)
		if err != nil {
			continue
		}
		for _, fn := range fs {
			if fn.Kind == 'f' && (len(fn.InParams()) == call.Args || fn.Variadic() || slices.ContainsFunc(fn.InParams(), func(p catalog.Param) bool { return p.Default != "" })) {
				add(fn.ID)
			}
		}
	}
	for _, r := range f.Tables {
		q, err := cat.Resolve(path, r.Schema, r.Name)
		if err != nil {
			continue // the query's planning has said what is missing
		}
		if t := cat.TableByName[q]; t != nil {
			add(t.ID)
		} else if v := cat.ViewByName[q]; v != nil {
			add(v.ID)
		} else if sq := cat.SequenceByName[q]; sq != nil {
			add(sq.ID)
		}
	}
	return deps, nil
}

// viewUsesColumn reports whether a view that reads table t may read its
// column name: by name, or through a *.
func viewUsesColumn(v *catalog.View, t *catalog.Table, name string) bool {
	if !slices.Contains(v.Deps, t.ID) {
		return false
	}
	stmts, err := parser.Parse(v.SQL)
	if err != nil || len(stmts) != 1 || stmts[0].AST == nil {
		return true
	}
	f := &columnUseFinder{}
	stmts[0].AST.Accept(f)
	return f.star || slices.Contains(f.names, name)
}

type columnUseFinder struct {
	names []string
	star  bool
}

func (f *columnUseFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.ColumnNameExpr:
		f.names = append(f.names, n.Name.Name.O)
	case *ast.SelectField:
		f.star = f.star || n.WildCard != nil
	}
	return n, false
}

func (f *columnUseFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// dropViews runs DROP VIEW.
func (s *Session) dropViews(ctx context.Context, n *ast.DropTableStmt, cascade bool) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	var views []*catalog.View
	for _, tn := range n.Tables {
		q, ok, err := s.findIn(tn.Schema.O, tn.Name.O, n.IfExists)
		if !ok {
			if err != nil {
				return err
			}
			continue
		}
		v := d.Cat.ViewByName[q]
		switch {
		case v == nil && d.Cat.TableByName[q] != nil && d.Cat.TableByName[q].IsMatView():
			return pgerr.New(pgerr.WrongObjectType, "%q is not a view", tn.Name.O).
				WithHint("Use DROP MATERIALIZED VIEW to remove a materialized view.")
		case v == nil && d.Cat.TableByName[q] != nil:
			return pgerr.New(pgerr.WrongObjectType, "%q is not a view", tn.Name.O).
				WithHint("Use DROP TABLE to remove a table.")
		case v == nil && n.IfExists:
			s.notice(pgerr.SuccessfulCompletion, "view %q does not exist, skipping", tn.Name.O)
		case v == nil:
			return pgerr.New(pgerr.UndefinedTable, "view %q does not exist", tn.Name.O)
		case !slices.Contains(views, v):
			views = append(views, v)
		}
	}
	ids := make([]uint32, len(views))
	targets := make([]dropTarget, len(views))
	for i, v := range views {
		ids[i], targets[i] = v.ID, dropTarget{kind: "view", name: v.Name, id: v.ID}
	}
	deps, err := s.checkDependents(d.Cat, targets, ids, cascade)
	if err != nil {
		return err
	}
	if err := s.dropDependents(ctx, d, deps); err != nil {
		return err
	}
	for _, v := range views {
		if err := d.DropView(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// viewMisuse is the error of an operation on a view that only a table,
// index or sequence takes (42809), as PostgreSQL words it; nil if name is
// not a view.
func viewMisuse(c *catalog.Catalog, q catalog.QName, op string) error {
	name := q.Name
	if t := c.TableByName[q]; t != nil && t.IsMatView() {
		switch op {
		case "create index", "copy out", "alter rename", "alter rename constraint":
			return nil
		case "copy in":
			return errMatViewWrite(name)
		case "truncate", "sequence", "index":
			return pgerr.New(pgerr.WrongObjectType, "%q is not a table", name)
		}
		return pgerr.New(pgerr.WrongObjectType, "ALTER action %s cannot be performed on relation %q", strings.TrimPrefix(op, "alter "), name).
			WithDetail("This operation is not supported for materialized views.")
	}
	if c.ViewByName[q] == nil {
		return nil
	}
	switch op {
	case "index", "sequence":
		article := map[string]string{"index": "an", "sequence": "a"}[op]
		return pgerr.New(pgerr.WrongObjectType, "%q is not %s %s", name, article, op).
			WithHint("Use DROP VIEW to remove a view.")
	case "truncate":
		return pgerr.New(pgerr.WrongObjectType, "%q is not a table", name)
	case "copy in":
		return pgerr.New(pgerr.WrongObjectType, "cannot copy to view %q", name).
			WithHint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
	case "copy out":
		return pgerr.New(pgerr.WrongObjectType, "cannot copy from view %q", name).
			WithHint("Try the COPY (SELECT ...) TO variant.")
	case "create index":
		return pgerr.New(pgerr.WrongObjectType, "cannot create index on relation %q", name).
			WithDetail("This operation is not supported for views.")
	}
	return pgerr.New(pgerr.WrongObjectType, "ALTER action %s cannot be performed on relation %q", strings.TrimPrefix(op, "alter "), name).
		WithDetail("This operation is not supported for views.")
}

// alterViewRename runs ALTER [MATERIALIZED] VIEW ... RENAME TO and RENAME
// COLUMN. The views that read a renamed view follow it (renameInViews);
// a renamed column must be one no other view reads.
func (s *Session) alterViewRename(ctx context.Context, cmd *parser.AlterViewRename) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	q, err := s.lookName(cmd.Name)
	if err != nil {
		return err
	}
	name := q.Name
	kind := "view"
	if cmd.Materialized {
		kind = "materialized view"
	}
	v, t := d.Cat.ViewByName[q], d.Cat.TableByName[q]
	switch {
	case cmd.Materialized && t != nil && t.IsMatView(), !cmd.Materialized && v != nil:
	case v != nil || t != nil:
		return pgerr.New(pgerr.WrongObjectType, "%q is not a %s", name, kind)
	case cmd.IfExists:
		s.notice(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", name)
		return nil
	default:
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	if cmd.Materialized {
		if err := s.lockTableForDDL(ctx, d, t, true); err != nil {
			return err
		}
		renamed := t.Clone()
		if cmd.Column != "" {
			err = renameColumn(d, renamed, cmd.Column, cmd.NewName)
		} else {
			err = renameTable(d, ctx, renamed, cmd.NewName)
		}
		if err != nil {
			return err
		}
		return d.PutTable(ctx, renamed)
	}
	renamed := *v
	renamed.Columns = slices.Clone(v.Columns)
	if cmd.Column != "" {
		i := slices.IndexFunc(renamed.Columns, func(c catalog.ViewColumn) bool { return c.Name == cmd.Column })
		switch {
		case i < 0:
			return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", cmd.Column)
		case slices.ContainsFunc(renamed.Columns, func(c catalog.ViewColumn) bool { return c.Name == cmd.NewName }):
			return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", cmd.NewName, name)
		}
		for _, other := range d.Cat.ViewByName {
			if slices.Contains(other.Deps, v.ID) && parser.MentionsName(other.SQL, cmd.Column) {
				return pgerr.New(pgerr.FeatureNotSupported, "cannot rename column %s of view %s because view %s uses it", cmd.Column, name, other.Name).
					WithHint("Drop the view, rename the column, and create the view again.")
			}
		}
		renamed.Columns[i].Name = cmd.NewName
		return d.PutView(ctx, &renamed)
	}
	renamedQ := catalog.QName{Schema: q.Schema, Name: cmd.NewName}
	if d.Cat.HasRelation(q.Schema, cmd.NewName) {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", cmd.NewName)
	}
	if err := renameInViews(d, ctx, v.ID, name, cmd.NewName); err != nil {
		return err
	}
	if err := d.ClaimName(ctx, renamedQ, v.ID); err != nil {
		return err
	}
	if err := d.ReleaseName(ctx, q); err != nil {
		return err
	}
	delete(d.Cat.ViewByName, q)
	renamed.Name = cmd.NewName
	return d.PutView(ctx, &renamed)
}
