package txn

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/memtable"
	"github.com/epochdb/epochdb/sstable"
	"github.com/epochdb/epochdb/wal"
)

// A flush, in order:
//
//  1. rotate: the log starts a new segment (wal.Writer.Rotate), and then
//     the mutable memtable is frozen and a new one takes writes. Every
//     version pushed into the frozen memtable after the cut has its entry
//     in the new segment or later; the log before the cut holds nothing
//     that the frozen memtable and the older sources lack.
//  2. The frozen memtable is written to a new sstable: for each key its
//     versions newest first, resolved where their writers have ended,
//     unresolved (naming the writer) where they have not, without aborted
//     versions and ended row locks. The file is fsynced, and so is its
//     directory entry.
//  3. Its unresolved writers are held in the status table, and one
//     manifest edit publishes the file, the log's new start (the cut), the
//     counters, and the commits of transactions with unresolved versions
//     that the manifest does not record yet.
//  4. The read state swaps the frozen memtable for the file: one pointer
//     store, so a reader sees one or the other, never both halves.
//  5. The log segments before the cut are deleted, but for one that the
//     log writes over again as a later segment (wal.Writer.Recycle).
//
// A crash before step 3 leaves an unreferenced file, which the next open
// deletes; after it, the log replays from the cut.

// requestRotate asks for the mutable memtable to be frozen if it is full.
// It never blocks.
func (s *Store) requestRotate() {
	select {
	case s.rotateWanted <- struct{}{}:
	default:
	}
}

// requestFlush asks the maintenance goroutine to flush the frozen
// memtables. It never blocks.
func (s *Store) requestFlush() {
	select {
	case s.flushWanted <- struct{}{}:
	default:
	}
}

// rotateLoop freezes the mutable memtable as soon as it is full, while
// fewer than MaxFrozen await their flush, so that a long flush does not
// let the mutable memtable grow past its size; writers stall instead
// (maybeStall) once MaxFrozen are waiting.
func (s *Store) rotateLoop() {
	defer close(s.rotated)
	for {
		select {
		case <-s.stop:
			return
		case <-s.rotateWanted:
		}
		if !s.memtableFull() || len(s.state.Load().frozen) >= s.opts.MaxFrozen {
			continue
		}
		if err := s.rotate(); err != nil {
			s.fail(err)
			return
		}
		s.requestFlush()
	}
}

// maintain is the goroutine that flushes and compacts.
func (s *Store) maintain() {
	defer close(s.maintained)
	interval := s.checkpoints.interval()
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		timed := false
		select {
		case <-s.stop:
			return
		case <-s.flushWanted:
		case <-timer.C:
			timed = true
		}
		if err := s.checkpoint(timed); err != nil {
			s.fail(err)
			return
		}
		interval = s.checkpoints.interval()
		s.logInterval(interval)
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(interval)
	}
}

// logInterval logs the checkpoint interval in force, with what it was
// chosen from, whenever it moves by more than a fifth.
func (s *Store) logInterval(in time.Duration) {
	if s.opts.Logger == nil {
		return
	}
	last := s.loggedInterval
	if last != 0 && in > last*4/5 && in < last*6/5 {
		return
	}
	s.loggedInterval = in
	c := s.checkpoints.stats()
	s.opts.Logger.Info("epochdb: checkpoint interval", "in_force", in.Round(time.Millisecond),
		"recommended", c.Recommended.Round(time.Millisecond), "configured", c.Configured, "mtbf", c.MTBF,
		"flush_cost", c.LastFlushCost.Round(time.Microsecond), "log_write_rate", int64(c.WriteRate),
		"replay_speed", int64(c.ReplaySpeed), "replay_measured", c.ReplayMeasured)
}

// checkpoint freezes the mutable memtable if it is due, on size or on the
// checkpoint interval (timed), and flushes every frozen memtable.
func (s *Store) checkpoint(timed bool) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if timed && s.state.Load().mem.Len() > 0 {
		if err := s.rotate(); err != nil {
			return err
		}
	}
	return s.flushFrozen()
}

