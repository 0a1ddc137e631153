// Package clienttest is epochdb's client matrix: the real PostgreSQL clients
// people use, each run against an embedded epochdb server. It has no code of
// its own; its tests are the matrix.
//
// # What every client does
//
// Each client connects to a fresh server and does the same things, in its own
// idiom, printing one line per step and exiting non-zero on any mismatch:
//
//  1. creates the table matrix, with a column of every supported type:
//     bool, int2, int4, int8, float4, float8, numeric, text, varchar(10),
//     char(5), bytea, date, timestamp, timestamptz, uuid and interval;
//  2. inserts the canonical row (id 1) and an all-NULL row (id 2) with
//     parameters, and reads both back unchanged, in the text and the binary
//     result format wherever the client lets the program choose;
//  3. commits a transaction and rolls one back, and checks what is visible;
//  4. provokes a unique violation and checks that its SQLSTATE is 23505 and
//     that the connection still works;
//  5. prepares a statement once and runs it eight times (JDBC switches to a
//     named server-side statement and binary results after five);
//  6. runs COPY FROM STDIN and COPY TO STDOUT, where the client has an API
//     for it.
//
// The canonical row is chosen to catch lossy encodings: int2, int4 and int8
// at their limits, float4 3.14159 (not exact in binary), float8 0.1, numeric
// 12345678901234567890.123456789 (beyond any float), text with non-ASCII
// characters, quotes and a backslash, char(5) 'ab' (read back blank-padded),
// bytea 00 ff 10, the leap day 2024-02-29, timestamps with microseconds,
// uuid a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 and interval
// '1 year 2 mons 3 days 04:05:06.789'. Its text and binary encodings, as
// PostgreSQL 15 sends them, are written out in pgx_test.go.
//
// # Layout
//
//	clients_test.go            the harness: a server per client, running the
//	                           external programs, psql's golden files
//	pgx_test.go, pq_test.go    the Go clients, in-process; pgx also runs
//	                           the wire encodings byte for byte, values of
//	                           megabytes, many rows and a cancel
//	capture_test.go            -capture: a proxy that records what each
//	                           client sends, for pgwire's fuzz seeds
//	network_test.go            pgx with inet, cidr, macaddr and macaddr8:
//	                           Go's netip and net values, both formats,
//	                           COPY, the encodings byte for byte
//	catalog_test.go            pgx's array parameters and type lookup, and
//	                           psql's \dt and \d
//	pgdump_test.go             pg_dump's plain, schema, data and custom
//	                           dumps of epochdb, loaded into epochdb (and
//	                           PostgreSQL) with psql and pg_restore
//	testdata/clients/psql      psql scripts and their golden output
//	testdata/clients/node      node-postgres and postgres.js (npm ci),
//	                           with what they share in matrix.js
//	testdata/clients/python    psycopg2, run with /usr/bin/python3
//	testdata/clients/java      JDBC, compiled with javac at test time
//	orm_py_go_test.go          the ORMs and migration tools: SQLAlchemy,
//	                           Alembic and Django (testdata/clients/python,
//	                           Debian's packages), and GORM, sqlx,
//	                           golang-migrate and goose
//	                           (testdata/clients/go, a module of its own,
//	                           built at test time)
//
// Beyond the six steps, each client also exercises the protocol paths it is
// known for: pgx's Batch and binary CopyFrom, JDBC's batches and fetch size
// (a portal read with PortalSuspended), postgres.js's cursors and simple
// queries, psycopg2's named cursors, and a COPY that fails while the client
// is still sending.
//
// Clients also read the catalogs: JDBC's DatabaseMetaData (getTables,
// getColumns, getPrimaryKeys, getIndexInfo) and createArrayOf, pgx's
// slices as array parameters and LoadType, and psql's \dt and \d.
//
// A missing client skips its test, unless EPOCHDB_REQUIRE_CLIENTS=1 (as in
// CI), when it fails it.
//
// # Checking the programs themselves
//
// A failing client can be the program's fault. With -pg the matrix runs
// against the PostgreSQL server at $EPOCHDB_PG_URL instead, each client in a
// database of its own, so every program can be shown to pass against
// PostgreSQL 15. With -pg -update the psql golden files are rewritten from
// PostgreSQL's output:
//
//	EPOCHDB_PG_URL=postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable \
//	    go test ./internal/clienttest -pg -update
//
// # Seeding the protocol fuzzer
//
// With -capture DIR each client talks to its server through a proxy that
// writes what the client sends after its StartupMessage to DIR/<client>-<n>,
// one file per connection. pgwire's FuzzServerMessages takes those
// conversations as seeds; its comment says how to turn them into seed files.
package clienttest
