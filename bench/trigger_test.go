package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BenchmarkTrigger is issue 10's measure of a PL/pgSQL row trigger's
// cost: UPDATE of every row of a 20,000-row table, with a BEFORE UPDATE
// FOR EACH ROW trigger in PL/pgSQL that sets two columns of NEW, and the
// same UPDATE on a twin table without it, on epochdb and on PostgreSQL
// (EPOCHDB_PG_URL). It reports the trigger's cost per row, the difference
// of the two, in ns/row, and the triggered UPDATE's rows/s.
func BenchmarkTrigger(b *testing.B) {
	bothEngines(b, runTrigger)
}

func runTrigger(b *testing.B, url string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	const rows = 20_000
	for _, q := range []string{
		`DROP TABLE IF EXISTS trg_plain, trg_fired`,
		`DROP FUNCTION IF EXISTS trg_bump()`,
		`CREATE TABLE trg_plain (id int PRIMARY KEY, v int NOT NULL, version int NOT NULL DEFAULT 0, note text)`,
		`CREATE TABLE trg_fired (id int PRIMARY KEY, v int NOT NULL, version int NOT NULL DEFAULT 0, note text)`,
		fmt.Sprintf(`INSERT INTO trg_plain (id, v) SELECT g, g FROM generate_series(1, %d) AS g`, rows),
		fmt.Sprintf(`INSERT INTO trg_fired (id, v) SELECT g, g FROM generate_series(1, %d) AS g`, rows),
		`CREATE FUNCTION trg_bump() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN
		   NEW.version := OLD.version + 1;
		   NEW.note := 'v' || NEW.v;
		   RETURN NEW;
		 END $$`,
		`CREATE TRIGGER bump BEFORE UPDATE ON trg_fired FOR EACH ROW EXECUTE FUNCTION trg_bump()`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	var plain, fired time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := conn.Exec(ctx, `UPDATE trg_plain SET v = v + 1, version = version + 1, note = 'v' || (v + 1)`); err != nil {
			b.Fatal(err)
		}
		plain += time.Since(start)
		start = time.Now()
		if _, err := conn.Exec(ctx, `UPDATE trg_fired SET v = v + 1`); err != nil {
			b.Fatal(err)
		}
		fired += time.Since(start)
	}
	b.StopTimer()
	var version int
	if err := conn.QueryRow(ctx, `SELECT min(version) FROM trg_fired`).Scan(&version); err != nil || version != b.N {
		b.Fatalf("version %d, want %d (%v)", version, b.N, err)
	}
	n := float64(b.N * rows)
	b.ReportMetric(float64(fired-plain)/n, "trigger-ns/row")
	b.ReportMetric(n/fired.Seconds(), "rows/s")
}
