package pgcatalog

import (
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/txn"
)

// Host is what the virtual catalogs and the catalog functions read of the
// session they answer in: what the planner reads (plan.Host), and what
// only DDL knows how to print or the engine counts. The sql root
// package's session is the one Host.
type Host interface {
	plan.Host

	// CompileDefault, CompileGenerated and PredicateOf compile a column's
	// default, a generated column's expression and a partial index's
	// predicate, as the session caches them; IndexColumnText prints an
	// index's column i of t as pg_get_indexdef does.
	CompileDefault(col *catalog.TableColumn) (plan.Expr, error)
	CompileGenerated(t *catalog.Table, col *catalog.TableColumn) (plan.Expr, error)
	PredicateOf(t *catalog.Table, ix *catalog.Index) (plan.Expr, error)
	IndexColumnText(t *catalog.Table, i int) string
	// CheckDef and FKDef are pg_get_constraintdef of a CHECK constraint
	// and of a foreign key.
	CheckDef(t *catalog.Table, ck *catalog.Check, pretty bool) string
	FKDef(t *catalog.Table, fk *catalog.ForeignKey) string
	// Description is the comment on an object (obj_description), or nil.
	Description(classOID, objOID uint32, subID int32) any

	// Settings are the run-time parameters as pg_settings shows them,
	// Cursors the session's cursors as pg_cursors does.
	Settings() []SettingView
	Cursors() []CursorView
	// Backends are the engine's sessions, Store its storage and
	// TempFileStats its statements' temporary files, for the views of
	// its activity and statistics.
	Backends() []Backend
	Store() *txn.Store
	TempFileStats() *spill.Stats
}

// hostOf is the Host a plan's expressions run in, as the catalog
// functions see it.
func hostOf(h plan.Host) Host { return h.(Host) }
