package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// An ingest table survives kill -9 of a real server: producers send
// sequences with random duplication and reordering within the window from
// concurrent connections, the server is killed mid-stream, and after the
// restart every acknowledged (producer, seq) is present exactly once,
// nothing unsent is, and every retry is still a duplicate.
func TestIngestSurvivesKill9(t *testing.T) {
	bin := buildServer(t)
	dir := t.TempDir()
	ctx := context.Background()
	url := func(s *server) string { return fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", s.addr) }

	srv := startServer(t, bin, dir)
	admin, err := pgx.Connect(ctx, url(srv))
	if err != nil {
		t.Fatal(err)
	}
	const window = 16
	if _, err := admin.Exec(ctx, fmt.Sprintf(`CREATE TABLE events (producer text NOT NULL, producer_epoch bigint NOT NULL,
		seq bigint NOT NULL, payload text)
		WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_epoch = 'producer_epoch', ingest_window = %d)`, window)); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)

	var (
		mu      sync.Mutex
		acked   = map[string]bool{}
		sent    = map[string]bool{}
		batches atomic.Int64
		wg      sync.WaitGroup
	)
	for p := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 3))
			conn, err := pgx.Connect(ctx, url(srv))
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close(ctx)
			name := fmt.Sprintf("kill-%d", p)
			next, inflight := int64(1), []int64{}
			for {
				lowest := next
				for _, f := range inflight {
					lowest = min(lowest, f)
				}
				for next-lowest < window {
					inflight = append(inflight, next)
					next++
				}
				var batch []int64
				var values []string
				for range 1 + rng.IntN(8) {
					s := inflight[rng.IntN(len(inflight))]
					batch = append(batch, s)
					values = append(values, fmt.Sprintf("('%s', 1, %d, 'x')", name, s))
				}
				mu.Lock()
				for _, s := range batch {
					sent[fmt.Sprintf("%s/%d", name, s)] = true
				}
				mu.Unlock()
				if _, err := conn.Exec(ctx, "INSERT INTO events VALUES "+strings.Join(values, ", ")); err != nil {
					return // the server is gone
				}
				mu.Lock()
				for _, s := range batch {
					acked[fmt.Sprintf("%s/%d", name, s)] = true
				}
				mu.Unlock()
				batches.Add(1)
				for _, s := range batch {
					for i, f := range inflight {
						if f == s {
							inflight = append(inflight[:i], inflight[i+1:]...)
							break
						}
					}
				}
			}
		})
	}
	for deadline := time.Now().Add(20 * time.Second); batches.Load() < 300 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	<-srv.done

	srv = startServer(t, bin, dir)
	conn, err := pgx.Connect(ctx, url(srv))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT producer, seq FROM events")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for rows.Next() {
		var p string
		var s int64
		if err := rows.Scan(&p, &s); err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("%s/%d", p, s)
		if seen[k] || !sent[k] {
			t.Fatalf("%s after kill -9: duplicate %v, sent %v", k, seen[k], sent[k])
		}
		seen[k] = true
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for k := range acked {
		if !seen[k] {
			t.Fatalf("acknowledged %s lost by kill -9", k)
		}
	}
	if len(acked) < 100 {
		t.Fatalf("only %d rows acknowledged before the kill: the test did not exercise much", len(acked))
	}
	var retried int64
	for k := range seen {
		p, s, _ := strings.Cut(k, "/")
		tag, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO events VALUES ('%s', 1, %s, 'retry')", p, s))
		if err != nil {
			t.Fatal(err)
		}
		retried += tag.RowsAffected()
	}
	if retried != 0 {
		t.Fatalf("%d retries were inserted after recovery: the dedup state was lost", retried)
	}
	t.Logf("%d rows acknowledged, %d present after kill -9", len(acked), len(seen))
	srv.stop(t, syscall.SIGTERM)
}
