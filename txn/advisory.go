package txn

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/errors"
)

// AdvisoryKey names an advisory lock. Space tells the kinds of key apart,
// as PostgreSQL's objsubid does (1: one bigint, 2: two int4 keys, high
// half first), so that the same bits in two spaces are two locks.
type AdvisoryKey struct {
	Space uint16
	Key   uint64
}

// String prints the key as PostgreSQL's lock tag shows it, without the
// database: [classid,objid,objsubid].
func (k AdvisoryKey) String() string {
	return fmt.Sprintf("advisory lock [%d,%d,%d]", uint32(k.Key>>32), uint32(k.Key), k.Space)
}

// AdvisoryMode is the mode of an advisory lock: PostgreSQL's ShareLock or
// ExclusiveLock.
type AdvisoryMode uint8

const (
	AdvisoryShare AdvisoryMode = iota
	AdvisoryExclusive
)

var advisoryModes = [...]AdvisoryMode{AdvisoryShare, AdvisoryExclusive}

// String is the mode's name in pg_locks.
func (m AdvisoryMode) String() string {
	if m == AdvisoryExclusive {
		return "ExclusiveLock"
	}
	return "ShareLock"
}

func (m AdvisoryMode) conflicts(o AdvisoryMode) bool {
	return m == AdvisoryExclusive || o == AdvisoryExclusive
}

// Owner is a client session as the lock table sees it. It holds its
// session-level advisory locks across its transactions, until it unlocks
// them or closes; a transaction it begins holds transaction-level ones.
// Locks conflict between owners only: an owner never waits for itself.
type Owner struct {
	s *Store
	// cur is the transaction the owner runs, through which it waits;
	// held is what it holds of each lock. lockMu guards both.
	cur  *Tx
	held map[*advisoryLock]*advisoryHold
}

// NewOwner makes the owner of a session's locks.
func (s *Store) NewOwner() *Owner {
	return &Owner{s: s, held: map[*advisoryLock]*advisoryHold{}}
}

// Begin starts a transaction of o's. An owner runs one at a time.
func (o *Owner) Begin(iso Isolation) *Tx { return o.s.begin(iso, o) }

// advisoryLock is one lock's entry in the table: what each owner holds of
// it, and the requests waiting for it, in the order they are to be
// granted. An entry exists while it has either.
type advisoryLock struct {
	key   AdvisoryKey
	holds map[*Owner]*advisoryHold
	queue []*advisoryWait
}

// advisoryHold counts one owner's grants of one lock, by mode: those it
// holds at session level, and those its transaction holds.
type advisoryHold struct {
	session, xact [len(advisoryModes)]int
}

func (h *advisoryHold) has(m AdvisoryMode) bool { return h.session[m]+h.xact[m] > 0 }

func (h *advisoryHold) empty() bool { return !h.has(AdvisoryShare) && !h.has(AdvisoryExclusive) }

// conflicts reports whether h keeps another owner from taking mode m.
func (h *advisoryHold) conflicts(m AdvisoryMode) bool {
	return slices.ContainsFunc(advisoryModes[:], func(held AdvisoryMode) bool { return h.has(held) && held.conflicts(m) })
}

// advisoryWait is a request waiting in a lock's queue.
type advisoryWait struct {
	tx    *Tx
	lock  *advisoryLock
	mode  AdvisoryMode
	xact  bool
	since time.Time
	// granted is set, and ready closed, when the table grants it.
	granted bool
	ready   chan struct{}
}

// advisoryGrant is one transaction-level grant, for the release at the
// end of its transaction or at a rollback to a savepoint before it.
type advisoryGrant struct {
	lock *advisoryLock
	mode AdvisoryMode
}

var errNoOwner = errors.New("txn: an advisory lock needs a transaction begun by its Owner")

