package clienttest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The pgbench ingest scripts end with one row per distinct (producer, seq)
// sent, with and without retries, in every query mode.
func TestPgbenchIngest(t *testing.T) {
	pgbench := lookPath(t, "pgbench")
	if *againstPG {
		t.Skip("ingest tables are epochdb's own")
	}
	scripts, err := filepath.Abs("../../testdata/pgbench")
	if err != nil {
		t.Fatal(err)
	}
	const clients, txns = 8, 40
	for _, script := range []string{"ingest.sql", "ingest_retry.sql"} {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			t.Run(script+"/"+mode, func(t *testing.T) {
				tg := startTarget(t)
				ctx := context.Background()
				conn, err := pgx.Connect(ctx, tg.url())
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				if _, err := conn.Exec(ctx, `CREATE TABLE events (producer text NOT NULL, producer_epoch bigint NOT NULL,
					seq bigint NOT NULL, payload text)
					WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_epoch = 'producer_epoch')`); err != nil {
					t.Fatal(err)
				}
				runClient(t, tg, scripts, pgbench, "-n", "-M", mode, "-D", "seq=0",
					"-f", script, "-c", fmt.Sprint(clients), "-t", fmt.Sprint(txns))
				var rows, distinct int
				err = conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT producer || '/' || seq) FROM events`).Scan(&rows, &distinct)
				if err != nil || rows != clients*txns || distinct != rows {
					t.Fatalf("%d rows, %d distinct (%v); want %d of each", rows, distinct, err, clients*txns)
				}
			})
		}
	}
}
