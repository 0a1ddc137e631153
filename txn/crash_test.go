package txn

import (
	"context"
	"flag"
	"fmt"
	"io"
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
	id      uint64
	tx      *Tx
	marker  string
	private int   // private keys p/<marker>/<i> it wrote
	shared  []int // shared keys s/<j> it wrote
	round   int
	called  bool // Commit was called: the commit record may exist
	acked   bool // Commit returned nil
	// published: its commit was visible before the crash, so its commit
	// record had been fsynced.
	published bool
	present   bool // decided at the crash that ended its round, or by what recovery shows
	decided   bool
	// mustBe says that the decision was forced (by the log, an ack, or a
	// publication); otherwise recovery's all-or-nothing answer decides.
	mustBe   bool
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
	// The seeds must reach the storage engine's background work, or they
	// test only the log.
	if *seeds >= 50 && (crashStats.flushes.Load() < int64(*seeds) || crashStats.compactions.Load() < int64(*seeds)/4) {
		t.Fatalf("%d seeds ran only %d flushes and %d compactions", *seeds, crashStats.flushes.Load(), crashStats.compactions.Load())
	}
	t.Logf("%d seeds: %d flushes, %d compactions before their crashes", *seeds, crashStats.flushes.Load(), crashStats.compactions.Load())
}

var crashStats struct{ flushes, compactions atomic.Int64 }

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
		// Small memtables and levels, so that flushes, compactions,
		// manifest edits and log deletions run all the time and the
		// crash lands inside them.
		MemtableSize: []int64{256, 2048, 16 << 10, 64 << 20}[rng.IntN(4)],
		Compaction: CompactionOptions{
			L0Trigger:      2 + rng.IntN(3),
			LevelBase:      []int64{4 << 10, 64 << 10}[rng.IntN(2)],
			Multiplier:     2 + rng.IntN(3),
			TargetFileSize: []int64{1 << 10, 8 << 10}[rng.IntN(2)],
		},
		CacheSize: []int64{-1, 1 << 20}[rng.IntN(2)],
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
			// The first worker's transactions are large: their
			// provisional versions reach files before they commit.
			large := w == 0 && rng.IntN(2) == 0
			wg.Go(func() {
				for i := 0; !stop.Load(); i++ {
					ct := &crashTxn{marker: fmt.Sprintf("%d.%d.%d", round, w, i), round: round}
					mu.Lock()
					ran = append(ran, ct)
					mu.Unlock()
					runCrashTxn(s, wrng, ct, &mu, large)
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
		// A commit visible now had its record fsynced before the crash.
		published := make(map[*crashTxn]bool, len(ran))
		for _, ct := range ran {
			if ct.tx != nil {
				_, published[ct] = ct.tx.status.CommitTS()
			}
		}
		crashed := fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: rng.IntN(2) == 0})
		frozen := make(map[*crashTxn]bool, len(ran))
		for _, ct := range ran {
			frozen[ct] = ct.acked
		}
		mu.Unlock()
		stop.Store(true)
		wg.Wait()
		st := s.Stats()
		crashStats.flushes.Add(st.Checkpoint.Flushes)
		crashStats.compactions.Add(st.Compaction.Compactions + st.Compaction.Moves)
		_ = s.Close()
		for _, ct := range ran {
			ct.acked, ct.published = frozen[ct], published[ct]
			if ct.tx != nil {
				ct.commitTS = ct.tx.commitTS
			}
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
func runCrashTxn(s *Store, rng *rand.Rand, ct *crashTxn, mu *sync.Mutex, large bool) {
	ctx := context.Background()
	tx := s.Begin(ReadCommitted)
	mu.Lock()
	ct.id, ct.tx = tx.ID(), tx
	mu.Unlock()
	val := []byte(ct.marker)
	ct.private = 1 + rng.IntN(6)
	if large {
		ct.private = 50 + rng.IntN(150)
	}
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

// decideFromLog decides what must exist after the crash, from what is
// independent of recovery: a commit record in the crashed log, an
// acknowledgement, or a commit published before the crash (whose record
// was fsynced first) means present; no call of Commit means absent. The
// log alone cannot decide every transaction, since flushes delete the
// segments that their files cover; the rest are decided by what recovery
// shows, which must be all of a transaction's keys or none.
func decideFromLog(t *testing.T, seed uint64, fs vfs.FS, all []*crashTxn) {
	// Every segment the crash left, each read up to its first bad batch:
	// deleted segments may have left holes below the log's start.
	commitTS := make(map[uint64]uint64)
	dir := WALDir(fs, "/db")
	names, err := fs.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		var seg uint64
		if _, err := fmt.Sscanf(name, "%d.wal", &seg); err != nil {
			continue
		}
		f, err := fs.Open(fs.PathJoin(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(f)
		_ = f.Close()
		for r := wal.NewReader(data, seg); ; {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if rec.Kind == wal.KindCommit {
				commitTS[rec.Txn] = rec.CommitTS
			}
		}
	}
	for _, ct := range all {
		if ct.decided {
			continue
		}
		ts, logged := commitTS[ct.id]
		if logged && !ct.called {
			t.Fatalf("seed %d: txn %s never called Commit but has a commit record", seed, ct.marker)
		}
		if logged && ts != ct.commitTS {
			t.Fatalf("seed %d: txn %s has commit ts %d in the log but was given %d", seed, ct.marker, ts, ct.commitTS)
		}
		switch {
		case logged || ct.acked || ct.published:
			ct.present, ct.decided, ct.mustBe = true, true, true
		case !ct.called:
			ct.present, ct.decided, ct.mustBe = false, true, true
		}
	}
}

// verifyCrashState checks the recovered store against the decided txns.
func verifyCrashState(t *testing.T, seed uint64, round int, s *Store, all []*crashTxn) {
	tx := s.Begin(RepeatableRead)
	defer tx.Rollback()
	got := scanAll(t, tx)
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
		if !ct.decided && ct.round < round {
			// Neither the log nor the workload decided it: recovery's
			// answer must be all or nothing, and from now on it stays.
			if n != 0 && n != ct.private {
				t.Fatalf("seed %d round %d: txn %s is partly present: %d of %d keys", seed, round, ct.marker, n, ct.private)
			}
			ct.present, ct.decided = n == ct.private, true
		}
		switch {
		case ct.present && n != ct.private:
			t.Fatalf("seed %d round %d: txn %s (acked %v, published %v) has a durable commit but only %d of %d keys",
				seed, round, ct.marker, ct.acked, ct.published, n, ct.private)
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