// flushFrozen flushes the frozen memtables, oldest first. The caller holds
// flushMu.
func (s *Store) flushFrozen() error {
	for {
		rs := s.state.Load()
		if len(rs.frozen) == 0 {
			return nil
		}
		if err := s.flush(rs.frozen[len(rs.frozen)-1]); err != nil {
			return err
		}
		s.requestCompaction()
		// The mutable memtable may have filled while this one flushed.
		s.requestRotate()
	}
}

// memtableFull reports whether the mutable memtable is due to be frozen:
// by its size, or by the log written since the last freeze.
func (s *Store) memtableFull() bool {
	mem := s.state.Load().mem
	// The log alone is reason enough, even with the memtable empty: a
	// large transaction's entries can follow the cut of the memtable that
	// holds its versions, and freezing an empty memtable moves the log's
	// start past them.
	return mem.Size() >= s.opts.MemtableSize || int64(s.log.Stats().Bytes-s.lastCut.Load()) >= s.opts.MaxLogSize
}

// rotate is step 1 of a flush.
func (s *Store) rotate() error {
	s.rotateMu.Lock()
	defer s.rotateMu.Unlock()
	cut, err := s.log.Rotate()
	if err != nil {
		return err
	}
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	s.memMu.Lock()
	rs := s.state.Load()
	n := *rs
	n.mem = memtable.New()
	cutBytes := s.log.Stats().Bytes
	s.lastCut.Store(cutBytes)
	n.frozen = append([]*frozenMem{{mem: rs.mem, cut: cut, cutBytes: cutBytes}}, rs.frozen...)
	s.state.Store(&n)
	s.memMu.Unlock()
	return nil
}

// flush is steps 2 to 5 for the oldest frozen memtable f.
func (s *Store) flush(f *frozenMem) error {
	start := time.Now()
	s.editMu.Lock()
	defer s.editMu.Unlock()
	num := s.newFileNum()
	t, held, err := s.writeMemtable(f.mem, num)
	if err != nil {
		return errors.Wrapf(err, "flushing the memtable to %s", sstable.FileName(num))
	}
	edit := &sstable.Edit{LogNum: f.cut}
	if t != nil {
		edit.Added = []sstable.AddedFile{{Level: 0, Meta: t.meta}}
		s.statuses.hold(held)
	}
	if err := s.applyEdit(edit); err != nil {
		return err
	}
	s.stateMu.Lock()
	rs := s.state.Load()
	n := *rs
	// A new array, so that the flushed memtable is not kept alive past
	// the end of the slice.
	n.frozen = slices.Clone(rs.frozen[:len(rs.frozen)-1])
	if t != nil {
		n.files = s.withFiles(rs.files, []*table{t}, 0, nil)
	}
	s.state.Store(&n)
	s.stateMu.Unlock()
	f.mem.MarkFlushed()
	s.replayFrom.Store(f.cutBytes)
	s.replayBase.Store(0)
	s.wakeStalled()
	if err := s.log.Recycle(f.cut); err != nil {
		return errors.Wrap(err, "deleting flushed log segments")
	}
	var size int64
	if t != nil {
		size = t.meta.Size
	}
	s.checkpoints.flushed(time.Since(start), size)
	return nil
}

// newFileNum hands out the next file number. The manifest's counter moves
// past it with the edit that adds the file.
func (s *Store) newFileNum() uint64 {
	s.fileNum++
	return s.fileNum - 1
}

// applyEdit fills in the counters and pending commits, makes the edit
// durable, and marks the commits recorded. The caller holds editMu.
func (s *Store) applyEdit(e *sstable.Edit) error {
	commits, forgotten, done := s.statuses.pending()
	e.Commits, e.Forgotten = commits, forgotten
	e.NextFileNum = s.fileNum
	e.LastSeq = s.lastSeq.Load()
	e.NextTxn = s.nextTxn.Load()
	e.LastTS = s.visible.Load()
	for _, a := range e.Added {
		e.LastTS = max(e.LastTS, a.Meta.MaxTS)
	}
	if _, err := s.manifest.Apply(e); err != nil {
		return errors.Wrap(err, "writing the manifest")
	}
	done()
	return nil
}

