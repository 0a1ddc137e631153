package txn

import (
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/memtable"
	"github.com/epochdb/epochdb/reclaim"
	"github.com/epochdb/epochdb/sstable"
	"github.com/epochdb/epochdb/wal"
)

// Sentinel errors. SQL maps them to SQLSTATEs.
var (
	// ErrSerialization: a REPEATABLE READ transaction tried to write a row
	// that a concurrent transaction changed and committed (40001).
	ErrSerialization = errors.New("could not serialize access due to concurrent update")
	// ErrSerializationRW: a SERIALIZABLE transaction read what another
	// committed after its snapshot, and cannot commit (40001).
	ErrSerializationRW = errors.New("could not serialize access due to read/write dependencies among transactions")
	// ErrDeadlock: waiting for a lock would close a cycle of waits (40P01).
	ErrDeadlock = errors.New("deadlock detected")
	// ErrDone: the transaction has already committed or rolled back.
	ErrDone = errors.New("txn: transaction has already ended")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("txn: store closed")
	// ErrTooLarge: a key and value together exceed MaxEntry (54000).
	ErrTooLarge = errors.New("row is too big")
	// ErrWrittenByStatement: MutateOnce met a row that another part of
	// the statement in progress wrote. The caller leaves the row alone,
	// as PostgreSQL does a row its command already modified.
	ErrWrittenByStatement = errors.New("txn: row already written by this statement")
	// ErrWrittenByTrigger: MutateOnce met a row that a statement nested
	// in the one in progress (a trigger's) wrote after it began, which
	// PostgreSQL refuses to update or delete over (27000).
	ErrWrittenByTrigger = errors.New("txn: row already written by an operation the statement triggered")
	// ErrRowHeld: a write of a row whose new value the transaction is
	// computing in a Mutate callback, by code that callback ran (a
	// function that updates the row it is updating). Waiting for the
	// row's lock would wait for itself.
	ErrRowHeld = errors.New("txn: row is being written by this transaction's callback")
)

// MaxEntry bounds a key and value together, so that every entry fits one
// log record.
const MaxEntry = wal.MaxPayload - 1024

// Options configure a Store. The zero value is a durable store on the
// operating system's file system.
type Options struct {
	FS  vfs.FS
	WAL wal.Options
	// StreamThreshold is how many bytes of entries a transaction buffers
	// before it streams them to the log ahead of its commit. Default 1 MiB.
	StreamThreshold int
	Reclaim         reclaim.Options
	// Now is the clock that commit timestamps follow. Default time.Now.
	Now func() time.Time

	// MemtableSize is the size at which the mutable memtable is frozen
	// and flushed to an sstable. Default 64 MiB.
	MemtableSize int64
	// MaxLogSize starts a flush once the log written since the last
	// freeze passes it, however small the memtable (updates of a few hot
	// rows fill the log but not the memtable), so that the log a crash
	// replays stays bounded. Default 4 × MemtableSize.
	MaxLogSize int64
	// MaxFrozen is how many frozen memtables may await their flush before
	// writers stall, once the mutable one is full too. Default 1: one
	// memtable takes writes while the other flushes.
	MaxFrozen int
	// L0StopWrites stalls writers while L0 holds this many files, until
	// compaction catches up. Default 20.
	L0StopWrites int
	// CacheSize bounds the block cache that all sstables share. Default
	// 256 MiB.
	CacheSize int64
	// Table configures the sstables the store writes.
	Table sstable.WriterOptions
	// Compaction shapes the tree (see compact.go).
	Compaction CompactionOptions
	// CheckpointInterval flushes the memtable at least this often. Zero
	// lets the store choose it from MTBF (see checkpoint.go).
	CheckpointInterval time.Duration
	// MTBF is the operator's estimate of the mean time between failures,
	// from which the store computes the checkpoint interval.
	MTBF time.Duration
	// Logger receives recovery progress. Nil logs nothing.
	Logger *slog.Logger
}

