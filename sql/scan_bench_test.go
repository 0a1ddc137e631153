package sql

import (
	"context"
	"testing"
)

// BenchmarkScan measures a full scan of a table in sstables, the path of
// every query without an index: the storage's iteration, MVCC visibility,
// row decoding and the expressions over it. Its unit is rows/s.
func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	_, s := newTestSession(b)
	const rows = 200_000
	for _, q := range []string{
		"CREATE TABLE scan (id int PRIMARY KEY, x int NOT NULL)",
		"INSERT INTO scan SELECT g, g % 1000 FROM generate_series(1, 200000) g",
		"CREATE FUNCTION scan_f(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x * 2 + 1'",
		"CHECKPOINT",
	} {
		if _, err := run(ctx, s, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ name, sql string }{
		{"count", "SELECT count(*) FROM scan"},
		{"sum", "SELECT sum(x * 2 + 1) FROM scan"},
		{"function", "SELECT sum(scan_f(x)) FROM scan"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := run(ctx, s, c.sql); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
