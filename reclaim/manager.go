package reclaim

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Epoch is a value of the manager's global counter. Epoch 0 never occurs as a
// current epoch; as a birth epoch it means "visible to every older reader".
type Epoch uint64

// unsealed is Φ of a guard that has not been sealed yet: it may see anything.
const unsealed = ^Epoch(0)

const defaultAdvanceEvery = 64

// Options configures a Manager. The zero value is usable.
type Options struct {
	// AdvanceEvery makes Retire call Advance after this many retirements since
	// the last Advance, which bounds garbage without a background goroutine.
	// Zero means 64; a negative value disables it.
	AdvanceEvery int
	// Now is the clock for PinInfo.Since; nil means time.Now.
	Now func() time.Time
}

// Manager is the epoch-based reclamation manager. It is safe for concurrent
// use.
type Manager struct {
	advanceEvery int
	now          func() time.Time

	// epoch mirrors the current epoch for lock-free Current. It is written
	// only with mu held, so readers under mu see a stable value.
	epoch atomic.Uint64

	// mu guards everything below: one mutex for the whole state, because a pin
	// happens once per statement and the critical sections are short.
	mu sync.Mutex
	// head and tail are the live guards, ordered by pin epoch.
	head, tail *Guard
	// pending holds items not yet examined; each waits for the next Advance.
	pending      []item
	sinceAdvance int
	retiredCount int64
	retiredBytes int64
	peakBytes    int64
	freedCount   int64
	freedBytes   int64
	// The same for files (RetireFile), counted apart.
	retiredFiles, retiredFileBytes int64
	freedFiles, freedFileBytes     int64
}

// item is one retired thing with its lifetime [born, died].
type item struct {
	born, died Epoch
	bytes      int64
	free       func()
	file       bool
}