func (o *Options) fillDefaults() {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.StreamThreshold <= 0 {
		o.StreamThreshold = 1 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MemtableSize <= 0 {
		o.MemtableSize = 64 << 20
	}
	if o.MaxLogSize <= 0 {
		o.MaxLogSize = 4 * o.MemtableSize
	}
	if o.MaxFrozen <= 0 {
		o.MaxFrozen = 1
	}
	if o.L0StopWrites <= 0 {
		o.L0StopWrites = 20
	}
	if o.CacheSize == 0 {
		o.CacheSize = 256 << 20
	}
	o.Compaction.FillDefaults()
}

// Store is a transactional key-value store over the log and the memtable.
type Store struct {
	fs     vfs.FS
	dir    string
	walDir string
	lock   io.Closer

	closeOnce sync.Once
	closeErr  error
	opts      Options
	log       *wal.Writer
	epochs    *reclaim.Manager

	// state is what readers read: the memtables and the files. It is
	// replaced, never changed in place.
	state atomic.Pointer[readState]
	// memMu orders writers against the swap of the mutable memtable:
	// writers hold it shared from locking a row to pushing on it, and a
	// swap holds it exclusively. Two writers of one key thus always lock
	// the same row.
	memMu sync.RWMutex
	// stateMu serializes replacements of state.
	stateMu sync.Mutex

	// The files: the manifest that publishes them, the cache their blocks
	// share, and the status table their unresolved versions resolve in.
	manifest *sstable.Manifest
	cache    *sstable.Cache
	statuses *statusTable
	// editMu serializes manifest edits and guards fileNum.
	editMu  sync.Mutex
	fileNum uint64
	// lastSeq is the newest sequence number given to a file's entry.
	lastSeq atomic.Uint64
	// replayFrom is the log writer's byte count at the last flushed cut,
	// and replayBase the bytes of older log that recovery replayed, until
	// the first flush covers them.
	replayFrom atomic.Uint64
	replayBase atomic.Int64
	// replayed is what the last open replayed of the log.
	replayed struct {
		bytes int64
		took  time.Duration
	}
	// flushMu serializes flushes; compactMu compactions.
	flushMu   sync.Mutex
	compactMu sync.Mutex
	compactor compactor

	// drops are the committed dropped ranges (DropRange).
	drops drops

	checkpoints *checkpointer
	// loggedInterval is the checkpoint interval last logged; the
	// maintenance goroutine owns it.
	loggedInterval time.Duration
	flushWanted    chan struct{}
	rotateWanted   chan struct{}
	// lastCut is the log writer's byte count at the last freeze.
	lastCut atomic.Uint64
	rotated chan struct{} // closed when rotateLoop ends
	// rotateMu serializes rotations.
	rotateMu   sync.Mutex
	stop       chan struct{}
	maintained chan struct{}
	bgFailure  atomic.Pointer[error]

	// Writers stalled for a flush wait on stallCh, which is closed and
	// replaced at each flush; stallMu guards it and the counters.
	stallMu    sync.Mutex
	stallCh    chan struct{}
	stallCount int64
	stallTime  time.Duration

	nextTxn atomic.Uint64
	// lastTS is the newest commit timestamp handed out. It is read and
	// written only inside the log's build hook, which the log serialises.
	lastTS uint64
	// visible is the newest published commit timestamp; snapshots read it.
	visible atomic.Uint64

	// lockMu guards the status table of in-progress transactions, the
	// waits-for graph (waits.go) and the advisory lock table (advisory.go).
	lockMu   sync.Mutex
	active   map[uint64]*Tx
	waits    map[uint64]waiting
	advisory map[AdvisoryKey]*advisoryLock

	// serialMu makes SERIALIZABLE transactions that write commit one at
	// a time, from the check of their reads to their publication.
	serialMu sync.Mutex

	// walBufs holds *[]byte entry buffers of ended transactions, so that
	// each transaction does not grow a new one from nothing.
	walBufs sync.Pool
}

// WALDir is where a store in dir keeps its write-ahead log.
func WALDir(fs vfs.FS, dir string) string { return fs.PathJoin(dir, "wal") }

// Open opens the store in dir, creating it if needed, and recovers it from
// its manifest and its log: afterwards it holds exactly the transactions
// whose commit records are durable.
func Open(dir string, opts Options) (*Store, error) {
	opts.fillDefaults()
	s := &Store{
		fs:           opts.FS,
		dir:          dir,
		opts:         opts,
		epochs:       reclaim.New(opts.Reclaim),
		active:       make(map[uint64]*Tx),
		waits:        make(map[uint64]waiting),
		advisory:     make(map[AdvisoryKey]*advisoryLock),
		statuses:     newStatusTable(),
		flushWanted:  make(chan struct{}, 1),
		rotateWanted: make(chan struct{}, 1),
		rotated:      make(chan struct{}),
		stop:         make(chan struct{}),
		maintained:   make(chan struct{}),
		stallCh:      make(chan struct{}),
	}
	if opts.CacheSize > 0 {
		s.cache = sstable.NewCache(opts.CacheSize)
	}
	s.state.Store(&readState{mem: memtable.New()})
	s.walDir = WALDir(s.fs, dir)
	if err := s.fs.MkdirAll(s.walDir, 0o755); err != nil {
		return nil, err
	}
	// Two processes appending to one log would corrupt it.
	lock, err := s.fs.Lock(s.fs.PathJoin(dir, "LOCK"))
	if err != nil {
		return nil, errors.Wrapf(err, "database %s is in use by another process", dir)
	}
	s.lock = lock
	next, err := s.open()
	if err == nil {
		s.log, err = wal.Create(s.fs, s.walDir, next, opts.WAL)
	}
	if err != nil {
		s.closeFiles()
		_ = lock.Close()
		return nil, err
	}
	s.checkpoints = newCheckpointer(opts.CheckpointInterval, opts.MTBF, func() uint64 { return s.log.Stats().Bytes })
	if s.replayed.bytes > 0 {
		s.checkpoints.replayed(s.replayed.bytes, s.replayed.took)
		s.replayBase.Store(s.replayed.bytes)
	}
	go s.maintain()
	go s.rotateLoop()
	s.startCompactor()
	return s, nil
}

// open reads the manifest, opens its files, and recovers from the log. It
// returns the number of the segment that new writes go to.
func (s *Store) open() (uint64, error) {
	// The new directories' entries must be durable before any commit in
	// them is acknowledged.
	for _, d := range []string{filepath.Dir(filepath.Clean(s.dir)), s.dir} {
		if err := s.fs.SyncDir(d); err != nil {
			return 0, err
		}
	}
	m, st, err := sstable.OpenManifest(s.fs, s.dir)
	if err != nil {
		return 0, errors.Wrapf(err, "opening the manifest of %s", s.dir)
	}
	s.manifest = m
	fs := &fileSet{statuses: s.statuses}
	for l, files := range st.Version.Levels {
		for _, meta := range files {
			t, err := s.openLive(meta)
			if err != nil {
				return 0, err
			}
			fs.levels[l] = append(fs.levels[l], t)
		}
	}
	rs := s.state.Load()
	rs.files = fs
	// What a crash left unreferenced: files of an unfinished flush or
	// compaction, an old manifest.
	names, err := s.fs.List(s.dir)
	if err != nil {
		return 0, err
	}
	for _, name := range m.Obsolete(names) {
		if err := s.fs.Remove(s.fs.PathJoin(s.dir, name)); err != nil {
			return 0, err
		}
	}
	s.fileNum = m.State().NextFileNum
	s.lastSeq.Store(st.LastSeq)
	return s.recover(st)
}

// openLive opens a file the manifest names: it must exist and be whole.
func (s *Store) openLive(meta *sstable.FileMeta) (*table, error) {
	name := s.fs.PathJoin(s.dir, sstable.FileName(meta.Num))
	f, err := s.fs.Open(name)
	if err != nil {
		return nil, errors.Wrapf(err, "the manifest names %s, which cannot be opened", name)
	}
	r, err := sstable.Open(f, name, meta.Num, s.cache)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if r.Size() != meta.Size {
		_ = r.Close()
		return nil, errors.Mark(errors.Newf("%s is %d bytes, but the manifest says %d", name, r.Size(), meta.Size), sstable.ErrCorrupt)
	}
	return &table{meta: meta, r: r}, nil
}

// recover replays the log from the manifest's start into the memtable and
// returns the number of the segment that new writes go to.
func (s *Store) recover(st *sstable.State) (uint64, error) {
	// Segments before the manifest's start are covered by its files; a
	// crash may have left them between the edit and their deletion.
	if _, err := wal.RemoveSegments(s.fs, s.walDir, st.LogNum); err != nil {
		return 0, err
	}
	segs, err := wal.Segments(s.fs, s.walDir)
	if err != nil {
		return 0, err
	}
	if st.LogNum > 1 && len(segs) > 0 && segs[0] > st.LogNum {
		return 0, &wal.CorruptionError{Segment: st.LogNum,
			Err: errors.Newf("the manifest needs the log from %s, which is missing", wal.SegmentName(st.LogNum))}
	}
	progress := s.newProgress(segs)
	s.lastTS = st.LastTS
	// Pass 1: which transactions have a durable commit record, and where
	// does the log end?
	commits := make(map[uint64]uint64)
	maxTxn := st.NextTxn - min(st.NextTxn, 1)
	res, err := wal.Scan(s.fs, s.walDir, func(pos wal.Pos, rec *wal.Record) error {
		progress.at(pos, 1)
		maxTxn = max(maxTxn, rec.Txn)
		switch rec.Kind {
		case wal.KindCommit:
			commits[rec.Txn] = rec.CommitTS
			for _, sub := range rec.Subtxns {
				commits[sub] = rec.CommitTS
				maxTxn = max(maxTxn, sub)
			}
			s.lastTS = max(s.lastTS, rec.CommitTS)
		case wal.KindCheckpoint:
			maxTxn = max(maxTxn, rec.NextTxn-1)
			s.lastTS = max(s.lastTS, rec.CommitTS)
		}
		return nil
	})
	if err != nil {
		return 0, errors.Wrap(err, "recovering the write-ahead log")
	}
	if err := wal.TruncateTorn(s.fs, s.walDir, res); err != nil {
		return 0, errors.Wrap(err, "truncating the torn tail of the write-ahead log")
	}
	s.resolveFiles(st, commits)

	// Pass 2: install the entries of committed transactions. Everything
	// else in the log is ignored, though it is there.
	statuses := make(map[uint64]*memtable.Status)
	_, err = wal.Scan(s.fs, s.walDir, func(pos wal.Pos, rec *wal.Record) error {
		progress.at(pos, 2)
		if rec.Kind != wal.KindEntry {
			return nil
		}
		ts, ok := commits[rec.Txn]
		if !ok {
			return nil
		}
		st := statuses[rec.Txn]
		if st == nil {
			st = memtable.NewStatus(rec.Txn)
			st.Commit(ts)
			statuses[rec.Txn] = st
		}
		progress.records++
		s.replay(rec, st, ts)
		return nil
	})
	if err != nil {
		return 0, errors.Wrap(err, "replaying the write-ahead log")
	}
	s.replayed.bytes, s.replayed.took = progress.done()
	if err := s.loadDrops(); err != nil {
		return 0, errors.Wrap(err, "reading the dropped ranges")
	}
	// No reader exists yet, so a row whose newest version is a tombstone
	// that hides nothing can go.
	var dead []*memtable.Row
	s.state.Load().mem.Ascend(nil, nil, func(r *memtable.Row) bool {
		if r.Head().Tombstone {
			dead = append(dead, r)
		}
		return true
	})
	for _, r := range dead {
		if r.Lock() {
			if s.hidesNothing(r) {
				r.Remove()
			}
			r.Unlock()
		}
	}

	s.visible.Store(s.lastTS)
	s.nextTxn.Store(max(maxTxn+1, st.NextTxn))
	next := max(st.LogNum, 1)
	if n := len(res.Segments); n > 0 {
		next = max(next, res.Segments[n-1]+1)
	}
	return next, nil
}

// resolveFiles fills the status table for the unresolved versions in the
// files: a writer committed if the manifest or the log says so, and never
// did otherwise.
func (s *Store) resolveFiles(st *sstable.State, logCommits map[uint64]uint64) {
	recorded := make(map[uint64]*memtable.Status)
	logged := make(map[uint64]*memtable.Status)
	for _, files := range st.Version.Levels {
		for _, f := range files {
			for _, id := range f.Unresolved {
				status := memtable.NewStatus(id)
				if ts, ok := st.Commits[id]; ok {
					status.Commit(ts)
					recorded[id] = status
					continue
				}
				if ts, ok := logCommits[id]; ok {
					status.Commit(ts)
				} else {
					status.Abort()
				}
				logged[id] = status
			}
			// One hold per file: release counts files.
			fileSts := make(map[uint64]*memtable.Status)
			for _, id := range f.Unresolved {
				if r := recorded[id]; r != nil {
					fileSts[id] = r
				} else {
					fileSts[id] = logged[id]
				}
			}
			s.statuses.holdFile(fileSts, func(id uint64) bool { return recorded[id] != nil })
		}
	}
}

// replay installs one committed entry, keeping only the newest committed
// version of each key: there are no readers during recovery.
func (s *Store) replay(rec *wal.Record, st *memtable.Status, ts uint64) {
	row := s.state.Load().mem.Lock(rec.Key)
	defer row.Unlock()
	if head := row.Head(); head != nil {
		if hts, _ := head.Status.CommitTS(); head.Status != st && hts > ts {
			return
		}
		row.Unlink(head)
	}
	row.Push(&memtable.Version{
		Status:    st,
		Value:     append([]byte(nil), rec.Value...),
		Tombstone: rec.Tombstone,
	})
}

// Close writes a checkpoint record and closes the log. Transactions still
// open are left uncommitted: recovery will ignore them.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Store) close() error {
	close(s.stop)
	<-s.maintained
	<-s.rotated
	<-s.compactor.done
	ckpt := s.log.Sync()
	if ckpt == nil {
		next := s.nextTxn.Load()
		ckpt = s.log.Append(wal.AppendCheckpoint(nil, next, s.visible.Load()))
	}
	if ckpt == nil {
		ckpt = s.log.Sync()
	}
	err := s.log.Close()
	s.closeFiles()
	if lerr := s.lock.Close(); err == nil {
		err = lerr
	}
	if err != nil {
		return err
	}
	if ckpt == nil {
		ckpt = s.bgErr()
	}
	return ckpt
}

