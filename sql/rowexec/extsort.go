package rowexec

import (
	"cmp"
	"slices"

	"github.com/epochdb/epochdb/sql/spill"
)

// Sorter is an external merge sort, stable, bounded by work_mem. Rows are
// gathered in memory until their estimated size passes work_mem; then
// they are sorted and written to a temporary file as a run, and the
// gathering starts again. At the end, rows that all fit are sorted in
// memory and never touch a file; otherwise the last rows become a run
// too, and the runs are merged by a heap that breaks ties by run number,
// earlier first. A run holds rows that came before every row of a later
// run, so the merge keeps equal rows in their input order, as the
// in-memory sort does. Too many runs to read at once (each reader has a
// buffer, and an open file) are merged a group at a time into longer
// runs first.
//
// A sort whose output is cut at a known row count (ORDER BY ... LIMIT)
// keeps only the best rows so far, in a heap, as PostgreSQL's bounded
// sort does (see bounded).
type Sorter struct {
	x     Run
	cmp   func(a, b []any) int
	limit int64
	mem   int64 // estimated bytes of rows
	rows  [][]any
	runs  []*spill.File
	gens  []int // gens[i]: how many merges made runs[i]
	top   *TopN // while the sort is bounded
}

func NewSorter(x Run, cmp func(a, b []any) int) *Sorter {
	return &Sorter{x: x, cmp: cmp, limit: x.WorkMem()}
}

// Bounded makes the sort keep only the first n rows of its output, while
// they fit in work_mem.
func (s *Sorter) Bounded(n int64) {
	if n > 0 {
		s.top = &TopN{cmp: s.cmp, n: n}
	}
}

// Add takes one more row to sort.
func (s *Sorter) Add(row []any) error {
	if s.top != nil {
		if s.top.Add(row) <= s.limit {
			return nil
		}
		// The best rows so far do not fit: they are sorted as any rows
		// are, in the order they came, and so are the rest.
		s.rows, s.mem = s.top.InInputOrder(), s.top.mem
		s.top = nil
		if s.mem > s.limit && len(s.rows) > 1 {
			return s.spill()
		}
		return nil
	}
	s.rows = append(s.rows, row)
	s.mem += spill.RowSize(row) + 8
	if s.mem > s.limit && len(s.rows) > 1 {
		return s.spill()
	}
	return nil
}

// AddAll adds every row of it, and closes it.
func (s *Sorter) AddAll(it RowIter) error { return addAll(it, s.Add) }

// spill writes the gathered rows, sorted, as a run.
func (s *Sorter) spill() error {
	if err := SortCanceling(s.x, s.rows, s.cmp); err != nil {
		return err
	}
	f, err := s.x.NewTempFile("sort")
	if err != nil {
		return err
	}
	s.runs, s.gens = append(s.runs, f), append(s.gens, 0)
	for _, row := range s.rows {
		if err := s.x.Canceled(); err != nil {
			return err
		}
		if err := f.WriteRow(row); err != nil {
			return err
		}
	}
	s.rows, s.mem = nil, 0
	if err := f.Flush(); err != nil {
		return err
	}
	return s.compact()
}

// compact merges the last fanIn runs into one while they are of one
// generation, as a counter carries, so that a long sort has a few runs
// of each generation open, not one for each work_mem of its input. The
// runs merged are consecutive, and so in input order, which keeps the
// sort stable.
func (s *Sorter) compact() error {
	fanIn := MergeFanIn(s.limit)
	for n := len(s.runs); n >= fanIn && s.gens[n-fanIn] == s.gens[n-1]; n = len(s.runs) {
		g := s.gens[n-1]
		f, err := s.mergeInto(s.runs[n-fanIn:])
		s.runs, s.gens = s.runs[:n-fanIn], s.gens[:n-fanIn]
		if err != nil {
			return err
		}
		s.runs, s.gens = append(s.runs, f), append(s.gens, g+1)
	}
	return nil
}