// LockAdvisory takes advisory lock key in mode for tx's owner: at session
// level, or with xact for tx, until it ends or rolls back to a savepoint
// taken before. Each call counts: a session-level lock taken twice is
// unlocked twice.
//
// The request waits while another owner holds the lock in a conflicting
// mode, or is queued ahead of it for one, as PostgreSQL's lock queues are
// fair; an owner that holds the lock already in any mode goes ahead of the
// queue, and one that holds it in this mode is granted at once. It fails
// with ErrDeadlock rather than close a cycle of waits, and with
// ErrLockTimeout or ctx's error when its wait ends first.
func (tx *Tx) LockAdvisory(ctx context.Context, key AdvisoryKey, mode AdvisoryMode, xact bool) error {
	_, err := tx.lockAdvisory(ctx, key, mode, xact, true)
	return err
}

// TryLockAdvisory is LockAdvisory that never waits: it reports whether it
// took the lock. Unlike a waiting request, it does not go ahead of the
// queue for a lock its owner holds in the other mode.
func (tx *Tx) TryLockAdvisory(key AdvisoryKey, mode AdvisoryMode, xact bool) (bool, error) {
	return tx.lockAdvisory(context.Background(), key, mode, xact, false)
}

func (tx *Tx) lockAdvisory(ctx context.Context, key AdvisoryKey, mode AdvisoryMode, xact, wait bool) (bool, error) {
	switch {
	case tx.ended:
		return false, ErrDone
	case tx.owner == nil:
		return false, errNoOwner
	}
	s, o := tx.s, tx.owner
	s.lockMu.Lock()
	l := s.advisory[key]
	if l == nil {
		l = &advisoryLock{key: key, holds: map[*Owner]*advisoryHold{}}
		s.advisory[key] = l
	}
	h := l.holds[o]
	ahead := l.queue
	if h != nil && wait {
		ahead = nil // a try, as in PostgreSQL, never passes the queue
	}
	if h != nil && h.has(mode) || l.grantable(o, mode, ahead) {
		s.grant(tx, l, mode, xact)
		s.lockMu.Unlock()
		return true, nil
	}
	if !wait {
		s.forgetIfFree(l)
		s.lockMu.Unlock()
		return false, nil
	}
	w := &advisoryWait{tx: tx, lock: l, mode: mode, xact: xact, since: time.Now(), ready: make(chan struct{})}
	if h != nil {
		l.queue = slices.Insert(l.queue, 0, w)
	} else {
		l.queue = append(l.queue, w)
	}
	s.waits[tx.id] = waiting{advisory: w}
	if err := s.checkDeadlock(tx); err != nil {
		s.dequeue(w)
		s.lockMu.Unlock()
		return false, err
	}
	s.lockMu.Unlock()

	err := awaitLock(ctx, w.ready, nil)
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	if w.granted {
		return true, nil // granted, perhaps as the wait ended: the caller has the lock
	}
	s.dequeue(w)
	return false, err
}

// grantable reports whether owner o may take l in mode now: no other owner
// holds it in a conflicting mode, and no other's request in ahead (the
// requests queued before o's) asks for one.
func (l *advisoryLock) grantable(o *Owner, mode AdvisoryMode, ahead []*advisoryWait) bool {
	for p, h := range l.holds {
		if p != o && h.conflicts(mode) {
			return false
		}
	}
	return !slices.ContainsFunc(ahead, func(w *advisoryWait) bool { return w.tx.owner != o && w.mode.conflicts(mode) })
}

// grant counts one grant of l in mode to tx's owner. lockMu is held.
func (s *Store) grant(tx *Tx, l *advisoryLock, mode AdvisoryMode, xact bool) {
	o := tx.owner
	h := l.holds[o]
	if h == nil {
		h = &advisoryHold{}
		l.holds[o], o.held[l] = h, h
	}
	if xact {
		h.xact[mode]++
		tx.advisory = append(tx.advisory, advisoryGrant{l, mode})
	} else {
		h.session[mode]++
	}
}

