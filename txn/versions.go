package txn

import (
	"github.com/epochdb/epochdb/memtable"
)

// ver is one version of a key as the transaction layer sees it, wherever
// it lives: a memtable version (m), or an entry read from an sstable, whose
// fields are copied here. A file's entry is either resolved (committed at
// ts, st nil) or unresolved: it names its writer, whose status st is
// looked up in the store's status table (see status.go).
type ver struct {
	m *memtable.Version

	st    *memtable.Status
	ts    uint64
	cmd   uint32
	lockM uint8
	tomb  bool
	noKey bool
	val   []byte
}

// status is the writer's status, or nil for a resolved file entry.
func (v *ver) status() *memtable.Status {
	if v.m != nil {
		return v.m.Status
	}
	return v.st
}

// commitTS returns the writer's commit timestamp and true once committed.
func (v *ver) commitTS() (uint64, bool) {
	if st := v.status(); st != nil {
		return st.CommitTS()
	}
	return v.ts, true
}

func (v *ver) aborted() bool {
	st := v.status()
	return st != nil && st.Aborted()
}

func (v *ver) inProgress() bool {
	st := v.status()
	return st != nil && st.InProgress()
}

// topID is the transaction whose end a waiter for this version waits for.
func (v *ver) topID() uint64 { return v.status().TopID() }

func (v *ver) lock() uint8 {
	if v.m != nil {
		return v.m.Lock
	}
	return v.lockM
}

func (v *ver) tombstone() bool {
	if v.m != nil {
		return v.m.Tombstone
	}
	return v.tomb
}

func (v *ver) keepsKey() bool {
	if v.m != nil {
		return v.m.NoKey
	}
	return v.noKey
}

func (v *ver) cmdNo() uint32 {
	if v.m != nil {
		return v.m.Cmd
	}
	return v.cmd
}

func (v *ver) value() []byte {
	if v.m != nil {
		return v.m.Value
	}
	return v.val
}

// walker steps through the versions of one key, newest first: the chain
// of the key's row in the mutable memtable, then in each frozen memtable,
// newest first, then the entries in the files. Versions in a newer source
// are always newer than those in an older one, because a row's writers
// take turns under its lock in the mutable memtable, and every memtable and
// file holds what was pushed before the next one was started.
//
// A point walker looks the key up in the older sources only when it
// reaches them, so that a decision made in the mutable memtable costs no
// lookup elsewhere. A scan's walker is handed the rows and file entries it
// found in key order.
type walker struct {
	rs    *readState
	key   []byte
	point bool
	// blind reads, of the files, only those with versions of writers in
	// progress (see Tx.Put).
	blind bool

	rows []*memtable.Row // rows to walk first, in order; nil entries are skipped
	ri   int
	fi   int // next frozen memtable to look the key up in (point)
	mv   *memtable.Version

	diskDone bool
	disk     []ver
	di       int
	cur      ver
	err      error
}

// reset starts w on a scan's key in rs, keeping its buffers. It sets the
// fields one by one: zeroing the whole walker, its current version
// included, would cost a scan more than the rest of the step.
func (w *walker) reset(rs *readState, key []byte) {
	w.rs, w.key, w.point, w.blind = rs, key, false, false
	w.rows, w.ri, w.fi, w.mv = w.rows[:0], 0, 0, nil
	w.diskDone, w.disk, w.di, w.err = true, w.disk[:0], 0, nil
}

// startPoint starts w on key in rs, with row its row in the mutable
// memtable (nil if there is none).
func (w *walker) startPoint(rs *readState, key []byte, row *memtable.Row) {
	*w = walker{rs: rs, key: key, point: true, disk: w.disk[:0]}
	if row != nil {
		w.mv = row.Head()
	}
}

// step returns the next older version, or nil once there are none or a
// file could not be read (w.err).
func (w *walker) step() *ver {
	for {
		if v := w.mv; v != nil {
			w.mv = v.Next()
			w.cur = ver{m: v}
			return &w.cur
		}
		if w.ri < len(w.rows) {
			if r := w.rows[w.ri]; r != nil {
				w.mv = r.Head()
			}
			w.ri++
			continue
		}
		if w.point && w.fi < len(w.rs.frozen) {
			if r := w.rs.frozen[w.fi].mem.Get(w.key); r != nil {
				w.mv = r.Head()
			}
			w.fi++
			continue
		}
		if !w.diskDone {
			w.diskDone = true
			if w.point && w.rs.files != nil {
				w.disk, w.err = w.rs.files.get(w.key, w.disk[:0], w.blind)
			}
		}
		if w.di < len(w.disk) {
			w.cur = w.disk[w.di]
			w.di++
			return &w.cur
		}
		return nil
	}
}
