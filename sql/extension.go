package sql

import (
	"context"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgcatalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Extensions. epochdb builds in the extensions it has (pgcatalog's
// Extensions): CREATE EXTENSION records one in the catalog, and the
// functions it provides (sql/builtins, Overload.Extension) resolve while
// the record is there and its schema is on the search path; the types it
// provides (citext: types.ExtensionTypes) are in that schema while it is.
// plpgsql is installed in every database, as in PostgreSQL.

// createExtension runs CREATE EXTENSION.
func (s *Session) createExtension(ctx context.Context, cmd *parser.CreateExtension) error {
	avail, ok := pgcatalog.AvailableExtension(cmd.Name)
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "extension %q is not available", cmd.Name).
			WithDetail("Could not open extension control file \"/usr/share/postgresql/15/extension/%s.control\": No such file or directory.", cmd.Name).
			WithHint("The extension must first be installed on the system where PostgreSQL is running.")
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	if avail.Builtin || d.Cat.ExtensionByName[cmd.Name] != nil {
		if cmd.IfNotExists {
			s.notice(pgerr.DuplicateObject, "extension %q already exists, skipping", cmd.Name)
			return nil
		}
		return pgerr.New(pgerr.DuplicateObject, "extension %q already exists", cmd.Name)
	}
	if cmd.Version != "" && cmd.Version != avail.Version {
		return pgerr.New(pgerr.InvalidParameterValue, "extension %q has no installation script nor update path for version %q", cmd.Name, cmd.Version)
	}
	schema := s.searchPath().Create
	if cmd.Schema != "" {
		sc, err := d.Cat.Schema(cmd.Schema)
		if err != nil {
			return err
		}
		schema = sc.ID
	}
	if schema == 0 {
		return pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in")
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return err
	}
	return d.PutExtension(ctx, &catalog.Extension{ID: id, Name: cmd.Name, Version: avail.Version, Schema: schema})
}

// dropExtensions runs DROP EXTENSION. An extension whose functions or
// types a stored expression uses (a default, a generated column, a CHECK
// constraint, an index or a view), or whose types columns have, stays, as
// PostgreSQL's dependencies keep it; with CASCADE the columns go, and
// what depends on them.
func (s *Session) dropExtensions(ctx context.Context, cmd *parser.DropExtension) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	var drop []*catalog.Extension
	for _, name := range cmd.Names {
		if avail, ok := pgcatalog.AvailableExtension(name); ok && avail.Builtin {
			return pgerr.New(pgerr.FeatureNotSupported, "DROP EXTENSION %s is not supported: it is built in", name)
		}
		e := d.Cat.ExtensionByName[name]
		if e == nil {
			if cmd.IfExists {
				s.notice(pgerr.SuccessfulCompletion, "extension %q does not exist, skipping", name)
				continue
			}
			return pgerr.New(pgerr.UndefinedObject, "extension %q does not exist", name)
		}
		if !slices.Contains(drop, e) {
			drop = append(drop, e)
		}
	}
	for _, e := range drop {
		ts := extensionTypes(e.Name)
		deps := s.typeDependents(d.Cat, ts)
		users := s.extensionUsers(d.Cat, e.Name, ts, deps)
		switch {
		case len(users) > 0 && cmd.Cascade:
			return pgerr.New(pgerr.FeatureNotSupported, "DROP EXTENSION ... CASCADE is not supported while stored expressions use extension %q", e.Name).
				WithDetail("%s", strings.Join(users, "\n"))
		case len(users)+len(deps) > 0 && !cmd.Cascade:
			return errDependentLines("extension "+e.Name, false, append(dependentLines(deps), users...))
		}
		if err := s.dropDependents(ctx, d, deps); err != nil {
			return err
		}
		if err := s.dropColumnsOfType(ctx, d, ts); err != nil {
			return err
		}
		if err := d.DropExtension(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// extensionUsers describes, as PostgreSQL's DETAIL lines do, the stored
// expressions that use extension ext: that compile to a function,
// operator or aggregate of it, or cast to one of its types ts; but for
// those that go with deps, the columns of ts and what depends on them:
// their own defaults, and the CHECK constraints and views that read them.
func (s *Session) extensionUsers(cat *catalog.Catalog, ext string, ts typeSet, deps []dependent) []string {
	gone := map[*catalog.TableColumn]bool{}
	for _, dep := range deps {
		if dep.col != nil {
			gone[dep.col] = true
		}
	}
	var what string // the first of ext's objects found
	use := func(name string, o *builtins.Overload) {
		if o.Extension != ext || what != "" {
			return
		}
		names := make([]string, len(o.Args))
		for i, t := range o.Args {
			names[i] = pgcatalog.FormatType(t)
		}
		kind := "function "
		if plan.IsOperatorName(name) {
			kind = "operator "
		}
		what = kind + name + "(" + strings.Join(names, ",") + ")"
	}
	casts := func(n ast.Node) {
		f := &castFinder{s: s, types: ts}
		n.Accept(f)
		if what == "" {
			what = f.found
		}
	}
	// stored is what the expression sql, of a column or constraint of t,
	// uses; one that no longer compiles is found by its casts alone.
	stored := func(t *catalog.Table, n ast.ExprNode) string {
		what = ""
		c := &plan.Compiler{Host: s.host(), Params: new([]types.T), Scope: plan.TableScope(t, t.Name), Uses: use}
		_, _ = c.Compile(n)
		casts(n)
		return what
	}
	parsed := func(sql string) ast.ExprNode {
		if sql == "" {
			return nil
		}
		n, _ := plan.ParseExpr(sql)
		return n
	}
	var users []string
	for _, t := range cat.Tables() {
		for _, c := range t.Columns {
			if c.Dropped || gone[c] {
				continue
			}
			if n := parsed(c.Default); n != nil {
				if what := stored(t, n); what != "" {
					users = append(users, "default value for column "+c.Name+" of table "+t.Name+" depends on "+what)
				}
			}
			if n := parsed(c.Generated); n != nil {
				switch what := stored(t, n); {
				case what == "":
				case c.Hidden:
					users = append(users, "index "+hiddenColumnIndex(t, c)+" depends on "+what)
				default:
					users = append(users, "column "+c.Name+" of table "+t.Name+" depends on "+what)
				}
			}
		}
		for _, ck := range t.Checks {
			n := parsed(ck.Expr)
			if n == nil || slices.ContainsFunc(plan.ColumnsNamed(n), func(name string) bool {
				_, c := t.Column(name)
				return c != nil && gone[c]
			}) {
				continue
			}
			if what := stored(t, n); what != "" {
				users = append(users, "constraint "+ck.Name+" on table "+t.Name+" depends on "+what)
			}
		}
	}
	for _, v := range cat.Views() {
		if slices.ContainsFunc(deps, func(d dependent) bool { return d.view == v }) {
			continue
		}
		what = ""
		_ = plan.ViewUses(s.host(), v, use)
		if stmts, err := parser.Parse(v.SQL); err == nil && len(stmts) == 1 && stmts[0].AST != nil {
			casts(stmts[0].AST)
		}
		if what != "" {
			users = append(users, "view "+v.Name+" depends on "+what)
		}
	}
	return users
}

// hiddenColumnIndex names the index on an expression whose value is
// hidden column c of t.
func hiddenColumnIndex(t *catalog.Table, c *catalog.TableColumn) string {
	for _, ix := range t.Indexes {
		for _, ci := range ix.Columns {
			if t.Columns[ci] == c {
				return ix.Name
			}
		}
	}
	return c.Name
}

// A castFinder finds a cast to one of types, the types an extension
// provides, and their arrays.
type castFinder struct {
	s     *Session
	types typeSet
	found string // "type citext"
}

func (f *castFinder) Enter(n ast.Node) (ast.Node, bool) {
	c, ok := n.(*ast.FuncCallExpr)
	if !ok || f.found != "" || c.FnName.L != "epochdb_cast" || len(c.Args) != 2 {
		return n, f.found != ""
	}
	if v, ok := c.Args[1].(*driver.ValueExpr); ok {
		if t, err := f.s.parseTypeName(v.GetString()); err == nil {
			if name, ok := f.types(t.Oid); ok {
				f.found = "type " + name
			}
		}
	}
	return n, f.found != ""
}

func (f *castFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
