package plan

import (
	"github.com/epochdb/epochdb/sql/types"
)

// Column describes one result column, as RowDescription carries it.
type Column struct {
	Name     string
	Type     types.T
	TableOID uint32 // 0 unless the column comes straight from a table
	AttNum   int16  // the table column's number (1-based), or 0
}
