package sql

import (
	"context"
	"errors"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/rowexec"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// EngineOptions configure an Engine.
type EngineOptions struct {
	// Superuser is the one role's name. Default "epochdb".
	Superuser string
	// TempDir is where statements whose sorts and hash tables outgrow
	// work_mem write their temporary files. Default os.TempDir().
	TempDir string
}

// Engine is the SQL layer over a txn.Store: the catalog, the planner and
// the executor. Sessions share it.
type Engine struct {
	store  *txn.Store
	opts   EngineOptions
	cat    atomic.Pointer[catalog.Catalog]
	seqs   *catalog.Sequences
	locks  *tableLocks
	notify *notifyHub
	// sessions holds the open sessions by pid, for the views that say
	// which session does what (epochdb_stat_reclaim).
	sessions sync.Map
	// temp counts the statements' temporary files (see spill.go), which
	// createTemp makes.
	temp       spill.Stats
	createTemp func(dir, pattern string) (spill.OSFile, error)
	// tempSlots numbers the sessions' temporary schemas (see temp.go).
	tempSlots tempSlots
}

// DatabaseName is the one database; "postgres" is accepted as an alias
// because many tools connect there by default.
const DatabaseName = "epochdb"

// NewEngine loads the catalog from store.
func NewEngine(store *txn.Store, opts EngineOptions) (*Engine, error) {
	if opts.Superuser == "" {
		opts.Superuser = "epochdb"
	}
	if opts.TempDir == "" {
		opts.TempDir = os.TempDir()
	}
	e := &Engine{store: store, opts: opts, seqs: &catalog.Sequences{Store: store, State: map[uint32]*catalog.SeqState{}}, locks: newTableLocks(),
		notify: newNotifyHub(), createTemp: spill.CreateTemp}
	if err := e.reloadCatalog(); err != nil {
		return nil, err
	}
	if err := e.dropStaleTemp(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Engine) reloadCatalog() error {
	tx := e.store.Begin(txn.ReadCommitted)
	defer tx.Rollback()
	cat, err := catalog.Load(tx)
	if err != nil {
		return err
	}
	// Sessions reload concurrently; never go back to an older catalog.
	for {
		cur := e.cat.Load()
		if cur != nil && cur.Version >= cat.Version {
			return nil
		}
		if e.cat.CompareAndSwap(cur, cat) {
			return nil
		}
	}
}

func (e *Engine) versionString() string {
	return "PostgreSQL " + serverVersion + " (epochdb) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"
}

// Session is one client's conversation with the engine: its settings, its
// transaction, its cursors.
type Session struct {
	e        *Engine
	user     string
	database string
	pid      int32
	// owner holds the session's advisory locks, and begins its
	// transactions (see advisory.go).
	owner *txn.Owner
	// activity is what other sessions' views read of this one: the
	// statement it runs and its transaction's id.
	activity struct {
		query atomic.Pointer[string]
		txn   atomic.Uint64
	}
	noticeFn func(*pgerr.Error)
	// triggerDepth is how many triggers are running, for
	// pg_trigger_depth().
	triggerDepth int
	// notifyFn receives the notifications of the channels the session
	// listens on, from the committing session's goroutine.
	notifyFn func(Notification)
	// deferredFK holds the checks of deferred foreign keys until the
	// transaction commits, and constraintModes what SET CONSTRAINTS said
	// in it (see deferred.go).
	deferredFK      fkState
	constraintModes *constraintModes
	// listenOps and notifies wait for the transaction to commit (see
	// notify.go).
	listenOps []listenOp
	notifies  []Notification

	keyBuf, valBuf []byte                         // scratch for writeRow
	planReads      []uint32                       // the tables the statement being planned reads
	planDepth      int                            // how many plan calls are under way
	planLocks      string                         // the first locking clause the statement being planned has
	planDML        []*plan.CTE                    // the data-modifying WITH queries of the statement being planned
	checkCache     map[*catalog.Table][]plan.Expr // compiled CHECK constraints, by table
	genCache       map[*catalog.Table][]plan.Expr // compiled generation expressions, by table and column
	predCache      map[predicateKey]plan.Expr     // compiled partial index predicates

	settings map[string]string // by canonical name
	startup  map[string]string // the settings as the session began, for RESET
	// pathCache is search_path as last resolved (see schema.go).
	pathCache pathCache
	// tempSlot numbers the session's temporary schema, which tempMade
	// says it has made; onCommit holds what commits do to its temporary
	// tables made with ON COMMIT, by table id (see temp.go).
	tempSlot int
	tempMade bool
	onCommit map[uint32]onCommitAction
	// routines are the routines the session has compiled (see routine.go).
	routines routineCache
	// transitions are the transition tables the statements being
	// planned may read: a trigger function's, while it plans its own.
	transitions []*plan.Transition
	changed     map[string]bool
	loc_        *time.Location

	// The transaction. tx is nil between transactions. explicit is a
	// BEGIN block; otherwise tx is the implicit transaction that the next
	// Sync ends. failed means a statement failed in it.
	tx        *txn.Tx
	explicit  bool
	failed    bool
	ddlState  *catalog.DDL // the transaction changed the catalog
	txnStart  time.Time
	stmtStart time.Time
	cursors   map[string]*cursor // see cursor.go
	// reading are the portals whose rows still come from their query's
	// scans, which settleReaders reads ahead (see cursor.go).
	reading map[*Portal]bool
	// sqlPrepared holds the statements of SQL-level PREPARE, by name.
	sqlPrepared map[string]*Prepared
	// savepoints are the open savepoints, outermost first; the depth of
	// savepoints[i] in the transaction is i+1.
	savepoints []savepoint
	// currvals holds, by sequence id, the value nextval last returned in
	// this session, for currval.
	currvals map[uint32]int64
	// txnPrior holds the value each setting the transaction changed had
	// when it began, for a rollback; localPrior the value each setting
	// changed by SET LOCAL (and not by a later SET) returns to at commit.
	txnPrior, localPrior map[string]string
	// readOnly is the transaction's READ ONLY mode; queried says that a
	// statement other than SET or SHOW ran in it, which fixes its
	// isolation level.
	readOnly, queried bool
}

// savepoint is an open savepoint, with the settings to go back to.
type savepoint struct {
	name                 string
	settings, localPrior map[string]string
	// notifies and listenOps count the transaction's NOTIFY and
	// LISTEN/UNLISTEN before the savepoint: a rollback to it drops the rest.
	notifies, listenOps int
	deferred            deferredState
}

// NewSession starts a session; an unknown database is 3D000.
func (e *Engine) NewSession(p SessionParams) (*Session, error) {
	if p.Database != "" && p.Database != DatabaseName && p.Database != "postgres" {
		return nil, pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", p.Database)
	}
	s := &Session{
		e: e, user: e.opts.Superuser, database: DatabaseName, pid: p.PID, noticeFn: p.Notice, notifyFn: p.Notify,
		owner:    e.store.NewOwner(),
		settings: make(map[string]string), changed: make(map[string]bool), cursors: make(map[string]*cursor), reading: make(map[*Portal]bool),
		sqlPrepared: make(map[string]*Prepared),
		currvals:    make(map[uint32]int64), txnPrior: make(map[string]string), localPrior: make(map[string]string),
		onCommit: make(map[uint32]onCommitAction),
	}
	if p.Database == "postgres" {
		s.database = "postgres"
	}
	for _, st := range settingList {
		s.settings[st.name] = st.def
	}
	s.settings["session_authorization"] = s.user
	for k, v := range p.Options {
		if k == "user" || k == "database" || k == "options" || k == "replication" {
			continue
		}
		if err := s.setSetting(k, v, false); err != nil {
			return nil, err
		}
	}
	clear(s.changed)
	s.startup = maps.Clone(s.settings)
	s.tempSlot = e.tempSlots.take()
	e.sessions.Store(s, struct{}{})
	return s, nil
}

// Close ends the session, rolling back an open transaction, dropping its
// temporary objects and giving up its advisory locks.
func (s *Session) Close() {
	s.e.sessions.Delete(s)
	s.closeCursors(func(*cursor) bool { return true })
	s.e.notify.apply(s, []listenOp{{off: true}})
	if s.tx != nil {
		_ = s.endTxn(false)
	}
	s.closeTemp()
	s.owner.Close()
}

// notice sends a NOTICE; code is the SQLSTATE PostgreSQL gives it (that
// of the error an IF [NOT] EXISTS avoided, say).
func (s *Session) notice(code, format string, args ...any) {
	s.sendNotice(pgerr.New(code, format, args...))
}

// sendNotice sends e, which may carry a DETAIL, as a NOTICE.
func (s *Session) sendNotice(e *pgerr.Error) {
	if s.noticeFn != nil {
		e.Severity = "NOTICE"
		s.noticeFn(e)
	}
}

func (s *Session) warning(code, format string, args ...any) {
	if s.noticeFn != nil {
		e := pgerr.New(code, format, args...)
		e.Severity = "WARNING"
		s.noticeFn(e)
	}
}

// StatusParams returns every parameter reported to the client.
func (s *Session) StatusParams() map[string]string {
	m := make(map[string]string)
	for _, st := range settingList {
		if st.reported {
			m[st.name] = s.settings[st.name]
		}
	}
	return m
}

// ChangedParams returns the reported parameters changed since the last call.
func (s *Session) ChangedParams() map[string]string {
	if len(s.changed) == 0 {
		return nil
	}
	m := make(map[string]string, len(s.changed))
	for name := range s.changed {
		m[name] = s.settings[name]
	}
	clear(s.changed)
	return m
}

func (s *Session) getSetting(name string) (string, error) {
	st, err := lookupSetting(name)
	if err != nil {
		return "", err
	}
	if st.name == "transaction_isolation" && s.tx != nil {
		return s.tx.Isolation().String(), nil
	}
	if st.name == "transaction_read_only" && s.tx != nil {
		if s.readOnly {
			return "on", nil
		}
		return "off", nil
	}
	return s.settings[st.name], nil
}

func (s *Session) setSetting(name, value string, local bool) error {
	st, err := lookupSetting(name)
	if err != nil {
		return err
	}
	if st.readOnly {
		if s.settings[st.name] == value {
			return nil
		}
		return pgerr.New(pgerr.CantChangeRuntimeParam, "parameter %q cannot be changed", st.name)
	}
	if st.check != nil {
		if value, err = st.check(value); err != nil {
			return err
		}
	}
	// Settings are transactional: a rollback undoes them, and SET LOCAL
	// lasts until the transaction ends.
	if s.tx != nil {
		if _, ok := s.txnPrior[st.name]; !ok {
			s.txnPrior[st.name] = s.settings[st.name]
		}
		if !local {
			delete(s.localPrior, st.name)
		} else if _, ok := s.localPrior[st.name]; !ok {
			s.localPrior[st.name] = s.settings[st.name]
		}
	}
	s.assign(st, value)
	return nil
}

func (s *Session) assign(st *setting, value string) {
	if s.settings[st.name] != value && st.reported {
		s.changed[st.name] = true
	}
	s.settings[st.name] = value
	if st.name == "TimeZone" {
		s.loc_ = nil
	}
}

// endSettings ends the transaction's changes to settings: a commit keeps
// them, except those SET LOCAL made; a rollback undoes them all.
func (s *Session) endSettings(commit bool) {
	restore := s.txnPrior
	if commit {
		restore = s.localPrior
	}
	for name, v := range restore {
		s.assign(settingsByName[strings.ToLower(name)], v)
	}
	clear(s.txnPrior)
	clear(s.localPrior)
}

// loc is the session's TimeZone.
func (s *Session) loc() *time.Location {
	if s.loc_ == nil {
		loc, err := loadLocation(s.settings["TimeZone"])
		if err != nil {
			loc = time.UTC
		}
		s.loc_ = loc
	}
	return s.loc_
}

// Location is the session's TimeZone, in which timestamptz values are
// shown and read.
func (s *Session) Location() *time.Location { return s.loc() }

// TxStatus is ReadyForQuery's transaction status.
func (s *Session) TxStatus() byte {
	switch {
	case s.tx == nil || !s.explicit:
		return 'I'
	case s.failed:
		return 'E'
	}
	return 'T'
}

// catalog is what this session's statements see: its own DDL transaction's
// private catalog, or the engine's.
func (s *Session) catalog() *catalog.Catalog {
	if s.ddlState != nil {
		return s.ddlState.Cat
	}
	return s.e.cat.Load()
}

// ddl returns the transaction's DDL state, taking the catalog lock on
// first use.
func (s *Session) ddl(ctx context.Context) (*catalog.DDL, error) {
	if s.ddlState == nil {
		d, err := catalog.BeginDDL(ctx, s.e.store, s.tx)
		if err != nil {
			return nil, err
		}
		s.ddlState = d
	}
	return s.ddlState, nil
}

func (s *Session) isolation(iso string) (txn.Isolation, error) {
	switch iso {
	case "", "read committed", "read uncommitted":
		return txn.ReadCommitted, nil
	case "repeatable read":
		return txn.RepeatableRead, nil
	case "serializable":
		return txn.Serializable, nil
	}
	return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid transaction isolation level %s", strings.ToUpper(iso))
}

// beginTxn starts a transaction unless one is open.
func (s *Session) beginTxn(iso string) error {
	if s.tx != nil {
		return nil
	}
	if iso == "" {
		iso = s.settings["default_transaction_isolation"]
	}
	level, err := s.isolation(iso)
	if err != nil {
		return err
	}
	s.tx = s.owner.Begin(level)
	s.activity.txn.Store(s.tx.ID())
	// The transaction began when the statement that began it did, as in
	// PostgreSQL: its first statement's statement_timestamp is its now().
	s.txnStart = s.stmtStart
	if s.txnStart.IsZero() {
		s.txnStart = time.Now()
	}
	s.readOnly = s.settings["default_transaction_read_only"] == "on"
	s.queried = false
	return nil
}

// endTxn commits (or rolls back) the open transaction, and publishes its
// catalog changes.
func (s *Session) endTxn(commit bool) error {
	if commit && s.tx != nil {
		if err := s.preCommit(); err != nil {
			_ = s.endTxn(false)
			return err
		}
	}
	tx, d := s.tx, s.ddlState
	s.tx, s.explicit, s.failed, s.ddlState, s.savepoints = nil, false, false, nil, nil
	defer func() { s.deferredFK, s.constraintModes = fkState{}, nil }()
	s.txnStart = time.Time{}
	if tx == nil {
		return nil
	}
	// Table locks go last, once the catalog changes they guard are
	// published: a writer let in must find the new catalog.
	defer s.e.locks.release(tx.ID())
	if !commit {
		s.cursorsRolledBack(0)
		s.endSettings(false)
		s.endNotify(false)
		if err := tx.Rollback(); err != nil && !errors.Is(err, txn.ErrDone) {
			return err // ErrDone: a failed block's transaction ended at its error
		}
		return nil
	}
	if err := tx.Commit(); err != nil {
		s.cursorsRolledBack(0)
		s.endSettings(false)
		s.endNotify(false)
		return pgerr.Convert(err)
	}
	s.cursorsCommitted()
	s.endSettings(true)
	var err error
	if d != nil {
		err = s.e.reloadCatalog()
	}
	s.endNotify(true)
	return err
}

// preCommit is what a transaction does as it commits, before its commit
// record: the checks of its deferred constraints, its held cursors'
// rows (see cursor.go), then its temporary tables' ON COMMIT actions, in
// the order PostgreSQL has them.
func (s *Session) preCommit() error {
	if err := s.checkDeferred(s.tx, nil); err != nil {
		return err
	}
	if err := s.holdCursors(); err != nil {
		return err
	}
	if err := s.runOnCommit(context.Background()); err != nil {
		return pgerr.Convert(err)
	}
	return nil
}

// lockTables takes the statement p's uses of its tables: a write on the
// table it writes, a read on each table it reads. It plans p again if the
// catalog has changed under its plan. Once it holds them, no DDL that
// would change what p reads or writes commits before this transaction
// ends, so the plan stays right.
func (s *Session) lockTables(ctx context.Context, p *Prepared) error {
	for {
		waited := false
		for _, t := range writeTargets(p) {
			w, err := s.e.locks.lockUse(ctx, s.tx, t.ID, useWrite)
			if err != nil {
				return err
			}
			waited = waited || w
		}
		for _, id := range p.reads {
			w, err := s.e.locks.lockUse(ctx, s.tx, id, useRead)
			if err != nil {
				return err
			}
			waited = waited || w
		}
		if waited {
			// The DDL that held a table may not have published its
			// catalog yet; load what it committed.
			if err := s.e.reloadCatalog(); err != nil {
				return err
			}
		}
		if s.planCurrent(p) {
			return nil
		}
		if err := s.plan(p); err != nil {
			return err
		}
	}
}

// writeTargets are the tables p's plan writes: its own target, and those
// of its data-modifying WITH queries.
func writeTargets(p *Prepared) []*catalog.Table {
	var out []*catalog.Table
	switch qp := p.plan.(type) {
	case *plan.WritePlan:
		out = append(out, qp.Table)
	case *copyPlan:
		if qp.cmd.From {
			out = append(out, qp.t)
		}
	}
	for _, d := range p.dml {
		out = append(out, d.Write.Table)
	}
	return out
}

// Sync ends an implicit transaction: commit, or roll back if a statement
// failed. An explicit block stays open.
func (s *Session) Sync() error {
	if s.tx == nil || s.explicit {
		return nil
	}
	return s.endTxn(!s.failed)
}

// planCurrent reports whether p's plan is of the session's catalog and
// search path: as PostgreSQL does, a statement whose names may now
// resolve elsewhere is planned again.
func (s *Session) planCurrent(p *Prepared) bool {
	return p.cat == s.catalog() && p.path == s.settings["search_path"]
}

// Prepared is a parsed and planned statement.
type Prepared struct {
	st     *parser.Statement
	source string // the text of the message the statement came in, as pg_cursors shows it
	params []types.T
	cols   []plan.Column
	plan   any // a QueryPlan, a *WritePlan, or nil for statements executed directly
	cat    *catalog.Catalog
	path   string      // the search_path it was planned under
	reads  []uint32    // the tables the plan reads (see lockTables)
	locks  string      // a locking clause anywhere in the plan: "FOR UPDATE", "FOR SHARE" or ""
	dml    []*plan.CTE // the plan's data-modifying WITH queries, in order
	copy   *CopySpec
	// multi says that the statement came in a simple-protocol query of
	// several.
	multi bool
	// vars, for a statement of a routine's body, resolves the names of
	// the routine's parameters and variables, given the statement's
	// parameter types (see routine.go).
	vars func(*[]types.T) plan.Vars
}

// stmtCmd is the statement's command, if it is one sql/parser reads
// itself; nil for an empty query.
func (p *Prepared) stmtCmd() any {
	if p.st == nil {
		return nil
	}
	return p.st.Cmd
}

// ParamTypes are the parameter types, given or inferred.
func (p *Prepared) ParamTypes() []types.T { return p.params }

// Columns are the result columns; nil if the statement returns no rows.
func (p *Prepared) Columns() []plan.Column { return p.cols }

// PrepareAll prepares every statement of a simple-protocol query.
func (s *Session) PrepareAll(ctx context.Context, query string) ([]*Prepared, error) {
	stmts, err := parser.Parse(query)
	if err != nil {
		s.fail() // as in PostgreSQL, a statement that does not parse aborts the block
		return nil, err
	}
	out := make([]*Prepared, len(stmts))
	for i, st := range stmts {
		out[i] = &Prepared{st: st, source: query, multi: len(stmts) > 1}
	}
	return out, nil
}

// inBlock reports whether statement p runs in a transaction block: an
// explicit one, or the implicit one of a simple-protocol query of several
// statements, which the statements that refuse blocks refuse too, as
// PostgreSQL's PreventInTransactionBlock does.
func (s *Session) inBlock(p *Prepared) bool { return s.explicit || p.multi }

// Prepare parses and plans one statement for the extended protocol.
func (s *Session) Prepare(ctx context.Context, query string, paramTypes []types.Oid) (*Prepared, error) {
	p, err := s.prepare(query, paramTypes)
	if err != nil {
		s.fail() // as in PostgreSQL, a statement that does not parse or plan aborts the block
		return nil, err
	}
	p.source = query
	return p, nil
}

func (s *Session) prepare(query string, paramTypes []types.Oid) (*Prepared, error) {
	stmts, err := parser.Parse(query)
	if err != nil {
		return nil, err
	}
	if len(stmts) > 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	if len(stmts) == 0 {
		return &Prepared{}, nil
	}
	return s.prepareStatement(stmts[0], paramTypes)
}

// prepareStatement plans one parsed statement with the given parameter
// types (0: infer) and checks that every parameter's type is known.
func (s *Session) prepareStatement(st *parser.Statement, paramTypes []types.Oid) (*Prepared, error) {
	p := &Prepared{st: st}
	n := max(p.st.NumParams, len(paramTypes))
	p.params = make([]types.T, n)
	for i, oid := range paramTypes {
		if oid != 0 {
			p.params[i] = types.T{Oid: oid, Mod: -1}
		}
	}
	if err := s.plan(p); err != nil {
		return nil, err
	}
	for i, t := range p.params {
		if t.Oid == 0 || t.Oid == types.OidUnknown {
			return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", i+1)
		}
	}
	return p, nil
}

// txnTime is the transaction timestamp: now() is stable within a
// transaction.
func (s *Session) txnTime() time.Time {
	if s.txnStart.IsZero() {
		return time.Now()
	}
	return s.txnStart
}

// statementTime is when the statement running began:
// statement_timestamp().
func (s *Session) statementTime() time.Time { return s.stmtStart }

// workMem is work_mem in bytes: how much memory an operator may hold
// before it spills rows to temporary files.
func (s *Session) workMem() int64 {
	if n := kilobytes(s.settings["work_mem"]); n > 0 {
		return n
	}
	return 64 << 20
}

// newSpillSet makes the set of a statement's temporary files.
func (s *Session) newSpillSet() *spill.Set {
	e := s.e
	return &spill.Set{Dir: e.opts.TempDir, Create: e.createTemp, Stats: &e.temp}
}

// backends are the engine's sessions, as the views of its activity show
// them.
func (s *Session) backends() []pgcatalog.Backend {
	var out []pgcatalog.Backend
	s.e.sessions.Range(func(k, _ any) bool {
		o := k.(*Session)
		b := pgcatalog.Backend{PID: o.pid, Txn: o.activity.txn.Load(), Locks: o.owner}
		if q := o.activity.query.Load(); q != nil {
			b.Query = *q
		}
		out = append(out, b)
		return true
	})
	return out
}

// store is the engine's storage, for the views of its statistics.
func (s *Session) store() *txn.Store { return s.e.store }

// tempFileStats counts the temporary files the engine's statements wrote.
func (s *Session) tempFileStats() *spill.Stats { return &s.e.temp }

// identity is who the session is, as the functions that tell it see it.
func (s *Session) identity() builtins.Session {
	return builtins.Session{User: s.user, Database: s.database, PID: int(s.pid), Version: s.e.versionString()}
}

// noteWriteCTE adds d to the data-modifying WITH queries of the statement
// being planned.
func (s *Session) noteWriteCTE(d *plan.CTE) { s.planDML = append(s.planDML, d) }

// noteLocking records word (FOR UPDATE, ...) as the locking clause of the
// statement being planned, unless it has one already.
func (s *Session) noteLocking(word string) {
	if s.planLocks == "" {
		s.planLocks = word
	}
}

// plan plans p against the current catalog. Statements executed directly
// (DDL, transaction control, SET, ...) have no plan.
func (s *Session) plan(p *Prepared) error {
	p.cat, p.path = s.catalog(), s.settings["search_path"]
	// The tables planTable resolves are p's reads; a plan nested in this
	// one (EXPLAIN's) adds its reads to this one's.
	if s.planDepth == 0 {
		s.planReads = s.planReads[:0] // CREATE VIEW plans outside plan
		s.planLocks = ""
		s.planDML = s.planDML[:0]
	}
	mark, dmlMark := len(s.planReads), len(s.planDML)
	s.planDepth++
	defer func() {
		s.planDepth--
		p.reads = slices.Clone(s.planReads[mark:])
		p.locks = s.planLocks
		p.dml = slices.Clone(s.planDML[dmlMark:])
	}()
	if _, ok := p.st.Cmd.(*parser.Prepare); ok {
		// The $n inside PREPARE belong to the prepared statement.
		p.params = []types.T{}
	}
	if p.params == nil {
		p.params = make([]types.T, p.st.NumParams)
	}
	c := &plan.Compiler{Host: s.host(), Params: &p.params, Order: p.st.ParamOrder, WithDML: p.st.WithDML, ExtensionsOnPath: true}
	if p.vars != nil {
		c.Vars = p.vars(&p.params)
	}
	var err error
	switch n := p.st.AST.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		var qp plan.QueryPlan
		if qp, err = c.PlanQuery(n); err == nil {
			p.plan, p.cols = qp, qp.Columns()
		}
	case *ast.InsertStmt, *ast.UpdateStmt, *ast.DeleteStmt:
		var wp *plan.WritePlan
		if wp, err = s.planWrite(c, p.st); err == nil {
			p.plan, p.cols = wp, wp.Cols
		}
	case *ast.ExplainStmt:
		p.cols = []plan.Column{{Name: "QUERY PLAN", Type: types.Text}}
		if o := p.st.Explain; o != nil && o.Format == "json" {
			p.cols[0].Type = types.JSONType
		}
		// Plan the statement now too, so that its parameters' types are
		// inferred for Describe; the inner plan shares p.params.
		inner := &Prepared{st: &parser.Statement{AST: n.Stmt, ParamOrder: p.st.ParamOrder, NumParams: p.st.NumParams}, params: p.params}
		err = s.plan(inner)
	}
	switch cmd := p.st.Cmd.(type) {
	case *parser.InsertValues:
		var wp *plan.WritePlan
		if wp, err = planInsertValues(c, cmd); err == nil {
			p.plan, p.cols = wp, wp.Cols
		}
	case *parser.Show:
		p.cols = s.showColumns(cmd)
	case *parser.Declare:
		// The query's parameters are DECLARE's: plan it now, so that
		// Describe reports their types, as for EXPLAIN.
		err = s.plan(&Prepared{st: cmd.Query, params: p.params})
	case *parser.Fetch:
		if cur, ok := s.cursors[cmd.Name]; ok && !cmd.Move {
			p.cols = cur.cols
		}
	case *parser.Execute:
		if inner, ok := s.sqlPrepared[cmd.Name]; ok {
			p.cols = inner.cols
		}
	case *parser.Copy:
		err = s.planCopy(p, cmd)
	case *parser.Call:
		err = s.planCall(c, p, cmd)
	}
	return err
}

// Portal is a prepared statement bound to parameters: a running or
// runnable execution.
type Portal struct {
	p      *Prepared
	params []any
	rows   rowexec.RowIter // open result of a query, between Executes
	// x is the execution rows runs in; each Execute or FETCH that resumes
	// it gives it that message's context.
	x    *plan.ExecCtx
	done bool
	// binary is set for a FETCH from a BINARY cursor, whose rows the
	// simple protocol sends in the binary format.
	binary bool
	// nested is set for a statement of a routine's body, which runs
	// inside its caller's statement.
	nested bool
	// s is the session whose reading set holds the portal.
	s *Session
	// tag is the command tag of a statement that returns rows, or
	// empty for SELECT; each Execute that reads them reports its own
	// count in it, as PostgreSQL does.
	tag string
}

// Columns are the portal's result columns; nil if it returns no rows.
func (pt *Portal) Columns() []plan.Column { return pt.p.cols }

// Copy says whether executing the portal runs a COPY, and its framing.
func (pt *Portal) Copy() *CopySpec { return pt.p.copy }

// Binary says the simple protocol sends the portal's rows in the binary
// format, as PostgreSQL does for a FETCH from a BINARY cursor.
func (pt *Portal) Binary() bool { return pt.binary }

// Close releases the portal's open result, and the temporary files of
// its execution.
func (pt *Portal) Close() {
	if pt.s != nil {
		delete(pt.s.reading, pt)
	}
	if pt.rows != nil {
		pt.rows.Close()
		pt.rows = nil
	}
	pt.x.CloseTemps()
}

// Bind binds parameters to a prepared statement.
func (s *Session) Bind(ctx context.Context, p *Prepared, params []any) (*Portal, error) {
	// Plan now if the catalog changed since Prepare, or if the statement
	// came from PrepareAll, whose statements may depend on DDL earlier in
	// the same query string.
	if p.st != nil && !s.planCurrent(p) {
		if err := s.plan(p); err != nil {
			s.fail()
			return nil, err
		}
	}
	if len(params) != len(p.params) {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(p.params))
	}
	pt := &Portal{p: p, params: params}
	if f, ok := p.stmtCmd().(*parser.Fetch); ok && !f.Move {
		cur, ok := s.cursors[f.Name]
		pt.binary = ok && cur.binary
	}
	return pt, nil
}

