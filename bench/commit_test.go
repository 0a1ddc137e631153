package bench

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/epochdb/epochdb/txn"
)

// BenchmarkSyncCommit compares durable single-key writes in epochdb and
// Pebble: each op writes a 16-byte key and a 100-byte value and returns once
// the write is synced to disk. The engines run back to back for each
// committer count, so a slow patch of the disk tends to hit both rather than
// one, and -count repeats the whole interleaved sequence.
func BenchmarkSyncCommit(b *testing.B) {
	engines := []struct {
		name string
		run  func(b *testing.B, committers int)
	}{
		{"epochdb", benchEpochDB},
		{"pebble", benchPebble},
	}
	for _, n := range []int{1, 16, 64} {
		for _, e := range engines {
			b.Run(fmt.Sprintf("engine=%s/committers=%d", e.name, n), func(b *testing.B) {
				e.run(b, n)
			})
		}
	}
}

func benchEpochDB(b *testing.B, committers int) {
	s, err := txn.Open(b.TempDir(), txn.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := s.Close(); err != nil {
			b.Error(err)
		}
	})
	ctx := context.Background()
	before := s.Stats().WAL
	drive(b, committers, func(key, value []byte) error {
		tx := s.Begin(txn.ReadCommitted)
		if err := tx.Put(ctx, key, value); err != nil {
			return err
		}
		return tx.Commit()
	})
	after := s.Stats().WAL
	b.ReportMetric(float64(after.Commits-before.Commits)/float64(after.Syncs-before.Syncs), "commits/fsync")
}

func benchPebble(b *testing.B, committers int) {
	db, err := pebble.Open(b.TempDir(), &pebble.Options{Logger: quietLogger{pebble.DefaultLogger}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := db.Close(); err != nil {
			b.Error(err)
		}
	})
	drive(b, committers, func(key, value []byte) error {
		return db.Set(key, value, pebble.Sync)
	})
}

// quietLogger drops Pebble's info messages ("Found 0 WALs"), which would
// otherwise land in the middle of the benchmark's result lines.
type quietLogger struct{ pebble.Logger }

func (quietLogger) Infof(string, ...any) {}

// drive runs b.N calls of commit from exactly n goroutines that share b.N,
// each with a key of its own, and reports commits/s. RunParallel is not used
// because it ties the number of goroutines to GOMAXPROCS, and group commit
// depends on how many committers wait, not on how many CPUs there are.
func drive(b *testing.B, n int, commit func(key, value []byte) error) {
	value := bytes.Repeat([]byte{'v'}, 100)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for c := range n {
		wg.Go(func() {
			key := make([]byte, 0, 16)
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				key = fmt.Appendf(key[:0], "%04d%012d", c, i)
				if err := commit(key, value); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}
