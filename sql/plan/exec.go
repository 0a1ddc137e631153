package plan

import (
	"context"

	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/txn"
)

// ExecCtx is what a running statement has: its transaction and parameters.
// A subquery in an expression runs in an ExecCtx of its own for each
// evaluation (see subquery.go).
type ExecCtx struct {
	Ctx    context.Context
	Host   Host
	Tx     *txn.Tx
	Params []any
	// outer is the row of the enclosing query a subquery runs for, nil at
	// the top of the statement; outer.x is that query's execution.
	outer *Env
	// cache holds what this execution computes at most once: the rows of
	// its WITH queries and the results of uncorrelated subqueries.
	cache map[any]any
	// steps counts the rows the loops that may run long have handled, for
	// canceled to look at the context now and then.
	steps int
	// fk collects the foreign key checks a writing statement runs when it
	// ends, the sql root package's *fkState; nil where writes owe none
	// (DDL's rewrites of existing rows).
	FK any
	// Triggers collects the AFTER ROW triggers a writing statement owes
	// when it ends, the sql root package's *triggerQueue; nil where there
	// are none.
	Triggers any
	// temp holds the statement's temporary files, in its outermost
	// execution (see temps).
	temp *spill.Set
	// rowless is funcEnv's.
	rowless *Env
	// analysis counts the plan's rows and times under EXPLAIN ANALYZE;
	// nil otherwise. Subqueries' executions share their statement's.
	analysis *Analysis
}

// Canceled reports, every 1024 calls, whether the statement has been
// Canceled (by a CancelRequest or statement_timeout): a loop over rows
// that reads no table, which would notice, calls it.
func (x *ExecCtx) Canceled() error {
	x.steps++
	if x.steps&1023 != 0 {
		return nil
	}
	return x.Ctx.Err()
}

// closeCTEs ends the WITH queries x ran, once x is done: a subquery's
// execution, which may run once per outer row, so that their rows and
// files do not wait for the statement's end.
func (x *ExecCtx) closeCTEs() {
	for _, v := range x.cache {
		if r, ok := v.(*cteRows); ok {
			r.close()
		}
	}
}

// funcEnv is an environment of no row, made once per execution, for
// what asks only the session of it: the aggregates' states.
func (x *ExecCtx) funcEnv() *Env {
	if x.rowless == nil {
		x.rowless = x.Env(nil)
	}
	return x.rowless
}

func (x *ExecCtx) Env(row []any) *Env {
	return &Env{Ctx: x.Ctx, Row: row, params: x.Params, Host: x.Host, x: x}
}

// envAt points *e at row, making it on first use, so that a loop over
// rows allocates one environment rather than one per row. An expression
// keeps nothing of its Env once its value is computed.
func (x *ExecCtx) envAt(e **Env, row []any) *Env {
	if *e == nil || (*e).x != x {
		*e = x.Env(row)
	} else {
		(*e).Row = row
	}
	return *e
}

// envIn is envAt for an environment embedded in the iterator that uses
// it, which then costs no allocation of its own.
func (x *ExecCtx) envIn(e *Env, row []any) *Env {
	if e.x != x {
		*e = Env{Ctx: x.Ctx, params: x.Params, Host: x.Host, x: x}
	}
	e.Row = row
	return e
}

// up returns the execution of the query n levels out from x.
func (x *ExecCtx) up(n int) *ExecCtx {
	for ; n > 0; n-- {
		x = x.outer.x
	}
	return x
}

// Source produces the rows a query reads; planned per statement, opened
// per execution.
type Source interface {
	Open(x *ExecCtx) (rowexec.RowIter, error)
	// Describe is the source as EXPLAIN shows it; e.Node describes its
	// inputs.
	Describe(e *Explainer) *Node
}

// FilterIter keeps rows for which pred is true.
type FilterIter struct {
	In   rowexec.RowIter
	X    *ExecCtx
	Pred Expr
	env  Env
}

func (f *FilterIter) Next() ([]any, error) {
	for {
		row, err := f.In.Next()
		if row == nil || err != nil {
			return nil, err
		}
		if err := f.X.Canceled(); err != nil {
			return nil, err
		}
		v, err := f.Pred.Eval(f.X.envIn(&f.env, row))
		if err != nil {
			return nil, err
		}
		if IsTrue(v) {
			return row, nil
		}
	}
}

func (f *FilterIter) Close() { f.In.Close() }

// ProjectIter computes output columns.
type ProjectIter struct {
	In    rowexec.RowIter
	X     *ExecCtx
	Exprs []Expr
	env   Env
}

func (p *ProjectIter) Next() ([]any, error) {
	row, err := p.In.Next()
	if row == nil || err != nil {
		return nil, err
	}
	e := p.X.envIn(&p.env, row)
	out := make([]any, len(p.Exprs))
	for i, ex := range p.Exprs {
		if out[i], err = ex.Eval(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p *ProjectIter) Close() { p.In.Close() }
