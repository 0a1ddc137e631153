package plan

import (
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Data-modifying statements in WITH.
//
// WITH d AS (DELETE ... RETURNING ...) runs an INSERT, UPDATE or DELETE
// whose RETURNING rows are the WITH query's rows. Only the statement's own
// WITH clause may hold one (the parser sees to that), so the rows belong
// to the statement's one execution.
//
// As in PostgreSQL, each runs exactly once and to completion: when the
// main statement first reads it, or else after the main statement, the
// later WITH queries first. A SELECT with such WITH queries runs all of it
// before it returns its first row. Every part reads the statement's
// snapshot: none sees the rows the others write, only RETURNING passes
// them on. The parts write under numbers of their own (txn's
// StatementPart), so that an UPDATE or DELETE that meets a row another
// part already changed leaves it alone, as PostgreSQL does a row its
// command already modified.

// planDMLCTE plans d, the WITH query of the statement's i-th
// data-modifying statement. Its markers number their parameters by its
// own ParamOrder.
func (c *Compiler) planDMLCTE(d *CTE, n *ast.CommonTableExpression, i int, recursive bool) error {
	if i < 0 || i >= len(c.WithDML) {
		return pgerr.New(pgerr.InternalError, "data-modifying WITH query %d is missing", i)
	}
	st := c.WithDML[i]
	if recursive && readsTable(st.AST, d.name) {
		return pgerr.New(pgerr.InvalidRecursion, "recursive query %q must not contain data-modifying statements", d.name)
	}
	cc := *c
	cc.Order, cc.WithDML = st.ParamOrder, nil
	w, err := c.Host.PlanWrite(&cc, st)
	if err != nil {
		return err
	}
	if d.cols, err = cteColumns(d, n, w.Cols); err != nil {
		return err
	}
	for i := range d.cols {
		d.cols[i].TableOID, d.cols[i].AttNum = 0, 0
	}
	d.Write = w
	d.plan = &dmlCTEPlan{w: w, cols: d.cols}
	c.Host.NoteWriteCTE(d)
	return nil
}

// dmlCTEPlan runs a data-modifying WITH query's statement, all of it.
type dmlCTEPlan struct {
	w    *WritePlan
	cols []Column
}

func (p *dmlCTEPlan) Columns() []Column { return p.cols }

func (p *dmlCTEPlan) Describe(e *Explainer) *Node { return p.w.Describe(e) }

func (p *dmlCTEPlan) Open(x *ExecCtx) (rowexec.RowIter, error) {
	end := x.Tx.StatementPart()
	rows, _, err := p.w.Run(x)
	end()
	if err != nil {
		return nil, err
	}
	if rows == nil {
		return &rowexec.SliceIter{}, nil
	}
	return rowexec.StoreRows(rows), nil
}

// FinishDML runs the data-modifying WITH queries that the main statement
// did not read, the later ones first, as PostgreSQL does.
func FinishDML(x *ExecCtx, dml []*CTE) error {
	for i := len(dml) - 1; i >= 0; i-- {
		if _, err := dml[i].rowsIn(x); err != nil {
			return err
		}
	}
	return nil
}

// WritePlan is a planned INSERT, UPDATE or DELETE. run performs every write
// and returns the RETURNING rows (nil without RETURNING), which the
// caller reads and closes, and the number of rows affected.
type WritePlan struct {
	Verb      string
	Table     *catalog.Table
	Returning []Expr
	Cols      []Column
	Run       func(x *ExecCtx) (rows *rowexec.RowStore, n int64, err error)
	// Describe is the statement as EXPLAIN shows it.
	Describe func(e *Explainer) *Node
}

// Returned collects the RETURNING rows of a run, within work_mem.
func (p *WritePlan) Returned(x *ExecCtx) *rowexec.RowStore {
	if p.Returning == nil {
		return nil
	}
	return rowexec.NewRowStore(x)
}

// FailRun ends a run that failed: its RETURNING rows are not wanted.
func FailRun(out *rowexec.RowStore, err error) (*rowexec.RowStore, int64, error) {
	if out != nil {
		out.Close()
	}
	return nil, 0, err
}

func (p *WritePlan) Project(x *ExecCtx, row []any) ([]any, error) {
	out := make([]any, len(p.Returning))
	e := x.Env(row)
	for i, r := range p.Returning {
		var err error
		if out[i], err = r.Eval(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
