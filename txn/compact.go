package txn

import (
	"bytes"
	"slices"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/memtable"
	"github.com/epochdb/epochdb/reclaim"
	"github.com/epochdb/epochdb/sstable"
)

// CompactionOptions shape the tree; see sstable.CompactionOptions.
type CompactionOptions = sstable.CompactionOptions

// compactor is the compaction side of the store: the picker, the files
// compaction replaced and reclaim has not freed yet, and the counters.
type compactor struct {
	mu      sync.Mutex // guards everything below
	picker  *sstable.Picker
	retired []*retiredTable
	// deletable holds freed files for the compaction goroutine to delete:
	// free callbacks run on readers' goroutines, which must not do file
	// I/O on their way out.
	deletable []*retiredTable
	stats     CompactionStats
	wake      chan struct{}
	done      chan struct{}
}

// retiredTable is a file that a compaction replaced, waiting for the
// readers that may still use the old file set.
type retiredTable struct {
	t     *table
	level int
	epoch reclaim.Epoch // the epoch it was retired in
	freed bool
}

// CompactionStats count compaction's work.
type CompactionStats struct {
	Compactions, Moves          int64
	BytesRead, BytesWritten     int64
	EntriesDropped, Resolved    int64
	FilesDeleted, BytesDeleted  int64
	Last                        time.Duration
	LastReason                  string
	LastInputs, LastOutputFiles int
}

func (s *Store) startCompactor() {
	s.compactor.picker = sstable.NewPicker(s.opts.Compaction)
	s.compactor.wake = make(chan struct{}, 1)
	s.compactor.done = make(chan struct{})
	go s.compactLoop()
}

// requestCompaction wakes the compaction goroutine. It never blocks.
func (s *Store) requestCompaction() {
	select {
	case s.compactor.wake <- struct{}{}:
	default:
	}
}

// compactLoop runs compactions until the tree needs none, each time it is
// woken, and deletes the files reclaim has freed.
func (s *Store) compactLoop() {
	defer close(s.compactor.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			s.deleteFreed()
			return
		case <-s.compactor.wake:
		case <-tick.C:
			// Retirements advance the epoch only every AdvanceEvery; a
			// quiet store must still free what its last writes retired.
			s.epochs.Advance()
		}
		s.deleteFreed()
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			ran, err := s.compactOnce(false)
			if err != nil {
				s.fail(err)
				return
			}
			if !ran {
				break
			}
		}
	}
}

// Compact compacts the whole tree into one level, dropping every version
// no snapshot needs, and rewrites the files of that level that hold
// garbage or resolved provisional versions. It returns once done. VACUUM
// runs it.
func (s *Store) Compact() error {
	if err := s.Flush(); err != nil {
		return err
	}
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	for {
		c := s.compactor.picker.All(s.state.Load().files.version())
		if c == nil {
			break
		}
		if err := s.runCompaction(c); err != nil {
			return err
		}
	}
	// One pass over the files of the level that now holds everything, for
	// what moves down without a merge kept: versions under newer ones,
	// tombstones, provisional versions since resolved, dropped ranges.
	for l, files := range s.state.Load().files.levels {
		if l == 0 {
			continue // All left nothing there but what flushes added since
		}
		for _, t := range files {
			m := t.meta
			if m.Shadowed == 0 && m.Tombstones == 0 && !s.needsRewrite(m) {
				continue
			}
			c := &sstable.Compaction{Level: l, Output: l, Reason: "manual rewrite"}
			c.Inputs[0] = []*sstable.FileMeta{m}
			if err := s.runCompaction(c); err != nil {
				return err
			}
		}
	}
	s.Reclaim().Advance()
	s.deleteFreed()
	return nil
}

// CompactDue flushes the memtable and runs the compactions the tree is
// due, until it needs none: what the background would do next, done now.
func (s *Store) CompactDue() error {
	if err := s.Flush(); err != nil {
		return err
	}
	for {
		ran, err := s.compactOnce(false)
		if err != nil || !ran {
			s.deleteFreed()
			return err
		}
	}
}

