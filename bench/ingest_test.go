package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/epochdb/epochdb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkIngest is issue 4's workload: 16 producers, 100 rows per
// transaction, 10% of them re-sent, durable commits on both sides. epochdb
// deduplicates in an ingest table; PostgreSQL (EPOCHDB_PG_URL) uses a
// unique index on (producer, seq) and INSERT ... ON CONFLICT DO NOTHING.
func BenchmarkIngest(b *testing.B) {
	b.Run("engine=epochdb", func(b *testing.B) {
		db, err := epochdb.Open(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go db.Serve(l)
		runIngest(b, fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", l.Addr()),
			`CREATE TABLE events (producer text NOT NULL, producer_epoch bigint NOT NULL, seq bigint NOT NULL, payload text)
			 WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_epoch = 'producer_epoch')`, "")
	})
	b.Run("engine=postgres", func(b *testing.B) {
		url := os.Getenv("EPOCHDB_PG_URL")
		if url == "" {
			b.Skip("EPOCHDB_PG_URL is not set")
		}
		runIngest(b, url, `DROP TABLE IF EXISTS events;
			CREATE TABLE events (producer text NOT NULL, producer_epoch bigint NOT NULL, seq bigint NOT NULL, payload text);
			CREATE UNIQUE INDEX ON events (producer, seq)`, " ON CONFLICT DO NOTHING")
	})
}

func runIngest(b *testing.B, url, ddl, suffix string) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, ddl, pgx.QueryExecModeSimpleProtocol); err != nil {
		b.Fatal(err)
	}
	const producers, batch, resent = 16, 100, 10
	var next atomic.Int64 // batches handed out, shared as b.N
	var rows atomic.Int64
	var distinct atomic.Int64 // (producer, seq) pairs sent
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for p := range producers {
		wg.Go(func() {
			conn, err := pool.Acquire(ctx)
			if err != nil {
				b.Error(err)
				return
			}
			defer conn.Release()
			seq := int64(0)
			for next.Add(1) <= int64(b.N) {
				var sb strings.Builder
				sb.WriteString("INSERT INTO events VALUES ")
				for i := range batch {
					s := seq + int64(i) + 1
					if i >= batch-resent && seq > 0 {
						s = seq - int64(i-(batch-resent)) // re-send rows of the previous batch
					}
					if i > 0 {
						sb.WriteString(", ")
					}
					fmt.Fprintf(&sb, "('producer-%d', 1, %d, 'payload %d')", p, s, s)
				}
				seq += batch - resent
				if seq == batch-resent { // the first batch sends only new rows
					seq = batch
				}
				sb.WriteString(suffix)
				if _, err := conn.Exec(ctx, sb.String(), pgx.QueryExecModeSimpleProtocol); err != nil {
					b.Error(err)
					return
				}
				rows.Add(batch)
			}
			distinct.Add(seq) // every sequence 1..seq was sent, some twice
		})
	}
	wg.Wait()
	b.ReportMetric(float64(rows.Load())/time.Since(start).Seconds(), "rows/s")
	b.StopTimer()
	// Both sides must have deduplicated: one row per (producer, seq) sent.
	var count int64
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM events").Scan(&count); err != nil {
		b.Fatal(err)
	}
	if count != distinct.Load() {
		b.Fatalf("%d rows stored, want %d: one per distinct (producer, seq) sent", count, distinct.Load())
	}
}
