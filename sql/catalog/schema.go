package catalog

import (
	"context"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// Schemas. Every table, view, sequence and type lives in a schema, which
// its descriptor names by oid. Names are unique within a schema: the
// catalog's lookups are keyed by QName, and a statement's unqualified name
// becomes one through a Path, the session's resolved search_path.
//
// Three schemas are the system's, with PostgreSQL 15's oids: pg_catalog
// and information_schema hold the virtual catalogs (sql/pgcatalog), and
// pg_toast is there because clients expect it. No descriptor is stored for
// them and no statement may put an object in them. public is an ordinary
// schema that every database starts with: it has no descriptor until DROP
// SCHEMA public stores one marked Dropped, so that catalogs written before
// schemas existed, whose objects name no schema, find their objects in it.

// Well-known schema oids.
const (
	PgCatalogID  = 11
	PgToastID    = 99
	PublicID     = 2200
	InfoSchemaID = 13207
)

// Schema describes a schema.
type Schema struct {
	ID   uint32 `json:"id"`
	Name string `json:"name"`
	// Owner is the role that owns it; "" for public, which the predefined
	// role pg_database_owner owns.
	Owner string `json:"owner,omitempty"`
	// Dropped marks public's descriptor once DROP SCHEMA has dropped it.
	Dropped bool `json:"dropped,omitempty"`
	// System marks pg_catalog, information_schema and pg_toast.
	System bool `json:"-"`
}

// TempPrefix begins the name of a session's schema for temporary objects:
// pg_temp_N, N its slot (see sql/temp.go). No statement may make a schema
// whose name begins with pg_, so only sessions make these.
const TempPrefix = "pg_temp_"

// IsTemp reports whether s holds some session's temporary objects.
func (s *Schema) IsTemp() bool { return strings.HasPrefix(s.Name, TempPrefix) }

var systemSchemas = []*Schema{
	{ID: PgCatalogID, Name: "pg_catalog", System: true},
	{ID: PgToastID, Name: "pg_toast", System: true},
	{ID: InfoSchemaID, Name: "information_schema", System: true},
}

// publicSchema is public before any DDL touches it.
var publicSchema = &Schema{ID: PublicID, Name: "public"}

// QName is an object's schema-qualified name.
type QName struct {
	Schema uint32
	Name   string
}

// inSchema is nsp, the schema field of a descriptor, with 0 (a descriptor
// written before schemas existed) read as public.
func inSchema(nsp uint32) uint32 {
	if nsp == 0 {
		return PublicID
	}
	return nsp
}

func (t *Table) QName() QName    { return QName{t.Schema, t.Name} }
func (v *View) QName() QName     { return QName{v.Schema, v.Name} }
func (s *Sequence) QName() QName { return QName{s.Schema, s.Name} }
func (e *EnumType) QName() QName { return QName{e.Schema, e.Name} }

// Found reports whether q names an object that Resolve found.
func (q QName) Found() bool { return q.Schema != 0 }

// SchemaNamed is the schema called name, or nil.
func (c *Catalog) SchemaNamed(name string) *Schema {
	return c.SchemaByName[name]
}

// Schema is the schema called name, or 3F000.
func (c *Catalog) Schema(name string) (*Schema, error) {
	if s := c.SchemaByName[name]; s != nil {
		return s, nil
	}
	return nil, ErrNoSchema(name)
}

// ErrNoSchema is PostgreSQL's error for a schema that does not exist.
func ErrNoSchema(name string) error {
	return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
}

// SchemaName is the name of the schema nsp, or "" if there is none.
func (c *Catalog) SchemaName(nsp uint32) string {
	if s := c.SchemaByID[inSchema(nsp)]; s != nil {
		return s.Name
	}
	return ""
}

// Schemas returns every schema, the system's among them, ordered by oid.
func (c *Catalog) Schemas() []*Schema {
	out := make([]*Schema, 0, len(c.SchemaByID))
	for _, s := range c.SchemaByID {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Schema) int { return int(a.ID) - int(b.ID) })
	return out
}

// addSchemas puts the built-in schemas into a catalog being loaded, after
// its descriptors: public unless a descriptor says it was dropped.
func (c *Catalog) addSchemas() {
	for _, s := range systemSchemas {
		c.putSchema(s)
	}
	if _, ok := c.SchemaByID[PublicID]; !ok && !c.publicDropped {
		c.putSchema(publicSchema)
	}
}