// writeMemtable writes m's versions to sstable num and opens it. It
// returns a nil table if m held nothing worth a file, and the statuses of
// the writers of its unresolved versions.
func (s *Store) writeMemtable(m *memtable.Memtable, num uint64) (*table, map[uint64]*memtable.Status, error) {
	// The memtable's rows were all in memory; the file that takes them
	// over starts in the cache, so that reading them costs no miss.
	w, finish, err := s.newTableWriter(num, true)
	if err != nil {
		return nil, nil, err
	}
	held := make(map[uint64]*memtable.Status)
	var chain []*memtable.Version
	var shadowed int64
	it := m.NewIter(nil, nil)
	for row := it.Next(); row != nil; row = it.Next() {
		chain = chain[:0]
		for v := row.Head(); v != nil; v = v.Next() {
			if v.Status.Aborted() || (v.Lock != 0 && !v.Status.InProgress()) {
				continue
			}
			chain = append(chain, v)
		}
		seq := s.lastSeq.Add(uint64(len(chain)))
		committedAbove := false
		for _, v := range chain {
			e := sstable.Entry{Key: row.Key(), Seq: seq, Kind: sstable.KindValue, Value: v.Value}
			seq--
			switch {
			case v.Lock != 0:
				e.Kind, e.Flags, e.Value = sstable.KindLock, v.Lock, nil
			case v.Tombstone:
				e.Kind, e.Value = sstable.KindTombstone, nil
			}
			if v.NoKey {
				e.Flags |= flagNoKey
			}
			if ts, ok := v.Status.CommitTS(); ok {
				e.TS = ts
				if committedAbove {
					shadowed += int64(len(e.Key) + len(e.Value))
				}
				committedAbove = committedAbove || v.Lock == 0
			} else {
				e.Txn, e.Cmd = v.Status.ID, v.Cmd
				held[e.Txn] = v.Status
			}
			if err := w.Add(e); err != nil {
				finish(false)
				return nil, nil, err
			}
		}
	}
	t, err := finish(true)
	if t != nil {
		t.meta.Shadowed = shadowed
	}
	return t, held, err
}

// newTableWriter creates sstable num, whose blocks go into the block cache
// as they are written if warm is set. finish(true) completes, syncs and
// opens it (returning nil for a file that got no entry, which it removes);
// finish(false) abandons it.
func (s *Store) newTableWriter(num uint64, warm bool) (*sstable.Writer, func(keep bool) (*table, error), error) {
	name := s.fs.PathJoin(s.dir, sstable.FileName(num))
	f, err := s.fs.Create(name)
	if err != nil {
		return nil, nil, err
	}
	w := sstable.NewWriter(f, s.opts.Table)
	if warm {
		w.Warm(s.cache, num)
	}
	finish := func(keep bool) (t *table, err error) {
		defer func() {
			if t == nil && warm {
				s.cache.EvictFile(num) // what the abandoned file put there
			}
		}()
		if !keep {
			_ = f.Close()
			_ = s.fs.Remove(name)
			return nil, nil
		}
		props, err := w.Finish()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && props.NumEntries == 0 {
			return nil, s.fs.Remove(name)
		}
		if err != nil {
			return nil, err
		}
		// The file's directory entry must be durable before the manifest
		// can name it.
		if err := s.fs.SyncDir(s.dir); err != nil {
			return nil, err
		}
		return s.openTable(num, props)
	}
	return w, finish, nil
}

// openTable opens sstable num, whose properties are props.
func (s *Store) openTable(num uint64, props sstable.Properties) (*table, error) {
	name := s.fs.PathJoin(s.dir, sstable.FileName(num))
	f, err := s.fs.Open(name)
	if err != nil {
		return nil, err
	}
	r, err := sstable.Open(f, name, num, s.cache)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &table{meta: metaOf(num, r.Size(), &props), r: r}, nil
}

