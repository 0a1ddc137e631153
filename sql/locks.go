package sql

import (
	"context"
	"sync"

	"github.com/epochdb/epochdb/txn"
)

// tableLocks keep DDL and the writers of a table apart, as PostgreSQL's
// table locks do, reduced to the two modes epochdb needs:
//
//   - write, which INSERT, UPDATE, DELETE and COPY take on their table
//     (PostgreSQL's ROW EXCLUSIVE). Writers share it.
//   - ddl, which CREATE INDEX, ALTER TABLE, TRUNCATE and DROP TABLE take
//     (SHARE or ACCESS EXCLUSIVE). It excludes writers; DDL statements
//     already exclude each other through the catalog lock.
//
// Without them, a writer that planned against the old catalog could commit
// rows after a CREATE INDEX without their entries, or into a data id that
// an ALTER TABLE rewrite has already left behind.
//
// A lock belongs to a transaction and lasts until it ends. Waiting for one
// is waiting for its holder to end, through txn's waits-for graph, so a
// cycle of table and row lock waits fails with 40P01 like any deadlock.
// The DDL side claims the table before it waits for the writers, so new
// writers queue behind it instead of starving it.
type tableLocks struct {
	mu      sync.Mutex
	writers map[uint32]map[uint64]bool // table id → transactions writing it
	ddl     map[uint32]uint64          // table id → the DDL transaction changing it
	held    map[uint64][]uint32        // transaction → the tables it locked
	// released is closed, and replaced, whenever a transaction releases
	// its locks: a holder leaves the store's active set before it has
	// published its catalog and released, and a waiter must not spin.
	released chan struct{}
}

func newTableLocks() *tableLocks {
	return &tableLocks{writers: map[uint32]map[uint64]bool{}, ddl: map[uint32]uint64{},
		held: map[uint64][]uint32{}, released: make(chan struct{})}
}

// lockWrite takes the write lock on a table for tx. It reports whether it
// waited for a DDL transaction, whose catalog changes the caller must then
// load: the holder publishes them only after its transaction has ended.
func (l *tableLocks) lockWrite(ctx context.Context, tx *txn.Tx, table uint32) (waited bool, err error) {
	id := tx.ID()
	for {
		l.mu.Lock()
		holder, claimed := l.ddl[table]
		// A transaction that already writes the table keeps its lock even
		// if DDL has claimed the table since: the DDL waits for it.
		if !claimed || holder == id || l.writers[table][id] {
			if l.writers[table] == nil {
				l.writers[table] = map[uint64]bool{}
			}
			if !l.writers[table][id] {
				l.writers[table][id] = true
				l.held[id] = append(l.held[id], table)
			}
			l.mu.Unlock()
			return waited, nil
		}
		released := l.released
		l.mu.Unlock()
		if err := tx.WaitFor(ctx, holder); err != nil {
			return waited, err
		}
		waited = true
		// The holder's transaction has ended; its release may lag.
		l.mu.Lock()
		still := l.ddl[table] == holder
		l.mu.Unlock()
		if still {
			select {
			case <-released:
			case <-ctx.Done():
				return waited, ctx.Err()
			}
		}
	}
}

// lockDDL takes the ddl lock on a table for tx: it claims the table, then
// waits for every other transaction that writes it to end.
func (l *tableLocks) lockDDL(ctx context.Context, tx *txn.Tx, table uint32) error {
	id := tx.ID()
	l.mu.Lock()
	if holder, claimed := l.ddl[table]; !claimed || holder != id {
		// The catalog lock lets one DDL transaction in at a time, so no
		// other holds the claim while this one runs.
		l.ddl[table] = id
		l.held[id] = append(l.held[id], table)
	}
	for {
		var other uint64
		found := false
		for w := range l.writers[table] {
			if w != id {
				other, found = w, true
				break
			}
		}
		l.mu.Unlock()
		if !found {
			return nil
		}
		if err := tx.WaitFor(ctx, other); err != nil {
			return err
		}
		l.mu.Lock()
		// The writer's transaction has ended; its release may still be on
		// its way, so drop it here.
		delete(l.writers[table], other)
	}
}

// release drops every lock of transaction id, once it has ended and its
// catalog changes are published.
func (l *tableLocks) release(id uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[id]; !ok {
		return
	}
	for _, table := range l.held[id] {
		delete(l.writers[table], id)
		if len(l.writers[table]) == 0 {
			delete(l.writers, table)
		}
		if l.ddl[table] == id {
			delete(l.ddl, table)
		}
	}
	delete(l.held, id)
	close(l.released)
	l.released = make(chan struct{})
}

// lockTableForDDL takes the ddl lock on t for the session's DDL, then makes
// sure the DDL reads all of t: under READ COMMITTED a new statement
// snapshot takes in what the writers it waited for committed; under
// REPEATABLE READ, a change the snapshot misses fails with 40001.
func (s *Session) lockTableForDDL(ctx context.Context, d *ddl, t *Table) error {
	if err := s.e.locks.lockDDL(ctx, d.tx, t.ID); err != nil {
		return err
	}
	if d.tx.Isolation() == txn.ReadCommitted {
		d.tx.NextStatement()
		return nil
	}
	data := indexPrefix(t.DataID, 0)[:5]
	if d.tx.ChangedAfterSnapshot(data, prefixEnd(data)) {
		return txn.ErrSerialization
	}
	return nil
}