// Execute runs the portal, or resumes it, emitting at most maxRows rows
// (0: all). done is false when the portal is suspended with rows left.
func (s *Session) Execute(ctx context.Context, pt *Portal, maxRows int, emit func(row []any) error) (string, bool, error) {
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	if pt.done {
		if pt.p.cols != nil {
			return countedTag(pt.tag, 0), true, nil // the rows ran out before
		}
		return pt.tag, true, nil
	}
	if pt.p.st == nil {
		return "", true, nil
	}
	s.activity.query.Store(&pt.p.st.SQL)
	if pt.x != nil {
		pt.x.Ctx = ctx // the context of the message that started it has ended
	}
	if pt.rows == nil {
		tag, err := s.start(ctx, pt)
		if err != nil {
			s.fail()
			return "", true, err
		}
		if pt.rows == nil {
			pt.done, pt.tag = true, tag
			return tag, true, nil
		}
	}
	for emitted := 0; maxRows <= 0 || emitted < maxRows; emitted++ {
		row, err := pt.rows.Next()
		if err != nil {
			pt.Close()
			s.fail()
			return "", true, pgerr.Convert(err)
		}
		if row == nil {
			pt.Close()
			pt.done = true
			return countedTag(pt.tag, emitted), true, nil
		}
		if err := emit(row); err != nil {
			return "", true, err
		}
	}
	return "", false, nil
}

