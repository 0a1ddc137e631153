package sql

import "github.com/epochdb/epochdb/sql/spill"

// rowStore keeps rows to read again, in the order they came, as
// PostgreSQL's tuplestore does: in memory up to work_mem, then all of
// them in a temporary file, which the rows still to come are appended to.
// Any number of cursors read it from the start, each at its own pace,
// also while rows are still being added.
type rowStore struct {
	x     *execCtx
	limit int64
	mem   int64
	rows  [][]any // the rows, until the store spills
	file  *spill.File
	n     int // rows stored
}

func newRowStore(x *execCtx) *rowStore {
	return &rowStore{x: x, limit: x.workMem()}
}

func (s *rowStore) add(row []any) error {
	if s.file != nil {
		if err := s.file.WriteRow(row); err != nil {
			return err
		}
		s.n++
		return nil
	}
	s.rows = append(s.rows, row)
	s.n++
	s.mem += spill.RowSize(row) + 8
	if s.mem <= s.limit {
		return nil
	}
	f, err := s.x.newTempFile("store")
	if err != nil {
		return err
	}
	s.file = f
	for _, r := range s.rows {
		if err := f.WriteRow(r); err != nil {
			return err
		}
	}
	s.rows, s.mem = nil, 0
	return nil
}

// addAll adds every row of it, and closes it.
func (s *rowStore) addAll(it rowIter) error {
	defer it.close()
	for {
		row, err := it.next()
		if err != nil || row == nil {
			return err
		}
		if err := s.add(row); err != nil {
			return err
		}
	}
}

// len is the number of rows stored.
func (s *rowStore) len() int { return s.n }

// cursor returns a reader of the rows from the first.
func (s *rowStore) cursor() *storeCursor { return &storeCursor{s: s} }

// close removes the store's file; its cursors are done.
func (s *rowStore) close() {
	if s.file != nil {
		s.file.Remove()
	}
	s.rows = nil
}

// storeCursor reads a rowStore; i is the number of the row next returns.
type storeCursor struct {
	s *rowStore
	i int
	r *spill.Reader
}

// next returns the next row stored, or nil if there is none yet.
func (c *storeCursor) next() ([]any, error) {
	s := c.s
	if c.i >= s.n {
		return nil, nil
	}
	if s.file == nil {
		c.i++
		return s.rows[c.i-1], nil
	}
	if s.file.Buffered() {
		if err := s.file.Flush(); err != nil {
			return nil, err
		}
	}
	if c.r == nil {
		// The store spilled since this cursor began: the rows it read
		// from memory are the file's first.
		c.r = s.file.Reader(0)
		for range c.i {
			if _, err := c.r.Next(); err != nil {
				return nil, err
			}
		}
	}
	row, err := c.r.Expect()
	if err != nil {
		return nil, err
	}
	c.i++
	return row, nil
}

func (c *storeCursor) close() {}

// rewind makes the cursor read from the first row again.
func (c *storeCursor) rewind() {
	c.i = 0
	if c.r != nil {
		c.r.Rewind()
	}
}

// storeIter reads a whole rowStore and removes it when closed.
type storeIter struct {
	storeCursor
}

func (it *storeIter) close() { it.s.close() }

// storeRows returns an iterator over what the store holds, which owns
// the store.
func storeRows(s *rowStore) rowIter { return &storeIter{storeCursor{s: s}} }