func (c *Catalog) putSchema(s *Schema) {
	c.SchemaChanges++
	c.SchemaByName[s.Name] = s
	c.SchemaByID[s.ID] = s
}

// HasRelation reports whether schema nsp holds a relation (a table, view,
// materialized view, sequence or index) called name. A system schema's
// are the virtual catalogs, which SystemRelation reports.
func (c *Catalog) HasRelation(nsp uint32, name string) bool {
	q := QName{nsp, name}
	if s := c.SchemaByID[nsp]; s != nil && s.System {
		return SystemRelation != nil && SystemRelation(nsp, name)
	}
	return c.TableByName[q] != nil || c.ViewByName[q] != nil || c.SequenceByName[q] != nil || c.hasIndex(q)
}

func (c *Catalog) hasIndex(q QName) bool {
	_, ix := c.IndexNamed(q)
	return ix != nil
}

// SystemRelation reports whether a system schema holds a virtual relation
// called name. sql/pgcatalog, which defines them, sets it.
var SystemRelation func(nsp uint32, name string) bool

// IndexNamed is the index called q and its table, or nils: an index is in
// its table's schema.
func (c *Catalog) IndexNamed(q QName) (*Table, *Index) {
	for _, t := range c.TableByName {
		if t.Schema != q.Schema {
			continue
		}
		for _, ix := range t.Indexes {
			if ix.Name == q.Name {
				return t, ix
			}
		}
	}
	return nil, nil
}

// Path is a resolved search_path: the schemas, each of which exists, that
// an unqualified name is looked for in, in order (pg_catalog among them:
// first, unless the setting places it), and Create, the schema an
// unqualified CREATE puts its object in: the first that is not a system
// schema, or 0 if there is none.
//
// Temp is the session's own schema of temporary objects, if it has made
// one. As in PostgreSQL, relations and types are looked for there first
// unless the setting places it (as pg_temp), and functions never are, so
// that a temporary object cannot stand in for a function another schema
// holds. CreateTemp says that the setting names pg_temp first, so that an
// unqualified CREATE makes a temporary object, the schema made if need be.
type Path struct {
	Schemas []uint32
	Create  uint32
	// Implicit counts the schemas that lead Schemas because the setting
	// does not place them: the temporary schema, pg_catalog.
	Implicit   int
	Temp       uint32
	CreateTemp bool
}

// TempAlias is the name a search_path or a qualified name gives the
// session's temporary schema, whatever its number.
const TempAlias = "pg_temp"

// ResolvePath resolves the schema names of a search_path setting, $user
// already replaced: the names of schemas that do not exist drop out, and
// pg_catalog goes first unless the names place it. temp is the name of
// the session's temporary schema, which comes before it unless the names
// place pg_temp.
func (c *Catalog) ResolvePath(names []string, temp string) Path {
	var p Path
	ts := c.SchemaByName[temp]
	if ts != nil {
		p.Temp = ts.ID
		if !slices.Contains(names, TempAlias) {
			p.Schemas, p.Implicit = append(p.Schemas, ts.ID), 1
		}
	}
	if !slices.Contains(names, "pg_catalog") {
		p.Schemas, p.Implicit = append(p.Schemas, PgCatalogID), p.Implicit+1
	}
	for i, n := range names {
		s := c.SchemaByName[n]
		if n == TempAlias {
			p.CreateTemp = p.CreateTemp || i == 0
			s = ts
		}
		if s == nil || slices.Contains(p.Schemas, s.ID) {
			continue
		}
		p.Schemas = append(p.Schemas, s.ID)
		if p.Create == 0 && !s.System && !s.IsTemp() {
			p.Create = s.ID
		}
	}
	return p
}

// NoTemp is the path's schemas but the temporary one: those functions
// are looked for in, and that a permanent view keeps.
func (p Path) NoTemp() []uint32 {
	if p.Temp == 0 {
		return p.Schemas
	}
	out := make([]uint32, 0, len(p.Schemas))
	for _, nsp := range p.Schemas {
		if nsp != p.Temp {
			out = append(out, nsp)
		}
	}
	return out
}