// countedTag is the command tag of an Execute that sent n rows: a portal
// resumed after PortalSuspended counts only the rows of its last Execute,
// not the statement's, as PostgreSQL's does ("SELECT 800" after 200 rows
// went out suspended). An empty tag is SELECT's; a tag without a count
// (SHOW, EXPLAIN, CALL) stays as it is.
func countedTag(tag string, n int) string {
	if tag == "" {
		return commandTag("SELECT", int64(n))
	}
	i := strings.LastIndexByte(tag, ' ')
	if i < 0 {
		return tag
	}
	if was, err := strconv.ParseInt(tag[i+1:], 10, 64); err != nil || was == int64(n) {
		return tag
	}
	return tag[:i+1] + strconv.Itoa(n)
}

// commandTag is the tag of a statement that reports the rows it
// handled: "SELECT 3", "UPDATE 1", and INSERT's "INSERT 0 1", whose 0
// once was an oid. The commonest tags are constants, so that the
// statements most of a pgbench run is made of make no tag of their own.
func commandTag(verb string, n int64) string {
	if n == 0 || n == 1 {
		for _, c := range smallTags {
			if c.verb == verb {
				return c.tags[n]
			}
		}
	}
	if verb == "INSERT" {
		verb = "INSERT 0"
	}
	return verb + " " + strconv.FormatInt(n, 10)
}

