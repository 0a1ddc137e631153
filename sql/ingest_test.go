package sql_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ingestServer starts an in-memory epochdb with an ingest table and
// returns a pgx connection that collects NOTICEs.
func ingestServer(t *testing.T) (*pgx.Conn, *[]string) {
	t.Helper()
	var notices []string
	cfg, err := pgx.ParseConfig(serve(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	_, err = conn.Exec(context.Background(), `CREATE TABLE events (producer text NOT NULL, producer_epoch bigint NOT NULL,
		seq bigint NOT NULL, payload text)
		WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_epoch = 'producer_epoch',
		      ingest_window = 8, ingest_producer_ttl = '7 days')`)
	if err != nil {
		t.Fatal(err)
	}
	return conn, &notices
}

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errorsAs(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestIngestInsertDeduplicates(t *testing.T) {
	conn, notices := ingestServer(t)
	ctx := context.Background()
	exec := func(q string, args ...any) (pgconn.CommandTag, error) { return conn.Exec(ctx, q, args...) }

	tag, err := exec(`INSERT INTO events VALUES ('p1', 1, 1, 'a'), ('p1', 1, 2, 'b'), ('p1', 1, 2, 'b again'), ('p1', 1, 4, 'd')`)
	if err != nil || tag.String() != "INSERT 0 3" {
		t.Fatalf("first batch: %q, %v; want INSERT 0 3 (one duplicate in the statement)", tag, err)
	}
	if len(*notices) != 1 || !strings.Contains((*notices)[0], "1 duplicate") {
		t.Fatalf("notices %q: want one naming the duplicate count", *notices)
	}
	// A retry of anything at or below the high-water mark, however old.
	if tag, err = exec(`INSERT INTO events VALUES ('p1', 1, 1, 'a'), ('p1', 1, 3, 'c')`); err != nil || tag.String() != "INSERT 0 1" {
		t.Fatalf("retry plus one new: %q, %v", tag, err)
	}
	// Deleting a row never makes its sequence insertable again.
	if _, err = exec(`DELETE FROM events WHERE seq = 1`); err != nil {
		t.Fatal(err)
	}
	if tag, err = exec(`INSERT INTO events VALUES ('p1', 1, 1, 'a')`); err != nil || tag.String() != "INSERT 0 0" {
		t.Fatalf("re-insert after delete: %q, %v; want INSERT 0 0", tag, err)
	}
	// A gap wider than the window is loud, names the missing sequences,
	// and the whole statement inserts nothing.
	_, err = exec(`INSERT INTO events VALUES ('p1', 1, 5, 'e'), ('p1', 1, 14, 'n')`)
	var pe *pgconn.PgError
	if !errorsAs(err, &pe) || pe.Code != "55Q02" || !strings.Contains(pe.Detail, "missing 6-13") {
		t.Fatalf("gap: %v (detail %q), want 55Q02 naming 6-13", err, detail(err))
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM events WHERE seq = 5`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a failed statement inserted %d rows (%v)", n, err)
	}
	// Unknown producer beyond the first window, stale and future epochs.
	cases := []struct{ sql, code string }{
		{`INSERT INTO events VALUES ('p2', 1, 9, 'x')`, "55Q03"},
		{`INSERT INTO events VALUES ('p1', 2, 5, 'x')`, "22023"},
		{`INSERT INTO events VALUES ('p1', 0, 5, 'x')`, "55Q01"},
		{`INSERT INTO events VALUES ('p1', 1, 0, 'x')`, "22023"},
	}
	for _, c := range cases {
		if _, err := exec(c.sql); sqlstate(err) != c.code {
			t.Errorf("%s: %v, want %s", c.sql, err, c.code)
		}
	}
	// Parameters and prepared statements go through the same check.
	for i := 0; i < 3; i++ {
		if _, err := exec(`INSERT INTO events VALUES ($1, $2, $3, $4)`, "p3", 1, 1, "once"); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM events WHERE producer = 'p3'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("p3 rows: %d (%v), want 1", n, err)
	}
}

func TestIngestCopyFromDeduplicates(t *testing.T) {
	conn, _ := ingestServer(t)
	ctx := context.Background()
	rows := [][]any{
		{"c1", int64(1), int64(1), "a"}, {"c1", int64(1), int64(3), "c"}, {"c1", int64(1), int64(2), "b"},
		{"c1", int64(1), int64(3), "c again"}, {"c2", int64(1), int64(1), "x"},
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"producer", "producer_epoch", "seq", "payload"}, pgx.CopyFromRows(rows))
	if err != nil || n != 4 {
		t.Fatalf("CopyFrom: %d rows, %v; want 4 (one duplicate)", n, err)
	}
	n, err = conn.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"producer", "producer_epoch", "seq", "payload"}, pgx.CopyFromRows(rows))
	if err != nil || n != 0 {
		t.Fatalf("CopyFrom again: %d rows, %v; want 0", n, err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO events VALUES ('c2', 1, 3, 'y'), ('c2', 1, 6, 'z')`); err != nil {
		t.Fatal(err)
	}

	// The view shows each producer's state: one number and a small
	// window, not the rows.
	got, err := conn.Query(ctx, `SELECT table_name, producer, epoch, high_water, pending::text, state_bytes,
		(expires_at - last_seen)::text FROM epochdb_ingest_producers ORDER BY producer`)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for got.Next() {
		var table, producer, pending, ttl string
		var epoch, high int64
		var bytes int32
		if err := got.Scan(&table, &producer, &epoch, &high, &pending, &bytes, &ttl); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%s %s epoch=%d H=%d pending=%s ttl=%s", table, producer, epoch, high, pending, ttl))
		if bytes <= 0 || bytes > 32 {
			t.Errorf("%s: state_bytes %d", producer, bytes)
		}
	}
	want := "events c1 epoch=1 H=3 pending={} ttl=7 days|events c2 epoch=1 H=1 pending={3,6} ttl=7 days"
	if strings.Join(lines, "|") != want {
		t.Fatalf("epochdb_ingest_producers:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.ReplaceAll(want, "|", "\n"))
	}
}

func detail(err error) string {
	var pe *pgconn.PgError
	if errorsAs(err, &pe) {
		return pe.Detail
	}
	return ""
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// epochdb_producer_begin issues epochs: a new one fences every older
// incarnation, and the sequence space survives the bump.
func TestProducerBegin(t *testing.T) {
	conn, _ := ingestServer(t)
	ctx := context.Background()
	begin := func(args string) (epoch, high int64, pending string) {
		t.Helper()
		err := conn.QueryRow(ctx, "SELECT epoch, high_water, pending::text FROM epochdb_producer_begin("+args+")").Scan(&epoch, &high, &pending)
		if err != nil {
			t.Fatalf("producer_begin(%s): %v", args, err)
		}
		return
	}
	if e, h, p := begin(`'events', 'p9'`); e != 1 || h != 0 || p != "{}" {
		t.Fatalf("new producer: epoch %d, H %d, pending %s", e, h, p)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO events VALUES ('p9', 1, 1, 'a'), ('p9', 1, 3, 'c')`); err != nil {
		t.Fatal(err)
	}
	if e, h, p := begin(`'events', 'p9'`); e != 2 || h != 1 || p != "{3}" {
		t.Fatalf("restarted producer: epoch %d, H %d, pending %s; want 2, 1, {3}", e, h, p)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO events VALUES ('p9', 1, 2, 'zombie')`); sqlstate(err) != "55Q01" {
		t.Fatalf("the old incarnation writes: %v, want 55Q01", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO events VALUES ('p9', 3, 2, 'future')`); sqlstate(err) != "22023" {
		t.Fatalf("an epoch never issued: %v, want 22023", err)
	}
	if tag, err := conn.Exec(ctx, `INSERT INTO events VALUES ('p9', 2, 2, 'b'), ('p9', 2, 3, 'c')`); err != nil || tag.String() != "INSERT 0 1" {
		t.Fatalf("the new incarnation: %q, %v; want 2 new and 3 a duplicate", tag, err)
	}
	// An unknown producer may resume after a sequence it already
	// delivered elsewhere.
	if e, h, _ := begin(`'events', 'p10', resume_after => 812`); e != 1 || h != 812 {
		t.Fatalf("resume_after: epoch %d, H %d", e, h)
	}
	if e, h, _ := begin(`'events', 'p11', 40`); e != 1 || h != 40 {
		t.Fatalf("positional resume_after: epoch %d, H %d", e, h)
	}
	if tag, err := conn.Exec(ctx, `INSERT INTO events VALUES ('p10', 1, 813, 'x'), ('p10', 1, 5, 'old')`); err != nil || tag.String() != "INSERT 0 1" {
		t.Fatalf("after resume: %q, %v", tag, err)
	}
	if _, err := conn.Exec(ctx, `SELECT * FROM epochdb_producer_begin('nosuch', 'p')`); sqlstate(err) != "42P01" {
		t.Fatalf("unknown table: %v", err)
	}
}

// After ingest_producer_ttl without a row, measured in commit timestamps, a
// producer is unknown again: a sequence beyond the first window is 55Q03,
// never silently inserted, and only a retry within it is admitted (the
// window bet). A producer that expires with rows pending says so.
func TestIngestExpiry(t *testing.T) {
	ctx := context.Background()
	var notices []string
	cfg, err := pgx.ParseConfig(serve(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+": "+n.Message) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE ev (producer text NOT NULL, seq bigint NOT NULL)
			WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_window = 8, ingest_producer_ttl = '0.2 seconds')`,
		`CREATE TABLE tick (n int)`,
		`INSERT INTO ev VALUES ('a', 1), ('a', 2), ('b', 1), ('b', 3)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Fresh state: a row a little beyond the window above H is a gap, not
	// an unknown producer.
	if _, err := conn.Exec(ctx, `INSERT INTO ev VALUES ('a', 12)`); sqlstate(err) != "55Q02" {
		t.Fatalf("before expiry: %v, want 55Q02", err)
	}
	time.Sleep(300 * time.Millisecond)
	// Time moves by commits: any commit after the TTL will do.
	if _, err := conn.Exec(ctx, `INSERT INTO tick VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO ev VALUES ('a', 12)`); sqlstate(err) != "55Q03" {
		t.Fatalf("after expiry, beyond the first window: %v, want 55Q03", err)
	}
	if tag, err := conn.Exec(ctx, `INSERT INTO ev VALUES ('a', 1)`); err != nil || tag.String() != "INSERT 0 1" {
		t.Fatalf("after expiry, a retry within the first window: %q, %v; want it admitted", tag, err)
	}
	notices = nil
	if _, err := conn.Exec(ctx, `INSERT INTO ev VALUES ('b', 2)`); err != nil {
		t.Fatal(err)
	}
	if len(notices) == 0 || !strings.HasPrefix(notices[0], "WARNING") || !strings.Contains(notices[0], "[3]") {
		t.Fatalf("expiry with pending rows: notices %q, want a WARNING naming 3", notices)
	}
	// The view keeps the abandoned state beside the new one until an
	// operator forgets it.
	views := func() []string {
		rows, err := conn.Query(ctx, `SELECT producer, high_water, pending::text FROM epochdb_ingest_producers WHERE producer = 'b'`)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			var p, pending string
			var h int64
			if err := rows.Scan(&p, &h, &pending); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s H=%d %s", p, h, pending))
		}
		return out
	}
	if got := strings.Join(views(), "; "); got != "b H=0 {2}; b H=1 {3}" {
		t.Fatalf("view after expiry: %q, want the new state and the abandoned one", got)
	}
	var forgot int64
	if err := conn.QueryRow(ctx, `SELECT epochdb_ingest_forget('ev', 'b')`).Scan(&forgot); err != nil || forgot != 1 {
		t.Fatalf("forget: %d, %v", forgot, err)
	}
	if got := strings.Join(views(), "; "); got != "b H=0 {2}" {
		t.Fatalf("view after forget: %q", got)
	}
}

// ON CONFLICT on an ingest table: the tag counts only rows inserted or
// updated, whether deduplication or the conflict clause skipped the rest.
func TestIngestWithOnConflict(t *testing.T) {
	conn, _ := ingestServer(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE TABLE ev (id int PRIMARY KEY, producer text NOT NULL, seq bigint NOT NULL, payload text)
		WITH (ingest_producer = 'producer', ingest_sequence = 'seq')`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		want int64
	}{
		{"INSERT INTO ev VALUES (1, 'p', 1, 'a')", 1},
		{"INSERT INTO ev VALUES (1, 'p', 2, 'b'), (2, 'p', 3, 'c') ON CONFLICT DO NOTHING", 1},
		{"INSERT INTO ev VALUES (1, 'p', 4, 'b'), (1, 'p', 5, 'c') ON CONFLICT (id) DO UPDATE SET payload = 'x' WHERE false", 0},
		{"INSERT INTO ev VALUES (1, 'p', 5, 'again'), (3, 'p', 6, 'd') ON CONFLICT (id) DO UPDATE SET payload = excluded.payload", 1},
	} {
		tag, err := conn.Exec(ctx, c.q)
		if err != nil || tag.RowsAffected() != c.want {
			t.Fatalf("%s: %s, %v; want %d rows", c.q, tag, err, c.want)
		}
	}
}
