package wal

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
)

var (
	// ErrPoisoned marks every error of a writer whose write or fsync failed.
	// The writer never retries; see "Fail-stop" in the package doc.
	ErrPoisoned = errors.New("wal: writer failed; it accepts no further writes")
	// ErrClosed is returned by calls on a closed writer.
	ErrClosed = errors.New("wal: writer closed")
)

// Options tune a Writer. The zero value is usable.
type Options struct {
	// SegmentSize is the size at which the flusher starts a new segment.
	// Default 64 MiB.
	SegmentSize int64
	// NoSync skips fsync. Commits are published once written. It is for
	// in-memory stores and tests; it gives up durability explicitly.
	NoSync bool
	// NoPreallocate turns off zero-filled segments (see prepare). NoSync
	// implies it.
	NoPreallocate bool
	// MaxPending bounds the bytes that Append lets pile up ahead of the
	// flusher before it blocks. Default 8 MiB.
	MaxPending int
}

func (o *Options) fillDefaults() {
	if o.SegmentSize <= 0 {
		o.SegmentSize = 64 << 20
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 8 << 20
	}
	if o.NoSync {
		o.NoPreallocate = true
	}
}

// Stats count the writer's work since it was created.
type Stats struct {
	Commits uint64 // commits acknowledged durable
	Syncs   uint64 // fsyncs of segment files
	Writes  uint64 // batches written
	Bytes   uint64 // bytes written
	Segment uint64 // the segment being written
	// WriteTime and SyncTime are the time spent in the segment files'
	// writes and fsyncs; Stalls counts the Appends that waited for the
	// flusher because MaxPending bytes were already waiting.
	WriteTime, SyncTime time.Duration
	Stalls              uint64
}

// group is the set of commits that share one write and one fsync. Its
// committers wait on done; err is set before done is closed.
type group struct {
	done chan struct{}
	err  error
}

func newGroup() *group { return &group{done: make(chan struct{})} }

// Writer appends records to the log with group commit. It is safe for
// concurrent use.
type Writer struct {
	fs   vfs.FS
	dir  string
	opts Options

	// mu guards the fields down to closing; work and room use it.
	mu       sync.Mutex
	work     sync.Cond // the flusher waits here for something to do
	room     sync.Cond // blocked appenders wait here for the flusher to catch up
	pending  []byte    // a batch: reserved header, then records not yet taken by the flusher
	publish  []func()  // publish hooks of the commits in pending, in log order
	group    *group    // the group that pending's commits will be flushed in
	syncWant bool      // pending holds a commit (or a Sync request)
	// rotateWant asks the flusher to start a new segment once it has
	// written and published pending; rotated receives the new number.
	rotateWant bool
	rotated    []chan uint64
	err        error // set once, when the writer is poisoned or closed
	closing    bool
	closeErr   error // what the first Close returned

	// Owned by the flusher goroutine.
	file         vfs.File
	seg          atomic.Uint64
	segSize      int64
	preallocated bool // file is a prepared, zero-filled segment
	unsynced     bool
	synced       int64 // how far fsync has made the current segment durable
	spare        []byte
	sparePubs    []func()
	flusherEnd   chan struct{}
	closed       chan struct{} // closed when Close has finished

	// prepared hands zero-filled segments from prepare to the flusher.
	prepared chan preparedSegment
	// recycled holds segments the log no longer needs, renamed to be
	// prepared again (Recycle).
	recycled    chan preparedSegment
	stopPrepare chan struct{}
	prepareEnd  chan struct{}

	commits, syncs, writes, bytes, stalls atomic.Uint64
	writeNanos, syncNanos                 atomic.Int64
}

// A segment being prepared has a temporary name until the flusher renames
// it into the log. Until then it is not part of the log, and Create removes
// any that a crash left behind.
const (
	prepPrefix = "prepared-"
	prepSuffix = ".tmp"
)

type preparedSegment struct {
	file vfs.File
	name string
}

