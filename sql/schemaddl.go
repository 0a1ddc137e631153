package sql

import (
	"context"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// CREATE, ALTER and DROP SCHEMA. A schema is a descriptor and a name in
// the schemas' namespace (catalog.NameKey(0, name)); its objects name it
// by oid, so a rename changes the schema's descriptor alone. DROP SCHEMA
// refuses a schema that holds anything, and with CASCADE takes its
// objects along, with what depends on them elsewhere, as PostgreSQL's
// pg_depend does.

// createSchema runs CREATE SCHEMA, and the statements written after it,
// which make their objects in it.
func (s *Session) createSchema(ctx context.Context, cmd *parser.CreateSchema) error {
	if cmd.Role != "" {
		if _, err := s.roleNamed(cmd.Role); err != nil {
			return err
		}
	}
	if strings.HasPrefix(cmd.Name, "pg_") {
		return pgerr.New(pgerr.ReservedName, "unacceptable schema name %q", cmd.Name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	if d.Cat.SchemaNamed(cmd.Name) != nil && cmd.IfNotExists {
		s.notice(pgerr.DuplicateSchema, "schema %q already exists, skipping", cmd.Name)
		return nil
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return err
	}
	if err := d.ClaimSchemaName(ctx, cmd.Name, id); err != nil {
		return err
	}
	if err := d.PutSchema(ctx, &catalog.Schema{ID: id, Name: cmd.Name, Owner: s.user}); err != nil {
		return err
	}
	return s.schemaElements(ctx, cmd)
}

// schemaElements runs the statements of a CREATE SCHEMA with the new
// schema first on the search path, as PostgreSQL runs them. An element
// that names another schema fails (42P15).
func (s *Session) schemaElements(ctx context.Context, cmd *parser.CreateSchema) error {
	if len(cmd.Elements) == 0 {
		return nil
	}
	saved := s.settings["search_path"]
	s.settings["search_path"] = parser.QuoteIdent(cmd.Name) + ", " + saved
	defer func() { s.settings["search_path"] = saved }()
	for _, st := range cmd.Elements {
		schema, ok := elementSchema(st)
		if !ok {
			return pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA takes CREATE TABLE, VIEW, INDEX and SEQUENCE statements only")
		}
		if schema != "" && schema != cmd.Name {
			return pgerr.New(pgerr.InvalidSchemaDefinition, "CREATE specifies a schema (%s) different from the one being created (%s)", schema, cmd.Name)
		}
		if _, err := s.direct(ctx, &Portal{p: &Prepared{st: st}}, nil); err != nil {
			return err
		}
	}
	return nil
}

// elementSchema is the schema a CREATE SCHEMA's element names its object
// in ("" for none), and whether the element is one that CREATE SCHEMA
// takes.
func elementSchema(st *parser.Statement) (string, bool) {
	switch n := st.AST.(type) {
	case *ast.CreateTableStmt:
		return n.Table.Schema.O, true
	case *ast.CreateSequenceStmt:
		return n.Name.Schema.O, true
	case *ast.CreateIndexStmt:
		return n.Table.Schema.O, true
	}
	if cv, ok := st.Cmd.(*parser.CreateView); ok {
		schema, _, err := splitSchema(cv.Name)
		return schema, err == nil
	}
	return "", false
}

// roleNamed is the role a statement names: the session's own, the one
// role there is.
func (s *Session) roleNamed(role string) (string, error) {
	switch role {
	case "current_user", "session_user", s.user:
		return s.user, nil
	}
	return "", pgerr.New(pgerr.UndefinedObject, "role %q does not exist", role)
}

// alterSchemaRename runs ALTER SCHEMA ... RENAME TO.
func (s *Session) alterSchemaRename(ctx context.Context, cmd *parser.AlterSchemaRename) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	sc, err := d.Cat.Schema(cmd.Name)
	if err != nil {
		return err
	}
	if sc.System {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for schema %s", sc.Name)
	}
	if strings.HasPrefix(cmd.NewName, "pg_") {
		return pgerr.New(pgerr.ReservedName, "unacceptable schema name %q", cmd.NewName).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	if err := d.ClaimSchemaName(ctx, cmd.NewName, sc.ID); err != nil {
		return err
	}
	if err := d.Tx.Delete(ctx, catalog.NameKey(0, sc.Name)); err != nil {
		return err
	}
	renamed := *sc
	renamed.Name = cmd.NewName
	return d.PutSchema(ctx, &renamed)
}

// schemaMember is an object a schema holds, as DROP SCHEMA names it.
type schemaMember struct {
	desc   string
	id     uint32
	schema uint32
	table  *catalog.Table // a table or materialized view
	view   *catalog.View
	seq    *catalog.Sequence
	enum   *catalog.EnumType
	ext    *catalog.Extension
	fn     *catalog.Function
}

// members lists what schema sc holds, in the order it was made: its
// tables (and with them their indexes and own sequences), views,
// sequences, types and extensions.
func (s *Session) members(cat *catalog.Catalog, sc *catalog.Schema) []schemaMember {
	var out []schemaMember
	name := func(n string) string { return s.qualifiedName(catalog.QName{Schema: sc.ID, Name: n}) }
	for _, t := range cat.Tables() {
		if t.Schema == sc.ID {
			kind := "table "
			if t.IsMatView() {
				kind = "materialized view "
			}
			out = append(out, schemaMember{desc: kind + name(t.Name), id: t.ID, table: t, schema: sc.ID})
		}
	}
	for _, v := range cat.Views() {
		if v.Schema == sc.ID {
			out = append(out, schemaMember{desc: "view " + name(v.Name), id: v.ID, view: v, schema: sc.ID})
		}
	}
	for _, q := range cat.Sequences() {
		if q.Schema == sc.ID && cat.TableByID[q.Owner] == nil {
			out = append(out, schemaMember{desc: "sequence " + name(q.Name), id: q.ID, seq: q, schema: sc.ID})
		}
	}
	for _, e := range cat.Enums() {
		if e.Schema == sc.ID {
			out = append(out, schemaMember{desc: "type " + name(e.Name), id: e.ID, enum: e, schema: sc.ID})
		}
	}
	for _, e := range cat.Extensions() {
		if e.Schema == sc.ID {
			out = append(out, schemaMember{desc: "extension " + e.Name, id: e.ID, ext: e, schema: sc.ID})
		}
	}
	for _, f := range cat.Functions() {
		if f.Schema == sc.ID {
			out = append(out, schemaMember{desc: f.KindName() + " " + s.routineName(f), id: f.ID, fn: f, schema: sc.ID})
		}
	}
	slices.SortStableFunc(out, func(a, b schemaMember) int { return int(a.id) - int(b.id) })
	return out
}

// dropSchemas runs DROP SCHEMA.
func (s *Session) dropSchemas(ctx context.Context, cmd *parser.DropSchema) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	var schemas []*catalog.Schema
	for _, name := range cmd.Names {
		sc := d.Cat.SchemaNamed(name)
		switch {
		case sc == nil && cmd.IfExists:
			s.notice(pgerr.SuccessfulCompletion, "schema %q does not exist, skipping", name)
		case sc == nil:
			return catalog.ErrNoSchema(name)
		case sc.System:
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because it is required by the database system", name)
		case !slices.Contains(schemas, sc):
			schemas = append(schemas, sc)
		}
	}
	// Everything the schemas hold goes, and what depends on it elsewhere,
	// each listed after what it depends on.
	var members []schemaMember
	var dropping []uint32
	for _, sc := range schemas {
		for _, m := range s.members(d.Cat, sc) {
			members = append(members, m)
			dropping = append(dropping, m.id)
		}
	}
	var deps []dependent
	var lines, gone []string
	for _, m := range members {
		sc := d.Cat.SchemaByID[m.schema]
		lines = append(lines, m.desc+" depends on schema "+sc.Name)
		gone = append(gone, m.desc)
		var target dropTarget
		switch {
		case m.table != nil:
			target = dropTarget{kind: "table", id: m.id}
		case m.view != nil:
			target = dropTarget{kind: "view", id: m.id}
		case m.seq != nil:
			target = dropTarget{kind: "sequence", id: m.id}
		case m.fn != nil:
			target = dropTarget{kind: m.fn.KindName(), id: m.id}
		case m.types() != nil:
			// Columns of its types in other schemas' tables go too.
			ts := m.types()
			for _, t := range d.Cat.Tables() {
				for _, col := range t.Columns {
					if name, ok := ts(col.Type.Oid); ok && col.Visible() && t.Schema != sc.ID {
						c := "column " + col.Name + " of table " + s.qualifiedName(t.QName())
						on := m.desc
						if m.ext != nil {
							on = "type " + s.qualifiedName(catalog.QName{Schema: m.schema, Name: name})
						}
						lines = append(lines, c+" depends on "+on)
						gone = append(gone, c)
					}
				}
			}
			continue
		default:
			continue
		}
		target.name = strings.TrimPrefix(m.desc, target.kind+" ")
		for _, dep := range s.dependents(d.Cat, target, dropping) {
			if !slices.ContainsFunc(deps, func(o dependent) bool { return o.String() == dep.String() }) {
				deps = append(deps, dep)
				lines = append(lines, dep.String()+" depends on "+dep.on)
				gone = append(gone, dep.String())
			}
		}
	}
	if len(members) > 0 && !cmd.Cascade {
		what := "schema " + schemas[0].Name
		msg := "cannot drop %s because other objects depend on it"
		if len(schemas) > 1 {
			what, msg = "desired object(s)", "cannot drop %s because other objects depend on them"
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, msg, what).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	s.noticeCascade(gone)
	if err := s.removeDependents(ctx, d, deps); err != nil {
		return err
	}
	for _, m := range members {
		if err := s.dropMember(ctx, d, m); err != nil {
			return err
		}
	}
	for _, sc := range schemas {
		if err := d.DropSchema(ctx, sc); err != nil {
			return err
		}
	}
	return nil
}

// dropMember drops one object of a schema that DROP SCHEMA drops.
func (s *Session) dropMember(ctx context.Context, d *catalog.DDL, m schemaMember) error {
	switch {
	case m.table != nil:
		t := d.Cat.TableByID[m.id]
		if t == nil {
			return nil
		}
		if err := s.refusePendingChecks(t, "DROP SCHEMA"); err != nil {
			return err
		}
		if err := s.lockTableForDDL(ctx, d, t, true); err != nil {
			return err
		}
		return d.DropTable(ctx, t)
	case m.view != nil:
		return d.DropView(ctx, m.view)
	case m.seq != nil:
		if err := d.DropSequence(ctx, m.seq); err != nil {
			return err
		}
		s.e.seqs.Forget(m.seq.StorageID())
	case m.enum != nil:
		if err := s.dropColumnsOfType(ctx, d, m.types()); err != nil {
			return err
		}
		delete(d.Cat.EnumByName, m.enum.QName())
		return d.Tx.Delete(ctx, catalog.DescKey(m.enum.ID))
	case m.ext != nil:
		if err := s.dropColumnsOfType(ctx, d, m.types()); err != nil {
			return err
		}
		return d.DropExtension(ctx, m.ext)
	case m.fn != nil:
		return d.DropFunction(ctx, m.fn)
	}
	return nil
}

// types are the types m is or provides, for an enum type or an
// extension; nil for another object.
func (m schemaMember) types() typeSet {
	switch {
	case m.enum != nil:
		return enumTypes(m.enum)
	case m.ext != nil:
		return extensionTypes(m.ext.Name)
	}
	return nil
}