// Finish returns the rows in order. The sorter is spent; the iterator
// owns its runs and removes them when closed. On an error, the sorter has
// removed them.
func (s *Sorter) Finish() (RowIter, error) {
	if s.top != nil {
		rows, err := s.top.Sorted(s.x)
		s.top = nil
		if err != nil {
			return nil, err
		}
		return &SliceIter{Rows: rows}, nil
	}
	if len(s.runs) == 0 {
		rows := s.rows
		s.rows = nil
		if err := SortCanceling(s.x, rows, s.cmp); err != nil {
			return nil, err
		}
		return &SliceIter{Rows: rows}, nil
	}
	if len(s.rows) > 0 {
		if err := s.spill(); err != nil {
			s.Close()
			return nil, err
		}
	}
	runs := s.runs
	s.runs, s.gens = nil, nil
	fanIn := MergeFanIn(s.limit)
	for len(runs) > fanIn {
		// One pass: each group of fanIn runs, in order, into one run.
		var next []*spill.File
		for lo := 0; lo < len(runs); lo += fanIn {
			group := runs[lo:min(lo+fanIn, len(runs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			f, err := s.mergeInto(group)
			if err != nil {
				spill.RemoveAll(next)
				spill.RemoveAll(runs[lo:])
				return nil, err
			}
			next = append(next, f)
		}
		runs = next
	}
	m, err := NewMergeIter(s.x, s.cmp, runs)
	if err != nil {
		spill.RemoveAll(runs)
		return nil, err
	}
	return m, nil
}

// mergeInto merges runs into a new run, and removes them.
func (s *Sorter) mergeInto(runs []*spill.File) (*spill.File, error) {
	m, err := NewMergeIter(s.x, s.cmp, runs)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	f, err := s.x.NewTempFile("sort")
	if err != nil {
		return nil, err
	}
	for {
		row, err := m.Next()
		if err == nil && row != nil {
			err = f.WriteRow(row)
		}
		if err != nil {
			f.Remove()
			return nil, err
		}
		if row == nil {
			break
		}
	}
	if err := f.Flush(); err != nil {
		f.Remove()
		return nil, err
	}
	return f, nil
}

// Close removes the sorter's runs, when its rows are no longer wanted.
func (s *Sorter) Close() {
	spill.RemoveAll(s.runs)
	s.runs, s.gens, s.rows = nil, nil, nil
}

// MergeFanIn is how many runs one merge reads at once: as many read
// buffers as work_mem holds, at least 4, and few enough files open.
func MergeFanIn(limit int64) int {
	return int(min(max(limit/spill.BufSize, 4), 64))
}

// MergeIter merges sorted runs by a heap of their next rows.
type MergeIter struct {
	x     Run
	cmp   func(a, b []any) int
	runs  []*spill.File
	srcs  []*spill.Reader
	heads []MergeHead // a binary heap, least first
}

type MergeHead struct {
	row []any
	src int
}

// NewMergeIter starts merging runs, which it owns from now on: its close
// removes them, and so does a failure to start.
func NewMergeIter(x Run, cmp func(a, b []any) int, runs []*spill.File) (*MergeIter, error) {
	m := &MergeIter{x: x, cmp: cmp, runs: runs}
	for i, f := range runs {
		r := f.Reader(0)
		m.srcs = append(m.srcs, r)
		row, err := r.Next()
		if err != nil {
			m.Close()
			return nil, err
		}
		if row != nil {
			m.heads = append(m.heads, MergeHead{row, i})
			m.up(len(m.heads) - 1)
		}
	}
	return m, nil
}

// less orders two heads by their rows, then by run: the earlier run's
// row first, which keeps the merge stable.
func (m *MergeIter) less(i, j int) bool {
	a, b := m.heads[i], m.heads[j]
	if c := m.cmp(a.row, b.row); c != 0 {
		return c < 0
	}
	return a.src < b.src
}

func (m *MergeIter) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !m.less(i, p) {
			return
		}
		m.heads[i], m.heads[p] = m.heads[p], m.heads[i]
		i = p
	}
}

func (m *MergeIter) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(m.heads) {
			return
		}
		c := l
		if r := l + 1; r < len(m.heads) && m.less(r, l) {
			c = r
		}
		if !m.less(c, i) {
			return
		}
		m.heads[i], m.heads[c] = m.heads[c], m.heads[i]
		i = c
	}
}

func (m *MergeIter) Next() ([]any, error) {
	if len(m.heads) == 0 {
		return nil, nil
	}
	if err := m.x.Canceled(); err != nil {
		return nil, err
	}
	top := m.heads[0]
	row, err := m.srcs[top.src].Next()
	if err != nil {
		return nil, err
	}
	if row != nil {
		m.heads[0].row = row
	} else {
		last := len(m.heads) - 1
		m.heads[0] = m.heads[last]
		m.heads = m.heads[:last]
	}
	m.down(0)
	return top.row, nil
}

