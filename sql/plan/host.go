package plan

import (
	"time"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
)

// Host is what planning and running a statement needs of the session it
// runs in. The sql root package's session is the one Host; the methods
// say what the planner may ask of it, and nothing else reaches it.
type Host interface {
	// Catalog is the catalog statements are planned against.
	Catalog() *catalog.Catalog
	// ParseTypeName resolves a type's name, the session's enums among
	// them.
	ParseTypeName(name string) (types.T, error)
	// RegByName and RegByOID resolve a value of an object identifier type
	// (regclass, regtype, ...) from its text, or name its oid.
	RegByName(t types.T, name string) (types.Reg, error)
	RegByOID(t types.T, oid types.Oid) types.Reg
	// VirtualRelation plans a read of a virtual relation of pg_catalog or
	// information_schema, if q names one.
	VirtualRelation(q catalog.QName, alias string) (Source, *Scope, bool)
	// SearchPath is the session's search_path, resolved.
	SearchPath() catalog.Path
	// PartialImplied returns which of t's partial indexes a scan filtered
	// by where may use: by an index, the number of its predicate's
	// conjuncts where implies, or -1.
	PartialImplied(t *catalog.Table, where Expr) func(*catalog.Index) int
	// PlanWrite plans an INSERT, UPDATE or DELETE of a data-modifying
	// WITH query, compiled by c.
	PlanWrite(c *Compiler, st *parser.Statement) (*WritePlan, error)
	// PeekSequence returns where q has got to: its last value, and
	// whether nextval has taken it.
	PeekSequence(q *catalog.Sequence) (last int64, called bool, err error)

	// NoteRead, NoteLocking and NoteWriteCTE record, for the statement
	// being planned, a table it reads, its first locking clause (FOR
	// UPDATE, ...), and a data-modifying WITH query it holds.
	NoteRead(table uint32)
	NoteLocking(word string)
	NoteWriteCTE(d *CTE)

	// Location is the TimeZone setting; TransactionTime and
	// StatementTime are when the transaction and the statement began.
	Location() *time.Location
	TransactionTime() time.Time
	StatementTime() time.Time
	// Setting and SetSetting read and change a run-time parameter.
	Setting(name string) (string, error)
	SetSetting(name, value string, local bool) error
	// QualifiedName is the name of an object of schema nsp as the search
	// path shows it: qualified unless the path looks in nsp.
	QualifiedName(nsp uint32, name string) string
	// CurrentSchemas is current_schemas(implicit).
	CurrentSchemas(implicit bool) []any
	// Identity is who the session is, for the functions that tell it.
	Identity() builtins.Session

	// Routine is the compiled body of user-defined function f, for a call
	// whose polymorphic types resolved to ts (nil: f's own types).
	Routine(f *catalog.Function, ts *RoutineTypes) (Routine, error)

	// Transition is the transition table called name that the queries
	// being planned may read (see transition.go), or nil.
	Transition(name string) *Transition

	// WorkMem is how many bytes an operator may hold before it spills
	// to temporary files, which NewSpillSet makes a statement's set of.
	WorkMem() int64
	NewSpillSet() *spill.Set
}
