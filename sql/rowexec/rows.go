package rowexec

import (
	"github.com/epochdb/epochdb/sql/types"
)

// RowIter yields rows; Next returns nil, nil at the end.
type RowIter interface {
	Next() ([]any, error)
	Close()
}

// SliceIter yields rows from a slice.
type SliceIter struct {
	Rows [][]any
	I    int
}

func (s *SliceIter) Next() ([]any, error) {
	if s.I >= len(s.Rows) {
		return nil, nil
	}
	s.I++
	return s.Rows[s.I-1], nil
}

func (s *SliceIter) Close() {}

// OneRow yields Row once: a point lookup's result, in one allocation.
type OneRow struct {
	Row  []any
	done bool
}

func (o *OneRow) Next() ([]any, error) {
	if o.done {
		return nil, nil
	}
	o.done = true
	return o.Row, nil
}

func (o *OneRow) Close() {}

// FuncIter adapts a closure.
type FuncIter struct {
	F    func() ([]any, error)
	Done func()
}

func (f *FuncIter) Next() ([]any, error) { return f.F() }

func (f *FuncIter) Close() {
	if f.Done != nil {
		f.Done()
	}
}

// SortKey is one ORDER BY item over a projected row.
type SortKey struct {
	Idx        int
	T          types.T
	Desc       bool
	NullsFirst bool
}

// CompareRows orders two rows by keys, as PostgreSQL orders: NULLs last
// ascending and first descending, unless NULLS FIRST/LAST says otherwise.
func CompareRows(a, b []any, keys []SortKey) int {
	for _, k := range keys {
		x, y := a[k.Idx], b[k.Idx]
		var c int
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			c = 1
			if k.NullsFirst {
				c = -1
			}
		case y == nil:
			c = -1
			if k.NullsFirst {
				c = 1
			}
		default:
			c = types.Compare(k.T, x, y)
			if k.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// SortRows sorts rows stably by keys (see compareRows), and gives
// up with the statement's error once it is canceled.
func SortRows(x Run, rows [][]any, keys []SortKey) error {
	return SortCanceling(x, rows, func(a, b []any) int { return CompareRows(a, b, keys) })
}

// SortCanceling sorts rows stably by cmp, and gives up with the
// statement's error once it is canceled. It is a bottom-up merge sort,
// which can look at the context between any two steps, where the sort
// package's sorts cannot be stopped.
func SortCanceling(x Run, rows [][]any, cmp func(a, b []any) int) error {
	const run = 16 // rows sorted by insertion before the merging starts
	n := len(rows)
	for lo := 0; lo < n; lo += run {
		chunk := rows[lo:min(lo+run, n)]
		for i := 1; i < len(chunk); i++ {
			for j := i; j > 0 && cmp(chunk[j-1], chunk[j]) > 0; j-- {
				chunk[j-1], chunk[j] = chunk[j], chunk[j-1]
			}
		}
		if err := x.Canceled(); err != nil {
			return err
		}
	}
	if n <= run {
		return nil
	}
	src, dst := rows, make([][]any, n)
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j := lo, mid
			for k := lo; k < hi; k++ {
				// Ties take the left run's row first, which keeps the sort stable.
				if j == hi || i < mid && cmp(src[i], src[j]) <= 0 {
					dst[k], i = src[i], i+1
				} else {
					dst[k], j = src[j], j+1
				}
				if err := x.Canceled(); err != nil {
					return err
				}
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &rows[0] {
		copy(rows, src)
	}
	return nil
}

// Drain reads every row of it.
func Drain(it RowIter) ([][]any, error) {
	defer it.Close()
	var rows [][]any
	for {
		row, err := it.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			return rows, nil
		}
		rows = append(rows, row)
	}
}

// addAll passes every row of it to add, and closes it.
func addAll(it RowIter, add func([]any) error) error {
	defer it.Close()
	for {
		row, err := it.Next()
		if err != nil || row == nil {
			return err
		}
		if err := add(row); err != nil {
			return err
		}
	}
}