// Flush freezes the mutable memtable and writes every frozen memtable to a
// file. It returns once they are published.
func (s *Store) Flush() error {
	if err := s.bgErr(); err != nil {
		return err
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if s.state.Load().mem.Len() > 0 {
		if err := s.rotate(); err != nil {
			return err
		}
	}
	return s.flushFrozen()
}

// compactOnce runs the compaction the tree needs most (or, with all, the
// next step of a full compaction), reporting whether there was one.
func (s *Store) compactOnce(all bool) (bool, error) {
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	v := s.state.Load().files.version()
	var c *sstable.Compaction
	if all {
		c = s.compactor.picker.All(v)
	} else {
		c = s.compactor.picker.Pick(v, s.needsRewrite)
	}
	if c == nil {
		return false, nil
	}
	return true, s.runCompaction(c)
}

// needsRewrite reports whether f is worth rewriting alone: it holds keys
// of a dropped range that was not yet in force when it was written, or its
// unresolved versions, whose writers have all ended, are worth resolving
// (resolveDue). The caller holds compactMu.
func (s *Store) needsRewrite(f *sstable.FileMeta) bool {
	t := s.state.Load().files.table(f.Num)
	if t == nil {
		return false
	}
	if len(f.Unresolved) > 0 && s.resolveDue(t) && s.stale(f) {
		return true
	}
	horizon := s.epochs.OldestTS(s.visible.Load())
	inForce := s.drops.count(horizon)
	if t.dropsApplied >= inForce {
		return false
	}
	// A file's key range says little: a flushed file spans every table
	// the memtable held, and so the gaps between them where the data of
	// dropped tables was. Ask the file itself, and remember a clean
	// answer, so that a flush is not taken for a reason to merge all of
	// L0 into L1, and then to rewrite L1, every time.
	held, err := holdsKeyIn(t, s.drops.effective(horizon, f.SmallestKey, f.LargestKey))
	if err != nil {
		return true // the rewrite reads the file again, and reports what failed
	}
	if !held {
		t.dropsApplied = inForce
	}
	return held
}

// holdsKeyIn reports whether t holds a key in one of ranges, which are in
// order of their starts.
func holdsKeyIn(t *table, ranges []droppedRange) (bool, error) {
	it := t.r.NewCompactionIter()
	defer it.Close()
	for _, r := range ranges {
		if !it.SeekGE(r.start) {
			break // nothing at or past this start, nor past the later ones
		}
		if r.end == nil || bytes.Compare(it.Entry().Key, r.end) < 0 {
			return true, nil
		}
	}
	return false, it.Err()
}

// Resolving a file's versions in place rewrites the whole file, and an L0
// file takes all of L0 and the L1 files it overlaps with it. That is worth
// it when many of its versions are unresolved (every read of one looks its
// writer up), or when the status table has grown past statusBound. A flush
// that catches a few transactions in flight leaves a small share, which
// the next compaction that the tree's shape calls for resolves anyway;
// rewriting for it at once made every flush of a busy store rewrite L1.
const (
	resolveShare = 16 // due when at least 1/resolveShare of the entries are unresolved
	statusBound  = 4096
)

func (s *Store) resolveDue(t *table) bool {
	p := t.r.Properties()
	return p.NumUnresolved*resolveShare >= p.NumEntries || s.statuses.len() > statusBound
}

// stale reports whether every writer of f's unresolved versions has
// ended, so that rewriting f would resolve them all.
func (s *Store) stale(f *sstable.FileMeta) bool {
	for _, id := range f.Unresolved {
		if s.statuses.lookup(id).InProgress() {
			return false
		}
	}
	return true
}

// runCompaction merges c's inputs into new files at c.Output, publishes
// them in one manifest edit, and retires the inputs to reclaim.
func (s *Store) runCompaction(c *sstable.Compaction) error {
	start := time.Now()
	rs := s.state.Load()
	inputs := rs.files.tables(c)
	if slices.Contains(inputs, nil) {
		return errCompactionInputs
	}
	if c.Move {
		return s.publishCompaction(c, inputs, nil, nil, start)
	}
	// What every snapshot still to come, and every pinned reader, may
	// need: visible is read before the reclaim manager is asked.
	horizon := s.epochs.OldestTS(s.visible.Load())
	lo, hi := inputRange(inputs)
	droppedRanges := s.drops.effective(horizon, lo, hi)
	dropsApplied := s.drops.count(horizon)
	var iters []sstable.InternalIterator
	var readBytes int64
	var cachedBytes float64
	for _, t := range inputs {
		iters = append(iters, t.r.NewCompactionIter())
		readBytes += t.meta.Size
		cachedBytes += t.r.CachedShare() * float64(t.meta.Size)
	}
	// Outputs replace their inputs in the cache when readers had most of
	// the inputs there: otherwise every compaction of a store that fits in
	// the cache would leave its readers a cold file to fault in block by
	// block. Inputs mostly out of the cache stay out, and so do outputs.
	warm := cachedBytes >= float64(readBytes)/2
	merged := sstable.NewMergingIter(iters...)
	defer merged.Close()

	var (
		outputs  []*table
		held     = make(map[uint64]*memtable.Status)
		w        *sstable.Writer
		finish   func(bool) (*table, error)
		versions []sstable.Entry
		key      []byte
		shadowed int64
		dropped  int64
		resolved int64
	)
	closeOutput := func() error {
		if w == nil {
			return nil
		}
		t, err := finish(true)
		w = nil
		if err != nil {
			return err
		}
		if t != nil {
			t.meta.Shadowed = shadowed
			t.dropsApplied = dropsApplied
			outputs = append(outputs, t)
		}
		shadowed = 0
		return nil
	}
	abandon := func() {
		if w != nil {
			finish(false)
		}
		for _, t := range outputs {
			_ = t.r.Close()
			_ = s.fs.Remove(s.fs.PathJoin(s.dir, sstable.FileName(t.meta.Num)))
		}
	}
	v := rs.files.version()
	emit := func() error {
		bottom := !v.Overlaps(c.Output, key)
		kept, sh, d, r := s.keepVersions(versions, horizon, droppedAt(droppedRanges, key), bottom, held)
		dropped += d
		resolved += r
		if len(kept) == 0 {
			return nil
		}
		if w != nil && w.EstimatedSize() >= s.compactor.picker.Options().TargetFileSize {
			if err := closeOutput(); err != nil {
				return err
			}
		}
		if w == nil {
			var err error
			s.editMu.Lock()
			num := s.newFileNum()
			s.editMu.Unlock()
			if w, finish, err = s.newTableWriter(num, warm); err != nil {
				return err
			}
		}
		shadowed += sh
		for i := range kept {
			if err := w.Add(kept[i]); err != nil {
				return err
			}
		}
		return nil
	}
	for ok := merged.First(); ok; ok = merged.Next() {
		e := merged.Entry()
		if key == nil || !bytes.Equal(e.Key, key) {
			if key != nil {
				if err := emit(); err != nil {
					abandon()
					return err
				}
			}
			key = append(key[:0], e.Key...)
			versions = versions[:0]
		}
		ce := *e
		ce.Key = key
		versions = append(versions, ce)
	}
	if err := merged.Err(); err != nil {
		abandon()
		return err
	}
	if key != nil {
		if err := emit(); err != nil {
			abandon()
			return err
		}
	}
	if err := closeOutput(); err != nil {
		abandon()
		return err
	}
	s.compactor.mu.Lock()
	s.compactor.stats.BytesRead += readBytes
	s.compactor.stats.EntriesDropped += dropped
	s.compactor.stats.Resolved += resolved
	s.compactor.mu.Unlock()
	return s.publishCompaction(c, inputs, outputs, held, start)
}

// keepVersions decides what a compaction keeps of one key's versions,
// newest first, and rewrites what it keeps:
//
//   - a version whose writer aborted goes, and so does a row lock whose
//     transaction ended;
//   - an unresolved version whose writer committed is rewritten resolved,
//     with the commit timestamp, so that its status entry can go;
//   - below the newest version committed at or before the horizon (the
//     oldest snapshot a reader holds or will take), every version goes: no
//     snapshot can see past it. That version goes too if it is a tombstone
//     and no deeper file holds the key (bottom);
//   - a version committed at or before dropTS, when the key is in a range
//     that DropRange gave up at dropTS (at or before the horizon), goes.
//
// Versions of writers in progress stay as they are, and their statuses are
// added to held. It returns the versions kept, the bytes of kept ones
// under a newer committed version, and the counts dropped and resolved.
func (s *Store) keepVersions(vs []sstable.Entry, horizon, dropTS uint64, bottom bool,
	held map[uint64]*memtable.Status) (kept []sstable.Entry, shadowed, dropped, resolved int64) {
	out := vs[:0]
	settled := false
	committedAbove := false
	for _, e := range vs {
		if settled {
			dropped++
			continue
		}
		if e.Txn != 0 {
			st := s.statuses.lookup(e.Txn)
			switch ts, committed := st.CommitTS(); {
			case st.Aborted():
				dropped++
				continue
			case committed && e.Kind == sstable.KindLock:
				dropped++
				continue
			case committed:
				e.TS, e.Txn, e.Cmd = ts, 0, 0
				resolved++
			default:
				held[e.Txn] = st
				out = append(out, e)
				continue
			}
		} else if e.Kind == sstable.KindLock {
			dropped++ // resolved locks mean nothing
			continue
		}
		if dropTS != 0 && e.TS <= dropTS {
			dropped++
			continue
		}
		if e.TS <= horizon {
			settled = true
			if e.Kind == sstable.KindTombstone && bottom {
				dropped++
				continue
			}
		}
		if committedAbove {
			shadowed += int64(len(e.Key) + len(e.Value))
		}
		committedAbove = true
		out = append(out, e)
	}
	return out, shadowed, dropped, resolved
}

// publishCompaction makes c's outputs replace its inputs: one manifest
// edit, one swap of the read state, and the inputs retired to reclaim.
func (s *Store) publishCompaction(c *sstable.Compaction, inputs, outputs []*table,
	held map[uint64]*memtable.Status, start time.Time) error {
	edit := &sstable.Edit{}
	for i, files := range c.Inputs {
		level := c.Level
		if i == 1 {
			level = c.Output
		}
		for _, f := range files {
			edit.Deleted = append(edit.Deleted, sstable.DeletedFile{Level: level, Num: f.Num})
		}
	}
	moved := outputs
	if c.Move {
		moved = inputs
	}
	for _, t := range moved {
		edit.Added = append(edit.Added, sstable.AddedFile{Level: c.Output, Meta: t.meta})
	}
	// Each output holds the statuses of its own unresolved writers: a
	// file's deletion releases one hold for each id it names.
	for _, t := range outputs {
		sts := make(map[uint64]*memtable.Status, len(t.meta.Unresolved))
		for _, id := range t.meta.Unresolved {
			if sts[id] = held[id]; sts[id] == nil {
				sts[id] = s.statuses.lookup(id)
			}
		}
		s.statuses.hold(sts)
	}
	s.editMu.Lock()
	err := s.applyEdit(edit)
	s.editMu.Unlock()
	if err != nil {
		return err
	}
	removed := make(map[uint64]bool)
	for _, t := range inputs {
		removed[t.meta.Num] = true
	}
	s.stateMu.Lock()
	rs := s.state.Load()
	n := *rs
	n.files = s.withFiles(rs.files, moved, c.Output, removed)
	s.state.Store(&n)
	s.stateMu.Unlock()
	s.wakeStalled()

	cs := &s.compactor
	cs.mu.Lock()
	if c.Move {
		cs.stats.Moves++
	} else {
		cs.stats.Compactions++
		for _, t := range outputs {
			cs.stats.BytesWritten += t.meta.Size
		}
		cs.stats.Last, cs.stats.LastReason = time.Since(start), c.Reason
		cs.stats.LastInputs, cs.stats.LastOutputFiles = len(inputs), len(outputs)
	}
	cs.mu.Unlock()
	if c.Move {
		return nil
	}
	for _, t := range inputs {
		s.retireTable(t, levelOf(c, t.meta.Num))
	}
	return nil
}

func levelOf(c *sstable.Compaction, num uint64) int {
	if slices.ContainsFunc(c.Inputs[0], func(f *sstable.FileMeta) bool { return f.Num == num }) {
		return c.Level
	}
	return c.Output
}

// retireTable hands a replaced file to reclaim. A reader pinned at or
// before now may be reading the old file set, so the file stays, readable
// and whole, until every such reader has unpinned; then it is closed and
// deleted, and its hold on the status table ends.
func (s *Store) retireTable(t *table, level int) {
	cs := &s.compactor
	rt := &retiredTable{t: t, level: level}
	cs.mu.Lock()
	rt.epoch = s.epochs.Current()
	cs.retired = append(cs.retired, rt)
	cs.mu.Unlock()
	s.epochs.RetireFile(t.meta.Size, func() {
		cs.mu.Lock()
		rt.freed = true
		cs.deletable = append(cs.deletable, rt)
		cs.mu.Unlock()
		s.requestCompaction()
	})
}

// deleteFreed closes and deletes the files reclaim has freed.
func (s *Store) deleteFreed() {
	cs := &s.compactor
	cs.mu.Lock()
	todo := cs.deletable
	cs.deletable = nil
	cs.retired = slices.DeleteFunc(cs.retired, func(rt *retiredTable) bool { return rt.freed })
	cs.mu.Unlock()
	for _, rt := range todo {
		_ = rt.t.r.Close()
		err := s.fs.Remove(s.fs.PathJoin(s.dir, sstable.FileName(rt.t.meta.Num)))
		s.statuses.release(rt.t.meta.Unresolved)
		if err == nil {
			cs.mu.Lock()
			cs.stats.FilesDeleted++
			cs.stats.BytesDeleted += rt.t.meta.Size
			cs.mu.Unlock()
		}
	}
}

// closeRetired closes the files still retired at Close. They are not
// deleted: the next open finds them unreferenced and deletes them.
func (cs *compactor) closeRetired() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, rt := range cs.retired {
		_ = rt.t.r.Close()
	}
	for _, rt := range cs.deletable {
		if !slices.Contains(cs.retired, rt) {
			_ = rt.t.r.Close()
		}
	}
	cs.retired, cs.deletable = nil, nil
}

