package sql_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/epochdb/epochdb"
)

// TestIndexesMatchSeqScan runs random writes against tables with non-unique
// and unique indexes, some in transactions that roll back, and after every
// step asks each index for every value it could hold: the rows it returns
// must be exactly the rows a sequential scan finds. A stale entry would
// return a row twice or a row that no longer matches; a missing one, too
// few rows.
func TestIndexesMatchSeqScan(t *testing.T) {
	for name, ddl := range map[string]string{
		"primary_key": "CREATE TABLE r (id int PRIMARY KEY, k int, u int, v text)",
		"row_ids":     "CREATE TABLE r (id int, k int, u int, v text)",
	} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t, ddl,
				"CREATE INDEX r_k ON r (k)",
				"CREATE INDEX r_k_v ON r (k, v)",
				"CREATE UNIQUE INDEX r_u ON r (u)",
				"CREATE INDEX r_u_one ON r (u) WHERE v = '1'",
				"CREATE INDEX r_v_len ON r ((length(v) * 10 + k))")
			conn := db.SQL()
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(7, uint64(len(ddl))))
			val := func() any {
				if rng.IntN(8) == 0 {
					return nil
				}
				return rng.IntN(6)
			}
			nextID := 0
			for step := range 250 {
				tx, err := conn.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				for range 1 + rng.IntN(3) {
					var q string
					var args []any
					switch rng.IntN(6) {
					case 0, 1:
						nextID++
						q, args = "INSERT INTO r VALUES ($1, $2, $3, $4)", []any{nextID, val(), nil, any(fmt.Sprint(rng.IntN(3)))}
						if rng.IntN(6) == 0 {
							args[3] = nil // a NULL in the second column of r_k_v
						}
						if rng.IntN(2) == 0 {
							args[2] = rng.IntN(40)
						}
					case 2:
						q, args = "UPDATE r SET k = $1 WHERE k = $2", []any{val(), rng.IntN(6)}
					case 3:
						q, args = "UPDATE r SET id = id + 1000, v = v || 'x' WHERE id % 7 = $1", []any{rng.IntN(7)}
					case 4:
						q, args = "DELETE FROM r WHERE k = $1 AND v = $2", []any{rng.IntN(6), fmt.Sprint(rng.IntN(3))}
					case 5:
						q, args = "UPDATE r SET u = $1 WHERE id = $2", []any{rng.IntN(40), rng.IntN(nextID + 1)}
					}
					if _, err := tx.ExecContext(ctx, q, args...); err != nil {
						if strings.Contains(err.Error(), "23505") || strings.Contains(err.Error(), "duplicate key") {
							break // the unique index refused; the transaction is done for
						}
						t.Fatalf("step %d: %s %v: %v", step, q, args, err)
					}
				}
				if rng.IntN(4) == 0 {
					err = tx.Rollback()
				} else if err = tx.Commit(); err != nil && strings.Contains(err.Error(), "rolled back") {
					err = nil
				}
				if err != nil {
					t.Fatalf("step %d: end: %v", step, err)
				}
				checkIndexes(t, conn, step)
			}
		})
	}
}

func checkIndexes(t *testing.T, conn *sql.DB, step int) {
	t.Helper()
	ids := func(q string, args ...any) []int {
		t.Helper()
		rows, err := conn.Query(q, args...)
		if err != nil {
			t.Fatalf("step %d: %s: %v", step, q, err)
		}
		defer rows.Close()
		var out []int
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		slices.Sort(out)
		return out
	}
	for k := range 6 {
		// k + 0 and v || '' hide the columns from the planner: a seq scan.
		if got, want := ids("SELECT id FROM r WHERE k = $1", k), ids("SELECT id FROM r WHERE k + 0 = $1", k); !slices.Equal(got, want) {
			t.Fatalf("step %d: k = %d: index gives %v, scan %v", step, k, got, want)
		}
		if got, want := ids("SELECT id FROM r WHERE k > $1", k), ids("SELECT id FROM r WHERE k + 0 > $1", k); !slices.Equal(got, want) {
			t.Fatalf("step %d: k > %d: index gives %v, scan %v", step, k, got, want)
		}
		for v := range 3 {
			got := ids("SELECT id FROM r WHERE k = $1 AND v = $2", k, fmt.Sprint(v))
			want := ids("SELECT id FROM r WHERE k + 0 = $1 AND v || '' = $2", k, fmt.Sprint(v))
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: k = %d AND v = %d: index gives %v, scan %v", step, k, v, got, want)
			}
		}
	}
	for u := 0; u < 40; u += 3 {
		if got, want := ids("SELECT id FROM r WHERE u = $1", u), ids("SELECT id FROM r WHERE u + 0 = $1", u); !slices.Equal(got, want) {
			t.Fatalf("step %d: u = %d: index gives %v, scan %v", step, u, got, want)
		}
		// The partial index, which the UPDATEs of v move rows out of.
		got := ids("SELECT id FROM r WHERE u > $1 AND v = '1'", u)
		want := ids("SELECT id FROM r WHERE u + 0 > $1 AND v || '' = '1'", u)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: u > %d AND v = '1': partial index gives %v, scan %v", step, u, got, want)
		}
	}
	// The index on an expression, which UPDATEs of k and v change.
	for n := 0; n < 60; n += 7 {
		got := ids("SELECT id FROM r WHERE length(v) * 10 + k = $1", n)
		want := ids("SELECT id FROM r WHERE length(v || '') * 10 + k = $1", n)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: length(v) * 10 + k = %d: index gives %v, scan %v", step, n, got, want)
		}
	}
}