var smallTags = [...]struct {
	verb string
	tags [2]string
}{
	{"SELECT", [2]string{"SELECT 0", "SELECT 1"}},
	{"UPDATE", [2]string{"UPDATE 0", "UPDATE 1"}},
	{"INSERT", [2]string{"INSERT 0 0", "INSERT 0 1"}},
	{"DELETE", [2]string{"DELETE 0", "DELETE 1"}},
}

// statementContext bounds a statement's ctx by statement_timeout, and
// carries lock_timeout to the store's lock waits.
func (s *Session) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := millis(s.settings["lock_timeout"]); d > 0 {
		ctx = txn.WithLockTimeout(ctx, d)
	}
	if d := millis(s.settings["statement_timeout"]); d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

// fail records a failed statement: a BEGIN block enters the failed state;
// an implicit transaction is rolled back at Sync.
//
// In a block, PostgreSQL aborts at the error and keeps only the block's
// shell until ROLLBACK: the innermost savepoint's subtransaction, or else
// the whole transaction, ends now, and with it its row locks (and, for the
// whole transaction, its table locks), so that nobody waits on a session
// that can only roll back.
func (s *Session) fail() {
	if s.tx == nil {
		return
	}
	s.failed = true
	if !s.explicit {
		return
	}
	if n := len(s.savepoints); n > 0 {
		_ = s.tx.RollbackTo(n) // ROLLBACK TO finishes the bookkeeping
		return
	}
	_ = s.tx.Rollback()
	s.e.locks.release(s.tx.ID())
}

