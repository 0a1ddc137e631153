package txn

import (
	"slices"
	"sync"

	"github.com/epochdb/epochdb/memtable"
	"github.com/epochdb/epochdb/sstable"
)

// statusTable is the transaction status table for versions in files: the
// commit log of PostgreSQL's design. A flush writes a version whose writer
// is still in progress as it is, naming the writer, and a reader of the
// file resolves it here, through the very Status that the writer's commit
// flips. So a transaction larger than memory commits with the same single
// flip as any other: its versions on disk become visible at once, though
// no byte of them changes.
//
// An entry lives while some live file holds an unresolved version of its
// transaction; compaction rewrites resolved versions (or drops aborted
// ones), and when the last such file is deleted the entry goes. The
// outcome is durable for as long as the entry lives: a commit is in the
// log until an edit of the manifest records it (pending), and the manifest
// keeps it until the entry goes (forgotten). A transaction with unresolved
// versions and no recorded commit never committed: after a crash, it was
// in progress.
type statusTable struct {
	mu        sync.RWMutex // guards everything below
	refs      map[uint64]*statusRef
	forgotten []uint64 // entries gone whose commits the manifest still records
}

type statusRef struct {
	st        *memtable.Status
	files     int  // live files holding unresolved versions of the transaction
	persisted bool // the manifest records its commit
}

// aborted is the status of a transaction that never committed, for
// versions whose writer no one remembers.
var aborted = func() *memtable.Status {
	st := memtable.NewStatus(0)
	st.Abort()
	return st
}()

func newStatusTable() *statusTable {
	return &statusTable{refs: make(map[uint64]*statusRef)}
}

// lookup returns the status of transaction id, as an unresolved version in
// a file names it.
func (t *statusTable) lookup(id uint64) *memtable.Status {
	t.mu.RLock()
	r := t.refs[id]
	t.mu.RUnlock()
	if r == nil {
		return aborted
	}
	return r.st
}

// hold registers the writers of a new file's unresolved versions, before
// the file is published.
func (t *statusTable) hold(sts map[uint64]*memtable.Status) {
	t.holdFile(sts, func(uint64) bool { return false })
}

// holdFile is hold for a file found at recovery, whose writers' commits
// the manifest may record already (persisted).
func (t *statusTable) holdFile(sts map[uint64]*memtable.Status, persisted func(id uint64) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, st := range sts {
		r := t.refs[id]
		if r == nil {
			r = &statusRef{st: st, persisted: persisted(id)}
			if i := slices.Index(t.forgotten, id); i >= 0 {
				// Not forgotten after all: the manifest still has it.
				t.forgotten = slices.Delete(t.forgotten, i, i+1)
				r.persisted = true
			}
			t.refs[id] = r
		}
		r.files++
	}
}

// release drops a deleted file's hold on the statuses of its writers.
func (t *statusTable) release(ids []uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		r := t.refs[id]
		if r == nil {
			continue
		}
		if r.files--; r.files == 0 {
			delete(t.refs, id)
			if r.persisted {
				t.forgotten = append(t.forgotten, id)
			}
		}
	}
}

// pending returns what the next manifest edit must record: commits not yet
// recorded, and recorded ones no file needs. Call done after the edit is
// durable.
func (t *statusTable) pending() (commits []sstable.Commit, forgotten []uint64, done func()) {
	t.mu.RLock()
	var refs []*statusRef
	for id, r := range t.refs {
		if ts, ok := r.st.CommitTS(); ok && !r.persisted {
			commits = append(commits, sstable.Commit{Txn: id, TS: ts})
			refs = append(refs, r)
		}
	}
	forgotten = slices.Clone(t.forgotten)
	t.mu.RUnlock()
	return commits, forgotten, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		for _, r := range refs {
			r.persisted = true
		}
		t.forgotten = slices.DeleteFunc(t.forgotten, func(id uint64) bool { return slices.Contains(forgotten, id) })
	}
}

// len is the number of live entries.
func (t *statusTable) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.refs)
}
