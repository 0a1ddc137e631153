package txn

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/errors"
)

// The waits-for graph. Its nodes are transactions; a waiting transaction
// has edges to the transactions it waits for:
//
//	row or table lock   one edge, to the transaction that holds it
//	advisory lock       an edge to each session holding it in a conflicting
//	                    mode, and a soft edge to each waiter queued ahead
//	                    of it for a conflicting mode
//
// A session holds a session-level advisory lock across its transactions,
// and waits only through the one it runs now (Owner.cur), so an edge to a
// session leads to that transaction; a session running none waits for
// nothing. The edges of an advisory wait are read from the lock table when
// the graph is followed, never stored, so they cannot outlive a release.
//
// A transaction about to wait first follows the graph from itself; if a
// path returns to it, it fails with ErrDeadlock instead of waiting. The
// graph and the lock table change under the store's lockMu, so of two
// transactions closing a cycle exactly one sees it.

// waiting is what one transaction waits for: the transaction that holds a
// row or table lock, or its place in an advisory lock's queue.
type waiting struct {
	holder   uint64
	advisory *advisoryWait
}

// edge is one edge of the graph, from the transaction from to to.
type edge struct {
	from, to uint64
	// For an advisory wait: the waiting request, and what it waits
	// behind: the holding session, or the request queued ahead of it (a
	// soft edge).
	wait   *advisoryWait
	holder *Owner
	ahead  *advisoryWait
}

// blockers calls fn with each edge out of transaction id until fn returns
// false, and reports whether fn always returned true. lockMu is held.
func (s *Store) blockers(id uint64, fn func(edge) bool) bool {
	w, ok := s.waits[id]
	switch {
	case !ok:
		return true
	case w.advisory == nil:
		return fn(edge{from: id, to: w.holder})
	}
	aw := w.advisory
	l, o := aw.lock, aw.tx.owner
	for p, h := range l.holds {
		if p != o && p.cur != nil && h.conflicts(aw.mode) {
			if !fn(edge{from: id, to: p.cur.id, wait: aw, holder: p}) {
				return false
			}
		}
	}
	for _, v := range l.queue {
		if v == aw {
			break
		}
		if v.tx.owner != o && v.mode.conflicts(aw.mode) {
			if !fn(edge{from: id, to: v.tx.id, wait: aw, ahead: v}) {
				return false
			}
		}
	}
	return true
}

// cycle returns a path of edges from transaction start back to it, or nil
// if the graph has none. lockMu is held.
func (s *Store) cycle(start uint64) []edge {
	var path []edge
	seen := map[uint64]bool{start: true}
	var visit func(id uint64) bool
	visit = func(id uint64) bool {
		return !s.blockers(id, func(e edge) bool {
			path = append(path, e)
			if e.to == start {
				return false
			}
			if !seen[e.to] {
				seen[e.to] = true
				if visit(e.to) {
					return false
				}
			}
			path = path[:len(path)-1]
			return true
		})
	}
	if visit(start) {
		return path
	}
	return nil
}

// checkDeadlock fails the wait tx has just entered in the graph with
// ErrDeadlock if it closes a cycle. A cycle through a soft edge is opened
// instead, if it can be, by letting that waiter go ahead of the one it
// queues behind, as PostgreSQL's deadlock detector rearranges wait queues;
// unlike it, epochdb tries each soft edge of the cycle found on its own.
// lockMu is held.
func (s *Store) checkDeadlock(tx *Tx) error {
	c := s.cycle(tx.id)
	if c == nil {
		return nil
	}
	for _, e := range c {
		if e.ahead != nil && s.letAhead(tx, e.wait, e.ahead) {
			return nil
		}
	}
	first := c[0]
	detail := fmt.Sprintf("txn %d waits for txn %d", tx.id, first.to)
	switch {
	case first.holder != nil:
		detail = fmt.Sprintf("txn %d waits for %s on %s, held by the session of txn %d", tx.id, first.wait.mode, first.wait.lock.key, first.to)
	case first.ahead != nil:
		detail = fmt.Sprintf("txn %d waits for %s on %s behind txn %d", tx.id, first.wait.mode, first.wait.lock.key, first.to)
	}
	return errors.WithDetailf(ErrDeadlock, "%s, which waits, directly or through others, for txn %d", detail, tx.id)
}

// letAhead moves the queued request w ahead of v, the request it queues
// behind, if that leaves no cycle through tx or through the lock's queue,
// and grants what the new order lets in. lockMu is held.
func (s *Store) letAhead(tx *Tx, w, v *advisoryWait) bool {
	l := w.lock
	was := slices.Clone(l.queue)
	l.queue = slices.DeleteFunc(l.queue, func(x *advisoryWait) bool { return x == w })
	l.queue = slices.Insert(l.queue, slices.Index(l.queue, v), w)
	ok := s.cycle(tx.id) == nil && !slices.ContainsFunc(l.queue, func(x *advisoryWait) bool { return s.cycle(x.tx.id) != nil })
	if !ok {
		l.queue = was
		return false
	}
	s.wake(l)
	return true
}

// lockTimeoutKey carries WithLockTimeout's limit in a context.
type lockTimeoutKey struct{}

// WithLockTimeout limits each lock wait under ctx to d, as PostgreSQL's
// lock_timeout does: a wait that lasts longer fails with ErrLockTimeout.
func WithLockTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, lockTimeoutKey{}, d)
}

// ErrLockTimeout is a lock wait that outlasted WithLockTimeout's limit.
var ErrLockTimeout = errors.New("txn: lock wait timed out")

// awaitLock blocks until ready or also (which may be nil) is closed, or
// ctx ends the wait, or its lock timeout does.
func awaitLock(ctx context.Context, ready, also <-chan struct{}) error {
	var timeout <-chan time.Time
	if d, ok := ctx.Value(lockTimeoutKey{}).(time.Duration); ok && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ready:
	case <-also:
	case <-ctx.Done():
		return errors.Wrap(ctx.Err(), "waiting for a lock")
	case <-timeout:
		return ErrLockTimeout
	}
	return nil
}

// waitFor blocks until the transaction holding a provisional version ends,
// unless waiting would close a cycle in the waits-for graph. With rows, it
// also returns when the holder rolls back to a savepoint: a waiter for a
// row looks at it again, since the versions or locks it waited for may
// have gone with the savepoint.
func (s *Store) waitFor(ctx context.Context, tx *Tx, holder uint64, rows bool) error {
	s.lockMu.Lock()
	h, ok := s.active[holder]
	if !ok {
		s.lockMu.Unlock()
		return nil
	}
	if h.done == nil {
		h.done = make(chan struct{})
	}
	done := h.done
	var rolledBack chan struct{}
	if rows {
		if h.rolledBack == nil {
			h.rolledBack = make(chan struct{})
		}
		rolledBack = h.rolledBack
	}
	s.waits[tx.id] = waiting{holder: holder}
	if err := s.checkDeadlock(tx); err != nil {
		delete(s.waits, tx.id)
		s.lockMu.Unlock()
		return err
	}
	s.lockMu.Unlock()

	err := awaitLock(ctx, done, rolledBack)
	s.lockMu.Lock()
	delete(s.waits, tx.id)
	s.lockMu.Unlock()
	return err
}
