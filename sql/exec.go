package sql

import (
	"context"

	"github.com/epochdb/epochdb/sql/rowexec"

	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/txn"
)

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
	// ends, the sql root package's *fkState; nil where writes owe none
	// (DDL's rewrites of existing rows).
	fk any
	// temp holds the statement's temporary files, in its outermost
	// execution (see temps).
	temp *spill.Set
	// rowless is funcEnv's.
	rowless *env
}

// Canceled reports, every 1024 calls, whether the statement has been
// Canceled (by a CancelRequest or statement_timeout): a loop over rows
// that reads no table, which would notice, calls it.
func (x *execCtx) Canceled() error {
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
	Open(x *execCtx) (rowexec.RowIter, error)
	Explain(indent string) string
}

// filterIter keeps rows for which pred is true.
type filterIter struct {
	in   rowexec.RowIter
	x    *execCtx
	pred expr
}

func (f *filterIter) Next() ([]any, error) {
	for {
		row, err := f.in.Next()
		if row == nil || err != nil {
			return nil, err
		}
		if err := f.x.Canceled(); err != nil {
			return nil, err
		}
		v, err := f.pred.Eval(f.x.env(row))
		if err != nil {
			return nil, err
		}
		if isTrue(v) {
			return row, nil
		}
	}
}
func (f *filterIter) Close() { f.in.Close() }

// projectIter computes output columns.
type projectIter struct {
	in    rowexec.RowIter
	x     *execCtx
	exprs []expr
}

func (p *projectIter) Next() ([]any, error) {
	row, err := p.in.Next()
	if row == nil || err != nil {
		return nil, err
	}
	e := p.x.env(row)
	out := make([]any, len(p.exprs))
	for i, ex := range p.exprs {
		if out[i], err = ex.Eval(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
func (p *projectIter) Close() { p.in.Close() }