// start runs a statement up to its first row: writes happen here, and a
// query's iterator is left in the portal.
func (s *Session) start(ctx context.Context, pt *Portal) (string, error) {
	st := pt.p.st
	s.stmtStart = time.Now()
	if s.failed && s.explicit && !endsBlock(st.Cmd) {
		return "", pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	if tag, handled, err := s.control(ctx, st); handled {
		return tag, err
	}
	if err := s.beginTxn(""); err != nil {
		return "", err
	}
	if s.readOnly {
		if what := writes(pt.p); what != "" {
			return "", pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", what)
		}
	}
	switch pt.p.st.Cmd.(type) {
	case *parser.Set, *parser.Show, *parser.Reset, *parser.SetTransaction:
	default:
		s.queried = true
	}
	if err := s.lockTables(ctx, pt.p); err != nil {
		return "", pgerr.Convert(err)
	}
	if !movesNoSnapshot(pt.p.st.Cmd) {
		s.settleReaders(ctx)
		s.tx.NextStatement()
	}
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: s.tx, Params: pt.params}
	pt.x = x
	// A statement that leaves no rows to read is done with its temporary
	// files when this returns, or panics; one that does, when the portal
	// closes.
	defer func() {
		if pt.rows == nil {
			x.CloseTemps()
		}
	}()
	switch pt.p.plan.(type) {
	case plan.QueryPlan, *plan.WritePlan:
		rows, tag, err := s.runPlan(x, pt.p)
		if err != nil {
			return "", pgerr.Convert(err)
		}
		if rows == nil {
			return tag, nil
		}
		pt.rows, pt.tag = rows, tag
		if _, ok := pt.p.plan.(plan.QueryPlan); ok && pt.p.dml == nil {
			pt.s, s.reading[pt] = s, true
		}
		return "", nil
	}
	tag, err := s.direct(ctx, pt, x)
	if err != nil {
		return "", pgerr.Convert(err)
	}
	return tag, nil
}

// runPlan runs p's plan, a query's or a write's, in x: a query's rows
// are left to read, a write's RETURNING rows are stored, and a write's
// tag is returned.
func (s *Session) runPlan(x *plan.ExecCtx, p *Prepared) (rowexec.RowIter, string, error) {
	switch qp := p.plan.(type) {
	case plan.QueryPlan:
		if p.dml != nil {
			// The query writes: all of it runs now, as PostgreSQL runs
			// a portal whose WITH clause modifies data.
			rows, err := s.runWritingQuery(x, qp, p.dml)
			return rows, "", err
		}
		it, err := qp.Open(x)
		return it, "", err
	case *plan.WritePlan:
		x.FK = &fkState{}
		rows, n, err := qp.Run(x)
		if err == nil {
			err = plan.FinishDML(x, p.dml)
		}
		if err == nil {
			err = flushFK(x)
		}
		if err != nil {
			if rows != nil {
				rows.Close()
			}
			return nil, "", err
		}
		tag := commandTag(qp.Verb, n)
		if rows != nil {
			return rowexec.StoreRows(rows), tag, nil
		}
		return nil, tag, nil
	}
	return nil, "", pgerr.New(pgerr.InternalError, "statement has no plan to run")
}

// writes names the kind of statement p is if it writes, as PostgreSQL's
// read-only error names it, or returns "".
func writes(p *Prepared) string {
	if w, ok := p.plan.(*plan.WritePlan); ok {
		return w.Verb
	}
	if p.dml != nil {
		return "SELECT" // a query whose WITH clause modifies data
	}
	if p.locks != "" {
		return "SELECT " + p.locks // a FOR UPDATE in a subquery locks rows too
	}
	switch p.st.AST.(type) {
	case *ast.CreateTableStmt:
		return "CREATE TABLE"
	case *ast.DropTableStmt:
		return "DROP TABLE"
	case *ast.AlterTableStmt:
		return "ALTER TABLE"
	case *ast.CreateSequenceStmt:
		return "CREATE SEQUENCE"
	case *ast.AlterSequenceStmt:
		return "ALTER SEQUENCE"
	case *ast.DropSequenceStmt:
		return "DROP SEQUENCE"
	case *ast.CreateIndexStmt:
		return "CREATE INDEX"
	case *ast.DropIndexStmt:
		return "DROP INDEX"
	}
	switch cmd := p.st.Cmd.(type) {
	case *parser.Truncate:
		return "TRUNCATE TABLE"
	case *parser.CreateView:
		return "CREATE VIEW"
	case *parser.AlterIndexRename:
		return "ALTER INDEX"
	case *parser.AddIdentity, *parser.AlterIdentity:
		return "ALTER TABLE"
	case *parser.CreateEnum:
		return "CREATE TYPE"
	case *parser.CreateMatView:
		return "SELECT"
	case *parser.RefreshMatView:
		return "REFRESH MATERIALIZED VIEW"
	case *parser.DropMatView:
		return "DROP MATERIALIZED VIEW"
	case *parser.AlterViewRename:
		if cmd.Materialized {
			return "ALTER MATERIALIZED VIEW"
		}
		return "ALTER VIEW"
	case *parser.AlterEnum:
		return "ALTER TYPE"
	case *parser.DropType:
		return "DROP TYPE"
	case *parser.CreateExtension:
		return "CREATE EXTENSION"
	case *parser.DropExtension:
		return "DROP EXTENSION"
	case *parser.CreateSchema:
		return "CREATE SCHEMA"
	case *parser.DropSchema:
		return "DROP SCHEMA"
	case *parser.AlterSchemaRename:
		return "ALTER SCHEMA"
	case *parser.Comment:
		return "COMMENT"
	case *parser.RenameConstraint:
		return "ALTER TABLE"
	case *parser.AlterOwner:
		return "ALTER " + strings.ToUpper(cmd.Kind)
	case *parser.SequenceOwnedBy:
		return "ALTER SEQUENCE"
	}
	return ""
}

func endsBlock(cmd any) bool {
	switch cmd.(type) {
	case *parser.Rollback, *parser.Commit, *parser.RollbackTo:
		return true
	}
	return false
}

