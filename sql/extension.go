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
)

// Extensions. epochdb builds in the extensions it has (pgcatalog's
// Extensions): CREATE EXTENSION records one in the catalog, and the
// functions it provides (sql/builtins, Overload.Extension) resolve while
// the record is there. plpgsql is installed in every database, as in
// PostgreSQL.

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

// dropExtensions runs DROP EXTENSION. An extension whose functions a
// stored expression calls (a default, a generated column, a CHECK
// constraint, an index or a view) stays, as PostgreSQL's dependencies
// keep it.
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
		if users := extensionUsers(d.Cat, e.Name); len(users) > 0 {
			if cmd.Cascade {
				return pgerr.New(pgerr.FeatureNotSupported, "DROP EXTENSION ... CASCADE is not supported while objects use extension %q", e.Name).
					WithDetail("%s", strings.Join(users, "\n"))
			}
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop extension %s because other objects depend on it", e.Name).
				WithDetail("%s", strings.Join(users, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		if err := d.DropExtension(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// extensionUsers describes, as PostgreSQL's DETAIL lines do, the stored
// expressions that call a function of extension ext.
func extensionUsers(cat *catalog.Catalog, ext string) []string {
	calls := func(sql string) string {
		n, err := plan.ParseExpr(sql)
		if err != nil {
			return ""
		}
		f := &extensionCallFinder{ext: ext}
		n.Accept(f)
		return f.found
	}
	var users []string
	for _, t := range cat.Tables() {
		for _, c := range t.Columns {
			if c.Dropped {
				continue
			}
			if fn := calls(c.Default); c.Default != "" && fn != "" {
				users = append(users, "default value for column "+c.Name+" of table "+t.Name+" depends on function "+fn)
			}
			if fn := calls(c.Generated); c.Generated != "" && fn != "" {
				users = append(users, "column "+c.Name+" of table "+t.Name+" depends on function "+fn)
			}
		}
		for _, ck := range t.Checks {
			if fn := calls(ck.Expr); fn != "" {
				users = append(users, "constraint "+ck.Name+" on table "+t.Name+" depends on function "+fn)
			}
		}
	}
	for _, v := range cat.Views() {
		stmts, err := parser.Parse(v.SQL)
		if err != nil || len(stmts) != 1 || stmts[0].AST == nil {
			continue
		}
		f := &extensionCallFinder{ext: ext}
		stmts[0].AST.Accept(f)
		if f.found != "" {
			users = append(users, "view "+v.Name+" depends on function "+f.found)
		}
	}
	return users
}

// An extensionCallFinder finds a call of a function only extension ext
// provides.
type extensionCallFinder struct {
	ext   string
	found string
}

func (f *extensionCallFinder) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.FuncCallExpr); ok && f.found == "" {
		for _, o := range builtins.Lookup(c.FnName.L) {
			if o.Extension == f.ext {
				names := make([]string, len(o.Args))
				for i, t := range o.Args {
					names[i] = pgcatalog.FormatType(t)
				}
				f.found = c.FnName.L + "(" + strings.Join(names, ", ") + ")"
				break
			}
		}
	}
	return n, f.found != ""
}

func (f *extensionCallFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
