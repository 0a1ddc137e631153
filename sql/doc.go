// Package sql is epochdb's SQL layer: the PostgreSQL dialect, its types
// and functions, the catalog, the planner and executor, and the session
// that pgwire and the embedded driver talk to (api.go).
//
// # Packages
//
// The layer is being cut into packages by concern (issue 9), with
// dependencies that point one way, down:
//
//	level 4  sql ──────────────► every package below, txn and sstable
//	           (session, statements, DDL, planner, the operators over
//	           expressions, virtual catalogs: one package while the cut
//	           goes on)
//	            │
//	level 3  sql/rowexec ──────► sql/spill, sql/types, sql/pgerr
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
//	sql/pgerr     SQLSTATEs, and the mapping of the engine's errors to them
//	sql/types     the datum types: their text and binary forms, casts,
//	              comparison, and the key and row encodings in txn's key space
//	sql/parser    the PostgreSQL dialect in front of TiDB's parser
//	sql/spill     temporary files of rows past work_mem, and their encoding
//	sql/builtins  the built-in functions and operators by family, in
//	              tables of overloads that the planner resolves calls against
//	sql/catalog   the stored catalog: descriptors of tables, sequences,
//	              views and enums, their keys, and the row encoding
//	sql/rowexec   the row operators without expressions: RowIter, the
//	              external sort, the spilling row store
//
// TestPackageLayers (layers_test.go) holds the rule: each package may
// import only the epochdb packages its row there lists, and a new package
// must take a row, and a place in this picture, before it lands.
//
// # Where a change goes
//
// While the cut goes on, by kind of change:
//
//	a function,       its family's file in sql/builtins and a row of
//	operator or       sql/builtins/table.go (aggregates.go's table for
//	aggregate         an aggregate), and a testdata/sql case
//	                  recorded against PostgreSQL (EPOCHDB_PG_URL=...
//	                  go test ./sql -run TestDiff -rewrite); one that
//	                  needs the catalog or special syntax: funcs.go's
//	                  FuncCompilers, for now
//	a catalog         pgcatalog.go: a catalogTable with PostgreSQL 15's
//	relation          oid and columns, and the rows it computes
//	a statement       the parser (sql/parser), then Session.plan's
//	                  switch (session.go) and the file of its kind:
//	                  ddl.go, alter.go, dml.go, copy.go, ...
//	a plan operator   a rowexec.RowIter made by the planner file of its
//	                  clause, in sql/rowexec if it evaluates no
//	                  expression; past work_mem it spills through
//	                  sql/spill
//
// Where the cut goes next, each with a doc.go of its own: the expression
// core (the expr interface, its environment and the basic nodes), which
// the operators over expressions need to join sql/rowexec; the planner
// apart from the session; and sql/pgcatalog, the virtual pg_catalog and
// information_schema relations and the catalog functions, over
// sql/catalog.
package sql
