package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/epochdb/epochdb"
	"github.com/jackc/pgx/v5"
)

// BenchmarkSQLFunction is issue 10's measure of a SQL function's cost:
// SELECT sum(f(x)) over a table of 1M rows, f a LANGUAGE sql function of
// one expression, on epochdb and on PostgreSQL (EPOCHDB_PG_URL), which
// inlines such a function into the query. It reports rows/s.
func BenchmarkSQLFunction(b *testing.B) {
	bothEngines(b, runSQLFunction)
}

// bothEngines runs run against a fresh epochdb served on a local port,
// then against the PostgreSQL at EPOCHDB_PG_URL, as sub-benchmarks
// engine=epochdb and engine=postgres.
func bothEngines(b *testing.B, run func(b *testing.B, url string)) {
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
		run(b, fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", l.Addr()))
	})
	b.Run("engine=postgres", func(b *testing.B) {
		url := os.Getenv("EPOCHDB_PG_URL")
		if url == "" {
			b.Skip("EPOCHDB_PG_URL is not set")
		}
		run(b, url)
	})
}

func runSQLFunction(b *testing.B, url string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	const rows = 1_000_000
	for _, q := range []string{
		`DROP TABLE IF EXISTS fnbench`,
		`DROP FUNCTION IF EXISTS fnbench_f(int)`,
		`CREATE TABLE fnbench (id int PRIMARY KEY, x int NOT NULL)`,
		fmt.Sprintf(`INSERT INTO fnbench SELECT g, g %% 1000 FROM generate_series(1, %d) AS g`, rows),
		`CREATE FUNCTION fnbench_f(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x * 2 + 1'`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		var sum int64
		if err := conn.QueryRow(ctx, `SELECT sum(fnbench_f(x)) FROM fnbench`).Scan(&sum); err != nil {
			b.Fatal(err)
		}
		if want := int64(rows/1000) * (999*1000 + 1000); sum != want {
			b.Fatalf("sum %d, want %d", sum, want)
		}
	}
	b.ReportMetric(float64(b.N*rows)/time.Since(start).Seconds(), "rows/s")
}