// closeFiles closes the manifest and every open sstable.
func (s *Store) closeFiles() {
	if s.manifest != nil {
		_ = s.manifest.Close()
	}
	if rs := s.state.Load(); rs.files != nil {
		for _, files := range rs.files.levels {
			for _, t := range files {
				_ = t.r.Close()
			}
		}
	}
	s.compactor.closeRetired()
}

// Begin starts a transaction.
func (s *Store) Begin(iso Isolation) *Tx { return s.begin(iso, nil) }

// begin starts a transaction, of owner if not nil.
func (s *Store) begin(iso Isolation, owner *Owner) *Tx {
	tx := &Tx{
		s:     s,
		iso:   iso,
		id:    s.nextTxn.Add(1) - 1,
		owner: owner,
	}
	tx.status = memtable.NewStatus(tx.id)
	tx.cur = tx.status
	s.lockMu.Lock()
	s.active[tx.id] = tx
	if owner != nil {
		owner.cur = tx
	}
	s.lockMu.Unlock()
	tx.takeSnapshot()
	return tx
}

// release ends tx's hold on its locks: it leaves the status table, gives
// up its transaction-level advisory locks, and wakes its waiters. Its
// status must already be final.
func (s *Store) release(tx *Tx) {
	s.lockMu.Lock()
	delete(s.active, tx.id)
	s.releaseXact(tx, 0)
	if o := tx.owner; o != nil && o.cur == tx {
		o.cur = nil
	}
	if tx.done != nil {
		close(tx.done)
	}
	s.lockMu.Unlock()
}

