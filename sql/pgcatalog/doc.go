// Package pgcatalog is what clients read to learn about a database: the
// virtual relations of pg_catalog and information_schema, epochdb's own
// views of its engine (epochdb_stat_files, epochdb_stat_reclaim, ...), and
// the catalog functions (format_type, pg_get_indexdef, pg_get_expr,
// pg_table_is_visible, obj_description, the size functions, the casts to
// regclass and its kin).
//
// # Computed, never stored
//
// A virtual relation has PostgreSQL 15's oid and columns, and its rows are
// computed from sql/catalog's Catalog and the built-in types each time a
// query reads it, so they are never stale and cost nothing until read.
// The planner meets one through plan.Host's VirtualRelation, which the
// session answers with VirtualRelation here; it is read as a Source like a
// table. A relation is a virtTable: its columns, parsed from a spec
// ("oid oid, relname name, ..."), and a function of the session that
// gives its rows. pg_class (relations) is the list every other relation
// and function resolves names and oids through, so that one object has one
// oid wherever it shows.
//
// # What it reads of the session
//
// Host (host.go) is plan.Host and what only DDL knows how to print (a
// CHECK constraint's or a foreign key's definition, an index column's
// expression) or the engine counts (its sessions, its store's files and
// epochs, its temporary files). The sql root package's session is the one
// Host. The catalog functions register into plan.FuncCompilers when the
// package starts, as sql/plan's doc tells.
//
// # Where it sits
//
// It imports sql/plan (to compile the catalog functions and to read views'
// queries), sql/catalog, sql/parser, sql/rowexec, sql/spill, sql/types,
// sql/pgerr, txn and sstable; only the sql root package imports it. So
// nothing below it knows that pg_catalog exists: a change to a catalog
// relation cannot break the planner or a built-in function.
package pgcatalog
