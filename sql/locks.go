package sql

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/txn"
)

// tableLocks keep DDL apart from the statements that read and write a
// table, as PostgreSQL's table locks do, reduced to the modes epochdb
// needs. Statements take a use of their tables:
//
//   - useRead, which a query takes on each table it reads (PostgreSQL's
//     ACCESS SHARE);
//   - useWrite, which INSERT, UPDATE, DELETE and COPY FROM take on their
//     target (ROW EXCLUSIVE).
//
// Uses share a table with each other. DDL claims it instead:
//
//   - a shared claim, which CREATE INDEX takes (SHARE), waits for writers
//     and holds new writers back, but lets readers in;
//   - an exclusive claim, which ALTER TABLE, TRUNCATE, DROP TABLE and DROP
//     INDEX take (ACCESS EXCLUSIVE), waits for and holds back both.
//
// DDL statements already exclude each other through the catalog lock.
// Without these locks, a writer that planned against the old catalog could
// commit rows after a CREATE INDEX without their entries, or into a data id
// that an ALTER TABLE rewrite has already left behind; and a reader could
// scan such an abandoned data id, or an index a DROP INDEX has emptied, and
// silently see too few rows.
//
// A lock belongs to a transaction and lasts until it ends. Waiting for one
// is waiting for its holder to end, through txn's waits-for graph, so a
// cycle of table and row lock waits fails with 40P01 like any deadlock.
// The DDL side claims the table before it waits for the users, so new
// users queue behind it instead of starving it.
type tableLocks struct {
	// mu guards claims and released. A use takes it only while some table
	// is claimed (claimed > 0): statements meet no lock that every
	// session shares, only their own shard's, as PostgreSQL's fast-path
	// relation locks do.
	mu      sync.Mutex
	claims  map[uint32]claim // table id → the DDL transaction changing it
	claimed atomic.Int32     // len(claims)
	// released, when not nil, is closed at the next release: a holder
	// leaves the store's active set before it has published its catalog
	// and released, and a waiter must not spin.
	released chan struct{}
	// shards hold the uses, by transaction. Lock order: mu, then a shard.
	// A claim is counted in claimed before the DDL looks at any shard, and
	// a use checks claimed under its shard's lock, so either the use is
	// recorded before the DDL looks, or it sees the claim and takes mu.
	shards [useShards]useShard
}

const useShards = 16

type useShard struct {
	mu    sync.Mutex
	uses  map[tableUse]useMode // the tables each transaction uses
	held  map[uint64][]uint32  // transaction → the tables it used or claimed
	spare [][]uint32           // held lists to reuse
	_     [64]byte             // a shard's lock to its own cache line
}

type tableUse struct {
	table uint32
	tx    uint64
}

type useMode uint8

const (
	useRead useMode = iota + 1
	useWrite
)

type claim struct {
	tx        uint64
	exclusive bool
	// granted is set once the DDL has stopped waiting for users: until
	// then a transaction that already uses the table may use it more
	// (read, then write), since the DDL waits for it anyway. PostgreSQL
	// lets such an upgrade pass a waiting lock request too.
	granted bool
}

func newTableLocks() *tableLocks {
	l := &tableLocks{claims: map[uint32]claim{}}
	for i := range l.shards {
		l.shards[i].uses = map[tableUse]useMode{}
		l.shards[i].held = map[uint64][]uint32{}
	}
	return l
}

func (l *tableLocks) shard(tx uint64) *useShard { return &l.shards[tx%useShards] }

