package plan

import (
	"github.com/epochdb/epochdb/sql/rowexec"
)

// Transition tables. A trigger made with REFERENCING OLD TABLE AS o or
// NEW TABLE AS n sees the rows its statement changed as relations named o
// and n, which the queries of its function read like tables (PostgreSQL's
// ephemeral named relations). The Host resolves such a name, unqualified,
// after the WITH queries and before the catalog, while it plans those
// queries; the plan keeps the Transition, and each run reads the rows the
// Transition holds when it opens: the trigger call's.

// Transition is one transition table: its name, its columns (the visible
// columns of the trigger's table) and, during a trigger call, its rows.
type Transition struct {
	Name string
	Cols []Column
	Rows *rowexec.RowStore // nil: no rows
}

// transitionScan reads a transition table.
type transitionScan struct{ tr *Transition }

func (s *transitionScan) Open(*ExecCtx) (rowexec.RowIter, error) {
	if s.tr.Rows == nil {
		return &rowexec.SliceIter{}, nil
	}
	return s.tr.Rows.Cursor(), nil
}

func (s *transitionScan) Describe(e *Explainer) *Node {
	return &Node{Type: "Named Tuplestore Scan", Label: "Named Tuplestore Scan on " + s.tr.Name}
}
