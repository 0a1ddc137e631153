package plan

import (
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/rowexec"
)

// WritePlan is a planned INSERT, UPDATE or DELETE. run performs every write
// and returns the RETURNING rows (nil without RETURNING), which the
// caller reads and closes, and the number of rows affected.
type WritePlan struct {
	Verb      string
	Table     *catalog.Table
	Returning []Expr
	Cols      []Column
	Run       func(x *ExecCtx) (rows *rowexec.RowStore, n int64, err error)
	Explain   func() string
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
