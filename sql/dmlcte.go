package sql

import (
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Data-modifying statements in WITH, as the session plans and runs them:
// sql/plan's dmlcte.go tells how they run.

// planWrite plans an INSERT, UPDATE or DELETE for c.
func (s *Session) planWrite(c *plan.Compiler, st *parser.Statement) (*plan.WritePlan, error) {
	switch n := st.AST.(type) {
	case *ast.InsertStmt:
		return planInsert(c, n, st)
	case *ast.UpdateStmt:
		return planUpdate(c, n, st.Returning)
	case *ast.DeleteStmt:
		return planDelete(c, n, st.Returning)
	}
	return nil, pgerr.New(pgerr.InternalError, "%T is not a data-modifying statement", st.AST)
}

// runWritingQuery runs a query with data-modifying WITH queries to its end
// and returns its rows, held within work_mem, for the caller to read and
// close.
func (s *Session) runWritingQuery(x *plan.ExecCtx, qp plan.QueryPlan, dml []*plan.CTE) (rowexec.RowIter, error) {
	x.FK = &fkState{}
	it, err := qp.Open(x)
	if err != nil {
		return nil, err
	}
	rows := rowexec.NewRowStore(x)
	if err := rows.AddAll(it); err != nil {
		rows.Close()
		return nil, err
	}
	err = plan.FinishDML(x, dml)
	if err == nil {
		err = flushFK(x)
	}
	if err != nil {
		rows.Close()
		return nil, err
	}
	return rowexec.StoreRows(rows), nil
}
