// Package sql is the top of epochdb's SQL layer: the session that pgwire
// and the embedded driver talk to (api.go), which runs statements,
// transactions, DDL and the writes, over the packages below it that hold
// the PostgreSQL dialect, its types and functions, the catalog, the
// planner and executor, and the virtual catalogs.
//
// # Packages
//
// The layer is cut into packages by concern (issue 9), with dependencies
// that point one way, down:
//
//	level 6  sql ──────────────► every package below, txn and sstable
//	           (the session: statements, transactions, settings, DDL,
//	           the writes and their constraints, COPY, ingest, LISTEN)
//	            │
//	level 5  sql/pgcatalog ────► sql/plan and below, txn, sstable
//	            │
//	level 4  sql/plan ─────────► sql/rowexec, sql/builtins, sql/catalog,
//	            │                sql/spill, sql/parser, sql/types,
//	            │                sql/pgerr, txn
//	            │
//	level 3  sql/rowexec ──────► sql/spill, sql/types
//	            │
//	level 2  sql/builtins ─────► sql/parser, sql/types, sql/pgerr
//	         sql/catalog ──────► sql/types, sql/pgerr, txn
//	         sql/spill ────────► sql/types, sql/pgerr
//	            │
//	level 1  sql/types ────────► sql/pgerr
//	         sql/parser ───────► sql/pgerr
//	            │
//	level 0  sql/pgerr ────────► txn, sstable, wal (to map their errors)
//
// A package imports only packages on lower levels, never one on its own
// or a higher one.
//
//	sql/pgerr      SQLSTATEs, and the mapping of the engine's errors to them
//	sql/types      the datum types: their text and binary forms, casts,
//	               comparison, time zones, and the key and row encodings
//	sql/parser     the PostgreSQL dialect in front of TiDB's parser, and
//	               PL/pgSQL's statement tree (plpgsql.go)
//	sql/spill      temporary files of rows past work_mem, and their encoding
//	sql/builtins   the built-in functions and operators by family, in
//	               tables of overloads that the planner resolves calls against
//	sql/catalog    the stored catalog: descriptors of tables, sequences,
//	               views and enums, their keys, and the row encoding
//	sql/rowexec    the row operators without expressions: RowIter, the
//	               external sort, the spilling row store
//	sql/plan       the expression compiler, the planner, and the operators
//	               that evaluate expressions; the session is its Host,
//	               which compiles user-defined functions' bodies for it
//	               (routine.go: LANGUAGE sql; plpgsql.go: the PL/pgSQL
//	               interpreter; trigger.go: what fires triggers)
//	sql/pgcatalog  pg_catalog, information_schema, epochdb's views of its
//	               engine, and the catalog functions
//
// The session reaches down through exported APIs, and the lower packages
// reach the session only through the Host interfaces they declare
// (plan.Host, pgcatalog.Host), which host.go's planHost implements: the
// Session under another type, so that those methods stay off the API that
// pgwire and the driver use (api.go). Code of this package that the
// planner runs (the sequence functions, pg_notify, the advisory lock
// functions, the writes of a data-modifying WITH query) registers into
// plan's tables and gets its Session back with sessionOf.
//
// TestPackageLayers (layers_test.go) holds the rule: each package may
// import only the epochdb packages its row there lists, and a new package
// must take a row, and a place in this picture, before it lands.
//
// # Where a change goes
//
//	a function,       its family's file in sql/builtins and a row of
//	operator or       sql/builtins/table.go (aggregates.go's table for
//	aggregate         an aggregate), and a testdata/sql case
//	                  recorded against PostgreSQL (EPOCHDB_PG_URL=...
//	                  go test ./sql -run TestDiff -rewrite); one that
//	                  needs special syntax: sql/plan's funcs.go; one that
//	                  needs the catalogs: sql/pgcatalog's catfuncs.go;
//	                  one that needs the session: this package, registered
//	                  into plan.FuncCompilers (see sequence.go)
//	a catalog         sql/pgcatalog: a catalogTable with PostgreSQL 15's
//	relation          oid and columns, and the rows it computes
//	a statement       the parser (sql/parser), then Session.plan's
//	                  switch (session.go) and the file of its kind:
//	                  ddl.go, alter.go, dml.go, copy.go, ...
//	a plan operator   a rowexec.RowIter made by the sql/plan file of its
//	                  clause, in sql/rowexec if it evaluates no
//	                  expression; past work_mem it spills through
//	                  sql/spill
package sql
