package plan

import (
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// planDMLCTE plans d, the WITH query of the statement's i-th
// data-modifying statement. Its markers number their parameters by its
// own ParamOrder.
func (c *Compiler) planDMLCTE(d *Cte, n *ast.CommonTableExpression, i int, recursive bool) error {
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

func (p *dmlCTEPlan) Explain(indent string) string {
	return indent + p.w.Explain()
}

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
func FinishDML(x *ExecCtx, dml []*Cte) error {
	for i := len(dml) - 1; i >= 0; i-- {
		if _, err := dml[i].rowsIn(x); err != nil {
			return err
		}
	}
	return nil
}