// inputRange is the smallest and largest key of a compaction's inputs.
func inputRange(inputs []*table) (lo, hi []byte) {
	for _, t := range inputs {
		if lo == nil || bytes.Compare(t.meta.SmallestKey, lo) < 0 {
			lo = t.meta.SmallestKey
		}
		if hi == nil || bytes.Compare(t.meta.LargestKey, hi) > 0 {
			hi = t.meta.LargestKey
		}
	}
	return lo, hi
}

// version describes fs as the manifest would.
func (fs *fileSet) version() *sstable.Version {
	v := &sstable.Version{}
	if fs == nil {
		return v
	}
	for l, files := range fs.levels {
		for _, t := range files {
			v.Levels[l] = append(v.Levels[l], t.meta)
		}
	}
	return v
}

// table returns the file numbered num, or nil if fs does not hold it.
func (fs *fileSet) table(num uint64) *table {
	if fs == nil {
		return nil
	}
	for _, files := range fs.levels {
		for _, t := range files {
			if t.meta.Num == num {
				return t
			}
		}
	}
	return nil
}

// tables returns c's input files, L0's newest first and then by key: the
// order in which a merge must see them.
func (fs *fileSet) tables(c *sstable.Compaction) []*table {
	byNum := make(map[uint64]*table)
	for _, files := range fs.levels {
		for _, t := range files {
			byNum[t.meta.Num] = t
		}
	}
	var out []*table
	for _, files := range c.Inputs {
		for _, f := range files {
			out = append(out, byNum[f.Num])
		}
	}
	return out
}

var errCompactionInputs = errors.New("txn: compaction input is not in the read state")

// FileInfo describes one sstable, live or awaiting deletion.
type FileInfo struct {
	Meta  *sstable.FileMeta
	Level int
	// Retired says compaction replaced the file in epoch RetiredEpoch;
	// it is deleted once no reader pinned at or before that epoch
	// remains.
	Retired      bool
	RetiredEpoch reclaim.Epoch
}

// Files lists the live files, shallowest level first, then those awaiting
// deletion.
func (s *Store) Files() []FileInfo {
	var out []FileInfo
	if fs := s.state.Load().files; fs != nil {
		for l, files := range fs.levels {
			for _, t := range files {
				out = append(out, FileInfo{Meta: t.meta, Level: l})
			}
		}
	}
	cs := &s.compactor
	cs.mu.Lock()
	for _, rt := range cs.retired {
		out = append(out, FileInfo{Meta: rt.t.meta, Level: rt.level, Retired: true, RetiredEpoch: rt.epoch})
	}
	cs.mu.Unlock()
	return out
}