// nextCommitTS returns the commit timestamp for the next commit: the clock
// in nanoseconds, but always above the last one. It runs in the log's build
// hook, so timestamps follow log order even if the clock steps back.
func (s *Store) nextCommitTS() uint64 {
	ts := max(uint64(s.opts.Now().UnixNano()), s.lastTS+1, 2)
	s.lastTS = ts
	return ts
}

// retire hands v to reclaim: it is obsolete as of now, and was visible to
// readers from epoch born on. Once freed it is unlinked from its row.
func (s *Store) retire(v *memtable.Version, born reclaim.Epoch) {
	s.epochs.RetireSpan(born, v.Size(), s.unlinker(v.Row(), v))
}

// unlinker returns the free callback that unlinks v (if not nil) from row.
// It holds both weakly: a retired version waits in reclaim for the readers
// that might see it, and a strong pointer would keep its whole memtable
// alive after a flush; once the memtable is flushed and out of every read
// state, nothing can reach the version, and the callback has nothing to do.
func (s *Store) unlinker(row *memtable.Row, v *memtable.Version) func() {
	wr := weak.Make(row)
	if v == nil {
		return func() {
			if r := wr.Value(); r != nil {
				s.unlink(r, nil)
			}
		}
	}
	wv := weak.Make(v)
	return func() {
		if r, v := wr.Value(), wv.Value(); r != nil && v != nil {
			s.unlink(r, v)
		}
	}
}