// lockUse takes a use of a table for tx. It reports whether it waited for
// a DDL transaction, whose catalog changes the caller must then load: the
// holder publishes them only after its transaction has ended.
func (l *tableLocks) lockUse(ctx context.Context, tx *txn.Tx, table uint32, mode useMode) (waited bool, err error) {
	id := tx.ID()
	key := tableUse{table, id}
	sh := l.shard(id)
	sh.mu.Lock()
	if had := sh.uses[key]; had >= mode || l.claimed.Load() == 0 {
		sh.use(key, had, mode)
		sh.mu.Unlock()
		return false, nil
	}
	sh.mu.Unlock()
	for {
		l.mu.Lock()
		c, claimed := l.claims[table]
		sh.mu.Lock()
		had := sh.uses[key]
		// A transaction keeps a use it has even if DDL has claimed the
		// table since: the DDL waits for it.
		if !claimed || c.tx == id || had >= mode || !(c.exclusive || mode == useWrite) || had != 0 && !c.granted {
			sh.use(key, had, mode)
			sh.mu.Unlock()
			l.mu.Unlock()
			return waited, nil
		}
		sh.mu.Unlock()
		if l.released == nil {
			l.released = make(chan struct{})
		}
		released := l.released
		l.mu.Unlock()
		if err := tx.WaitFor(ctx, c.tx); err != nil {
			return waited, err
		}
		waited = true
		// The holder's transaction has ended; its release may lag.
		l.mu.Lock()
		still := l.claims[table].tx == c.tx
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

// use raises key's use from had to mode. sh.mu is held.
func (sh *useShard) use(key tableUse, had, mode useMode) {
	if had >= mode {
		return
	}
	sh.uses[key] = mode
	if had == 0 {
		sh.hold(key.tx, key.table)
	}
}

// hold records that transaction id locked table. sh.mu is held.
func (sh *useShard) hold(id uint64, table uint32) {
	tables, ok := sh.held[id]
	if !ok && len(sh.spare) > 0 {
		tables, sh.spare = sh.spare[len(sh.spare)-1], sh.spare[:len(sh.spare)-1]
	}
	sh.held[id] = append(tables, table)
}

// setClaim records c as table's claim. l.mu is held.
func (l *tableLocks) setClaim(table uint32, c claim) {
	l.claims[table] = c
	l.claimed.Store(int32(len(l.claims)))
}

// dropClaim removes table's claim. l.mu is held.
func (l *tableLocks) dropClaim(table uint32) {
	delete(l.claims, table)
	l.claimed.Store(int32(len(l.claims)))
}

// lockDDL claims a table for tx, then waits for every other transaction
// that uses it in a mode the claim excludes to end.
func (l *tableLocks) lockDDL(ctx context.Context, tx *txn.Tx, table uint32, exclusive bool) error {
	id := tx.ID()
	l.mu.Lock()
	prev, claimed := l.claims[table]
	switch {
	case !claimed || prev.tx != id:
		// The catalog lock lets one DDL transaction in at a time, so no
		// other holds the claim while this one runs.
		l.setClaim(table, claim{tx: id, exclusive: exclusive})
		sh := l.shard(id)
		sh.mu.Lock()
		if sh.uses[tableUse{table, id}] == 0 {
			sh.hold(id, table)
		}
		sh.mu.Unlock()
	case exclusive && !prev.exclusive:
		l.setClaim(table, claim{tx: id, exclusive: true})
	}
	for {
		other, found := l.excludedUser(table, id, exclusive)
		if !found {
			c := l.claims[table]
			c.granted = true
			l.claims[table] = c
			l.mu.Unlock()
			return nil
		}
		l.mu.Unlock()
		if err := tx.WaitFor(ctx, other); err != nil {
			// A DDL that failed waiting (deadlock, cancel) must not keep
			// the table from everyone until its transaction ends.
			l.mu.Lock()
			if claimed && prev.tx == id {
				l.setClaim(table, prev)
			} else {
				l.dropClaim(table)
			}
			if l.released != nil {
				close(l.released)
				l.released = nil
			}
			l.mu.Unlock()
			return err
		}
		l.mu.Lock()
		// The user's transaction has ended; its release may still be on
		// its way, so drop its use here.
		sh := l.shard(other)
		sh.mu.Lock()
		delete(sh.uses, tableUse{table, other})
		sh.mu.Unlock()
	}
}

// excludedUser finds a transaction other than id that uses table in a mode
// the claim excludes: any use for an exclusive claim, a write for a shared
// one. l.mu is held.
func (l *tableLocks) excludedUser(table uint32, id uint64, exclusive bool) (uint64, bool) {
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		for u, mode := range sh.uses {
			if u.table == table && u.tx != id && (exclusive || mode == useWrite) {
				sh.mu.Unlock()
				return u.tx, true
			}
		}
		sh.mu.Unlock()
	}
	return 0, false
}

// release drops every lock of transaction id, once it has ended and its
// catalog changes are published.
func (l *tableLocks) release(id uint64) {
	sh := l.shard(id)
	sh.mu.Lock()
	tables, ok := sh.held[id]
	if !ok {
		sh.mu.Unlock()
		return
	}
	for _, table := range tables {
		delete(sh.uses, tableUse{table, id})
	}
	delete(sh.held, id)
	// Only while some table is claimed can id hold a claim: a claim that
	// appears after this check is another transaction's.
	claims := l.claimed.Load() > 0
	if !claims && cap(tables) <= 16 && len(sh.spare) < 8 {
		sh.spare = append(sh.spare, tables[:0])
	}
	sh.mu.Unlock()
	if !claims {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, table := range tables {
		if c, ok := l.claims[table]; ok && c.tx == id {
			l.dropClaim(table)
		}
	}
	if l.released != nil {
		close(l.released)
		l.released = nil
	}
}

// lockTableForDDL claims t for the session's DDL, exclusively or shared,
// then makes sure the DDL reads all of t: under READ COMMITTED a new
// statement snapshot takes in what the writers it waited for committed;
// under REPEATABLE READ, a change the snapshot misses fails with 40001.
func (s *Session) lockTableForDDL(ctx context.Context, d *catalog.DDL, t *catalog.Table, exclusive bool) error {
	if err := s.e.locks.lockDDL(ctx, d.Tx, t.ID, exclusive); err != nil {
		return err
	}
	if d.Tx.Isolation() == txn.ReadCommitted {
		d.Tx.NextStatement()
		return nil
	}
	data := catalog.IndexPrefix(t.DataID, 0)[:5]
	changed, err := d.Tx.ChangedAfterSnapshot(data, catalog.PrefixEnd(data))
	if err == nil && changed {
		err = txn.ErrSerialization
	}
	return err
}

// noteRead records that the statement being planned reads table id.
func (s *Session) noteRead(id uint32) {
	if !slices.Contains(s.planReads, id) {
		s.planReads = append(s.planReads, id)
	}
}
