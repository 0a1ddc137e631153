package sql

import (
	"context"
	"errors"
	"testing"
)

// BenchmarkStatements measures the SQL layer alone, on an in-memory store
// and without the protocol: parsing, planning, expressions and operators.
// Each statement runs in both of the protocols' ways: simple (prepared and
// planned every time) and prepared (planned once, then bound and executed).
func BenchmarkStatements(b *testing.B) {
	ctx := context.Background()
	_, s := newTestSession(b)
	for _, q := range []string{
		"CREATE TABLE accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler text)",
		"INSERT INTO accounts SELECT g, g % 10, 0, repeat(md5(g::text), 2) FROM generate_series(1, 10000) g",
	} {
		if _, err := run(ctx, s, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ name, sql string }{
		{"point-select", "SELECT abalance FROM accounts WHERE aid = 4242"},
		{"update", "UPDATE accounts SET abalance = abalance + 1 WHERE aid = 4242"},
		{"group-by", "SELECT bid, count(*), sum(abalance) FROM accounts GROUP BY bid"},
		{"functions", "SELECT sum(length(lower(filler)) + strpos(upper(filler), 'A')), max(sqrt(aid) + power(aid, 0.5)) FROM accounts WHERE aid <= 1000"},
		{"sort-limit", "SELECT aid FROM accounts ORDER BY filler DESC LIMIT 10"},
	} {
		b.Run(c.name+"/simple", func(b *testing.B) {
			for b.Loop() {
				if _, err := run(ctx, s, c.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/prepared", func(b *testing.B) {
			ps, err := s.PrepareAll(ctx, c.sql)
			if err != nil || len(ps) != 1 {
				b.Fatalf("%s: %v", c.sql, err)
			}
			for b.Loop() {
				pt, err := s.Bind(ctx, ps[0], nil)
				if err == nil {
					_, _, err = s.Execute(ctx, pt, 0, func([]any) error { return nil })
				}
				if err := errors.Join(err, s.Sync()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
