package plan

import (
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// errUnpopulated is the error of reading a materialized view that WITH
// NO DATA left empty.
func errUnpopulated(t *catalog.Table) error {
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "materialized view %q has not been populated", t.Name).
		WithHint("Use the REFRESH MATERIALIZED VIEW command.")
}