func metaOf(num uint64, size int64, p *sstable.Properties) *sstable.FileMeta {
	return &sstable.FileMeta{
		Num: num, Size: size,
		SmallestKey: p.SmallestKey, LargestKey: p.LargestKey,
		SmallestSeq: p.SmallestSeq, LargestSeq: p.LargestSeq,
		MinTS: p.MinTS, MaxTS: p.MaxTS, Entries: p.NumEntries, Tombstones: p.NumTombstones,
		Unresolved: p.UnresolvedTxns, RawBytes: int64(p.RawKeyBytes + p.RawValueBytes),
	}
}

// withFiles returns a copy of fs with added put at level and the files in
// removed (by number) taken out of every level.
func (s *Store) withFiles(fs *fileSet, added []*table, level int, removed map[uint64]bool) *fileSet {
	n := &fileSet{statuses: s.statuses}
	if fs != nil {
		n.levels = fs.levels
	}
	for l := range n.levels {
		var files []*table
		for _, t := range n.levels[l] {
			if !removed[t.meta.Num] {
				files = append(files, t)
			}
		}
		n.levels[l] = files
	}
	n.levels[level] = append(n.levels[level], added...)
	sortLevel(n.levels[:], level)
	return n
}

// sortLevel restores a level's order: L0 newest first, deeper levels by
// key.
func sortLevel(levels []([]*table), level int) {
	files := levels[level]
	if level == 0 {
		slices.SortFunc(files, func(a, b *table) int { return cmp.Compare(b.meta.LargestSeq, a.meta.LargestSeq) })
		return
	}
	slices.SortFunc(files, func(a, b *table) int { return bytes.Compare(a.meta.SmallestKey, b.meta.SmallestKey) })
}

// maybeStall blocks a writer while the memtables awaiting their flush, or
// the files in L0 awaiting compaction, pass their limits: writers are
// slowed, never failed, until the flush or compaction catches up. A writer
// also waits while the mutable memtable, or the log since it started, is
// twice its limit: its freeze is late. Memory then stays within about
// (MaxFrozen + 2) × MemtableSize, and the log a crash replays within
// (MaxFrozen + 2) × MaxLogSize.
func (s *Store) maybeStall(ctx context.Context) error {
	for {
		rs := s.state.Load()
		logged := int64(s.log.Stats().Bytes - s.lastCut.Load())
		late := rs.mem.Size() >= 2*s.opts.MemtableSize || logged >= 2*s.opts.MaxLogSize
		full := len(rs.frozen) >= s.opts.MaxFrozen && s.memtableFull()
		if !late && !full && (rs.files == nil || len(rs.files.levels[0]) < s.opts.L0StopWrites) {
			return nil
		}
		if err := s.bgErr(); err != nil {
			return err
		}
		s.stallMu.Lock()
		woken := s.stallCh
		s.stallMu.Unlock()
		s.requestRotate()
		s.requestFlush()
		start := time.Now()
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-woken:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		s.stallMu.Lock()
		s.stallCount++
		s.stallTime += time.Since(start)
		s.stallMu.Unlock()
		if err := ctx.Err(); err != nil {
			return errors.Wrap(err, "waiting for a flush to make room")
		}
	}
}

// wakeStalled lets stalled writers look again.
func (s *Store) wakeStalled() {
	s.stallMu.Lock()
	close(s.stallCh)
	s.stallCh = make(chan struct{})
	s.stallMu.Unlock()
}

// fail records a background failure: a flush or compaction could not
// write. Like a failed fsync of the log, it stops the store accepting
// writes; it never retries.
func (s *Store) fail(err error) {
	err = errors.Mark(errors.Wrap(err, "txn: background flush or compaction failed; the store accepts no further writes"), wal.ErrPoisoned)
	s.bgFailure.CompareAndSwap(nil, &err)
	s.wakeStalled()
}

// bgErr returns the background failure, if any.
func (s *Store) bgErr() error {
	if p := s.bgFailure.Load(); p != nil {
		return *p
	}
	return nil
}
