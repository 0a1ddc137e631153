package sstable

// InternalIterator is a forward source of entries in file order (Key
// ascending, then Seq descending). *Iter and *MergingIter implement it; it
// exists so that txn can merge its own sources, such as memtables, with
// sstables in one MergingIter, and stack merging iterators.
//
// The contract is Iter's: a move returns whether the iterator is at an
// entry; Entry is valid until the next move; after a move returns false,
// Err says whether the source ended or failed.
type InternalIterator interface {
	SeekGE(key []byte) bool
	First() bool
	Next() bool
	Entry() *Entry
	Err() error
	Close() error
}

// MergingIter merges several sources into one stream in file order. Entries
// with the same Key and Seq in two sources are both returned, the one from
// the earlier source first; callers that merge overlapping files decide
// what a duplicate means. If any source fails, the merge stops: a move
// returns false and Err returns the source's error, so that a damaged file
// can never make entries silently disappear.
type MergingIter struct {
	iters []InternalIterator
	heap  []mergeItem // a min-heap of the positioned sources
	err   error
	step  KeyStep // see Step
}

type mergeItem struct {
	it    InternalIterator
	e     *Entry
	index int // the source's position, to break ties
}

var _ InternalIterator = (*MergingIter)(nil)

// NewMergingIter merges iters, which it owns: Close closes them all.
func NewMergingIter(iters ...InternalIterator) *MergingIter {
	return &MergingIter{iters: iters, heap: make([]mergeItem, 0, len(iters))}
}

func (m *MergingIter) less(i, j int) bool {
	a, b := &m.heap[i], &m.heap[j]
	if c := compareEntries(a.e.Key, a.e.Seq, b.e.Key, b.e.Seq); c != 0 {
		return c < 0
	}
	return a.index < b.index
}

func (m *MergingIter) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && m.less(r, l) {
			c = r
		}
		if !m.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// reset positions every source with move and builds the heap.
func (m *MergingIter) reset(move func(InternalIterator) bool) bool {
	m.heap, m.step = m.heap[:0], StepUnknown
	if m.err != nil {
		return false
	}
	for i, it := range m.iters {
		if move(it) {
			m.heap = append(m.heap, mergeItem{it: it, e: it.Entry(), index: i})
		} else if err := it.Err(); err != nil {
			m.fail(err)
			return false
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return len(m.heap) > 0
}

func (m *MergingIter) fail(err error) {
	m.err = err
	m.heap = m.heap[:0]
}

// SeekGE moves to the first entry whose Key is >= key, over all sources.
func (m *MergingIter) SeekGE(key []byte) bool {
	return m.reset(func(it InternalIterator) bool { return it.SeekGE(key) })
}

// First moves to the first entry of all sources.
func (m *MergingIter) First() bool {
	return m.reset(InternalIterator.First)
}

// Next moves to the following entry.
func (m *MergingIter) Next() bool {
	if len(m.heap) == 0 {
		return false
	}
	top := &m.heap[0]
	from := top.index
	if top.it.Next() {
		top.e = top.it.Entry()
	} else {
		if err := top.it.Err(); err != nil {
			m.fail(err)
			return false
		}
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
	}
	m.down(0)
	m.step = StepUnknown
	if len(m.heap) > 0 && m.heap[0].index == from {
		// The source that held the least key still does: its step is the
		// merge's.
		m.step = m.heap[0].e.Step
	}
	return len(m.heap) > 0
}

// Step says how the last Next changed the merged key, as Entry.Step does
// for one source: known when the source at the top stayed there.
func (m *MergingIter) Step() KeyStep { return m.step }

// Entry returns the current entry, or nil; it belongs to one of the sources
// and follows that source's rules for how long it stays valid. Its Step is
// that source's: the merge's is Step.
func (m *MergingIter) Entry() *Entry {
	if len(m.heap) == 0 {
		return nil
	}
	return m.heap[0].e
}

// Err returns the error of the source that stopped the merge, if any.
func (m *MergingIter) Err() error { return m.err }

// Close closes every source and returns the first error among them and the
// merge's own.
func (m *MergingIter) Close() error {
	err := m.err
	for _, it := range m.iters {
		if cerr := it.Close(); err == nil {
			err = cerr
		}
	}
	m.heap = m.heap[:0]
	return err
}