// Create starts a writer on a new, empty segment number seg in dir. The
// segment's directory entry is synced before Create returns, so a commit
// acknowledged in it can never vanish with its file.
func Create(fs vfs.FS, dir string, seg uint64, opts Options) (*Writer, error) {
	opts.fillDefaults()
	w := &Writer{
		fs: fs, dir: dir, opts: opts,
		group:       newGroup(),
		pending:     make([]byte, batchHeaderSize),
		spare:       make([]byte, batchHeaderSize),
		flusherEnd:  make(chan struct{}),
		closed:      make(chan struct{}),
		prepared:    make(chan preparedSegment),
		recycled:    make(chan preparedSegment, 2),
		stopPrepare: make(chan struct{}),
		prepareEnd:  make(chan struct{}),
	}
	w.work.L = &w.mu
	w.room.L = &w.mu
	if err := removePrepared(fs, dir); err != nil {
		return nil, err
	}
	f, err := fs.Create(fs.PathJoin(dir, SegmentName(seg)))
	if err != nil {
		return nil, err
	}
	if err := w.install(f, seg, false); err != nil {
		return nil, err
	}
	if opts.NoPreallocate {
		close(w.prepareEnd)
	} else {
		go w.prepare()
	}
	go w.flusher()
	return w, nil
}

// Commit appends the records that build adds to the buffer and waits until
// they are durable. build runs under the writer's lock, so the order in which
// builds run is the order in the log; txn assigns commit timestamps inside it.
// publish, if not nil, runs on the flusher goroutine once the records are
// durable, in log order, before Commit returns. If Commit returns an error,
// publish has not run and never will.
func (w *Writer) Commit(build func(buf []byte) []byte, publish func()) error {
	if err := w.commit(build, publish); err != nil {
		return err
	}
	w.commits.Add(1)
	return nil
}

// Sync makes everything appended so far durable.
func (w *Writer) Sync() error {
	return w.commit(func(b []byte) []byte { return b }, nil)
}

// Rotate makes everything appended so far durable, publishes it, and starts
// a new segment, whose number it returns. Every record appended before
// Rotate was called is in an older segment, and every commit in them has
// been published when it returns; every record appended after it returns is
// in the new segment or a later one. A memtable flush uses that segment as
// its cut: the log before it holds nothing the flushed memtable lacks.
func (w *Writer) Rotate() (uint64, error) {
	done := make(chan uint64, 1)
	w.mu.Lock()
	if err := w.errLocked(); err != nil {
		w.mu.Unlock()
		return 0, err
	}
	w.syncWant, w.rotateWant = true, true
	w.rotated = append(w.rotated, done)
	g := w.group
	w.work.Signal()
	w.mu.Unlock()
	<-g.done
	if g.err != nil {
		return 0, g.err
	}
	return <-done, nil
}

func (w *Writer) commit(build func(buf []byte) []byte, publish func()) error {
	w.mu.Lock()
	if err := w.errLocked(); err != nil {
		w.mu.Unlock()
		return err
	}
	w.pending = build(w.pending)
	w.publish = append(w.publish, publish)
	w.syncWant = true
	g := w.group
	w.work.Signal()
	w.mu.Unlock()
	<-g.done
	return g.err
}

func (w *Writer) errLocked() error {
	if w.err != nil {
		return w.err
	}
	if w.closing {
		return ErrClosed
	}
	return nil
}

// Append queues framed records without waiting for them to be written. A
// large transaction streams its entries this way before its commit record.
// Append blocks while the flusher is more than MaxPending bytes behind.
func (w *Writer) Append(records []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.errLocked() == nil && len(w.pending) >= w.opts.MaxPending {
		w.stalls.Add(1)
	}
	for w.errLocked() == nil && len(w.pending) >= w.opts.MaxPending {
		w.room.Wait()
	}
	if err := w.errLocked(); err != nil {
		return err
	}
	w.pending = append(w.pending, records...)
	w.work.Signal()
	return nil
}

// Err returns the error that poisoned or closed the writer, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errLocked()
}