// unlink removes a freed version (if v is not nil) from row's chain, and
// drops the row once it holds nothing a reader could need: nothing, or a
// lone committed tombstone that hides nothing (see hidesNothing).
func (s *Store) unlink(row *memtable.Row, v *memtable.Version) {
	if !row.Lock() {
		return
	}
	defer row.Unlock()
	if v != nil {
		row.Unlink(v)
	}
	h := row.Head()
	if h == nil {
		row.Remove()
		return
	}
	if _, committed := h.Status.CommitTS(); committed && h.Tombstone && h.Next() == nil && s.hidesNothing(row) {
		row.Remove()
	}
}

// hidesNothing reports whether a tombstone at the head of row, in the
// mutable memtable, has no older version of its key to hide anywhere: no
// frozen memtable, and no file that may hold the key. Only then may the
// row go; otherwise the tombstone goes to a file with its memtable, and
// compaction drops it where nothing lies below. The caller holds the row
// lock. A file can gain the key only from a frozen memtable or another
// file, so the answer cannot change under the lock.
func (s *Store) hidesNothing(row *memtable.Row) bool {
	rs := s.state.Load()
	return row.Memtable() == rs.mem && len(rs.frozen) == 0 && (rs.files == nil || !rs.files.mayContain(row.Key()))
}