// New returns a Manager at epoch 1.
func New(opts Options) *Manager {
	m := &Manager{advanceEvery: opts.AdvanceEvery, now: opts.Now}
	if m.advanceEvery == 0 {
		m.advanceEvery = defaultAdvanceEvery
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.epoch.Store(1)
	return m
}

// Current returns the current epoch.
func (m *Manager) Current() Epoch {
	return Epoch(m.epoch.Load())
}

// Retire is RetireSpan(0, bytes, free): the item may be visible to every guard
// pinned at or before the current epoch.
func (m *Manager) Retire(bytes int64, free func()) {
	m.RetireSpan(0, bytes, free)
}

// RetireSpan hands over an item that was visible only from epoch born on and
// that no new reader can reach any more: the caller must have made its
// replacement visible before calling. free runs once, when no guard that could
// see the item remains (see the package documentation), possibly on this
// goroutine before RetireSpan returns. bytes is the size reported in Stats.
func (m *Manager) RetireSpan(born Epoch, bytes int64, free func()) {
	m.retire(item{born: born, bytes: bytes, free: free})
}

// RetireFile hands over a file that compaction replaced: a reader pinned at
// or before the current epoch may hold the old file set and be reading it,
// whatever its snapshot, so the file is freed (free deletes it) only once
// every such reader has unpinned. It is counted apart from versions in
// Stats.
func (m *Manager) RetireFile(bytes int64, free func()) {
	m.retire(item{bytes: bytes, free: free, file: true})
}

func (m *Manager) retire(it item) {
	born, bytes, free := it.born, it.bytes, it.free
	// Checked here because a nil callback would otherwise panic later on
	// whichever goroutine happened to free it, far from the bug.
	if free == nil {
		panic("reclaim: RetireSpan with a nil free callback")
	}
	if bytes < 0 {
		panic("reclaim: RetireSpan with negative bytes")
	}
	m.mu.Lock()
	died := m.Current()
	if born > died {
		m.mu.Unlock()
		panic("reclaim: RetireSpan with a birth epoch in the future")
	}
	it.died = died
	m.pending = append(m.pending, it)
	if it.file {
		m.retiredFiles++
		m.retiredFileBytes += bytes
	} else {
		m.retiredCount++
		m.retiredBytes += bytes
		m.peakBytes = max(m.peakBytes, m.retiredBytes)
	}
	m.sinceAdvance++
	var frees []func()
	if m.advanceEvery > 0 && m.sinceAdvance >= m.advanceEvery {
		frees = m.advanceLocked()
	}
	m.mu.Unlock()
	runFrees(frees)
}

// Advance moves the epoch forward by one and frees every pending item that no
// live guard overlaps. Items that a guard holds are parked on it and looked at
// again only when it unpins.
func (m *Manager) Advance() {
	m.mu.Lock()
	frees := m.advanceLocked()
	m.mu.Unlock()
	runFrees(frees)
}

// advanceLocked increments the epoch, which makes every pending item satisfy
// died < Current(), and places each of them. It returns the callbacks to run
// once mu is released.
func (m *Manager) advanceLocked() []func() {
	m.epoch.Add(1)
	m.sinceAdvance = 0
	var frees []func()
	for _, it := range m.pending {
		frees = m.placeLocked(m.head, it, frees)
	}
	// Drop the callbacks so that the reused array does not keep them alive.
	clear(m.pending)
	m.pending = m.pending[:0]
	return frees
}

// placeLocked parks it on the oldest live guard, starting at from, that
// overlaps it, or counts it as freed and appends its callback to frees.
func (m *Manager) placeLocked(from *Guard, it item, frees []func()) []func() {
	for g := from; g != nil && g.epoch <= it.died; g = g.next {
		if it.born <= g.phi {
			g.held = append(g.held, it)
			if it.file {
				g.heldFiles++
				g.heldFileBytes += it.bytes
			} else {
				g.heldBytes += it.bytes
			}
			return frees
		}
	}
	if it.file {
		m.retiredFiles--
		m.retiredFileBytes -= it.bytes
		m.freedFiles++
		m.freedFileBytes += it.bytes
	} else {
		m.retiredCount--
		m.retiredBytes -= it.bytes
		m.freedCount++
		m.freedBytes += it.bytes
	}
	return append(frees, it.free)
}

// runFrees runs callbacks without the mutex held, since they take other locks
// and may call back into the Manager.
func runFrees(frees []func()) {
	for _, free := range frees {
		free()
	}
}

// Stats is a snapshot of the manager's state.
type Stats struct {
	Epoch Epoch
	// OldestPinned is the epoch of the oldest live guard, or 0 if none.
	OldestPinned Epoch
	// Pins lists the live guards ordered by epoch.
	Pins []PinInfo
	// RetiredCount and RetiredBytes count items retired and not yet freed.
	RetiredCount, RetiredBytes int64
	// PeakRetiredBytes is the highest RetiredBytes has ever been.
	PeakRetiredBytes int64
	// FreedCount and FreedBytes count items handed to their free callback.
	FreedCount, FreedBytes int64
	// The same for files retired with RetireFile, which the counts above
	// leave out.
	RetiredFiles, RetiredFileBytes int64
	FreedFiles, FreedFileBytes     int64
}

// PinInfo describes one live guard: who holds it, since when, and what it
// alone is holding back.
type PinInfo struct {
	Owner string
	Txn   uint64 // the transaction of a guard from PinAt, or 0
	Epoch Epoch
	Since time.Time
	// HeldCount and HeldBytes count the versions parked on this guard, and
	// HeldFiles and HeldFileBytes the files. An item that several guards
	// could see is charged to the oldest of them.
	HeldCount, HeldBytes     int64
	HeldFiles, HeldFileBytes int64
}

// Stats returns a consistent snapshot of the manager's state.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Stats{
		Epoch:            m.Current(),
		RetiredCount:     m.retiredCount,
		RetiredBytes:     m.retiredBytes,
		PeakRetiredBytes: m.peakBytes,
		FreedCount:       m.freedCount,
		FreedBytes:       m.freedBytes,
		RetiredFiles:     m.retiredFiles,
		RetiredFileBytes: m.retiredFileBytes,
		FreedFiles:       m.freedFiles,
		FreedFileBytes:   m.freedFileBytes,
	}
	if m.head != nil {
		s.OldestPinned = m.head.epoch
	}
	for g := m.head; g != nil; g = g.next {
		owner := g.owner
		if g.txn != 0 {
			owner = "txn " + strconv.FormatUint(g.txn, 10)
		}
		s.Pins = append(s.Pins, PinInfo{
			Owner:         owner,
			Txn:           g.txn,
			Epoch:         g.epoch,
			Since:         g.since,
			HeldCount:     int64(len(g.held)) - g.heldFiles,
			HeldBytes:     g.heldBytes,
			HeldFiles:     g.heldFiles,
			HeldFileBytes: g.heldFileBytes,
		})
	}
	return s
}
