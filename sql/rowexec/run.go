package rowexec

import "github.com/epochdb/epochdb/sql/spill"

// A Run is what an operator asks of the statement it runs in: whether it
// has been canceled, how much memory it may hold before it spills, and
// temporary files to spill to, which the statement removes when it ends.
type Run interface {
	// Canceled reports, every so often, the statement's cancellation
	// (a CancelRequest, statement_timeout): a loop over rows that reads
	// no table, which would notice, calls it.
	Canceled() error
	// WorkMem is the statement's work_mem in bytes.
	WorkMem() int64
	// NewTempFile makes a temporary file of the statement; kind says
	// which operator writes it (sort, hash, store).
	NewTempFile(kind string) (*spill.File, error)
}