func (m *MergeIter) Close() {
	spill.RemoveAll(m.runs)
	m.runs, m.srcs, m.heads = nil, nil, nil
}

// SortIter returns it's rows sorted by cmp, stably, within work_mem; it
// closes it.
func SortIter(x Run, it RowIter, cmp func(a, b []any) int) (RowIter, error) {
	return SortFirst(x, it, cmp, 0)
}

// SortFirst is sortRows when only the first n rows of the output are
// read (0: all of them).
func SortFirst(x Run, it RowIter, cmp func(a, b []any) int, n int64) (RowIter, error) {
	s := NewSorter(x, cmp)
	s.Bounded(n)
	if err := s.AddAll(it); err != nil {
		s.Close()
		return nil, err
	}
	return s.Finish()
}

// ByKeys is the comparison of compareRows by keys.
func ByKeys(keys []SortKey) func(a, b []any) int {
	return func(a, b []any) int { return CompareRows(a, b, keys) }
}

// Gather reads it's rows while they fit in work_mem. If all of them do,
// it returns them and closes it; otherwise it returns those it read and
// it, whose next row is the first one not returned.
func Gather(x Run, it RowIter) (rows [][]any, rest RowIter, err error) {
	limit := x.WorkMem()
	var mem int64
	for {
		row, err := it.Next()
		if err != nil {
			it.Close()
			return nil, nil, err
		}
		if row == nil {
			it.Close()
			return rows, nil, nil
		}
		rows = append(rows, row)
		if mem += spill.RowSize(row) + 8; mem > limit {
			return rows, it, nil
		}
	}
}

// Prepend yields rows, then the rows of it. It lets go of each of rows
// as it yields it.
func Prepend(rows [][]any, it RowIter) RowIter {
	return &FuncIter{F: func() ([]any, error) {
		if len(rows) > 0 {
			row := rows[0]
			rows[0], rows = nil, rows[1:]
			return row, nil
		}
		return it.Next()
	}, Done: it.Close}
}

// TopN keeps the n first rows by cmp of those it is given, ties to the
// earlier row, which is what a stable sort cut after n rows returns: a
// heap whose root is the last of them, which a better row replaces.
type TopN struct {
	cmp   func(a, b []any) int
	n     int64
	seq   int64
	mem   int64
	heads []TopRow
}

type TopRow struct {
	row []any
	seq int64 // the row's place in the input
}

// after reports whether a comes after b in the output.
func (t *TopN) after(a, b TopRow) bool {
	if c := t.cmp(a.row, b.row); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

// Add takes a row, and returns the estimated bytes of the rows kept.
func (t *TopN) Add(row []any) int64 {
	r := TopRow{row, t.seq}
	t.seq++
	if int64(len(t.heads)) < t.n {
		t.heads = append(t.heads, r)
		t.mem += spill.RowSize(row) + 32
		for i := len(t.heads) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.after(t.heads[i], t.heads[p]) {
				break
			}
			t.heads[i], t.heads[p] = t.heads[p], t.heads[i]
			i = p
		}
		return t.mem
	}
	// r came after every row kept, so it must be strictly better than the
	// last of them to take its place.
	if t.cmp(row, t.heads[0].row) >= 0 {
		return t.mem
	}
	t.mem += spill.RowSize(row) - spill.RowSize(t.heads[0].row)
	t.heads[0] = r
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(t.heads) {
			break
		}
		c := l
		if r := l + 1; r < len(t.heads) && t.after(t.heads[r], t.heads[l]) {
			c = r
		}
		if !t.after(t.heads[c], t.heads[i]) {
			break
		}
		t.heads[i], t.heads[c] = t.heads[c], t.heads[i]
		i = c
	}
	return t.mem
}

// InInputOrder returns the rows kept in the order they came.
func (t *TopN) InInputOrder() [][]any {
	slices.SortFunc(t.heads, func(a, b TopRow) int { return cmp.Compare(a.seq, b.seq) })
	rows := make([][]any, len(t.heads))
	for i, h := range t.heads {
		rows[i] = h.row
	}
	return rows
}

// Sorted returns the rows kept in output order.
func (t *TopN) Sorted(x Run) ([][]any, error) {
	rows := t.InInputOrder()
	return rows, SortCanceling(x, rows, t.cmp)
}
