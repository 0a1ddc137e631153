package txn

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/wal"
)

var (
	seeds = flag.Int("seeds", 200, "crash-recovery seeds to run")
	seed  = flag.Int64("seed", -1, "run only this crash-recovery seed")
)

// yieldingSync yields in every fsync, so that the crash lands between a
// commit's write and its fsync as often as anywhere else.
type yieldingSync struct{ vfs.FS }

type yieldingFile struct{ vfs.File }

func (y yieldingSync) Create(name string) (vfs.File, error) {
	f, err := y.FS.Create(name)
	return yieldingFile{f}, err
}

func (y yieldingSync) OpenReadWrite(name string) (vfs.File, error) {
	f, err := y.FS.OpenReadWrite(name)
	return yieldingFile{f}, err
}

func (f yieldingFile) Sync() error {
	runtime.Gosched()
	return f.File.Sync()
}

// crashTxn is what the workload knows about one transaction it ran.
type crashTxn struct {
	id       uint64
	marker   string
	private  int   // private keys p/<marker>/<i> it wrote
	shared   []int // shared keys s/<j> it wrote
	round    int
	called   bool // Commit was called: the commit record may exist
	acked    bool // Commit returned nil
	present  bool // decided at the crash that ended its round
	decided  bool
	commitTS uint64
}

// TestCrashRecovery runs concurrent transactions on a crashable FS, crashes
// it at a random point (dropping all unsynced data, or keeping a random
// share), recovers, and checks that recovery is exact: every acknowledged
// commit is fully present, no transaction is partly present, nothing without
// a durable commit record is visible, and each key holds the value of its
// last writer in commit order. Each seed runs several crash rounds on the
// same database.
func TestCrashRecovery(t *testing.T) {
	if *seed >= 0 {
		runCrashSeed(t, uint64(*seed))
		return
	}
	for s := range *seeds {
		t.Run(strconv.Itoa(s), func(t *testing.T) { runCrashSeed(t, uint64(s)) })
		if t.Failed() {
			return
		}
	}
}

func runCrashSeed(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	fs := vfs.NewMem()
	opts := Options{
		FS:              yieldingSync{fs},
		StreamThreshold: []int{64, 512, 1 << 20}[rng.IntN(3)],
		WAL: wal.Options{
			SegmentSize:   []int64{512, 4096, 1 << 16}[rng.IntN(3)],
			NoPreallocate: rng.IntN(2) == 0,
		},
	}
	var all []*crashTxn
	for round := range 3 {
		s, err := Open("/db", opts)
		if err != nil {
			t.Fatalf("seed %d round %d: open: %v", seed, round, err)
		}
		verifyCrashState(t, seed, round, s, all)
		if err := s.Begin(ReadCommitted).Rollback(); err != nil {
			t.Fatal(err)
		}

		var (
			mu      sync.Mutex // guards the txns and acks of this round
			ran     []*crashTxn
			commits atomic.Int64
			stop    atomic.Bool
			wg      sync.WaitGroup
		)
		crashAfter := int64(rng.IntN(40))
		workers := 2 + rng.IntN(4)
		for w := range workers {
			wrng := rand.New(rand.NewPCG(seed, uint64(round*100+w)))
			wg.Go(func() {
				for i := 0; !stop.Load(); i++ {
					ct := &crashTxn{marker: fmt.Sprintf("%d.%d.%d", round, w, i), round: round}
					mu.Lock()
					ran = append(ran, ct)
					mu.Unlock()
					runCrashTxn(s, wrng, ct, &mu)
					commits.Add(1)
				}
			})
		}
		for commits.Load() < crashAfter {
			runtime.Gosched()
		}
		// The crash: whatever was acknowledged before this instant must
		// survive it. Acks are recorded under mu after Commit returns.
		mu.Lock()
		crashed := fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: rng.IntN(2) == 0})
		frozen := make(map[*crashTxn]bool, len(ran))
		for _, ct := range ran {
			frozen[ct] = ct.acked
		}
		mu.Unlock()
		stop.Store(true)
		wg.Wait()
		_ = s.Close()
		for _, ct := range ran {
			ct.acked = frozen[ct]
		}
		all = append(all, ran...)
		fs = crashed
		opts.FS = yieldingSync{fs}
		decideFromLog(t, seed, fs, all)
	}
	s, err := Open("/db", opts)
	if err != nil {
		t.Fatalf("seed %d: final open: %v", seed, err)
	}
	verifyCrashState(t, seed, 3, s, all)
	_ = s.Close()
}

