package pgcatalog

import "github.com/epochdb/epochdb/sql/catalog"

// The extensions epochdb builds in, as pg_available_extensions lists them.
// plpgsql is installed in every database; the others once CREATE
// EXTENSION has recorded them (sql/catalog's Extension).

// Available is an extension epochdb has.
type Available struct {
	Name, Version, Comment string
	// Builtin is installed everywhere, and CREATE EXTENSION finds it
	// there already.
	Builtin bool
}

// OidPlpgsql is plpgsql's pg_extension oid, as initdb gives it.
const OidPlpgsql = 13559

var availableExtensions = []Available{
	{Name: "citext", Version: "1.6", Comment: "data type for case-insensitive character strings"},
	{Name: "pg_trgm", Version: "1.6", Comment: "text similarity measurement and index searching based on trigrams"},
	{Name: "pgcrypto", Version: "1.3", Comment: "cryptographic functions"},
	{Name: "plpgsql", Version: "1.0", Comment: "PL/pgSQL procedural language", Builtin: true},
	{Name: "uuid-ossp", Version: "1.1", Comment: "generate universally unique identifiers (UUIDs)"},
}

// AvailableExtension is the extension named name, if epochdb has it.
func AvailableExtension(name string) (Available, bool) {
	for _, a := range availableExtensions {
		if a.Name == name {
			return a, true
		}
	}
	return Available{}, false
}

func pgExtensionRows(s Host) []row {
	rows := []row{{"oid": OidPlpgsql, "extname": "plpgsql", "extowner": oidSuperuser, "extnamespace": OidPgCatalog,
		"extrelocatable": false, "extversion": "1.0"}}
	for _, e := range s.Catalog().Extensions() {
		rows = append(rows, row{"oid": e.ID, "extname": e.Name, "extowner": oidSuperuser, "extnamespace": e.Schema,
			"extrelocatable": true, "extversion": e.Version})
	}
	return rows
}

func pgAvailableExtensionsRows(s Host) []row {
	var rows []row
	for _, a := range availableExtensions {
		r := row{"name": a.Name, "default_version": a.Version, "installed_version": nil, "comment": a.Comment}
		if a.Builtin {
			r["installed_version"] = a.Version
		} else if e := s.Catalog().ExtensionByName[a.Name]; e != nil {
			r["installed_version"] = e.Version
		}
		rows = append(rows, r)
	}
	return rows
}

// extensionComments are the comments the installed extensions come with,
// as pg_description holds them (psql's \dx shows them), but for those
// COMMENT ON EXTENSION has replaced.
func extensionComments(s Host) []row {
	var rows []row
	add := func(oid uint32, name string) {
		if _, own := s.Catalog().Comments[catalog.CommentKey{ClassOID: OidPgExtension, ObjOID: oid}]; !own {
			a, _ := AvailableExtension(name)
			rows = append(rows, row{"objoid": oid, "classoid": OidPgExtension, "description": a.Comment})
		}
	}
	add(OidPlpgsql, "plpgsql")
	for _, e := range s.Catalog().Extensions() {
		add(e.ID, e.Name)
	}
	return rows
}
