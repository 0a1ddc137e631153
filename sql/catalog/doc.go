// Package catalog is the stored catalog: the descriptors of schemas (see
// schema.go for how names resolve in them), tables (their
// columns, indexes, CHECK and FOREIGN KEY constraints, ingest and
// materialized-view options), sequences, views and enum types, and the
// comments on them; how each is kept in txn's one ordered key space; and
// how rows and index entries are encoded there.
//
// # The key space
//
//	0x00 'd' <id u32>                  descriptor of object id (JSON): a schema,
//	                                   table, sequence, view, enum type or
//	                                   extension
//	0x00 'n' <name>                    a name of public → id; its row lock
//	                                   serialises CREATE of one name
//	0x00 'n' 0x00 <schema u32> <name>  a name of another schema → id; schema 0
//	                                   holds the schemas' own names
//	0x00 'v'                           catalog version: every DDL transaction
//	                                   bumps it, so DDL transactions run one at
//	                                   a time
//	0x00 'o'                           the next object id
//	0x00 's' <id u32>                  a sequence's reserved high-water mark
//	0x00 'c' <class, object, sub>      a comment (pg_description's key)
//	0x00 'i', 'a' <table id u32> ...   an ingest table's producers (package sql)
//	0x01 <data id u32> <index u8> ...  table data; index 1 is the primary index
//	                                   (value: the row), others are secondary
//	                                   (value: the primary key)
//
// Descriptors are read through the DDL transaction that writes them, so DDL
// commits and rolls back with the transaction, and they survive restarts
// because they are ordinary keys.
//
// # Snapshots and DDL
//
// A Catalog is an immutable snapshot of the descriptors, which Load reads
// through a transaction; its lookups (TableByName, TableByID, ...) are
// maps the snapshot never changes once published. A DDL statement works
// on a DDL: BeginDDL locks the catalog version for its transaction and
// takes a private copy, whose Put* methods write descriptors through the
// transaction and update the copy, so the session's later statements in
// the transaction see them. A table a DDL changes is a Clone; the shared
// one is never written.
//
// Object ids are handed out as PostgreSQL hands out oids: NextID moves the
// counter in a transaction of its own, so an id is never handed out twice
// even if the DDL that took it rolls back. Sequences draw values the same
// way, a block at a time (Sequences).
//
// # What is not here
//
// The package knows how objects are stored, not what statements do to
// them: CREATE, ALTER and DROP, dependency tracking and constraint checks
// are the sql root package's, expression compilation is sql/plan's, and
// the virtual pg_catalog relations over this catalog are sql/pgcatalog's.
// It depends on txn, sql/types and sql/pgerr only.
package catalog