// Close flushes and syncs what was appended, then closes the segment. It
// returns the poisoning error if the writer had failed.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		<-w.closed
		return w.closeErr
	}
	w.closing = true
	w.syncWant = true
	w.work.Signal()
	w.room.Broadcast()
	w.mu.Unlock()
	<-w.flusherEnd
	close(w.stopPrepare)
	<-w.prepareEnd
	for len(w.recycled) > 0 {
		// Left for Create's removePrepared, as a crash would leave them.
		_ = (<-w.recycled).file.Close()
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	defer close(w.closed)
	failed := w.err
	if failed == nil {
		w.err = ErrClosed
		if w.preallocated {
			failed = w.trimAndSync()
		}
	}
	if err := w.file.Close(); err != nil && failed == nil {
		failed = err
	}
	w.closeErr = failed
	return failed
}

// Stats returns the writer's counters.
func (w *Writer) Stats() Stats {
	return Stats{
		Commits: w.commits.Load(),
		Syncs:   w.syncs.Load(),
		Writes:  w.writes.Load(),
		Bytes:   w.bytes.Load(),
		Segment: w.seg.Load(),

		WriteTime: time.Duration(w.writeNanos.Load()),
		SyncTime:  time.Duration(w.syncNanos.Load()),
		Stalls:    w.stalls.Load(),
	}
}

// flusher is the one goroutine that writes the log. Each turn of the loop
// is one group commit: take everything pending, write it, sync it once,
// publish its commits in log order, wake its committers.
func (w *Writer) flusher() {
	defer close(w.flusherEnd)
	for {
		w.mu.Lock()
		for len(w.pending) == batchHeaderSize && !w.syncWant && !w.closing {
			w.work.Wait()
		}
		if w.closing && len(w.pending) == batchHeaderSize && !w.syncWant {
			w.mu.Unlock()
			return
		}
		buf, pubs, g, wantSync := w.pending, w.publish, w.group, w.syncWant
		rotated := w.rotated
		w.pending, w.publish, w.group, w.syncWant = w.spare, w.sparePubs, newGroup(), false
		w.rotateWant, w.rotated = false, nil
		w.room.Broadcast()
		w.mu.Unlock()

		if err := w.write(buf, wantSync); err != nil {
			w.poison(err, g)
			return
		}
		for _, p := range pubs {
			if p != nil {
				p()
			}
		}
		if len(rotated) > 0 {
			if err := w.rotate(); err != nil {
				w.poison(err, g)
				return
			}
			for _, c := range rotated {
				c <- w.seg.Load()
			}
		}
		close(g.done)

		clear(pubs)
		w.mu.Lock()
		w.spare, w.sparePubs = buf[:batchHeaderSize], pubs[:0]
		w.mu.Unlock()
	}
}

// poison fails the group whose write failed, the group gathering behind it,
// and every later call. Nothing is retried.
func (w *Writer) poison(cause error, failed *group) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.err = errors.Mark(errors.Wrap(cause, "wal: write failed"), ErrPoisoned)
	for _, g := range []*group{failed, w.group} {
		g.err = w.err
		close(g.done)
	}
	w.group = newGroup() // never closed: errLocked turns every later caller away
	w.room.Broadcast()
}

// write appends buf to the current segment, rotating first if the segment
// is full (or if a prepared segment can replace a growing one), and syncs
// if asked to.
func (w *Writer) write(buf []byte, sync bool) error {
	if len(buf) > batchHeaderSize {
		if w.segSize >= w.opts.SegmentSize || !w.preallocated {
			if err := w.maybeRotate(); err != nil {
				return err
			}
		}
		putBatchHeader(buf, w.seg.Load(), w.segSize, w.synced)
		start := time.Now()
		_, err := w.file.Write(buf)
		w.writeNanos.Add(int64(time.Since(start)))
		if err != nil {
			return err
		}
		w.segSize += int64(len(buf))
		w.unsynced = true
		w.writes.Add(1)
		w.bytes.Add(uint64(len(buf)))
	}
	if sync && w.unsynced {
		return w.syncFile()
	}
	return nil
}

