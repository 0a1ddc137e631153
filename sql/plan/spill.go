package plan

import (
	"github.com/epochdb/epochdb/sql/spill"
)

// temps returns the temporary files of x's statement: those of its
// outermost execution.
func (x *ExecCtx) temps() *spill.Set {
	root := x
	for root.temp == nil && root.outer != nil {
		root = root.outer.x
	}
	if root.temp == nil {
		root.temp = x.Host.NewSpillSet()
	}
	return root.temp
}

// CloseTemps removes every temporary file of x's statement still there.
func (x *ExecCtx) CloseTemps() {
	if x != nil && x.temp != nil {
		x.temp.RemoveAll()
	}
}

// WorkMem is the statement's work_mem in bytes.
func (x *ExecCtx) WorkMem() int64 {
	return x.Host.WorkMem()
}

// NewTempFile makes a temporary file for x's statement; kind says which
// operator writes it (sort, hash, store).
func (x *ExecCtx) NewTempFile(kind string) (*spill.File, error) {
	return x.temps().New(kind)
}
