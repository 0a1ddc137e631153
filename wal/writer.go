package wal

import (
	"sync"
	"sync/atomic"

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
}

// Stats count the writer's work since it was created.
type Stats struct {
	Commits uint64 // commits acknowledged durable
	Syncs   uint64 // fsyncs of segment files
	Writes  uint64 // batches written
	Bytes   uint64 // bytes written
	Segment uint64 // the segment being written
}

// Writer appends records to the log with group commit. It is safe for
// concurrent use.
type Writer struct {
	fs   vfs.FS
	dir  string
	opts Options

	// mu guards the fields down to flushed; work and done use it.
	mu       sync.Mutex
	work     sync.Cond // the flusher waits here for something to do
	done     sync.Cond // committers and blocked appenders wait here for progress
	pending  []byte    // framed records not yet taken by the flusher
	publish  []func()  // publish hooks of the commits in pending, in log order
	syncWant bool      // pending holds a commit (or a Sync request)
	appended uint64    // bytes ever appended: the log position of pending's end
	flushed  uint64    // bytes written, synced if needed, and published
	err      error     // set once, when the writer is poisoned or closed
	closing  bool

	// Owned by the flusher goroutine.
	file       vfs.File
	seg        uint64
	segSize    int64
	unsynced   bool
	spare      []byte
	sparePubs  []func()
	flusherEnd chan struct{}

	commits, syncs, writes, bytes atomic.Uint64
}

// Create starts a writer on a new, empty segment number seg in dir. The
// segment's directory entry is synced before Create returns, so a commit
// acknowledged in it can never vanish with its file.
func Create(fs vfs.FS, dir string, seg uint64, opts Options) (*Writer, error) {
	opts.fillDefaults()
	w := &Writer{fs: fs, dir: dir, opts: opts, flusherEnd: make(chan struct{})}
	w.work.L = &w.mu
	w.done.L = &w.mu
	if err := w.openSegment(seg); err != nil {
		return nil, err
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

func (w *Writer) commit(build func(buf []byte) []byte, publish func()) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	before := len(w.pending)
	w.pending = build(w.pending)
	w.appended += uint64(len(w.pending) - before)
	w.publish = append(w.publish, publish)
	w.syncWant = true
	mine := w.appended
	w.work.Signal()
	for w.flushed < mine && w.err == nil {
		w.done.Wait()
	}
	if w.flushed >= mine {
		return nil
	}
	return w.err
}

// Append queues framed records without waiting for them to be written. A
// large transaction streams its entries this way before its commit record.
// Append blocks while the flusher is more than MaxPending bytes behind.
func (w *Writer) Append(records []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.err == nil && len(w.pending) >= w.opts.MaxPending {
		w.done.Wait()
	}
	if w.err != nil {
		return w.err
	}
	w.pending = append(w.pending, records...)
	w.appended += uint64(len(records))
	w.work.Signal()
	return nil
}

// Close flushes and syncs what was appended, then closes the segment. It
// returns the poisoning error if the writer had failed.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		<-w.flusherEnd
		return nil
	}
	w.closing = true
	w.syncWant = true
	w.work.Signal()
	w.mu.Unlock()
	<-w.flusherEnd

	w.mu.Lock()
	defer w.mu.Unlock()
	failed := w.err
	if failed == nil {
		w.err = ErrClosed
	}
	w.done.Broadcast()
	if err := w.file.Close(); err != nil && failed == nil {
		failed = err
	}
	return failed
}

// Stats returns the writer's counters.
func (w *Writer) Stats() Stats {
	return Stats{
		Commits: w.commits.Load(),
		Syncs:   w.syncs.Load(),
		Writes:  w.writes.Load(),
		Bytes:   w.bytes.Load(),
		Segment: atomic.LoadUint64(&w.seg),
	}
}

// flusher is the one goroutine that writes the log. Each turn of the loop
// is one group commit: take everything pending, write it, sync it once,
// publish its commits in order, wake their committers.
func (w *Writer) flusher() {
	defer close(w.flusherEnd)
	for {
		w.mu.Lock()
		for len(w.pending) == 0 && !w.syncWant && !w.closing {
			w.work.Wait()
		}
		if w.err != nil || (w.closing && len(w.pending) == 0 && !w.syncWant) {
			w.mu.Unlock()
			return
		}
		buf, pubs, end, wantSync := w.pending, w.publish, w.appended, w.syncWant
		w.pending, w.publish, w.syncWant = w.spare, w.sparePubs, false
		w.mu.Unlock()

		err := w.write(buf, wantSync)
		w.mu.Lock()
		if err != nil {
			w.err = errors.Mark(errors.Wrap(err, "wal: write failed"), ErrPoisoned)
			w.done.Broadcast()
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()

		for _, p := range pubs {
			if p != nil {
				p()
			}
		}
		clear(pubs)

		w.mu.Lock()
		w.flushed = end
		w.spare, w.sparePubs = buf[:0], pubs[:0]
		w.done.Broadcast()
		w.mu.Unlock()
	}
}

// write appends buf to the current segment, rotating first if the segment
// is full, and syncs if asked to.
func (w *Writer) write(buf []byte, sync bool) error {
	if w.segSize >= w.opts.SegmentSize && len(buf) > 0 {
		if err := w.rotate(); err != nil {
			return err
		}
	}
	if len(buf) > 0 {
		if _, err := w.file.Write(buf); err != nil {
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
	if err := w.file.Sync(); err != nil {
		return err
	}
	w.unsynced = false
	w.syncs.Add(1)
	return nil
}

// rotate finishes the current segment and starts the next. The old segment
// is synced in full first: only the newest segment may ever have a torn tail.
func (w *Writer) rotate() error {
	if w.unsynced {
		if err := w.syncFile(); err != nil {
			return err
		}
	}
	if err := w.file.Close(); err != nil {
		return err
	}
	return w.openSegment(w.seg + 1)
}

func (w *Writer) openSegment(seg uint64) error {
	f, err := w.fs.Create(w.fs.PathJoin(w.dir, SegmentName(seg)))
	if err != nil {
		return err
	}
	if !w.opts.NoSync {
		if err := w.fs.SyncDir(w.dir); err != nil {
			_ = f.Close()
			return err
		}
	}
	w.file, w.segSize, w.unsynced = f, 0, false
	atomic.StoreUint64(&w.seg, seg)
	return nil
}

// Err returns the error that poisoned or closed the writer, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