func (w *Writer) syncFile() error {
	if w.opts.NoSync {
		w.unsynced = false
		return nil
	}
	return w.forceSync()
}

func (w *Writer) forceSync() error {
	start := time.Now()
	err := w.file.Sync()
	w.syncNanos.Add(int64(time.Since(start)))
	if err != nil {
		return err
	}
	w.unsynced, w.synced = false, w.segSize
	w.syncs.Add(1)
	return nil
}

// maybeRotate starts the next segment when the current one is full, or
// early, to trade a growing segment for a prepared one as soon as one is
// ready.
func (w *Writer) maybeRotate() error {
	full := w.segSize >= w.opts.SegmentSize
	select {
	case next := <-w.prepared:
		return w.switchTo(next)
	default:
		if !full {
			return nil
		}
	}
	return w.switchTo(preparedSegment{})
}

// rotate starts the next segment now, on a prepared one if one is ready.
func (w *Writer) rotate() error {
	var next preparedSegment
	select {
	case next = <-w.prepared:
	default:
	}
	return w.switchTo(next)
}

// switchTo closes the current segment and makes the next number current,
// on next's file if it has one, else on a new file.
func (w *Writer) switchTo(next preparedSegment) error {
	// The old segment is synced, and trimmed to its records, before the new
	// one exists: only the newest segment may ever have a torn tail.
	// Even under NoSync: an older segment with a torn tail would read as
	// corruption, not as lost recent commits.
	if w.preallocated {
		if err := w.trimAndSync(); err != nil {
			return err
		}
	} else if w.unsynced {
		if err := w.forceSync(); err != nil {
			return err
		}
	}
	if err := w.file.Close(); err != nil {
		return err
	}
	seg := w.seg.Load() + 1
	name := w.fs.PathJoin(w.dir, SegmentName(seg))
	if next.file != nil {
		if err := w.fs.Rename(next.name, name); err != nil {
			_ = next.file.Close()
			return err
		}
		return w.install(next.file, seg, true)
	}
	f, err := w.fs.Create(name)
	if err != nil {
		return err
	}
	return w.install(f, seg, false)
}

// install makes f the current segment once its directory entry is durable.
func (w *Writer) install(f vfs.File, seg uint64, preallocated bool) error {
	if err := w.fs.SyncDir(w.dir); err != nil {
		_ = f.Close()
		return err
	}
	w.file, w.segSize, w.unsynced, w.synced = f, 0, false, 0
	w.preallocated = preallocated && !w.opts.NoPreallocate
	w.seg.Store(seg)
	return nil
}

// trimAndSync cuts a prepared segment's unwritten zeroes and syncs it.
func (w *Writer) trimAndSync() error {
	if err := w.file.Truncate(w.segSize); err != nil {
		return err
	}
	return w.forceSync()
}

// prepare keeps one segment ready for the flusher whose blocks are already
// allocated, all SegmentSize bytes of them: at first a zero-filled one, and
// from then on the segments that flushes have made obsolete (Recycle),
// extended with zeroes to full size.
//
// fdatasync after an append must also write the file's new size (and its
// block allocation) to disk, one more synchronous write per commit group.
// Writing over blocks that already exist needs only the data. On this
// project's ext4 test disk, a small write's fdatasync costs about 120 µs
// appended and 80 µs overwritten; fallocate alone does not help, because its
// blocks are still "unwritten". A recycled segment was trimmed to its
// records at rotation, and a flush rotates the log, so it is about as long
// as one memtable's log; without the extension about half of every segment
// was written by appending (pgbench -N: 85% of one segment's bytes).
//
// Readers treat what follows the last record of the newest segment, zeroes
// or a recycled segment's old batches, as the log's end: the old batches'
// headers are salted with another segment's number and so never validate
// here. Rotation trims it.
func (w *Writer) prepare() {
	defer close(w.prepareEnd)
	zeros := make([]byte, 1<<20)
	name := w.fs.PathJoin(w.dir, prepPrefix+"0"+prepSuffix)
	f, err := w.zeroFill(name, zeros)
	if err != nil {
		// Not fatal: the flusher falls back to growing segments.
		_ = w.fs.Remove(name)
		return
	}
	next := preparedSegment{file: f, name: name}
	for {
		select {
		case w.prepared <- next:
		case <-w.stopPrepare:
			_ = next.file.Close()
			_ = w.fs.Remove(next.name)
			return
		}
		for {
			select {
			case next = <-w.recycled:
			case <-w.stopPrepare:
				return
			}
			err := w.extend(next.file, zeros)
			if err == nil {
				break
			}
			// Not fatal either: without this segment the flusher grows
			// one until a later recycled segment is ready.
			_ = next.file.Close()
			_ = w.fs.Remove(next.name)
			if errors.Is(err, ErrClosed) {
				return
			}
		}
	}
}

