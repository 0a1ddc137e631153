package sql

import (
	"cmp"
	"math"
	"slices"

	"github.com/epochdb/epochdb/sql/spill"
)

// sorter is an external merge sort, stable, bounded by work_mem. Rows are
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
type sorter struct {
	x     *execCtx
	cmp   func(a, b []any) int
	limit int64
	mem   int64 // estimated bytes of rows
	rows  [][]any
	runs  []*spill.File
	gens  []int // gens[i]: how many merges made runs[i]
	top   *topN // while the sort is bounded
}

func newSorter(x *execCtx, cmp func(a, b []any) int) *sorter {
	return &sorter{x: x, cmp: cmp, limit: x.workMem()}
}

// bounded makes the sort keep only the first n rows of its output, while
// they fit in work_mem.
func (s *sorter) bounded(n int64) {
	if n > 0 {
		s.top = &topN{cmp: s.cmp, n: n}
	}
}

// add takes one more row to sort.
func (s *sorter) add(row []any) error {
	if s.top != nil {
		if s.top.add(row) <= s.limit {
			return nil
		}
		// The best rows so far do not fit: they are sorted as any rows
		// are, in the order they came, and so are the rest.
		s.rows, s.mem = s.top.inInputOrder(), s.top.mem
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

// addAll adds every row of it, and closes it.
func (s *sorter) addAll(it rowIter) error {
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

// spill writes the gathered rows, sorted, as a run.
func (s *sorter) spill() error {
	if err := sortCanceling(s.x, s.rows, s.cmp); err != nil {
		return err
	}
	f, err := s.x.newTempFile("sort")
	if err != nil {
		return err
	}
	s.runs, s.gens = append(s.runs, f), append(s.gens, 0)
	for _, row := range s.rows {
		if err := s.x.canceled(); err != nil {
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
func (s *sorter) compact() error {
	fanIn := mergeFanIn(s.limit)
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

// finish returns the rows in order. The sorter is spent; the iterator
// owns its runs and removes them when closed. On an error, the sorter has
// removed them.
func (s *sorter) finish() (rowIter, error) {
	if s.top != nil {
		rows, err := s.top.sorted(s.x)
		s.top = nil
		if err != nil {
			return nil, err
		}
		return &sliceIter{rows: rows}, nil
	}
	if len(s.runs) == 0 {
		rows := s.rows
		s.rows = nil
		if err := sortCanceling(s.x, rows, s.cmp); err != nil {
			return nil, err
		}
		return &sliceIter{rows: rows}, nil
	}
	if len(s.rows) > 0 {
		if err := s.spill(); err != nil {
			s.close()
			return nil, err
		}
	}
	runs := s.runs
	s.runs, s.gens = nil, nil
	fanIn := mergeFanIn(s.limit)
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
	m, err := newMergeIter(s.x, s.cmp, runs)
	if err != nil {
		spill.RemoveAll(runs)
		return nil, err
	}
	return m, nil
}

// mergeInto merges runs into a new run, and removes them.
func (s *sorter) mergeInto(runs []*spill.File) (*spill.File, error) {
	m, err := newMergeIter(s.x, s.cmp, runs)
	if err != nil {
		return nil, err
	}
	defer m.close()
	f, err := s.x.newTempFile("sort")
	if err != nil {
		return nil, err
	}
	for {
		row, err := m.next()
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

// close removes the sorter's runs, when its rows are no longer wanted.
func (s *sorter) close() {
	spill.RemoveAll(s.runs)
	s.runs, s.gens, s.rows = nil, nil, nil
}

// mergeFanIn is how many runs one merge reads at once: as many read
// buffers as work_mem holds, at least 4, and few enough files open.
func mergeFanIn(limit int64) int {
	return int(min(max(limit/spill.BufSize, 4), 64))
}

// mergeIter merges sorted runs by a heap of their next rows.
type mergeIter struct {
	x     *execCtx
	cmp   func(a, b []any) int
	runs  []*spill.File
	srcs  []*spill.Reader
	heads []mergeHead // a binary heap, least first
}

type mergeHead struct {
	row []any
	src int
}

// newMergeIter starts merging runs, which it owns from now on: its close
// removes them, and so does a failure to start.
func newMergeIter(x *execCtx, cmp func(a, b []any) int, runs []*spill.File) (*mergeIter, error) {
	m := &mergeIter{x: x, cmp: cmp, runs: runs}
	for i, f := range runs {
		r := f.Reader(0)
		m.srcs = append(m.srcs, r)
		row, err := r.Next()
		if err != nil {
			m.close()
			return nil, err
		}
		if row != nil {
			m.heads = append(m.heads, mergeHead{row, i})
			m.up(len(m.heads) - 1)
		}
	}
	return m, nil
}

// less orders two heads by their rows, then by run: the earlier run's
// row first, which keeps the merge stable.
func (m *mergeIter) less(i, j int) bool {
	a, b := m.heads[i], m.heads[j]
	if c := m.cmp(a.row, b.row); c != 0 {
		return c < 0
	}
	return a.src < b.src
}

func (m *mergeIter) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !m.less(i, p) {
			return
		}
		m.heads[i], m.heads[p] = m.heads[p], m.heads[i]
		i = p
	}
}

func (m *mergeIter) down(i int) {
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

func (m *mergeIter) next() ([]any, error) {
	if len(m.heads) == 0 {
		return nil, nil
	}
	if err := m.x.canceled(); err != nil {
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

func (m *mergeIter) close() {
	spill.RemoveAll(m.runs)
	m.runs, m.srcs, m.heads = nil, nil, nil
}

// sortRows returns it's rows sorted by cmp, stably, within work_mem; it
// closes it.
func sortRows(x *execCtx, it rowIter, cmp func(a, b []any) int) (rowIter, error) {
	return sortFirst(x, it, cmp, 0)
}

// sortFirst is sortRows when only the first n rows of the output are
// read (0: all of them).
func sortFirst(x *execCtx, it rowIter, cmp func(a, b []any) int, n int64) (rowIter, error) {
	s := newSorter(x, cmp)
	s.bounded(n)
	if err := s.addAll(it); err != nil {
		s.close()
		return nil, err
	}
	return s.finish()
}

// byKeys is the comparison of compareRows by keys.
func byKeys(keys []sortKey) func(a, b []any) int {
	return func(a, b []any) int { return compareRows(a, b, keys) }
}

// gather reads it's rows while they fit in work_mem. If all of them do,
// it returns them and closes it; otherwise it returns those it read and
// it, whose next row is the first one not returned.
func gather(x *execCtx, it rowIter) (rows [][]any, rest rowIter, err error) {
	limit := x.workMem()
	var mem int64
	for {
		row, err := it.next()
		if err != nil {
			it.close()
			return nil, nil, err
		}
		if row == nil {
			it.close()
			return rows, nil, nil
		}
		rows = append(rows, row)
		if mem += spill.RowSize(row) + 8; mem > limit {
			return rows, it, nil
		}
	}
}

// prepend yields rows, then the rows of it. It lets go of each of rows
// as it yields it.
func prepend(rows [][]any, it rowIter) rowIter {
	return &funcIter{f: func() ([]any, error) {
		if len(rows) > 0 {
			row := rows[0]
			rows[0], rows = nil, rows[1:]
			return row, nil
		}
		return it.next()
	}, done: it.close}
}

// topN keeps the n first rows by cmp of those it is given, ties to the
// earlier row, which is what a stable sort cut after n rows returns: a
// heap whose root is the last of them, which a better row replaces.
type topN struct {
	cmp   func(a, b []any) int
	n     int64
	seq   int64
	mem   int64
	heads []topRow
}

type topRow struct {
	row []any
	seq int64 // the row's place in the input
}

// after reports whether a comes after b in the output.
func (t *topN) after(a, b topRow) bool {
	if c := t.cmp(a.row, b.row); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

// add takes a row, and returns the estimated bytes of the rows kept.
func (t *topN) add(row []any) int64 {
	r := topRow{row, t.seq}
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

// inInputOrder returns the rows kept in the order they came.
func (t *topN) inInputOrder() [][]any {
	slices.SortFunc(t.heads, func(a, b topRow) int { return cmp.Compare(a.seq, b.seq) })
	rows := make([][]any, len(t.heads))
	for i, h := range t.heads {
		rows[i] = h.row
	}
	return rows
}

// sorted returns the rows kept in output order.
func (t *topN) sorted(x *execCtx) ([][]any, error) {
	rows := t.inInputOrder()
	return rows, sortCanceling(x, rows, t.cmp)
}

// rowsRead is how many rows of its input a LIMIT and OFFSET read, or 0 if
// that is not known before the input is (either is computed from the
// rows, or is NULL or negative, which window reports) or is every row.
func rowsRead(x *execCtx, limit, offset expr) int64 {
	if limit == nil || !rowIndependent(limit) || offset != nil && !rowIndependent(offset) {
		return 0
	}
	v, err := limit.eval(x.env(nil))
	take, ok := v.(int64)
	if err != nil || !ok || take < 0 {
		return 0
	}
	var skip int64
	if offset != nil {
		v, err := offset.eval(x.env(nil))
		if err != nil {
			return 0
		}
		if v != nil {
			if skip = v.(int64); skip < 0 {
				return 0
			}
		}
	}
	if take > math.MaxInt64-skip {
		return 0
	}
	return take + skip
}
