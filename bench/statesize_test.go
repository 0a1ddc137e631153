package bench

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/epochdb/epochdb"
	"github.com/jackc/pgx/v5"
)

var stateRows = flag.Int("state-rows", 0, "rows for TestIngestStateBytes (issue 4 asks for 10,000,000); 0 skips it")

// TestIngestStateBytes loads the same rows from 16 producers into an
// ingest table and into PostgreSQL with a unique index on (producer, seq),
// and compares epochdb's dedup state (the sum of state_bytes) with the
// index's size (pg_relation_size).
func TestIngestStateBytes(t *testing.T) {
	if *stateRows == 0 {
		t.Skip("set -state-rows")
	}
	pgURL := os.Getenv("EPOCHDB_PG_URL")
	if pgURL == "" {
		t.Skip("EPOCHDB_PG_URL is not set")
	}
	ctx := context.Background()
	db, err := epochdb.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go db.Serve(l)

	const producers = 16
	load := func(url, ddl string) *pgx.Conn {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, ddl, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatal(err)
		}
		per := *stateRows / producers
		for p := range producers {
			for start := 0; start < per; start += 100_000 {
				n := min(100_000, per-start)
				rows := make([][]any, n)
				for i := range rows {
					rows[i] = []any{fmt.Sprintf("producer-%d", p), int64(start + i + 1), "payload"}
				}
				if _, err := conn.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"producer", "seq", "payload"}, pgx.CopyFromRows(rows)); err != nil {
					t.Fatal(err)
				}
			}
		}
		return conn
	}
	e := load(fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", l.Addr()),
		`CREATE TABLE events (producer text NOT NULL, seq bigint NOT NULL, payload text)
		 WITH (ingest_producer = 'producer', ingest_sequence = 'seq')`)
	defer e.Close(ctx)
	var stateBytes, n int64
	if err := e.QueryRow(ctx, "SELECT sum(state_bytes), count(*) FROM epochdb_ingest_producers").Scan(&stateBytes, &n); err != nil {
		t.Fatal(err)
	}
	p := load(pgURL, `DROP TABLE IF EXISTS events;
		CREATE TABLE events (producer text NOT NULL, seq bigint NOT NULL, payload text);
		CREATE UNIQUE INDEX events_dedup ON events (producer, seq)`)
	defer p.Close(ctx)
	var indexBytes int64
	if err := p.QueryRow(ctx, "SELECT pg_relation_size('events_dedup')").Scan(&indexBytes); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows from %d producers: epochdb dedup state %d bytes (%d producers); PostgreSQL unique index %d bytes; ratio 1/%d",
		*stateRows, producers, stateBytes, n, indexBytes, indexBytes/max(stateBytes, 1))
	if stateBytes*1000 > indexBytes {
		t.Errorf("epochdb's state is more than 1/1000 of the index")
	}
}
