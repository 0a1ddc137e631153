package sql

import (
	"context"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgcatalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
)

// Names and the search path. A statement names an object as schema.name
// or as name alone, which the session's search_path resolves: an existing
// object is the first of that name along the path, and a new one goes in
// the path's first schema that is not a system schema (catalog.Path). The
// functions here turn a statement's names into qualified names
// (catalog.QName) for the statement's kind: a CREATE's, a statement's
// that changes an existing object, and one's that may skip it (IF
// EXISTS). Schemas themselves are made and dropped in schemaddl.go.

// pathCache is the session's search_path as last resolved, against the
// catalog and setting it was resolved from.
type pathCache struct {
	cat     *catalog.Catalog
	changes int // cat.SchemaChanges
	setting string
	user    string
	temp    string
	path    catalog.Path
}

// searchPath is the session's search_path resolved against its catalog.
func (s *Session) searchPath() catalog.Path {
	cat, setting := s.catalog(), s.settings["search_path"]
	// A temporary schema the session did not make is another's, left
	// behind (see temp.go).
	temp := ""
	if s.tempMade {
		temp = s.tempSchemaName()
	}
	if c := &s.pathCache; c.cat == cat && c.changes == cat.SchemaChanges && c.setting == setting && c.user == s.user && c.temp == temp {
		return c.path
	}
	path := cat.ResolvePath(pathNames(setting, s.user), temp)
	s.pathCache = pathCache{cat: cat, changes: cat.SchemaChanges, setting: setting, user: s.user, temp: temp, path: path}
	return path
}

// pathNames are the schema names of a search_path setting, in its order,
// with "$user" as user.
func pathNames(setting, user string) []string {
	var names []string
	for p := range strings.SplitSeq(setting, ",") {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		if p == "$user" {
			p = user
		}
		if p != "" {
			names = append(names, p)
		}
	}
	return names
}

// createIn is the qualified name of the object a CREATE names as
// schema.name: in the schema named, or with schema "", the search path's
// first (see catalog.CreateIn).
func (s *Session) createIn(schema, name string) (catalog.QName, error) {
	nsp, err := s.catalog().CreateIn(s.searchPath(), schema, name)
	return catalog.QName{Schema: nsp, Name: name}, err
}

// lookIn is the qualified name of the existing relation a statement that
// changes it names as schema.name (see catalog.Resolve): not Found if
// there is none. A schema named that does not exist is 3F000, and the
// system schemas' relations are the catalogs, which no statement may
// change.
func (s *Session) lookIn(schema, name string) (catalog.QName, error) {
	q, err := s.catalog().Resolve(s.searchPath(), schema, name)
	if err != nil {
		return q, err
	}
	if sc := s.catalog().SchemaByID[q.Schema]; sc != nil && sc.System {
		return q, pgerr.New(pgerr.InsufficientPrivilege, "permission denied: %q is a system catalog", name)
	}
	return q, nil
}

// findIn is lookIn for a statement that may skip the name: ok says
// whether it goes on, and with ifExists a schema that does not exist is
// noticed and skipped, as PostgreSQL's DROP ... IF EXISTS does.
func (s *Session) findIn(schema, name string, ifExists bool) (q catalog.QName, ok bool, err error) {
	if ifExists && schema != "" && s.catalog().SchemaNamed(schema) == nil {
		s.notice(pgerr.SuccessfulCompletion, "schema %q does not exist, skipping", schema)
		return q, false, nil
	}
	q, err = s.lookIn(schema, name)
	return q, err == nil, err
}

// splitSchema splits a name the parser joined with dots (qualifiedName)
// into its schema, "" for none, and its name.
func splitSchema(qualified string) (schema, name string, err error) {
	switch parts := parser.SplitName(qualified); len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	}
	return "", "", pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", qualified)
}

// createName is createIn for a name the parser joined, where pg_temp
// names the session's temporary schema, made if need be.
func (s *Session) createName(ctx context.Context, qualified string) (catalog.QName, error) {
	schema, name, err := splitSchema(qualified)
	if err != nil {
		return catalog.QName{}, err
	}
	return s.createRelIn(ctx, schema, name, false)
}

// lookName is lookIn for a name the parser joined.
func (s *Session) lookName(qualified string) (catalog.QName, error) {
	schema, name, err := splitSchema(qualified)
	if err != nil {
		return catalog.QName{}, err
	}
	return s.lookIn(schema, name)
}

// foundName is findIn for a name the parser joined.
func (s *Session) foundName(qualified string, ifExists bool) (q catalog.QName, ok bool, err error) {
	schema, name, err := splitSchema(qualified)
	if err != nil {
		return q, false, err
	}
	return s.findIn(schema, name, ifExists)
}

// qualifiedName is q as the catalogs and messages print an object's name:
// qualified unless the search path finds it.
func (s *Session) qualifiedName(q catalog.QName) string {
	return pgcatalog.QualifiedName(s.host(), q.Schema, q.Name)
}

// tableNamed is the table a function's argument names, qualified or not,
// or 42P01.
func tableNamed(h plan.Host, qualified string) (*catalog.Table, error) {
	q, err := sessionOf(h).lookName(qualified)
	if err != nil {
		return nil, err
	}
	if t := h.Catalog().TableByName[q]; t != nil {
		return t, nil
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified)
}
