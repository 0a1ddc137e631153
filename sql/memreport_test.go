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
// For each statement it reports the live heap before it and after it,
// and the live heap inside it, by a collection a thousand rows in and
// halfway through, with the statement paused (a hook in the row loop of
// UPDATE and the table rewrite, the context's Err for a scan); then the
// highest heap, garbage included, sampled every 5ms, and the process's
// peak RSS during it (VmHWM, reset before each statement).
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
	exec := func(ctx context.Context, sql string) {
		if _, err := run(ctx, s, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(context.Background(), "CREATE TABLE pgbench_accounts (aid int NOT NULL, bid int, abalance int, filler char(84))")
	start := time.Now()
	exec(context.Background(), fmt.Sprintf("INSERT INTO pgbench_accounts SELECT g, (g - 1) / 100000 + 1, 0, '' FROM generate_series(1, %d) g", n))
	t.Logf("loaded %d rows in %v", n, time.Since(start).Round(time.Millisecond))
	for _, stmt := range []string{
		"SELECT count(*) FROM pgbench_accounts",
		"ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
		"SELECT count(*) FROM pgbench_accounts",
		"UPDATE pgbench_accounts SET abalance = abalance + 1",
		"SELECT sum(abalance) FROM pgbench_accounts",
	} {
		// The probes: at the thousandth row and halfway.
		var inside []int64
		calls := 0
		probe := func() {
			if calls++; calls == 1000 || calls == n/2 {
				inside = append(inside, heapAfterGC())
			}
		}
		modifyHook = probe
		ctx := &hookContext{Context: context.Background(), hook: probe}
		if strings.HasPrefix(stmt, "ALTER") || strings.HasPrefix(stmt, "UPDATE") {
			ctx.hook = nil // the row loop's hook counts the rows
		}
		before := heapAfterGC()
		resetPeakRSS()
		var peak uint64
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
				select {
				case <-done:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		start := time.Now()
		exec(ctx, stmt)
		took := time.Since(start)
		close(done)
		wg.Wait()
		modifyHook = nil
		after := heapAfterGC()
		mib := func(v int64) string { return fmt.Sprintf("%d MiB", v>>20) }
		var in []string
		for _, v := range inside {
			in = append(in, mib(v))
		}
		t.Logf("%-52s %8v  live heap before %s, inside %s, after %s; heap at most %s; peak RSS %s",
			stmt, took.Round(time.Millisecond), mib(before), strings.Join(in, " then "), mib(after), mib(int64(peak)), peakRSS())
	}
}

// hookContext calls hook each time a statement asks whether it is
// canceled, which a scan does for each row.
type hookContext struct {
	context.Context
	hook func()
}

func (c *hookContext) Err() error {
	if c.hook != nil {
		c.hook()
	}
	return c.Context.Err()
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
