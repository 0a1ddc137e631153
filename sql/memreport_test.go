package sql

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

// TestMemoryReport measures what the statements that must run within
// bounded memory take above what the table itself takes, on pgbench's
// accounts table of EPOCHDB_MEMREPORT_ROWS rows in the in-memory store
// (it skips without that variable):
//
//	EPOCHDB_MEMREPORT_ROWS=2000000 go test ./sql -run TestMemoryReport -v -timeout 30m
//
// For each statement it reports the live heap before it, the highest live
// heap sampled while it ran (a collection every 100ms), the live heap
// after it; the highest heap, garbage included, sampled every 5ms; and
// the process's peak RSS during it (VmHWM, reset before each statement).
func TestMemoryReport(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("EPOCHDB_MEMREPORT_ROWS"))
	if n <= 0 {
		t.Skip("set EPOCHDB_MEMREPORT_ROWS to measure")
	}
	store, err := txn.Open("/db", txn.Options{FS: vfs.NewMem(), WAL: wal.Options{NoSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := NewEngine(store, EngineOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewSession(SessionParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	exec := func(sql string) {
		if _, err := run(ctx, s, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("CREATE TABLE pgbench_accounts (aid int NOT NULL, bid int, abalance int, filler char(84))")
	start := time.Now()
	exec(fmt.Sprintf("INSERT INTO pgbench_accounts SELECT g, (g - 1) / 100000 + 1, 0, '' FROM generate_series(1, %d) g", n))
	t.Logf("loaded %d rows in %v", n, time.Since(start).Round(time.Millisecond))
	for _, stmt := range []string{
		"SELECT count(*) FROM pgbench_accounts",
		"ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
		"SELECT count(*) FROM pgbench_accounts",
		"UPDATE pgbench_accounts SET abalance = abalance + 1",
		"SELECT sum(abalance) FROM pgbench_accounts",
	} {
		before := heapAfterGC()
		resetPeakRSS()
		// Two samplers: the heap as it stands (garbage included, which
		// the collector lets grow to about the live heap again), every
		// 5ms; and the live heap, by a collection every 100ms.
		var peak, live uint64
		var wg sync.WaitGroup
		done := make(chan struct{})
		sample := func(every time.Duration, gc bool, into *uint64) {
			defer wg.Done()
			var ms runtime.MemStats
			for {
				if gc {
					runtime.GC()
				}
				runtime.ReadMemStats(&ms)
				*into = max(*into, ms.HeapAlloc)
				select {
				case <-done:
					return
				case <-time.After(every):
				}
			}
		}
		wg.Add(2)
		go sample(5*time.Millisecond, false, &peak)
		go sample(100*time.Millisecond, true, &live)
		start := time.Now()
		exec(stmt)
		took := time.Since(start)
		close(done)
		wg.Wait()
		after := heapAfterGC()
		t.Logf("%-52s %7v  live heap before %4d MiB, at most %4d MiB, after %4d MiB; heap at most %4d MiB; peak RSS %s",
			stmt, took.Round(time.Millisecond), before>>20, live>>20, after>>20, peak>>20, peakRSS())
	}
}

// resetPeakRSS resets the kernel's record of the process's peak RSS.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak RSS since the last reset, as Linux shows
// it.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
