package rowexec

import (
	"fmt"

	"github.com/epochdb/epochdb/sql/spill"
)

// RowStore keeps rows to read again, in the order they came, as
// PostgreSQL's tuplestore does: in memory up to work_mem, then all of
// them in a temporary file, which the rows still to come are appended to.
// Any number of cursors read it from the start, each at its own pace,
// also while rows are still being added.
type RowStore struct {
	x     Run
	limit int64
	mem   int64
	rows  [][]any // the rows, until the store spills
	file  *spill.File
	n     int // rows stored
}

func NewRowStore(x Run) *RowStore {
	return &RowStore{x: x, limit: x.WorkMem()}
}

func (s *RowStore) Add(row []any) error {
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
	f, err := s.x.NewTempFile("store")
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

// AddAll adds every row of it, and closes it.
func (s *RowStore) AddAll(it RowIter) error { return addAll(it, s.Add) }

// Len is the number of rows stored.
func (s *RowStore) Len() int { return s.n }

// Cursor returns a reader of the rows from the first.
func (s *RowStore) Cursor() *StoreCursor { return &StoreCursor{s: s} }

// Close removes the store's file; its cursors are done.
func (s *RowStore) Close() {
	if s.file != nil {
		s.file.Remove()
	}
	s.rows = nil
}

// StoreCursor reads a rowStore; i is the number of the row next returns.
type StoreCursor struct {
	s *RowStore
	i int
	r *spill.Reader
}

// Pos is the position of the row Next reads next, from 0.
func (c *StoreCursor) Pos() int { return c.i }

// Next returns the next row stored, or nil if there is none yet.
func (c *StoreCursor) Next() ([]any, error) {
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

func (c *StoreCursor) Close() {}

// Seek makes Next return row i (from 0) next. Rows in memory are reached
// at once; a spilled store is read again from the start to go back.
func (c *StoreCursor) Seek(i int) error {
	if i < 0 || i > c.s.n {
		return fmt.Errorf("rowexec: seek to row %d of a store of %d", i, c.s.n)
	}
	if c.r == nil {
		c.i = i // Next begins a reader at c.i if the store has spilled
		return nil
	}
	if i < c.i {
		c.Rewind()
	}
	for c.i < i {
		if _, err := c.Next(); err != nil {
			return err
		}
	}
	return nil
}

// Rewind makes the cursor read from the first row again.
func (c *StoreCursor) Rewind() {
	c.i = 0
	if c.r != nil {
		c.r.Rewind()
	}
}

// StoreIter reads a whole rowStore and removes it when closed.
type StoreIter struct {
	StoreCursor
}

func (it *StoreIter) Close() { it.s.Close() }

// StoreRows returns an iterator over what the store holds, which owns
// the store.
func StoreRows(s *RowStore) RowIter { return &StoreIter{StoreCursor{s: s}} }
