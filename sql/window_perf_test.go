package sql_test

import (
	"context"
	"testing"
	"time"
)

// Long window and ordered-aggregate queries end soon after
// statement_timeout: each either finishes or is canceled (57014), and
// returns well within the limit here. Before, a sliding frame was folded
// afresh for every row without a look at the context, and string_agg was
// quadratic with an uncancelable sort, so these ran for minutes.
func TestWindowAndOrderedAggregateHonourTimeout(t *testing.T) {
	const limit = 10 * time.Second
	for _, tc := range []struct {
		name, timeout, query string
		mustCancel           bool
	}{
		// sum takes leaving rows back out, so it should just finish.
		{name: "sliding sum", timeout: "1s",
			query: "SELECT count(m) FROM (SELECT sum(g) OVER (ORDER BY g ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) m FROM generate_series(1, 50000) g) s"},
		{name: "sliding max", timeout: "1s",
			query: "SELECT count(m) FROM (SELECT max(g) OVER (ORDER BY g ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) m FROM generate_series(1, 50000) g) s"},
		{name: "sliding numeric avg", timeout: "1s",
			query: "SELECT count(m) FROM (SELECT avg(g::numeric / 8) OVER (ORDER BY g ROWS BETWEEN 100 PRECEDING AND 100 FOLLOWING) m FROM generate_series(1, 50000) g) s"},
		// A float sum is recomputed for each frame, as in PostgreSQL: 50,000
		// frames averaging 25,000 rows take far longer than the timeout.
		{name: "sliding float sum", timeout: "1s", mustCancel: true,
			query: "SELECT count(m) FROM (SELECT sum(g::float8) OVER (ORDER BY g ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) m FROM generate_series(1, 50000) g) s"},
		// Its fold of the sorted rows was quadratic, and never looked at
		// the context.
		{name: "ordered string_agg", timeout: "1s",
			query: "SELECT length(string_agg(g::text, ',' ORDER BY g DESC)) FROM generate_series(1, 100000) g"},
		{name: "huge ordered string_agg", timeout: "200ms", mustCancel: true,
			query: "SELECT length(string_agg(g::text, ',' ORDER BY g DESC)) FROM generate_series(1, 5000000) g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := lockConns(t, 1, "SET statement_timeout = '"+tc.timeout+"'")
			// A deadline of its own, so that a hang fails the test rather
			// than stalling it.
			ctx, cancel := context.WithTimeout(context.Background(), 3*limit)
			defer cancel()
			start := time.Now()
			var n int64
			err := c[0].QueryRow(ctx, tc.query).Scan(&n)
			elapsed := time.Since(start)
			switch {
			case err != nil && sqlstate(err) != "57014":
				t.Fatalf("err = %v, want a result or 57014", err)
			case err == nil && tc.mustCancel:
				t.Fatalf("finished with %d, want 57014 after %s", n, tc.timeout)
			case err == nil && n == 0:
				t.Fatalf("result %d", n)
			case elapsed > limit:
				t.Fatalf("returned after %s with statement_timeout = %s", elapsed, tc.timeout)
			}
		})
	}
}