// wake grants, in queue order, each request that the holders of l and the
// requests still queued ahead of it let in, as PostgreSQL's ProcLockWakeup
// does. lockMu is held.
func (s *Store) wake(l *advisoryLock) {
	for i := 0; i < len(l.queue); {
		w := l.queue[i]
		if !l.grantable(w.tx.owner, w.mode, l.queue[:i]) {
			i++
			continue
		}
		l.queue = slices.Delete(l.queue, i, i+1)
		delete(s.waits, w.tx.id)
		s.grant(w.tx, l, w.mode, w.xact)
		w.granted = true
		close(w.ready)
	}
}

// dequeue takes a request that gave up out of its lock's queue and the
// graph. lockMu is held.
func (s *Store) dequeue(w *advisoryWait) {
	l := w.lock
	l.queue = slices.DeleteFunc(l.queue, func(x *advisoryWait) bool { return x == w })
	delete(s.waits, w.tx.id)
	s.wake(l) // those behind it may have waited for it alone
	s.forgetIfFree(l)
}

// released settles l after o's hold on it shrank: an empty hold goes, the
// queue moves, and an entry with nothing left leaves the table. lockMu is
// held.
func (s *Store) released(l *advisoryLock, o *Owner) {
	if h := l.holds[o]; h != nil && h.empty() {
		delete(l.holds, o)
		delete(o.held, l)
	}
	s.wake(l)
	s.forgetIfFree(l)
}

func (s *Store) forgetIfFree(l *advisoryLock) {
	if len(l.holds) == 0 && len(l.queue) == 0 {
		delete(s.advisory, l.key)
	}
}

// releaseXact gives up tx's transaction-level advisory locks from the nth
// on. lockMu is held.
func (s *Store) releaseXact(tx *Tx, n int) {
	if len(tx.advisory) <= n {
		return
	}
	for _, g := range slices.Backward(tx.advisory[n:]) {
		g.lock.holds[tx.owner].xact[g.mode]--
		s.released(g.lock, tx.owner)
	}
	clear(tx.advisory[n:])
	tx.advisory = tx.advisory[:n]
}

// Unlock gives up one session-level grant of lock key in mode, and reports
// whether o had one. Transaction-level grants are not its to give up.
func (o *Owner) Unlock(key AdvisoryKey, mode AdvisoryMode) bool {
	s := o.s
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	l := s.advisory[key]
	if l == nil {
		return false
	}
	h := l.holds[o]
	if h == nil || h.session[mode] == 0 {
		return false
	}
	h.session[mode]--
	s.released(l, o)
	return true
}

// UnlockAll gives up every session-level advisory lock o holds.
func (o *Owner) UnlockAll() {
	s := o.s
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	for l, h := range o.held {
		h.session = [len(advisoryModes)]int{}
		s.released(l, o)
	}
}

// Close ends the session: its session-level locks go. Its transaction, if
// one is open, must end first, and with it the transaction-level ones.
func (o *Owner) Close() { o.UnlockAll() }

// AdvisoryLock is one row of the lock table as pg_locks shows it: an
// owner's grant of a lock in a mode, or its request waiting since
// WaitStart.
type AdvisoryLock struct {
	Key       AdvisoryKey
	Mode      AdvisoryMode
	Owner     *Owner
	Granted   bool
	WaitStart time.Time
}

// AdvisoryLocks lists the advisory locks granted and awaited, by key:
// for each, its grants, then its queue in order.
func (s *Store) AdvisoryLocks() []AdvisoryLock {
	s.lockMu.Lock()
	var out []AdvisoryLock
	for key, l := range s.advisory {
		for o, h := range l.holds {
			for _, m := range advisoryModes {
				if h.has(m) {
					out = append(out, AdvisoryLock{Key: key, Mode: m, Owner: o, Granted: true})
				}
			}
		}
		for _, w := range l.queue {
			out = append(out, AdvisoryLock{Key: key, Mode: w.mode, Owner: w.tx.owner, WaitStart: w.since})
		}
	}
	s.lockMu.Unlock()
	slices.SortStableFunc(out, func(a, b AdvisoryLock) int {
		return cmp.Or(cmp.Compare(a.Key.Space, b.Key.Space), cmp.Compare(a.Key.Key, b.Key.Key))
	})
	return out
}
