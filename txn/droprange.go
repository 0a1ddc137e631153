package txn

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/memtable"
)

// Keys that begin with storePrefix are the store's own; callers' writes
// there are refused. A dropped range's record lives under dropPrefix.
const storePrefix = 0xff

var (
	dropPrefix = []byte{storePrefix, 'r'}
	dropEnd    = []byte{storePrefix, 'r' + 1}
)

// ErrReservedKey refuses a caller's write to the store's own keys.
var ErrReservedKey = errors.New("txn: keys that begin with 0xff are reserved for the store")

// droppedRange is a range given up by DropRange.
type droppedRange struct {
	start, end []byte
	st         *memtable.Status // the (sub)transaction that dropped it
	ts         uint64           // its commit timestamp, once published
}

// DropRange gives up every key in [start, end) (a nil end has no bound)
// as of tx's commit: once no snapshot older than the commit remains,
// compaction removes every version in the range committed at or before it.
// Nothing is written per key, so dropping a table of any size costs one
// record, committed with tx like any write, and no tombstones.
//
// Readers are not told: the caller guarantees that no snapshot that sees
// the commit reads the range, as the SQL layer does for the rows of a
// dropped or rewritten table, whose data id is never used again. Before
// the commit, and for older snapshots after it, the range reads as it was.
func (tx *Tx) DropRange(ctx context.Context, start, end []byte) error {
	if end != nil && bytes.Compare(start, end) >= 0 {
		return errors.Newf("txn: DropRange of an empty range [%q, %q)", start, end)
	}
	key := append(append([]byte(nil), dropPrefix...), start...)
	value := append([]byte{0}, end...)
	if end == nil {
		value = []byte{1}
	}
	if err := tx.mutate(ctx, key, func([]byte, bool) ([]byte, Op, error) { return value, Put, nil },
		(*memtable.Memtable).Lock, false, false); err != nil {
		return err
	}
	tx.drops = append(tx.drops, droppedRange{start: bytes.Clone(start), end: bytes.Clone(end), st: tx.cur})
	return nil
}

// dropRecord decodes a range's record.
func dropRecord(key, value []byte) (droppedRange, bool) {
	if !bytes.HasPrefix(key, dropPrefix) || len(value) == 0 {
		return droppedRange{}, false
	}
	d := droppedRange{start: bytes.Clone(key[len(dropPrefix):])}
	if value[0] == 0 {
		d.end = bytes.Clone(value[1:])
	}
	return d, true
}

// drops is the store's list of committed dropped ranges, by start. It
// only grows: a record is a few bytes per dropped table.
type drops struct {
	mu   sync.RWMutex // guards list
	list []droppedRange
}

// add records committed drops.
func (d *drops) add(ds ...droppedRange) {
	if len(ds) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, ds...)
	slices.SortFunc(d.list, func(a, b droppedRange) int { return bytes.Compare(a.start, b.start) })
}

// effective returns the drops committed at or before horizon whose ranges
// meet [lo, hi]: those whose versions compaction may remove there.
func (d *drops) effective(horizon uint64, lo, hi []byte) []droppedRange {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []droppedRange
	for _, r := range d.list {
		if r.ts <= horizon && bytes.Compare(r.start, hi) <= 0 && (r.end == nil || bytes.Compare(lo, r.end) < 0) {
			out = append(out, r)
		}
	}
	return out
}

// count is the number of drops committed at or before horizon.
func (d *drops) count(horizon uint64) int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	n := 0
	for _, r := range d.list {
		if r.ts <= horizon {
			n++
		}
	}
	return n
}

// droppedAt returns the newest commit timestamp of the ranges in rs that
// hold key, or 0.
func droppedAt(rs []droppedRange, key []byte) uint64 {
	var ts uint64
	for _, r := range rs {
		if bytes.Compare(r.start, key) <= 0 && (r.end == nil || bytes.Compare(key, r.end) < 0) {
			ts = max(ts, r.ts)
		}
	}
	return ts
}

// publishDrops records tx's drops once its commit is published, leaving
// out those of subtransactions rolled back to a savepoint.
func (tx *Tx) publishDrops() {
	var ds []droppedRange
	for _, d := range tx.drops {
		if !d.st.Aborted() {
			d.ts = tx.commitTS
			ds = append(ds, d)
		}
	}
	tx.s.drops.add(ds...)
}

// loadDrops reads the committed drop records after recovery.
func (s *Store) loadDrops() error {
	sc := newScanner(s.state.Load(), dropPrefix, dropEnd)
	defer sc.close()
	var ds []droppedRange
	for w := sc.next(); w != nil; w = sc.next() {
		for v := w.step(); v != nil; v = w.step() {
			ts, committed := v.commitTS()
			if !committed || v.lock() != 0 {
				continue
			}
			if d, ok := dropRecord(w.key, v.value()); ok && !v.tombstone() {
				d.ts = ts
				ds = append(ds, d)
			}
			break
		}
		if w.err != nil {
			return w.err
		}
	}
	if sc.err != nil {
		return sc.err
	}
	s.drops.add(ds...)
	return nil
}