// control runs transaction control statements, which manage s.tx
// themselves.
func (s *Session) control(ctx context.Context, st *parser.Statement) (string, bool, error) {
	switch cmd := st.Cmd.(type) {
	case *parser.Begin:
		if s.explicit {
			s.warning(pgerr.ActiveSQLTransaction, "there is already a transaction in progress")
			return "BEGIN", true, nil
		}
		if cmd.Isolation != "" && s.tx != nil {
			// An implicit transaction already runs (earlier statements of
			// this query string); its isolation level is fixed.
			if _, err := s.isolation(cmd.Isolation); err != nil {
				return "", true, err
			}
		}
		if err := s.beginTxn(cmd.Isolation); err != nil {
			return "", true, err
		}
		s.explicit = true
		if cmd.ReadOnly || cmd.ReadWrite {
			s.readOnly = cmd.ReadOnly
		}
		if w := strings.TrimLeft(st.SQL, " \t\r\n"); len(w) >= 5 && strings.EqualFold(w[:5], "start") { // not BEGIN
			return "START TRANSACTION", true, nil
		}
		return "BEGIN", true, nil
	case *parser.Commit:
		if s.tx == nil || !s.explicit {
			s.warning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
			return "COMMIT", true, s.endTxn(true)
		}
		if s.failed {
			return "ROLLBACK", true, s.endTxn(false)
		}
		return "COMMIT", true, s.endTxn(true)
	case *parser.Rollback:
		if s.tx == nil || !s.explicit {
			s.warning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
		}
		return "ROLLBACK", true, s.endTxn(false)
	case *parser.Savepoint:
		if !s.explicit {
			return "", true, pgerr.New(pgerr.NoActiveSQLTransaction, "SAVEPOINT can only be used in transaction blocks")
		}
		if _, err := s.tx.Savepoint(); err != nil {
			return "", true, err
		}
		s.savepoints = append(s.savepoints, savepoint{name: cmd.Name, settings: maps.Clone(s.settings), localPrior: maps.Clone(s.localPrior),
			notifies: len(s.notifies), listenOps: len(s.listenOps), deferred: s.saveDeferred()})
		return "SAVEPOINT", true, nil
	case *parser.Release:
		depth, err := s.savepointDepth("RELEASE SAVEPOINT", cmd.Name)
		if err != nil {
			return "", true, err
		}
		if s.failed {
			return "", true, pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
		}
		s.savepoints = s.savepoints[:depth-1]
		s.cursorsReleased(depth)
		return "RELEASE", true, s.tx.Release(depth)
	case *parser.RollbackTo:
		depth, err := s.savepointDepth("ROLLBACK TO SAVEPOINT", cmd.Name)
		if err != nil {
			return "", true, err
		}
		if err := s.tx.RollbackTo(depth); err != nil {
			return "", true, err
		}
		s.savepoints = s.savepoints[:depth]
		s.failed = false
		s.cursorsRolledBack(depth)
		// Settings changed since the savepoint go back, as in PostgreSQL.
		sp := s.savepoints[depth-1]
		for i := range settingList {
			if st := &settingList[i]; sp.settings[st.name] != s.settings[st.name] {
				s.assign(st, sp.settings[st.name])
			}
		}
		s.localPrior = maps.Clone(sp.localPrior)
		s.notifies, s.listenOps = s.notifies[:sp.notifies], s.listenOps[:sp.listenOps]
		s.restoreDeferred(sp.deferred)
		if s.ddlState != nil {
			// The rolled-back part may have changed the catalog.
			cat, err := catalog.Load(s.tx)
			if err != nil {
				return "", true, err
			}
			s.ddlState.Cat = cat
		}
		return "ROLLBACK", true, nil
	}
	return "", false, nil
}

// savepointDepth finds the innermost open savepoint called name.
func (s *Session) savepointDepth(what, name string) (int, error) {
	if !s.explicit {
		return 0, pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", what)
	}
	for i := len(s.savepoints) - 1; i >= 0; i-- {
		if s.savepoints[i].name == name {
			return i + 1, nil
		}
	}
	return 0, pgerr.New(pgerr.InvalidSavepointSpecification, "savepoint %q does not exist", name)
}

