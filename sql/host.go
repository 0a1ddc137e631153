package sql

import (
	"time"

	"github.com/epochdb/epochdb/sql/pgcatalog"
	"github.com/epochdb/epochdb/txn"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
)

// planHost is a Session as the planner and the virtual catalogs see it
// (plan.Host, pgcatalog.Host): the same value under a type whose exported
// methods are theirs, so that they are not the API of Session that pgwire
// and the driver see.
type planHost Session

var _ pgcatalog.Host = (*planHost)(nil)

// host is s as plan.Host.
func (s *Session) host() *planHost { return (*planHost)(s) }

// sessionOf is the Session of the host a plan runs in: the code of this
// package that the planner calls back (writes, the sequence functions,
// the catalog functions) reaches the rest of the session through it.
func sessionOf(h plan.Host) *Session { return (*Session)(h.(*planHost)) }

func (h *planHost) s() *Session { return (*Session)(h) }

func (h *planHost) Catalog() *catalog.Catalog                  { return h.s().catalog() }
func (h *planHost) ParseTypeName(name string) (types.T, error) { return h.s().parseTypeName(name) }

func (h *planHost) Routine(f *catalog.Function, ts *plan.RoutineTypes) (plan.Routine, error) {
	return h.s().routine(f, ts)
}
func (h *planHost) Transition(name string) *plan.Transition {
	for _, tr := range h.s().transitions {
		if tr.Name == name {
			return tr
		}
	}
	return nil
}
func (h *planHost) RegByName(t types.T, name string) (types.Reg, error) {
	return pgcatalog.RegByName(h, t, name)
}
func (h *planHost) RegByOID(t types.T, oid types.Oid) types.Reg {
	return pgcatalog.RegByOID(h, t, oid)
}
func (h *planHost) VirtualRelation(q catalog.QName, alias string) (plan.Source, *plan.Scope, bool) {
	return pgcatalog.VirtualRelation(h, q, alias)
}
func (h *planHost) SearchPath() catalog.Path { return h.s().searchPath() }
func (h *planHost) PartialImplied(t *catalog.Table, where plan.Expr) func(*catalog.Index) int {
	return h.s().partialImplied(t, where)
}
func (h *planHost) PlanWrite(c *plan.Compiler, st *parser.Statement) (*plan.WritePlan, error) {
	return h.s().planWrite(c, st)
}
func (h *planHost) PeekSequence(q *catalog.Sequence) (int64, bool, error) {
	return h.s().peekSequence(q)
}
func (h *planHost) NoteRead(table uint32)               { h.s().noteRead(table) }
func (h *planHost) NoteLocking(word string)             { h.s().noteLocking(word) }
func (h *planHost) NoteWriteCTE(d *plan.CTE)            { h.s().noteWriteCTE(d) }
func (h *planHost) Location() *time.Location            { return h.s().loc() }
func (h *planHost) TransactionTime() time.Time          { return h.s().txnTime() }
func (h *planHost) StatementTime() time.Time            { return h.s().statementTime() }
func (h *planHost) Setting(name string) (string, error) { return h.s().getSetting(name) }
func (h *planHost) SetSetting(name, value string, local bool) error {
	return h.s().setSetting(name, value, local)
}
func (h *planHost) QualifiedName(nsp uint32, name string) string {
	return pgcatalog.QualifiedName(h, nsp, name)
}
func (h *planHost) CurrentSchemas(implicit bool) []any {
	return pgcatalog.CurrentSchemas(h, implicit)
}
func (h *planHost) Identity() builtins.Session { return h.s().identity() }
func (h *planHost) WorkMem() int64             { return h.s().workMem() }
func (h *planHost) NewSpillSet() *spill.Set    { return h.s().newSpillSet() }

func (h *planHost) CompileDefault(col *catalog.TableColumn) (plan.Expr, error) {
	return h.s().compileDefault(col)
}
func (h *planHost) CompileGenerated(t *catalog.Table, col *catalog.TableColumn) (plan.Expr, error) {
	return h.s().compileGenerated(t, col)
}
func (h *planHost) PredicateOf(t *catalog.Table, ix *catalog.Index) (plan.Expr, error) {
	return h.s().predicateOf(t, ix)
}
func (h *planHost) IndexColumnText(t *catalog.Table, i int) string {
	return h.s().indexColumnText(t, i)
}
func (h *planHost) CheckDef(t *catalog.Table, ck *catalog.Check, pretty bool) string {
	return h.s().checkDef(t, ck, pretty)
}
func (h *planHost) FKDef(t *catalog.Table, fk *catalog.ForeignKey) string { return h.s().fkDef(t, fk) }
func (h *planHost) Description(classOID, objOID uint32, subID int32) any {
	return h.s().description(classOID, objOID, subID)
}
func (h *planHost) Settings() []pgcatalog.SettingView { return h.s().settingViews() }
func (h *planHost) Cursors() []pgcatalog.CursorView   { return h.s().cursorViews() }
func (h *planHost) Backends() []pgcatalog.Backend     { return h.s().backends() }
func (h *planHost) Store() *txn.Store                 { return h.s().store() }
func (h *planHost) TempFileStats() *spill.Stats       { return h.s().tempFileStats() }
