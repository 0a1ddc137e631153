package sql

import (
	"context"

	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

// rowIter yields rows; next returns nil, nil at the end.
type rowIter interface {
	next() ([]any, error)
	close()
}

// execCtx is what a running statement has: its transaction and parameters.
// A subquery in an expression runs in an execCtx of its own for each
// evaluation (see subquery.go).
type execCtx struct {
	ctx    context.Context
	s      *Session
	tx     *txn.Tx
	params []any
	// outer is the row of the enclosing query a subquery runs for, nil at
	// the top of the statement; outer.x is that query's execution.
	outer *env
	// cache holds what this execution computes at most once: the rows of
	// its WITH queries and the results of uncorrelated subqueries.
	cache map[any]any
	// steps counts the rows the loops that may run long have handled, for
	// canceled to look at the context now and then.
	steps int
	// fk collects the foreign key checks a writing statement runs when it
	// ends; nil where writes owe none (DDL's rewrites of existing rows).
	fk *fkState
	// temp holds the statement's temporary files, in its outermost
	// execution (see temps).
	temp *spill.Set
	// rowless is funcEnv's.
	rowless *env
}

// canceled reports, every 1024 calls, whether the statement has been
// canceled (by a CancelRequest or statement_timeout): a loop over rows
// that reads no table, which would notice, calls it.
func (x *execCtx) canceled() error {
	x.steps++
	if x.steps&1023 != 0 {
		return nil
	}
	return x.ctx.Err()
}

// closeCTEs ends the WITH queries x ran, once x is done: a subquery's
// execution, which may run once per outer row, so that their rows and
// files do not wait for the statement's end.
func (x *execCtx) closeCTEs() {
	for _, v := range x.cache {
		if r, ok := v.(*cteRows); ok {
			r.close()
		}
	}
}

// funcEnv is an environment of no row, made once per execution, for
// what asks only the session of it: the aggregates' states.
func (x *execCtx) funcEnv() *env {
	if x.rowless == nil {
		x.rowless = x.env(nil)
	}
	return x.rowless
}

func (x *execCtx) env(row []any) *env {
	return &env{ctx: x.ctx, row: row, params: x.params, s: x.s, x: x}
}

// up returns the execution of the query n levels out from x.
func (x *execCtx) up(n int) *execCtx {
	for ; n > 0; n-- {
		x = x.outer.x
	}
	return x
}

// source produces the rows a query reads; planned per statement, opened
// per execution.
type source interface {
	open(x *execCtx) (rowIter, error)
	explain(indent string) string
}

// sliceIter yields rows from a slice.
type sliceIter struct {
	rows [][]any
	i    int
}

func (s *sliceIter) next() ([]any, error) {
	if s.i >= len(s.rows) {
		return nil, nil
	}
	s.i++
	return s.rows[s.i-1], nil
}
func (s *sliceIter) close() {}

// funcIter adapts a closure.
type funcIter struct {
	f    func() ([]any, error)
	done func()
}

func (f *funcIter) next() ([]any, error) { return f.f() }
func (f *funcIter) close() {
	if f.done != nil {
		f.done()
	}
}

// filterIter keeps rows for which pred is true.
type filterIter struct {
	in   rowIter
	x    *execCtx
	pred expr
}

func (f *filterIter) next() ([]any, error) {
	for {
		row, err := f.in.next()
		if row == nil || err != nil {
			return nil, err
		}
		if err := f.x.canceled(); err != nil {
			return nil, err
		}
		v, err := f.pred.eval(f.x.env(row))
		if err != nil {
			return nil, err
		}
		if isTrue(v) {
			return row, nil
		}
	}
}
func (f *filterIter) close() { f.in.close() }

// projectIter computes output columns.
type projectIter struct {
	in    rowIter
	x     *execCtx
	exprs []expr
}

func (p *projectIter) next() ([]any, error) {
	row, err := p.in.next()
	if row == nil || err != nil {
		return nil, err
	}
	e := p.x.env(row)
	out := make([]any, len(p.exprs))
	for i, ex := range p.exprs {
		if out[i], err = ex.eval(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
func (p *projectIter) close() { p.in.close() }

// sortKey is one ORDER BY item over a projected row.
type sortKey struct {
	idx        int
	t          types.T
	desc       bool
	nullsFirst bool
}

// compareRows orders two rows by keys, as PostgreSQL orders: NULLs last
// ascending and first descending, unless NULLS FIRST/LAST says otherwise.
func compareRows(a, b []any, keys []sortKey) int {
	for _, k := range keys {
		x, y := a[k.idx], b[k.idx]
		var c int
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			c = 1
			if k.nullsFirst {
				c = -1
			}
		case y == nil:
			c = -1
			if k.nullsFirst {
				c = 1
			}
		default:
			c = types.Compare(k.t, x, y)
			if k.desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// sortRowsCanceling sorts rows stably by keys (see compareRows), and gives
// up with the statement's error once it is canceled.
func sortRowsCanceling(x *execCtx, rows [][]any, keys []sortKey) error {
	return sortCanceling(x, rows, func(a, b []any) int { return compareRows(a, b, keys) })
}

// sortCanceling sorts rows stably by cmp, and gives up with the
// statement's error once it is canceled. It is a bottom-up merge sort,
// which can look at the context between any two steps, where the sort
// package's sorts cannot be stopped.
func sortCanceling(x *execCtx, rows [][]any, cmp func(a, b []any) int) error {
	const run = 16 // rows sorted by insertion before the merging starts
	n := len(rows)
	for lo := 0; lo < n; lo += run {
		chunk := rows[lo:min(lo+run, n)]
		for i := 1; i < len(chunk); i++ {
			for j := i; j > 0 && cmp(chunk[j-1], chunk[j]) > 0; j-- {
				chunk[j-1], chunk[j] = chunk[j], chunk[j-1]
			}
		}
		if err := x.canceled(); err != nil {
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
				if err := x.canceled(); err != nil {
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

// drain reads every row of it.
func drain(it rowIter) ([][]any, error) {
	defer it.close()
	var rows [][]any
	for {
		row, err := it.next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			return rows, nil
		}
		rows = append(rows, row)
	}
}