// direct executes statements that are not planned queries.
func (s *Session) direct(ctx context.Context, pt *Portal, x *plan.ExecCtx) (string, error) {
	st := pt.p.st
	switch n := st.AST.(type) {
	case *ast.CreateTableStmt:
		if n.Select != nil {
			rows, err := s.createTableAs(ctx, st, n)
			if rows < 0 {
				return "CREATE TABLE AS", err // IF NOT EXISTS found the table
			}
			return commandTag("SELECT", int64(rows)), err
		}
		return "CREATE TABLE", s.createTable(ctx, st, n)
	case *ast.DropTableStmt:
		if n.IsView {
			return "DROP VIEW", s.dropViews(ctx, n, st.Cascade)
		}
		return "DROP TABLE", s.dropTables(ctx, n, st.Cascade)
	case *ast.AlterTableStmt:
		return "ALTER TABLE", s.alterTable(ctx, st, n)
	case *ast.CreateSequenceStmt:
		return "CREATE SEQUENCE", s.createSequence(ctx, st, n)
	case *ast.AlterSequenceStmt:
		return "ALTER SEQUENCE", s.alterSequence(ctx, n)
	case *ast.DropSequenceStmt:
		return "DROP SEQUENCE", s.dropSequences(ctx, n, st.Cascade)
	case *ast.CreateIndexStmt:
		return "CREATE INDEX", s.createIndex(ctx, st, n)
	case *ast.DropIndexStmt:
		return "DROP INDEX", s.dropIndex(ctx, n, st.Cascade)
	case *ast.ExplainStmt:
		return s.explain(ctx, pt, n)
	case nil:
	default:
		return "", pgerr.New(pgerr.FeatureNotSupported, "statement is not supported: %s", firstWords(st.SQL))
	}
	switch cmd := st.Cmd.(type) {
	case *parser.Set:
		return "SET", s.set(cmd)
	case *parser.Reset:
		if cmd.All {
			s.resetAll()
			return "RESET", nil
		}
		set, err := lookupSetting(cmd.Name)
		if err != nil {
			return "", err
		}
		return "RESET", s.setSetting(set.name, s.resetValue(set), false)
	case *parser.Show:
		rows, err := s.show(cmd)
		if err != nil {
			return "", err
		}
		pt.rows, pt.tag = &rowexec.SliceIter{Rows: rows}, "SHOW"
		return "", nil
	case *parser.SetTransaction:
		if cmd.Isolation != "" {
			var err error
			if cmd.Session {
				err = s.setSetting("default_transaction_isolation", cmd.Isolation, false)
			} else {
				err = s.setIsolation(cmd.Isolation)
			}
			if err != nil {
				return "", err
			}
		}
		if cmd.ReadOnly || cmd.ReadWrite {
			if cmd.Session {
				return "SET", s.setSetting("default_transaction_read_only", strconv.FormatBool(cmd.ReadOnly), false)
			}
			s.readOnly = cmd.ReadOnly
		}
		return "SET", nil
	case *parser.Truncate:
		return "TRUNCATE TABLE", s.truncate(ctx, cmd)
	case *parser.Lock:
		return "LOCK TABLE", s.lockTable(ctx, cmd)
	case *parser.AlterOwner:
		return "ALTER " + strings.ToUpper(cmd.Kind), s.alterOwner(cmd)
	case *parser.SequenceOwnedBy:
		return "ALTER SEQUENCE", s.sequenceOwnedBy(ctx, cmd)
	case *parser.Vacuum:
		if cmd.Analyze && strings.HasPrefix(strings.ToUpper(st.SQL), "ANALYZE") {
			return "ANALYZE", s.analyze(ctx, cmd)
		}
		if s.inBlock(pt.p) {
			return "", pgerr.New(pgerr.ActiveSQLTransaction, "VACUUM cannot run inside a transaction block")
		}
		// The storage is one tree for every table, whatever tables were
		// named. VACUUM runs the compactions it is due and resolves what
		// it can; VACUUM FULL compacts all of it into one level, dropping
		// every version no snapshot needs.
		compact := s.e.store.CompactDue
		if cmd.Full {
			compact = s.e.store.Compact
		}
		if err := compact(); err != nil {
			return "", err
		}
		if cmd.Analyze {
			return "VACUUM", s.analyze(ctx, cmd)
		}
		return "VACUUM", nil
	case *parser.Checkpoint:
		return "CHECKPOINT", s.e.store.Flush()
	case *parser.Discard:
		return "DISCARD " + strings.ToUpper(cmd.What), s.discard(ctx, cmd.What, s.inBlock(pt.p))
	case *parser.Deallocate:
		if cmd.All {
			clear(s.sqlPrepared)
			return "DEALLOCATE ALL", nil
		}
		if _, ok := s.sqlPrepared[cmd.Name]; !ok {
			return "", pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", cmd.Name)
		}
		delete(s.sqlPrepared, cmd.Name)
		return "DEALLOCATE", nil
	case *parser.CreateView:
		return "CREATE VIEW", s.createView(ctx, cmd)
	case *parser.Listen, *parser.Unlisten, *parser.Notify:
		return s.runNotifyCmd(cmd)
	case *parser.SetConstraints:
		return "SET CONSTRAINTS", s.setConstraints(cmd)
	case *parser.AlterIndexRename:
		return "ALTER INDEX", s.alterIndexRename(ctx, cmd)
	case *parser.AddIdentity:
		return "ALTER TABLE", s.addIdentity(ctx, cmd)
	case *parser.AlterIdentity:
		return "ALTER TABLE", s.alterIdentity(ctx, cmd)
	case *parser.CreateEnum:
		return "CREATE TYPE", s.createEnum(ctx, cmd)
	case *parser.CreateMatView:
		// Like CREATE TABLE AS, it reports the rows it stored.
		rows, err := s.createMatView(ctx, cmd)
		if rows < 0 {
			return "CREATE MATERIALIZED VIEW", err
		}
		return commandTag("SELECT", int64(rows)), err
	case *parser.RefreshMatView:
		return "REFRESH MATERIALIZED VIEW", s.refreshMatView(ctx, cmd)
	case *parser.DropMatView:
		return "DROP MATERIALIZED VIEW", s.dropMatViews(ctx, cmd)
	case *parser.AlterViewRename:
		tag := "ALTER VIEW"
		if cmd.Materialized {
			tag = "ALTER MATERIALIZED VIEW"
		}
		return tag, s.alterViewRename(ctx, cmd)
	case *parser.AlterEnum:
		return "ALTER TYPE", s.alterEnum(ctx, cmd)
	case *parser.DropType:
		return "DROP TYPE", s.dropTypes(ctx, cmd)
	case *parser.CreateExtension:
		return "CREATE EXTENSION", s.createExtension(ctx, cmd)
	case *parser.CreateSchema:
		return "CREATE SCHEMA", s.createSchema(ctx, cmd)
	case *parser.DropSchema:
		return "DROP SCHEMA", s.dropSchemas(ctx, cmd)
	case *parser.AlterSchemaRename:
		return "ALTER SCHEMA", s.alterSchemaRename(ctx, cmd)
	case *parser.DropExtension:
		return "DROP EXTENSION", s.dropExtensions(ctx, cmd)
	case *parser.Comment:
		return "COMMENT", s.comment(ctx, cmd)
	case *parser.CreateFunction:
		if cmd.Procedure {
			return "CREATE PROCEDURE", s.createFunction(ctx, cmd)
		}
		return "CREATE FUNCTION", s.createFunction(ctx, cmd)
	case *parser.DropFunction:
		return "DROP " + strings.ToUpper(cmd.Kind), s.dropFunctions(ctx, cmd)
	case *parser.AlterFunction:
		return "ALTER " + strings.ToUpper(cmd.Kind), s.alterFunction(ctx, cmd)
	case *parser.Call:
		return s.call(ctx, pt, x)
	case *parser.CreateTrigger:
		return "CREATE TRIGGER", s.createTrigger(ctx, cmd)
	case *parser.DropTrigger:
		return "DROP TRIGGER", s.dropTrigger(ctx, cmd)
	case *parser.AlterTrigger:
		return "ALTER TRIGGER", s.alterTrigger(ctx, cmd)
	case *parser.EnableTrigger:
		return "ALTER TABLE", s.enableTrigger(ctx, cmd)
	case *parser.Do:
		return "DO", s.runDo(x.Env(nil), cmd)
	case *parser.RenameConstraint:
		return "ALTER TABLE", s.renameConstraint(ctx, cmd)
	case *parser.Prepare:
		return "PREPARE", s.sqlPrepare(cmd)
	case *parser.Execute:
		return s.sqlExecute(ctx, pt, cmd, x)
	case *parser.Copy:
		return "", pgerr.New(pgerr.ProtocolViolation, "COPY must be run through the COPY sub-protocol")
	case *parser.Declare:
		return s.declare(ctx, pt, cmd)
	case *parser.Fetch:
		return s.fetchCursor(ctx, pt, x, cmd)
	case *parser.Close:
		return s.closeCursor(cmd)
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "statement is not supported: %s", firstWords(st.SQL))
}

func firstWords(sql string) string {
	f := strings.Fields(sql)
	return strings.ToUpper(strings.Join(f[:min(2, len(f))], " "))
}

