package sql

import (
	"github.com/epochdb/epochdb/sql/parser"
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

// planWrite plans an INSERT, UPDATE or DELETE for c.
func (s *Session) planWrite(c *compiler, st *parser.Statement) (*writePlan, error) {
	switch n := st.AST.(type) {
	case *ast.InsertStmt:
		return c.planInsert(n, st)
	case *ast.UpdateStmt:
		return c.planUpdate(n, st.Returning)
	case *ast.DeleteStmt:
		return c.planDelete(n, st.Returning)
	}
	return nil, pgerr.New(pgerr.InternalError, "%T is not a data-modifying statement", st.AST)
}

// planDMLCTE plans d, the WITH query of the statement's i-th
// data-modifying statement. Its markers number their parameters by its
// own ParamOrder.
func (c *compiler) planDMLCTE(d *cte, n *ast.CommonTableExpression, i int, recursive bool) error {
	if i < 0 || i >= len(c.withDML) {
		return pgerr.New(pgerr.InternalError, "data-modifying WITH query %d is missing", i)
	}
	st := c.withDML[i]
	if recursive && readsTable(st.AST, d.name) {
		return pgerr.New(pgerr.InvalidRecursion, "recursive query %q must not contain data-modifying statements", d.name)
	}
	cc := *c
	cc.order, cc.withDML = st.ParamOrder, nil
	w, err := c.s.planWrite(&cc, st)
	if err != nil {
		return err
	}
	if d.cols, err = cteColumns(d, n, w.cols); err != nil {
		return err
	}
	for i := range d.cols {
		d.cols[i].TableOID, d.cols[i].AttNum = 0, 0
	}
	d.write = w
	d.plan = &dmlCTEPlan{w: w, cols: d.cols}
	c.s.noteWriteCTE(d)
	return nil
}

// dmlCTEPlan runs a data-modifying WITH query's statement, all of it.
type dmlCTEPlan struct {
	w    *writePlan
	cols []Column
}

func (p *dmlCTEPlan) Columns() []Column { return p.cols }

func (p *dmlCTEPlan) Explain(indent string) string {
	return indent + p.w.explain()
}

func (p *dmlCTEPlan) Open(x *execCtx) (rowexec.RowIter, error) {
	end := x.tx.StatementPart()
	rows, _, err := p.w.run(x)
	end()
	if err != nil {
		return nil, err
	}
	if rows == nil {
		return &rowexec.SliceIter{}, nil
	}
	return rowexec.StoreRows(rows), nil
}

// finishDML runs the data-modifying WITH queries that the main statement
// did not read, the later ones first, as PostgreSQL does.
func finishDML(x *execCtx, dml []*cte) error {
	for i := len(dml) - 1; i >= 0; i-- {
		if _, err := dml[i].rowsIn(x); err != nil {
			return err
		}
	}
	return nil
}

// runWritingQuery runs a query with data-modifying WITH queries to its end
// and returns its rows, held within work_mem, for the caller to read and
// close.
func (s *Session) runWritingQuery(x *execCtx, qp queryPlan, dml []*cte) (rowexec.RowIter, error) {
	x.fk = &fkState{}
	it, err := qp.Open(x)
	if err != nil {
		return nil, err
	}
	rows := rowexec.NewRowStore(x)
	if err := rows.AddAll(it); err != nil {
		rows.Close()
		return nil, err
	}
	err = finishDML(x, dml)
	if err == nil {
		err = x.flushFK()
	}
	if err != nil {
		rows.Close()
		return nil, err
	}
	return rowexec.StoreRows(rows), nil
}
