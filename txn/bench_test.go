package txn_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/epochdb/epochdb/txn"
)

// BenchmarkCommit measures durable single-key commits on the real file
// system: each op is Begin, Put of a 16-byte key and a 100-byte value,
// Commit. Exactly N goroutines share b.N; RunParallel is not used because it
// ties the number of goroutines to GOMAXPROCS, and group commit depends on
// how many committers wait, not on how many CPUs there are.
func BenchmarkCommit(b *testing.B) {
	for _, n := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("committers=%d", n), func(b *testing.B) {
			s := openBenchStore(b)
			ctx := context.Background()
			value := bytes.Repeat([]byte{'v'}, 100)
			before := s.Stats().WAL

			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for c := range n {
				wg.Go(func() {
					key := make([]byte, 0, 16)
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						key = fmt.Appendf(key[:0], "%04d%012d", c, i)
						tx := s.Begin(txn.ReadCommitted)
						if err := tx.Put(ctx, key, value); err != nil {
							b.Error(err)
							return
						}
						if err := tx.Commit(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()

			after := s.Stats().WAL
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
			b.ReportMetric(float64(after.Commits-before.Commits)/float64(after.Syncs-before.Syncs), "commits/fsync")
		})
	}
}

// BenchmarkScan measures Tx.Scan over 200k keys in sstables, the storage
// half of every full table scan: the merge of sources, MVCC visibility and
// the callback, with nothing done per row. Its unit is rows/s.
func BenchmarkScan(b *testing.B) {
	for _, where := range []string{"memtable", "files"} {
		b.Run("in="+where, func(b *testing.B) {
			s := openBenchStore(b)
			const rows = 200_000
			ctx := context.Background()
			tx := s.Begin(txn.ReadCommitted)
			value := bytes.Repeat([]byte{'v'}, 8)
			for i := range rows {
				if err := tx.Put(ctx, fmt.Appendf(nil, "t%08d", i), value); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			if where == "files" {
				if err := s.Flush(); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				tx := s.Begin(txn.ReadCommitted)
				n := 0
				if err := tx.Scan([]byte("t"), []byte("u"), func(k, v []byte) bool { n++; return true }); err != nil {
					b.Fatal(err)
				}
				tx.Rollback()
				if n != rows {
					b.Fatalf("scanned %d rows, want %d", n, rows)
				}
			}
			b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// openBenchStore opens a store on the real file system, closed when b ends.
func openBenchStore(b *testing.B) *txn.Store {
	s, err := txn.Open(b.TempDir(), txn.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := s.Close(); err != nil {
			b.Error(err)
		}
	})
	return s
}
