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
// expressions that call a function of extension ext or cast to one of its
// types ts, but for those that go with deps, the columns of ts and what
// depends on them: their own defaults, and the CHECK constraints and
// views that read them.
func (s *Session) extensionUsers(cat *catalog.Catalog, ext string, ts typeSet, deps []dependent) []string {
	gone := map[*catalog.TableColumn]bool{}
	for _, dep := range deps {
		if dep.col != nil {
			gone[dep.col] = true
		}
	}
	uses := func(n ast.Node) string {
		f := &extensionUseFinder{s: s, ext: ext, types: ts}
		n.Accept(f)
		return f.found
	}
	calls := func(sql string) string {
		n, err := plan.ParseExpr(sql)
		if sql == "" || err != nil {
			return ""
		}
		return uses(n)
	}
	var users []string
	for _, t := range cat.Tables() {
		for _, c := range t.Columns {
			if c.Dropped || gone[c] {
				continue
			}
			if what := calls(c.Default); what != "" {
				users = append(users, "default value for column "+c.Name+" of table "+t.Name+" depends on "+what)
			}
			if what := calls(c.Generated); what != "" {
				if c.Hidden {
					users = append(users, "index "+hiddenColumnIndex(t, c)+" depends on "+what)
				} else {
					users = append(users, "column "+c.Name+" of table "+t.Name+" depends on "+what)
				}
			}
		}
		for _, ck := range t.Checks {
			n, err := plan.ParseExpr(ck.Expr)
			if err != nil || slices.ContainsFunc(plan.ColumnsNamed(n), func(name string) bool {
				_, c := t.Column(name)
				return c != nil && gone[c]
			}) {
				continue
			}
			if what := uses(n); what != "" {
				users = append(users, "constraint "+ck.Name+" on table "+t.Name+" depends on "+what)
			}
		}
	}
	for _, v := range cat.Views() {
		stmts, err := parser.Parse(v.SQL)
		if err != nil || len(stmts) != 1 || stmts[0].AST == nil || slices.ContainsFunc(deps, func(d dependent) bool { return d.view == v }) {
			continue
		}
		if what := uses(stmts[0].AST); what != "" {
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

// An extensionUseFinder finds a call of a function only extension ext
// provides, or a cast to one of its types (types, and their arrays).
type extensionUseFinder struct {
	s     *Session
	ext   string
	types typeSet
	found string // "function digest(text, text)", "type citext"
}

func (f *extensionUseFinder) Enter(n ast.Node) (ast.Node, bool) {
	c, ok := n.(*ast.FuncCallExpr)
	if !ok || f.found != "" {
		return n, f.found != ""
	}
	if c.FnName.L == "epochdb_cast" && len(c.Args) == 2 {
		if v, ok := c.Args[1].(*driver.ValueExpr); ok {
			if t, err := f.s.parseTypeName(v.GetString()); err == nil {
				if name, ok := f.types(t.Oid); ok {
					f.found = "type " + name
				}
			}
		}
	}
	// A name whose every overload is the extension's; one it only adds
	// overloads to (citext's strpos) resolves to them only for a value of
	// its types, which the cast or the column found already.
	ovs := builtins.Lookup(c.FnName.L)
	if f.found == "" && len(ovs) > 0 && !slices.ContainsFunc(ovs, func(o builtins.Overload) bool { return o.Extension != f.ext }) {
		names := make([]string, len(ovs[0].Args))
		for i, t := range ovs[0].Args {
			names[i] = pgcatalog.FormatType(t)
		}
		f.found = "function " + c.FnName.L + "(" + strings.Join(names, ", ") + ")"
	}
	return n, f.found != ""
}

func (f *extensionUseFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
