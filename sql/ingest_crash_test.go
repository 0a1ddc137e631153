package sql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

// run executes a query string in a session, as the simple protocol does,
// and returns the rows of its last statement.
func run(ctx context.Context, s *Session, query string) ([][]any, error) {
	ps, err := s.PrepareAll(ctx, query)
	if err != nil {
		_ = s.Sync()
		return nil, err
	}
	var rows [][]any
	for _, p := range ps {
		pt, err := s.Bind(ctx, p, nil)
		if err != nil {
			_ = s.Sync()
			return nil, err
		}
		rows = nil
		if _, _, err := s.Execute(ctx, pt, 0, func(r []any) error { rows = append(rows, r); return nil }); err != nil {
			_ = s.Sync()
			return nil, err
		}
	}
	return rows, s.Sync()
}

// openEngineOn opens the store at /db on fs, recovering what it holds,
// and an engine over it.
func openEngineOn(t *testing.T, fs vfs.FS) (*txn.Store, *Engine) {
	t.Helper()
	store, err := txn.Open("/db", txn.Options{FS: fs, WAL: wal.Options{NoPreallocate: true}})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	e, err := NewEngine(store, EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return store, e
}

// Producers send their sequences with random duplication and reordering
// within the window, from concurrent sessions, while the file system
// crashes at a random moment (losing all unsynced data, or keeping a random
// share). After recovery every acknowledged (producer, seq) is present
// exactly once, and nothing that was never sent is.
func TestIngestCrashRecovery(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { ingestCrashSeed(t, seed) })
	}
}

func ingestCrashSeed(t *testing.T, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 11))
	fs := vfs.NewMem()
	store, e := openEngineOn(t, fs)
	admin, _ := e.NewSession(SessionParams{})
	const window = 16
	if _, err := run(ctx, admin, fmt.Sprintf(`CREATE TABLE events (producer text NOT NULL, seq bigint NOT NULL, payload text)
		WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_window = %d)`, window)); err != nil {
		t.Fatal(err)
	}

	const producers = 4
	var (
		mu      sync.Mutex // guards acked and the crash instant
		acked   = make(map[string]bool)
		sent    = make(map[string]bool)
		stop    atomic.Bool
		batches atomic.Int64
		wg      sync.WaitGroup
	)
	for p := range producers {
		prng := rand.New(rand.NewPCG(seed, uint64(p)))
		wg.Go(func() {
			s, _ := e.NewSession(SessionParams{})
			defer s.Close()
			name := fmt.Sprintf("p%d", p)
			next, inflight := int64(1), []int64{}
			for !stop.Load() {
				// Keep at most window sequences in flight, as the producer
				// must, and send a few of them, some twice.
				lowest := next
				for _, f := range inflight {
					lowest = min(lowest, f)
				}
				for next-lowest < window && next <= 10_000 {
					inflight = append(inflight, next)
					next++
				}
				var batch []int64
				for range 1 + prng.IntN(5) {
					batch = append(batch, inflight[prng.IntN(len(inflight))])
				}
				var values []string
				for _, sq := range batch {
					values = append(values, fmt.Sprintf("('%s', %d, 'x')", name, sq))
				}
				mu.Lock()
				for _, sq := range batch {
					sent[fmt.Sprintf("%s/%d", name, sq)] = true
				}
				mu.Unlock()
				if _, err := run(ctx, s, "INSERT INTO events VALUES "+strings.Join(values, ", ")); err != nil {
					if stop.Load() {
						return
					}
					t.Errorf("%s: %v", name, err)
					return
				}
				mu.Lock()
				for _, sq := range batch {
					acked[fmt.Sprintf("%s/%d", name, sq)] = true
				}
				mu.Unlock()
				batches.Add(1)
				// Acknowledged sequences leave the window; the lowest go
				// first only sometimes, so the window really reorders.
				for _, sq := range batch {
					for i, f := range inflight {
						if f == sq {
							inflight = append(inflight[:i], inflight[i+1:]...)
							break
						}
					}
				}
			}
		})
	}
	for target := int64(10 + rng.IntN(200)); batches.Load() < target && !t.Failed(); {
		runtime.Gosched()
	}
	mu.Lock()
	crashed := fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: rng.IntN(2) == 0})
	mustHave := make(map[string]bool, len(acked))
	for k := range acked {
		mustHave[k] = true
	}
	mu.Unlock()
	stop.Store(true)
	wg.Wait()
	_ = store.Close()

	store2, e2 := openEngineOn(t, crashed)
	defer store2.Close()
	s2, _ := e2.NewSession(SessionParams{})
	rows, err := run(ctx, s2, "SELECT producer, seq FROM events")
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		k := fmt.Sprintf("%s/%d", r[0], r[1])
		if seen[k] {
			t.Fatalf("seed %d: %s is present twice", seed, k)
		}
		if !sent[k] {
			t.Fatalf("seed %d: %s was never sent", seed, k)
		}
		seen[k] = true
	}
	for k := range mustHave {
		if !seen[k] {
			t.Fatalf("seed %d: acknowledged %s is missing after the crash", seed, k)
		}
	}
	// The state survived with the rows: a retry of anything present is a
	// duplicate.
	for k := range seen {
		p, sq, _ := strings.Cut(k, "/")
		if _, err := run(ctx, s2, fmt.Sprintf("INSERT INTO events VALUES ('%s', %s, 'retry')", p, sq)); err != nil {
			t.Fatalf("seed %d: retry of %s: %v", seed, k, err)
		}
	}
	if rows, err := run(ctx, s2, "SELECT count(*) FROM events"); err != nil || rows[0][0].(int64) != int64(len(seen)) {
		t.Fatalf("seed %d: retries changed the count: %v, %v", seed, rows, err)
	}
}