// Resolve is the qualified name of the relation a statement names as
// schema.name, or with schema "", as name: the first schema on path that
// holds a relation called name. A name that resolves to nothing is a
// QName that is not Found. Only a schema named that does not exist is an
// error (3F000); whether that is what PostgreSQL reports for the
// statement is the caller's to decide.
func (c *Catalog) Resolve(path Path, schema, name string) (QName, error) {
	return c.resolve(path, schema, name, c.HasRelation)
}

// ResolveType is Resolve for the name of an enum type or of a type an
// installed extension provides.
func (c *Catalog) ResolveType(path Path, schema, name string) (QName, error) {
	return c.resolve(path, schema, name, func(nsp uint32, name string) bool {
		_, ext := c.ExtensionType(QName{nsp, name})
		return ext || c.EnumByName[QName{nsp, name}] != nil
	})
}

func (c *Catalog) resolve(path Path, schema, name string, has func(uint32, string) bool) (QName, error) {
	if schema != "" {
		s, err := c.SchemaOn(path, schema)
		if err != nil || s == nil {
			return QName{Name: name}, err
		}
		if !has(s.ID, name) {
			return QName{Name: name}, nil
		}
		if s.IsTemp() && s.ID != path.Temp {
			return QName{}, ErrOtherTemp()
		}
		return QName{s.ID, name}, nil
	}
	for _, nsp := range path.Schemas {
		if has(nsp, name) {
			return QName{nsp, name}, nil
		}
	}
	return QName{Name: name}, nil
}

// SchemaOn is the schema a qualified name names: pg_temp is the
// session's temporary schema, nil while it has none.
func (c *Catalog) SchemaOn(path Path, schema string) (*Schema, error) {
	if schema == TempAlias {
		return c.SchemaByID[path.Temp], nil
	}
	return c.Schema(schema)
}

// ErrOtherTemp is PostgreSQL's error for a statement that names another
// session's temporary relation.
func ErrOtherTemp() error {
	return pgerr.New(pgerr.FeatureNotSupported, "cannot access temporary tables of other sessions")
}

// CreateIn is the schema a CREATE of schema.name puts its object in: the
// schema named, or with schema "", path's Create. A system schema takes
// no objects (42501), as PostgreSQL's pg_catalog takes none, and another
// session's temporary schema none either (42P16). pg_temp names the
// session's temporary schema, which the caller must have made.
func (c *Catalog) CreateIn(path Path, schema, name string) (uint32, error) {
	if schema == "" {
		if path.CreateTemp && path.Temp != 0 {
			return path.Temp, nil
		}
		if path.Create == 0 {
			return 0, pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in")
		}
		return path.Create, nil
	}
	s, err := c.SchemaOn(path, schema)
	if err != nil {
		return 0, err
	}
	switch {
	case s == nil:
		return 0, ErrNoSchema(schema)
	case s.System:
		return 0, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create %q", schema+"."+name).
			WithDetail("System catalog modifications are currently disallowed.")
	case s.IsTemp() && s.ID != path.Temp:
		return 0, pgerr.New(pgerr.InvalidTableDefinition, "cannot create relations in temporary schemas of other sessions")
	}
	return s.ID, nil
}

// PutSchema stores s.
func (d *DDL) PutSchema(ctx context.Context, s *Schema) error {
	if old := d.Cat.SchemaByID[s.ID]; old != nil && old.Name != s.Name {
		delete(d.Cat.SchemaByName, old.Name)
	}
	d.Cat.putSchema(s)
	return d.Put(ctx, s.ID, &Descriptor{Schema: s})
}

// DropSchema removes s, which holds nothing any more. public's descriptor
// stays, marked Dropped (see above).
func (d *DDL) DropSchema(ctx context.Context, s *Schema) error {
	d.Cat.SchemaChanges++
	delete(d.Cat.SchemaByName, s.Name)
	delete(d.Cat.SchemaByID, s.ID)
	if err := d.Tx.Delete(ctx, NameKey(0, s.Name)); err != nil {
		return err
	}
	if s.ID == PublicID {
		d.Cat.publicDropped = true
		return d.Put(ctx, s.ID, &Descriptor{Schema: &Schema{ID: PublicID, Name: "public", Dropped: true}})
	}
	return d.Tx.Delete(ctx, DescKey(s.ID))
}
