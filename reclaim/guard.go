package reclaim

import (
	"errors"
	"time"
)

// ErrUnpinned is the panic value when a guard is used after Unpin: a second
// Unpin, or a Seal after Unpin. It means the caller lost track of the guard's
// lifetime, and so may also have read through a snapshot that reclaim no
// longer protects.
var ErrUnpinned = errors.New("reclaim: guard already unpinned")

// ErrSealed is the panic value when a guard is sealed twice. Φ must be the
// epoch of the one snapshot the guard protects; a later Seal would widen it
// after items born in between may already have been freed.
var ErrSealed = errors.New("reclaim: guard already sealed")

// Guard is one reader's pin. It keeps every item that the reader could see
// from being freed until Unpin.
type Guard struct {
	m     *Manager
	owner string
	txn   uint64 // the transaction that pinned, for PinAt's guards
	since time.Time
	epoch Epoch // P, fixed at Pin

	// The fields below are guarded by m.mu.
	phi Epoch // Φ: unsealed until Seal
	// ts is the MVCC timestamp the reader reads at (see PinAt): until
	// SealAt, a floor below the snapshot it will take.
	ts         uint64
	unpinned   bool
	prev, next *Guard
	held       []item // items parked here, charged to this guard in Stats
	heldBytes  int64  // of the versions among them
	// files among them
	heldFiles, heldFileBytes int64
}

// Pin registers a reader at the current epoch. owner names it in Stats, so
// that a long reader holding garbage back can be found. The caller takes its
// snapshot after Pin and then calls Seal.
func (m *Manager) Pin(owner string) *Guard { return m.pin(owner, 0, 0) }

func (m *Manager) pin(owner string, txn, ts uint64) *Guard {
	g := &Guard{m: m, owner: owner, txn: txn, since: m.now(), phi: unsealed, ts: ts}
	m.mu.Lock()
	g.epoch = m.Current()
	g.prev = m.tail
	if m.tail != nil {
		m.tail.next = g
	} else {
		m.head = g
	}
	m.tail = g
	m.mu.Unlock()
	return g
}

// PinAt is Pin for a reader about to take an MVCC snapshot: floor is a
// timestamp the snapshot will not be below (one read before PinAt), and
// SealAt records the snapshot itself. OldestTS then tells the store which
// versions a pinned reader may still need, which decides what compaction
// may drop. txn, the transaction taking the snapshot, names the guard in
// Stats (as "txn N", and PinInfo.Txn): a name built only when Stats is
// read costs nothing on the statement path, where PinAt runs each time.
func (m *Manager) PinAt(txn uint64, floor uint64) *Guard {
	return m.pin("", txn, floor)
}

// SealAt is Seal for a guard from PinAt, recording the snapshot's
// timestamp ts (not below the floor).
func (g *Guard) SealAt(ts uint64) {
	m := g.m
	m.mu.Lock()
	defer m.mu.Unlock()
	g.sealLocked()
	g.ts = max(g.ts, ts)
}

// OldestTS returns the oldest timestamp that a live guard from PinAt reads
// at, or now if none is older. now must have been read before the call: a
// reader that pins after OldestTS takes a snapshot at or after it.
func (m *Manager) OldestTS(now uint64) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	oldest := now
	for g := m.head; g != nil; g = g.next {
		if g.ts != 0 {
			oldest = min(oldest, g.ts)
		}
	}
	return oldest
}

// Epoch returns the epoch the guard was pinned at.
func (g *Guard) Epoch() Epoch {
	return g.epoch
}

// Seal records that the guard's snapshot has been taken, so the reader cannot
// see anything that becomes visible after the current epoch. Items born later
// are then free to go even while the guard stays pinned. An unsealed guard
// holds everything retired at or after its pin. Seal panics with ErrSealed if
// called twice and with ErrUnpinned after Unpin.
func (g *Guard) Seal() {
	m := g.m
	m.mu.Lock()
	defer m.mu.Unlock()
	g.sealLocked()
}

func (g *Guard) sealLocked() {
	m := g.m
	if g.unpinned {
		panic(ErrUnpinned)
	}
	if g.phi != unsealed {
		panic(ErrSealed)
	}
	g.phi = m.Current()
}

// Unpin ends the reader's use of its snapshot. The items parked on the guard
// move to the next guard that could see them, or are freed on this goroutine
// before Unpin returns. Items retired since the last Advance are not examined
// here; the next Advance frees them.
//
// A second Unpin panics with ErrUnpinned rather than doing nothing: it is a
// lifetime bug in the caller, and being quiet about it would hide reads
// through an unprotected snapshot.
func (g *Guard) Unpin() {
	m := g.m
	m.mu.Lock()
	if g.unpinned {
		m.mu.Unlock()
		panic(ErrUnpinned)
	}
	g.unpinned = true
	next := g.next
	if g.prev != nil {
		g.prev.next = g.next
	} else {
		m.head = g.next
	}
	if g.next != nil {
		g.next.prev = g.prev
	} else {
		m.tail = g.prev
	}
	g.prev, g.next = nil, nil

	// The guards before g did not overlap these items when they were parked,
	// and those guards are sealed, so the search resumes after g.
	var frees []func()
	for _, it := range g.held {
		frees = m.placeLocked(next, it, frees)
	}
	g.held, g.heldBytes, g.heldFiles, g.heldFileBytes = nil, 0, 0, 0
	m.mu.Unlock()
	runFrees(frees)
}