// An index, non-unique or unique, outlives a restart, and DROP INDEX, a
// CHECK constraint and a view too.
func TestIndexSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := epochdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE ev (id int PRIMARY KEY, kind text, n int)",
		"INSERT INTO ev VALUES (1, 'a', 1), (2, 'b', 2), (3, 'a', 3)",
		"CREATE INDEX ev_kind ON ev (kind)",
		"CREATE UNIQUE INDEX ev_n ON ev (n)",
		"CREATE INDEX ev_gone ON ev (n, kind)",
		"DROP INDEX ev_gone",
		"ALTER TABLE ev ADD CONSTRAINT ev_n_small CHECK (n < 10)",
		"CREATE VIEW ev_a AS SELECT id, n FROM ev WHERE kind = 'a'",
		"CREATE INDEX ev_lower ON ev (lower(kind))",
		"CREATE TYPE ev_level AS ENUM ('low', 'high')",
		"ALTER TYPE ev_level ADD VALUE 'mid' BEFORE 'high'",
		"ALTER TABLE ev ADD COLUMN level ev_level",
		"UPDATE ev SET level = 'high' WHERE id = 1",
		"UPDATE ev SET level = 'mid' WHERE id = 2",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = epochdb.Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var qp string
	if err := db.SQL().QueryRowContext(ctx, "EXPLAIN (COSTS OFF) SELECT id FROM ev WHERE kind = 'a'").Scan(&qp); err != nil || qp != "Index Scan using ev_kind on ev" {
		t.Fatalf("after restart: plan %q, %v", qp, err)
	}
	var ids string
	if err := db.SQL().QueryRowContext(ctx, "SELECT string_agg(id::text, ',') FROM (SELECT id FROM ev WHERE kind = 'a' ORDER BY id) s").Scan(&ids); err != nil || ids != "1,3" {
		t.Fatalf("after restart: ids %q, %v", ids, err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO ev VALUES (4, 'c', 3)"); err == nil || !strings.Contains(err.Error(), "ev_n") {
		t.Fatalf("after restart: duplicate n: %v, want a violation of ev_n", err)
	}
	if n := 0; db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM ev_a").Scan(&n) != nil || n != 2 {
		t.Fatalf("after restart: the view ev_a has %d rows, want 2", n)
	}
	if _, err := db.Exec(ctx, "INSERT INTO ev VALUES (5, 'c', 11)"); err == nil || !strings.Contains(err.Error(), "ev_n_small") {
		t.Fatalf("after restart: n = 11: %v, want a violation of ev_n_small", err)
	}
	var names string
	if err := db.SQL().QueryRowContext(ctx, "SELECT string_agg(indexname, ',') FROM (SELECT indexname FROM pg_indexes WHERE tablename = 'ev' ORDER BY 1) s").Scan(&names); err != nil || names != "ev_kind,ev_lower,ev_n,ev_pkey" {
		t.Fatalf("after restart: indexes %q, %v", names, err)
	}
	// An index on an expression and an enum type, with a label added.
	if err := db.SQL().QueryRowContext(ctx, "EXPLAIN (COSTS OFF) SELECT id FROM ev WHERE lower(kind) = 'a'").Scan(&qp); err != nil || qp != "Index Scan using ev_lower on ev" {
		t.Fatalf("after restart: plan %q, %v", qp, err)
	}
	if err := db.SQL().QueryRowContext(ctx, "SELECT string_agg(id || ':' || level, ',' ORDER BY level) FROM ev WHERE level IS NOT NULL").Scan(&ids); err != nil || ids != "2:mid,1:high" {
		t.Fatalf("after restart: levels %q, %v", ids, err)
	}
	if _, err := db.Exec(ctx, "UPDATE ev SET level = 'low' WHERE id = 3"); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}