// zeroFill creates a segment of SegmentSize zeroes, synced, and returns it
// open at offset 0.
func (w *Writer) zeroFill(name string, zeros []byte) (vfs.File, error) {
	f, err := w.fs.Create(name)
	if err != nil {
		return nil, err
	}
	if err := w.extend(f, zeros); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// extend writes zeroes from the end of f up to SegmentSize and syncs them,
// leaving f's offset where it was. It syncs every few MiB, so that the
// commits' fsyncs never queue behind the whole segment's writes.
func (w *Writer) extend(f vfs.File, zeros []byte) error {
	const syncEvery = 4 << 20
	info, err := f.Stat()
	if err != nil {
		return err
	}
	off, unsynced := info.Size(), int64(0)
	for off < w.opts.SegmentSize {
		select {
		case <-w.stopPrepare:
			return ErrClosed
		default:
		}
		n, err := f.WriteAt(zeros[:min(int64(len(zeros)), w.opts.SegmentSize-off)], off)
		if err != nil {
			return err
		}
		off += int64(n)
		if unsynced += int64(n); unsynced >= syncEvery || off >= w.opts.SegmentSize {
			if err := f.Sync(); err != nil {
				return err
			}
			unsynced = 0
		}
	}
	return nil
}

// Recycle deletes the segments numbered below first, as RemoveSegments
// does, but keeps the newest of them, renamed, to be written over as a
// later segment: its blocks are allocated, so the fsyncs of the commits
// written into it do not have to allocate them.
func (w *Writer) Recycle(first uint64) error {
	names, err := w.fs.List(w.dir)
	if err != nil {
		return err
	}
	var old []uint64
	for _, name := range names {
		if n, ok := parseSegmentName(name); ok && n < first {
			old = append(old, n)
		}
	}
	if len(old) == 0 {
		return nil
	}
	if !w.opts.NoPreallocate && len(w.recycled) < cap(w.recycled) {
		n := old[len(old)-1]
		old = old[:len(old)-1]
		name := w.fs.PathJoin(w.dir, prepPrefix+"r"+strconv.FormatUint(n, 10)+prepSuffix)
		if err := w.fs.Rename(w.fs.PathJoin(w.dir, SegmentName(n)), name); err != nil {
			return err
		}
		f, err := w.fs.OpenReadWrite(name)
		if err != nil {
			return err
		}
		select {
		case w.recycled <- preparedSegment{file: f, name: name}:
		default:
			_ = f.Close()
			_ = w.fs.Remove(name)
		}
	}
	for _, n := range old {
		if err := w.fs.Remove(w.fs.PathJoin(w.dir, SegmentName(n))); err != nil {
			return err
		}
	}
	return w.fs.SyncDir(w.dir)
}

// removePrepared deletes prepared segments that a crash left behind.
func removePrepared(fs vfs.FS, dir string) error {
	names, err := fs.List(dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		if strings.HasPrefix(name, prepPrefix) && strings.HasSuffix(name, prepSuffix) {
			if err := fs.Remove(fs.PathJoin(dir, name)); err != nil {
				return err
			}
		}
	}
	return nil
}