func (s *Session) set(cmd *parser.Set) error {
	st, err := lookupSetting(cmd.Name)
	if err != nil {
		return err
	}
	if cmd.Local && !s.explicit {
		s.warning(pgerr.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks")
	}
	if cmd.Default {
		return s.setSetting(st.name, s.resetValue(st), cmd.Local)
	}
	if st.name == "transaction_isolation" {
		return s.setIsolation(strings.Join(cmd.Values, " "))
	}
	values := cmd.Values
	if cmd.Interval != nil {
		v, err := s.timeZoneInterval(cmd.Interval)
		if err != nil {
			return err
		}
		values = []string{v}
	}
	if st.name == "search_path" {
		// A list of names, each quoted where it needs to be, as
		// PostgreSQL's GUC_LIST_QUOTE settings keep them.
		values = make([]string, len(cmd.Values))
		for i, v := range cmd.Values {
			values[i] = parser.QuoteIdent(v)
		}
	}
	return s.setSetting(st.name, strings.Join(values, ", "), cmd.Local)
}

// timeZoneInterval is the TimeZone value SET TIME ZONE INTERVAL sets, as
// PostgreSQL writes it: the interval read with its type's fields and
// precision, then printed, INTERVAL '-08:00:00'.
// resetValue is the value RESET gives a setting: the one the session
// started with, from its startup message or the default.
func (s *Session) resetValue(st *setting) string {
	if v, ok := s.startup[st.name]; ok {
		return v
	}
	return st.def
}

// resetAll is RESET ALL: every setting a session may change back to
// what it began with.
func (s *Session) resetAll() {
	for i := range settingList {
		if set := &settingList[i]; !set.readOnly {
			_ = s.setSetting(set.name, s.resetValue(set), false)
		}
	}
}

// discard runs DISCARD what: "plans", "sequences", "temp", or "all",
// which is all of those and CLOSE ALL, RESET ALL, DEALLOCATE ALL,
// UNLISTEN * and pg_advisory_unlock_all(), as in PostgreSQL. Plans are
// made again when the catalog or search path changes, so DISCARD PLANS
// has nothing more to drop.
func (s *Session) discard(ctx context.Context, what string, inBlock bool) error {
	if what == "all" {
		if inBlock {
			return pgerr.New(pgerr.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
		}
		s.closeCursors(func(*cursor) bool { return true })
		s.resetAll()
		clear(s.sqlPrepared)
		s.queueListen(listenOp{off: true})
		s.owner.UnlockAll()
	}
	if what == "all" || what == "sequences" {
		clear(s.currvals)
	}
	if what == "all" || what == "temp" {
		return s.discardTemp(ctx)
	}
	return nil
}

func (s *Session) timeZoneInterval(iv *parser.IntervalValue) (string, error) {
	t, err := types.ParseTypeName(iv.Type)
	if err != nil {
		return "", err
	}
	v, err := types.ParseText(t, iv.Text, s.loc())
	if err != nil {
		return "", err
	}
	return "INTERVAL " + parser.QuoteLiteral(string(types.AppendIntervalText(nil, v.(types.Interval)))), nil
}

// setIsolation is SET TRANSACTION ISOLATION LEVEL. The block's
// transaction has taken no snapshot that matters until a query runs, so
// it can be begun again at the new level until then.
func (s *Session) setIsolation(iso string) error {
	level, err := s.isolation(strings.ToLower(iso))
	if err != nil {
		return err
	}
	switch {
	case !s.explicit:
		s.warning(pgerr.NoActiveSQLTransaction, "SET TRANSACTION can only be used in transaction blocks")
		return nil
	case s.tx.Isolation() == level:
		return nil
	case s.queried:
		return pgerr.New(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	case len(s.savepoints) > 0:
		return pgerr.New(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must not be called in a subtransaction")
	}
	if err := s.tx.Rollback(); err != nil {
		return err
	}
	s.e.locks.release(s.tx.ID()) // nothing written, but a COPY may have locked
	s.tx = s.owner.Begin(level)
	s.activity.txn.Store(s.tx.ID())
	return nil
}

func (s *Session) showColumns(cmd *parser.Show) []plan.Column {
	if cmd.All {
		return []plan.Column{{Name: "name", Type: types.Text}, {Name: "setting", Type: types.Text}, {Name: "description", Type: types.Text}}
	}
	name := cmd.Name
	if st, err := lookupSetting(name); err == nil {
		name = st.name
	}
	return []plan.Column{{Name: name, Type: types.Text}}
}

func (s *Session) show(cmd *parser.Show) ([][]any, error) {
	if cmd.All {
		var rows [][]any
		for _, name := range settingNames() {
			v, _ := s.getSetting(name)
			rows = append(rows, []any{name, v, ""})
		}
		return rows, nil
	}
	v, err := s.getSetting(cmd.Name)
	if err != nil {
		return nil, err
	}
	return [][]any{{v}}, nil
}

// explain runs EXPLAIN: it plans the statement and describes the plan,
// and under ANALYZE runs it too (writes included, as PostgreSQL does),
// measuring every node.
func (s *Session) explain(ctx context.Context, pt *Portal, n *ast.ExplainStmt) (string, error) {
	o := pt.p.st.Explain
	if o == nil {
		o = &parser.ExplainOptions{Costs: true, Timing: true, Format: "text", Analyze: n.Analyze}
	}
	opts := plan.ExplainOptions{Analyze: o.Analyze, Costs: o.Costs, Timing: o.Timing, Format: o.Format, Summary: o.Analyze}
	if o.Summary != nil {
		opts.Summary = *o.Summary
	}
	began := time.Now()
	inner := &Prepared{st: &parser.Statement{AST: n.Stmt, ParamOrder: pt.p.st.ParamOrder, NumParams: pt.p.st.NumParams}, params: pt.p.params}
	if err := s.plan(inner); err != nil {
		return "", err
	}
	opts.Planning = time.Since(began)
	if opts.Analyze {
		// It runs the statement, so it takes the statement's table
		// locks, and plans again if DDL it waited for changed the catalog.
		if err := s.lockTables(ctx, inner); err != nil {
			return "", err
		}
	}
	var src plan.Source
	switch qp := inner.plan.(type) {
	case plan.QueryPlan:
		src = qp
	case *plan.WritePlan:
		src = &writeSource{w: qp}
	default:
		return "", pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN of this statement is not supported")
	}
	var a *plan.Analysis
	ws, _ := src.(*writeSource)
	if opts.Analyze {
		a = plan.NewAnalysis()
		x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: s.tx, Params: pt.params}
		x.Analyze(a)
		began := time.Now()
		err := s.runAnalyzed(x, inner)
		x.CloseTemps()
		if err != nil {
			return "", err
		}
		opts.Execution = time.Since(began)
		if ws != nil {
			// A write returns no rows but RETURNING's, which its
			// ModifyTable node does not count.
			ws.ran = &plan.NodeStats{Loops: 1, Startup: opts.Execution, Totals: opts.Execution}
		}
	}
	var rows [][]any
	for _, line := range plan.ExplainLines(plan.Describe(src, a), opts) {
		if opts.Format == "json" {
			doc, err := types.ParseJSON(line)
			if err != nil {
				return "", err
			}
			rows = append(rows, []any{doc})
			continue
		}
		rows = append(rows, []any{line})
	}
	pt.rows, pt.tag = &rowexec.SliceIter{Rows: rows}, "EXPLAIN"
	return "", nil
}

// runAnalyzed runs p for EXPLAIN ANALYZE, reading and dropping its rows.
func (s *Session) runAnalyzed(x *plan.ExecCtx, p *Prepared) error {
	var rows rowexec.RowIter
	var err error
	if qp, ok := p.plan.(plan.QueryPlan); ok && p.dml == nil {
		rows, err = plan.OpenTracked(x, qp)
	} else {
		rows, _, err = s.runPlan(x, p)
	}
	if err != nil || rows == nil {
		return err
	}
	defer rows.Close()
	for {
		row, err := rows.Next()
		if row == nil || err != nil {
			return err
		}
	}
}

// writeSource is a write's plan as EXPLAIN describes it.
type writeSource struct {
	w   *plan.WritePlan
	ran *plan.NodeStats // under EXPLAIN ANALYZE
}

func (w *writeSource) Open(*plan.ExecCtx) (rowexec.RowIter, error) {
	return nil, pgerr.New(pgerr.InternalError, "a write's plan is run, not opened")
}

func (w *writeSource) Describe(e *plan.Explainer) *plan.Node {
	n := w.w.Describe(e)
	n.Stats = w.ran
	return n
}

// sqlPrepare runs PREPARE: it plans the statement now, with the declared
// parameter types, and keeps it for EXECUTE until DEALLOCATE.
func (s *Session) sqlPrepare(cmd *parser.Prepare) error {
	if _, dup := s.sqlPrepared[cmd.Name]; dup {
		return pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", cmd.Name)
	}
	oids := make([]types.Oid, len(cmd.Types))
	for i, name := range cmd.Types {
		t, err := s.parseTypeName(name)
		if err != nil {
			return err
		}
		oids[i] = t.Oid
	}
	p, err := s.prepareStatement(cmd.Stmt, oids)
	if err != nil {
		return err
	}
	s.sqlPrepared[cmd.Name] = p
	return nil
}

// sqlExecute runs EXECUTE: it evaluates the arguments, coerced to the
// prepared statement's parameter types, and runs the statement as this
// portal's own work, rows and command tag included.
func (s *Session) sqlExecute(ctx context.Context, pt *Portal, cmd *parser.Execute, x *plan.ExecCtx) (string, error) {
	inner, ok := s.sqlPrepared[cmd.Name]
	if !ok {
		return "", pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", cmd.Name)
	}
	var args []ast.ExprNode
	if cmd.Args != nil {
		for _, f := range cmd.Args.AST.(*ast.SelectStmt).Fields.Fields {
			args = append(args, f.Expr)
		}
	}
	if len(args) != len(inner.params) {
		return "", pgerr.New(pgerr.SyntaxError, "wrong number of parameters for prepared statement %q", cmd.Name).
			WithDetail("Expected %d parameters but got %d.", len(inner.params), len(args))
	}
	c := &plan.Compiler{Host: s.host(), Params: &pt.p.params, Scope: &plan.Scope{}, ExtensionsOnPath: true}
	if cmd.Args != nil {
		c.Order = cmd.Args.ParamOrder
	}
	vals := make([]any, len(args))
	for i, a := range args {
		e, err := c.CompileAs(a, inner.params[i])
		if err != nil {
			return "", err
		}
		if vals[i], err = e.Eval(x.Env(nil)); err != nil {
			return "", err
		}
	}
	ipt, err := s.Bind(ctx, inner, vals)
	if err != nil {
		return "", err
	}
	tag, err := s.start(ctx, ipt)
	if err != nil || ipt.rows == nil {
		return tag, err
	}
	pt.rows, pt.tag = ipt.rows, ipt.tag
	return "", nil
}