// Stats describe the store.
type Stats struct {
	WAL           wal.Stats
	Reclaim       reclaim.Stats
	MemtableBytes int64
	MemtableRows  int
	ActiveTxns    int
	VisibleTS     uint64

	FrozenMemtables int
	// Levels counts the live files and their bytes per level.
	Levels     [sstable.NumLevels]LevelStats
	Checkpoint CheckpointStats
	Compaction CompactionStats
	Cache      sstable.CacheStats
	// StatusEntries counts the transactions whose outcomes the status
	// table keeps for unresolved versions in files.
	StatusEntries int
}

// LevelStats describe one level of the tree.
type LevelStats struct {
	Files int
	Bytes int64
}

// Stats returns the store's statistics.
func (s *Store) Stats() Stats {
	s.lockMu.Lock()
	active := len(s.active)
	s.lockMu.Unlock()
	rs := s.state.Load()
	st := Stats{
		WAL:           s.log.Stats(),
		Reclaim:       s.epochs.Stats(),
		MemtableBytes: rs.mem.Size(),
		MemtableRows:  rs.mem.Len(),
		ActiveTxns:    active,
		VisibleTS:     s.visible.Load(),
	}
	for _, f := range rs.frozen {
		st.MemtableBytes += f.mem.Size()
		st.MemtableRows += f.mem.Len()
	}
	st.FrozenMemtables = len(rs.frozen)
	if rs.files != nil {
		for l, files := range rs.files.levels {
			st.Levels[l].Files = len(files)
			for _, t := range files {
				st.Levels[l].Bytes += t.meta.Size
			}
		}
	}
	st.Checkpoint = s.checkpointStats(rs)
	s.compactor.mu.Lock()
	st.Compaction = s.compactor.stats
	s.compactor.mu.Unlock()
	if s.cache != nil {
		st.Cache = s.cache.Stats()
	}
	st.StatusEntries = s.statuses.len()
	return st
}

// checkpointStats adds to the checkpointer's figures what the store knows:
// the log a crash would replay, and the stalls.
func (s *Store) checkpointStats(rs *readState) CheckpointStats {
	c := s.checkpoints.stats()
	// What a crash would replay: the log from the last flushed cut, and
	// before the first flush since open, what the open replayed.
	c.LogBytesToReplay = int64(s.log.Stats().Bytes-s.replayFrom.Load()) + s.replayBase.Load()
	if c.ReplaySpeed > 0 {
		c.ExpectedReplay = time.Duration(float64(c.LogBytesToReplay) / c.ReplaySpeed * float64(time.Second))
	}
	s.stallMu.Lock()
	c.StallCount, c.StallTime = s.stallCount, s.stallTime
	s.stallMu.Unlock()
	c.FrozenMemtables = len(rs.frozen)
	c.MemtableThreshold = s.opts.MemtableSize
	return c
}

// readState is one consistent view of where the data lives: the mutable
// memtable, the frozen memtables awaiting their flush (newest first), and
// the files. A reader loads it once per operation.
type readState struct {
	mem    *memtable.Memtable
	frozen []*frozenMem
	files  *fileSet
}

// frozenMem is a memtable that takes no more writes.
type frozenMem struct {
	mem *memtable.Memtable
	// cut is the log segment started when it was frozen: the log before
	// cut holds nothing that this memtable and the older sources lack.
	cut uint64
	// cutBytes is how many bytes the log writer had written at the cut.
	cutBytes uint64
}

// Reclaim exposes the epoch manager, for tools and tests that inspect or
// advance it.
func (s *Store) Reclaim() *reclaim.Manager { return s.epochs }
