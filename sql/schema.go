package sql

import (
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// Schemas. A database has one schema for its own objects, public, beside
// the system schemas pg_catalog and information_schema, whose relations
// are the virtual catalogs (sql/pgcatalog). Until CREATE SCHEMA lands
// (issue 10), a statement that names an object in any other schema fails
// as PostgreSQL fails for a schema that does not exist (3F000): it never
// makes, finds or drops public's object of the same name instead.

func errNoSchema(schema string) error {
	return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
}

// isSystemSchema reports whether schema holds the virtual catalogs.
func isSystemSchema(schema string) bool {
	return schema == "pg_catalog" || schema == "information_schema"
}

// createIn checks the schema a CREATE names its object name in: "" (the
// first schema of the search path) or public. A system schema takes no
// objects, as PostgreSQL's pg_catalog takes none.
func createIn(schema, name string) error {
	switch {
	case schema == "" || schema == "public":
		return nil
	case isSystemSchema(schema):
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create %q", schema+"."+name).
			WithDetail("System catalog modifications are currently disallowed.")
	}
	return errNoSchema(schema)
}

// lookIn checks the schema a statement names an existing object name in:
// "" or public, where the statement goes on to look for it. A schema that
// does not exist is an error, and the system schemas' relations are the
// catalogs, which no statement may change.
func lookIn(schema, name string) error {
	switch {
	case schema == "" || schema == "public":
		return nil
	case isSystemSchema(schema):
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied: %q is a system catalog", name)
	}
	return errNoSchema(schema)
}

// findIn is lookIn for a statement that may skip the name: it reports
// whether the statement goes on to look for it, and with ifExists it
// notices a schema that does not exist and skips, as PostgreSQL's DROP
// ... IF EXISTS does.
func (s *Session) findIn(schema, name string, ifExists bool) (bool, error) {
	if ifExists && schema != "" && schema != "public" && !isSystemSchema(schema) {
		s.notice(pgerr.SuccessfulCompletion, "schema %q does not exist, skipping", schema)
		return false, nil
	}
	err := lookIn(schema, name)
	return err == nil, err
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

// createName is qualified, a name the parser joined, as the name in public
// of the object a CREATE makes.
func createName(qualified string) (string, error) {
	schema, name, err := splitSchema(qualified)
	if err != nil {
		return "", err
	}
	return name, createIn(schema, name)
}

// nameInPublic is qualified, a name the parser joined, as the name in
// public of the existing object a statement looks for (see lookIn).
func nameInPublic(qualified string) (string, error) {
	schema, name, err := splitSchema(qualified)
	if err != nil {
		return "", err
	}
	return name, lookIn(schema, name)
}

// foundName is nameInPublic for a statement that may skip the name: ok is
// false where it does (see findIn).
func (s *Session) foundName(qualified string, ifExists bool) (name string, ok bool, err error) {
	schema, name, err := splitSchema(qualified)
	if err != nil {
		return "", false, err
	}
	ok, err = s.findIn(schema, name, ifExists)
	return name, ok, err
}