// runCrashTxn writes private keys and a shared key or two, and then commits
// or rolls back. Deadlock victims roll back.
func runCrashTxn(s *Store, rng *rand.Rand, ct *crashTxn, mu *sync.Mutex) {
	ctx := context.Background()
	tx := s.Begin(ReadCommitted)
	ct.id = tx.ID()
	val := []byte(ct.marker)
	ct.private = 1 + rng.IntN(6)
	ct.shared = rng.Perm(6)[:rng.IntN(3)]
	for i := range ct.private {
		if err := tx.Put(ctx, []byte(fmt.Sprintf("p/%s/%d", ct.marker, i)), val); err != nil {
			_ = tx.Rollback()
			return
		}
	}
	if rng.IntN(4) == 0 {
		// A write rolled back to a savepoint never counts, though its
		// entry may be in the log under a subtransaction id.
		sp, _ := tx.Savepoint()
		if err := tx.Put(ctx, []byte("r/"+ct.marker), val); err != nil {
			_ = tx.Rollback()
			return
		}
		if err := tx.RollbackTo(sp); err != nil {
			_ = tx.Rollback()
			return
		}
	}
	for _, j := range ct.shared {
		if err := tx.Put(ctx, []byte(fmt.Sprintf("s/%d", j)), val); err != nil {
			_ = tx.Rollback()
			return
		}
	}
	if rng.IntN(8) == 0 {
		_ = tx.Rollback()
		return
	}
	mu.Lock()
	ct.called = true
	mu.Unlock()
	if err := tx.Commit(); err == nil {
		mu.Lock()
		ct.acked = true
		mu.Unlock()
	}
}

// decideFromLog reads the crashed log's commit records — the independent
// oracle of what must exist — and checks it against what was acknowledged.
func decideFromLog(t *testing.T, seed uint64, fs vfs.FS, all []*crashTxn) {
	commitTS := make(map[uint64]uint64)
	_, err := wal.Scan(fs, WALDir(fs, "/db"), func(_ wal.Pos, rec *wal.Record) error {
		if rec.Kind == wal.KindCommit {
			commitTS[rec.Txn] = rec.CommitTS
		}
		return nil
	})
	if err != nil {
		t.Fatalf("seed %d: scanning the crashed log: %v", seed, err)
	}
	for _, ct := range all {
		ts, durable := commitTS[ct.id]
		if ct.decided {
			// An absent txn's id may be reused after recovery: only a
			// present one's commit record is known to be in the log.
			if ct.present && (!durable || ts != ct.commitTS) {
				t.Fatalf("seed %d: txn %s lost its commit record in a later crash", seed, ct.marker)
			}
			continue
		}
		if ct.acked && !durable {
			t.Fatalf("seed %d: txn %s (id %d) was acknowledged but its commit record is not durable", seed, ct.marker, ct.id)
		}
		if durable && !ct.called {
			t.Fatalf("seed %d: txn %s never called Commit but has a commit record", seed, ct.marker)
		}
		ct.present, ct.decided, ct.commitTS = durable, true, ts
	}
}

// verifyCrashState checks the recovered store against the decided txns.
func verifyCrashState(t *testing.T, seed uint64, round int, s *Store, all []*crashTxn) {
	tx := s.Begin(RepeatableRead)
	defer tx.Rollback()
	got := make(map[string]string)
	if err := tx.Scan(nil, nil, func(k, v []byte) bool {
		got[string(k)] = string(v)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	lastWriter := make(map[int]*crashTxn)
	seen := 0
	for _, ct := range all {
		n := 0
		for i := range ct.private {
			if v, ok := got[fmt.Sprintf("p/%s/%d", ct.marker, i)]; ok {
				if v != ct.marker {
					t.Fatalf("seed %d round %d: key of txn %s holds %q", seed, round, ct.marker, v)
				}
				n++
			}
		}
		switch {
		case ct.present && n != ct.private:
			t.Fatalf("seed %d round %d: txn %s (acked %v) has a durable commit record but only %d of %d keys",
				seed, round, ct.marker, ct.acked, n, ct.private)
		case !ct.present && n != 0:
			t.Fatalf("seed %d round %d: txn %s has no durable commit record but %d of its keys are visible",
				seed, round, ct.marker, n)
		}
		seen += n
		if !ct.present {
			continue
		}
		for _, j := range ct.shared {
			if w := lastWriter[j]; w == nil || w.commitTS < ct.commitTS {
				lastWriter[j] = ct
			}
		}
	}
	for j := range 6 {
		key := fmt.Sprintf("s/%d", j)
		want := ""
		if w := lastWriter[j]; w != nil {
			want = w.marker
		}
		if got[key] != want {
			t.Fatalf("seed %d round %d: %s = %q, want %q: the last writer in commit order", seed, round, key, got[key], want)
		}
		delete(got, key)
	}
	if len(got) != seen {
		var extra []string
		for k := range got {
			if strings.HasPrefix(k, "p/") {
				extra = append(extra, k)
			}
		}
		t.Fatalf("seed %d round %d: %d unexpected keys, e.g. %v", seed, round, len(got)-seen, extra[:min(3, len(extra))])
	}
}
