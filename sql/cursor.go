package sql

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgcatalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/rowexec"
)

// SQL cursors: DECLARE, FETCH, MOVE and CLOSE.
//
// A cursor is its query's execution, opened by DECLARE and read as FETCH
// asks, kept by name until CLOSE or the end of the transaction that
// declared it. WITH HOLD it outlives that transaction: at its commit the
// rows FETCH has not yet reached are read into a store (PostgreSQL's
// holdStore), so that the cursor no longer needs the transaction's
// snapshot, locks or reclaim pin, and it lasts until CLOSE, DISCARD ALL or
// the session's end. A transaction that rolls back takes the cursors it
// declared with it, held or not; ROLLBACK TO SAVEPOINT those declared
// since the savepoint. Moving a cursor is not transactional: a rollback
// does not move it back.
//
// Positions follow PostgreSQL's portal exactly, so that every direction
// returns the rows and counts PostgreSQL's does: runSelect, rewind and
// fetch are PortalRunSelect, DoPortalRewind and DoPortalRunFetch, and step
// is the executor's scan, which stands before the first row, on a row, or
// past the last. A cursor that may move backward (SCROLL, or a plan that
// PostgreSQL would scan backward, see plan.Scrollable) keeps every row it
// reads in its store to go back to; a NO SCROLL cursor reads its rows
// straight through, and refuses to move backward (55000).
type cursor struct {
	name      string
	statement string // the text of the query message that declared it
	created   time.Time
	cols      []plan.Column
	binary    bool
	hold      bool
	scroll    bool
	// depth is the number of savepoints open when it was declared;
	// held says the transaction that declared it has committed.
	depth int
	held  bool
	// failed is set when a FETCH or MOVE fails: the cursor can then only
	// be closed, as PostgreSQL's failed portal.
	failed bool

	x    *plan.ExecCtx   // the execution: its context and temporary files
	rows rowexec.RowIter // the rows not yet read; nil once read to the end
	// broken is the error settle met reading ahead, which the FETCH that
	// reaches it reports.
	broken error
	// store keeps the rows read from row base+1 on: every row of a
	// scrollable cursor, and for a held NO SCROLL one, those FETCH had
	// not reached at commit. It is nil while a NO SCROLL cursor reads
	// straight through.
	store *rowexec.RowStore
	rd    *rowexec.StoreCursor
	base  int64
	read  int64 // rows read from rows

	// The portal's position, as PostgreSQL keeps it: pos counts the rows
	// moved over, atStart and atEnd say the cursor is before the first
	// row or after the last.
	atStart, atEnd bool
	pos            int64
	// scan is where the executor stands: 0 before the first row, k on
	// row k, past the end one more than the number of rows.
	scan int64
}

// close releases the cursor's rows and temporary files.
func (cur *cursor) close() {
	if cur.rows != nil {
		cur.rows.Close()
		cur.rows = nil
	}
	if cur.store != nil {
		cur.store.Close()
		cur.store = nil
	}
	cur.x.CloseTemps()
}

// next reads the query's next row, or nil at its end; past the rows that
// settle read before an error, it is that error.
func (cur *cursor) next() ([]any, error) {
	if cur.rows == nil {
		return nil, cur.broken
	}
	row, err := cur.rows.Next()
	if err != nil || row == nil {
		cur.rows.Close()
		cur.rows = nil
		return nil, err
	}
	cur.read++
	return row, nil
}

// row returns row k (from 1) of the result, reading the query as far as
// it must, or nil if there is no row k.
func (cur *cursor) row(k int64) ([]any, error) {
	if cur.store == nil {
		return cur.next() // straight through: k is the next row
	}
	for cur.rows != nil && cur.base+int64(cur.store.Len()) < k {
		row, err := cur.next()
		if err != nil {
			return nil, err
		}
		if row != nil {
			if err := cur.store.Add(row); err != nil {
				return nil, err
			}
		}
	}
	i := k - cur.base - 1
	if i < 0 {
		return nil, pgerr.New(pgerr.InternalError, "cursor %q has no row %d any more", cur.name, k)
	}
	if i >= int64(cur.store.Len()) {
		return nil, cur.broken
	}
	if err := cur.rd.Seek(int(i)); err != nil {
		return nil, err
	}
	return cur.rd.Next()
}

// step moves the scan one row forward or backward and returns the row it
// lands on, or nil when it moves off either end.
func (cur *cursor) step(forward bool) ([]any, error) {
	if forward {
		row, err := cur.row(cur.scan + 1)
		if err != nil {
			return nil, err
		}
		if row == nil {
			cur.scan = cur.base + cur.read + 1 // past the end
			if cur.store != nil {
				cur.scan = cur.base + int64(cur.store.Len()) + 1
			}
			return nil, nil
		}
		cur.scan++
		return row, nil
	}
	if cur.scan <= 1 {
		cur.scan = 0
		return nil, nil
	}
	row, err := cur.row(cur.scan - 1)
	if err != nil {
		return nil, err
	}
	cur.scan--
	return row, nil
}

func (cur *cursor) forwardOnly() error {
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cursor can only scan forward").
		WithHint("Declare it with SCROLL option to enable backward scan.")
}

// runSelect moves up to count rows (parser.FetchAll: every row) in one
// direction, passing them to emit unless it is nil (MOVE), and returns
// how many it moved over: PostgreSQL's PortalRunSelect.
func (cur *cursor) runSelect(forward bool, count int64, emit func([]any) error) (int64, error) {
	if !forward && !cur.scroll {
		return 0, cur.forwardOnly()
	}
	if count <= 0 || forward && cur.atEnd || !forward && cur.atStart {
		return 0, nil // no movement
	}
	var n int64
	for count == parser.FetchAll || n < count {
		row, err := cur.step(forward)
		if err != nil {
			return n, err
		}
		if row == nil {
			break
		}
		if emit != nil {
			if err := emit(row); err != nil {
				return n, err
			}
		}
		n++
	}
	all := count == parser.FetchAll || n < count
	switch {
	case forward:
		if n > 0 {
			cur.atStart = false
		}
		if all {
			cur.atEnd = true
		}
		cur.pos += n
	default:
		if n > 0 && cur.atEnd {
			cur.atEnd = false
			cur.pos++
		}
		if all {
			cur.atStart, cur.pos = true, 0
		} else {
			cur.pos -= n
		}
	}
	return n, nil
}

// rewind puts the cursor before its first row: PostgreSQL's
// DoPortalRewind, which a NO SCROLL cursor allows only where it is.
func (cur *cursor) rewind() error {
	if cur.atStart && !cur.atEnd {
		return nil
	}
	if !cur.scroll {
		return cur.forwardOnly()
	}
	cur.scan = 0
	cur.atStart, cur.atEnd, cur.pos = true, false, 0
	return nil
}

// fetch runs FETCH (or, with emit nil, MOVE) in any direction and
// returns the count its tag reports: PostgreSQL's DoPortalRunFetch.
func (cur *cursor) fetch(dir parser.FetchDir, count int64, emit func([]any) error) (int64, error) {
	switch dir {
	case parser.FetchForward, parser.FetchBackward:
		if count < 0 {
			count = -count
			if dir == parser.FetchForward {
				dir = parser.FetchBackward
			} else {
				dir = parser.FetchForward
			}
		}
	case parser.FetchAbsolute:
		switch {
		case count > 0:
			// Go to row count-1, from the start or from here, whichever
			// is nearer, then read one row forward.
			if count-1 <= cur.pos/2 {
				if err := cur.rewind(); err != nil {
					return 0, err
				}
				if count > 1 {
					if _, err := cur.runSelect(true, count-1, nil); err != nil {
						return 0, err
					}
				}
			} else {
				pos := cur.pos
				if cur.atEnd {
					pos++ // one more read back when off the end
				}
				var err error
				if count <= pos {
					_, err = cur.runSelect(false, pos-count+1, nil)
				} else if count > pos+1 {
					_, err = cur.runSelect(true, count-pos-1, nil)
				}
				if err != nil {
					return 0, err
				}
			}
			return cur.runSelect(true, 1, emit)
		case count < 0:
			// Go past the end, back up -count-1 rows, read one back.
			if _, err := cur.runSelect(true, parser.FetchAll, nil); err != nil {
				return 0, err
			}
			if count < -1 {
				if _, err := cur.runSelect(false, -count-1, nil); err != nil {
					return 0, err
				}
			}
			return cur.runSelect(false, 1, emit)
		}
		if err := cur.rewind(); err != nil {
			return 0, err
		}
		return cur.runSelect(true, 0, emit)
	case parser.FetchRelative:
		switch {
		case count > 0:
			if count > 1 {
				if _, err := cur.runSelect(true, count-1, nil); err != nil {
					return 0, err
				}
			}
			return cur.runSelect(true, 1, emit)
		case count < 0:
			if count < -1 {
				if _, err := cur.runSelect(false, -count-1, nil); err != nil {
					return 0, err
				}
			}
			return cur.runSelect(false, 1, emit)
		}
		dir = parser.FetchForward
	}
	forward := dir == parser.FetchForward
	if count == 0 {
		// FETCH 0 fetches the current row again, if the cursor is on
		// one; MOVE 0 says whether it is.
		onRow := !cur.atStart && !cur.atEnd
		if emit == nil {
			if onRow {
				return 1, nil
			}
			return 0, nil
		}
		if onRow {
			if _, err := cur.runSelect(false, 1, nil); err != nil {
				return 0, err
			}
			count, forward = 1, true
		}
	}
	if !forward && count == parser.FetchAll && emit == nil {
		// MOVE BACKWARD ALL is a rewind.
		n := cur.pos
		if n > 0 && !cur.atEnd {
			n--
		}
		return n, cur.rewind()
	}
	return cur.runSelect(forward, count, emit)
}

// persist reads the rows the cursor has yet to return into its store, in
// ctx: a scrollable cursor's store has every row already, a NO SCROLL
// cursor's starts where it stands. The commit of the transaction that
// declared a cursor WITH HOLD does it, and so does the start of any
// statement that would move the transaction's snapshot (see settle).
func (cur *cursor) persist(ctx context.Context) error {
	if cur.store == nil {
		cur.store, cur.base = rowexec.NewRowStore(cur.x), cur.read
		cur.rd = cur.store.Cursor()
	}
	cur.x.Ctx = ctx
	for cur.rows != nil {
		row, err := cur.next()
		if err != nil {
			return err
		}
		if row != nil {
			if err := cur.store.Add(row); err != nil {
				return err
			}
		}
	}
	return cur.broken
}

// declare opens a cursor. The checks come in PostgreSQL's order: the
// options (which the parser checks), the query, its locking clause, then
// whether a cursor may be opened here at all.
func (s *Session) declare(ctx context.Context, pt *Portal, cmd *parser.Declare) (string, error) {
	p := &Prepared{st: cmd.Query, params: slices.Clone(pt.p.params)}
	if err := s.plan(p); err != nil {
		return "", err
	}
	qp, ok := p.plan.(plan.QueryPlan)
	if !ok {
		return "", pgerr.New(pgerr.SyntaxError, "cursor query must be a SELECT")
	}
	if locks := p.locks; locks != "" {
		switch {
		case cmd.Hold:
			return "", pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR WITH HOLD ... %s is not supported", locks).
				WithDetail("Holdable cursors must be READ ONLY.")
		case cmd.Scroll:
			return "", pgerr.New(pgerr.FeatureNotSupported, "DECLARE SCROLL CURSOR ... %s is not supported", locks).
				WithDetail("Scrollable cursors must be READ ONLY.")
		case cmd.Insensitive:
			return "", pgerr.New(pgerr.InvalidCursorDefinition, "DECLARE INSENSITIVE CURSOR ... %s is not valid", locks).
				WithDetail("Insensitive cursors must be READ ONLY.")
		}
	}
	if cmd.Name == "" {
		return "", pgerr.New(pgerr.InvalidCursorName, "invalid cursor name: must not be empty")
	}
	if !s.explicit && !cmd.Hold && !pt.nested {
		return "", pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, dup := s.cursors[cmd.Name]; dup {
		return "", pgerr.New(pgerr.DuplicateCursor, "cursor %q already exists", cmd.Name)
	}
	if s.readOnly && p.locks != "" {
		return "", pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot execute SELECT %s in a read-only transaction", p.locks)
	}
	if err := s.lockTables(ctx, p); err != nil {
		return "", err
	}
	if !pt.nested {
		s.tx.NextStatement() // what the locks waited for
	}
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: s.tx, Params: pt.params}
	it, err := qp.Open(x)
	if err != nil {
		x.CloseTemps()
		return "", err
	}
	cur := &cursor{
		name: cmd.Name, statement: pt.p.source, created: s.stmtStart, cols: p.cols,
		binary: cmd.Binary, hold: cmd.Hold, depth: len(s.savepoints),
		scroll: cmd.Scroll || !cmd.NoScroll && p.locks == "" && plan.Scrollable(qp),
		x:      x, rows: it, atStart: true,
	}
	if cur.statement == "" {
		cur.statement = pt.p.st.SQL
	}
	if cur.scroll {
		cur.store = rowexec.NewRowStore(x)
		cur.rd = cur.store.Cursor()
	}
	s.cursors[cmd.Name] = cur
	return "DECLARE CURSOR", nil
}

// fetchCursor runs FETCH and MOVE in x. FETCH's rows are held, within
// work_mem, until its portal sends them.
func (s *Session) fetchCursor(ctx context.Context, pt *Portal, x *plan.ExecCtx, cmd *parser.Fetch) (string, error) {
	cur, ok := s.cursors[cmd.Name]
	if !ok {
		return "", pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", cmd.Name)
	}
	if cur.failed {
		return "", pgerr.New(pgerr.ObjectNotInPrerequisiteState, "portal %q cannot be run", cmd.Name)
	}
	cur.x.Ctx = ctx // DECLARE's message has ended
	var rows *rowexec.RowStore
	var emit func([]any) error
	if !cmd.Move {
		rows = rowexec.NewRowStore(x)
		emit = rows.Add
	}
	n, err := cur.fetch(cmd.Dir, cmd.Count, emit)
	if err != nil {
		cur.failed = true
		if rows != nil {
			rows.Close()
		}
		return "", err
	}
	if cmd.Move {
		return fmt.Sprintf("MOVE %d", n), nil
	}
	pt.rows, pt.tag = rowexec.StoreRows(rows), fmt.Sprintf("FETCH %d", n)
	return "", nil
}

// closeCursor runs CLOSE name and CLOSE ALL.
func (s *Session) closeCursor(cmd *parser.Close) (string, error) {
	if cmd.All {
		s.closeCursors(func(*cursor) bool { return true })
		return "CLOSE CURSOR ALL", nil
	}
	cur, ok := s.cursors[cmd.Name]
	if !ok {
		return "", pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", cmd.Name)
	}
	cur.close()
	delete(s.cursors, cmd.Name)
	return "CLOSE CURSOR", nil
}

// closeCursors closes and forgets the cursors that which chooses.
func (s *Session) closeCursors(which func(*cursor) bool) {
	for name, cur := range s.cursors {
		if which(cur) {
			cur.close()
			delete(s.cursors, name)
		}
	}
}

// holdCursors is the commit's work on the cursors of its transaction,
// before the commit record: those declared WITH HOLD read the rest of
// their rows, the others close. An error (a row that fails to compute)
// fails the commit.
func (s *Session) holdCursors() error {
	s.closeCursors(func(cur *cursor) bool { return !cur.held && !cur.hold })
	for _, cur := range s.cursors {
		if !cur.held {
			// The commit is no statement's: no CancelRequest reaches it.
			if err := cur.persist(context.Background()); err != nil {
				return err
			}
		}
	}
	return nil
}

// settleReaders reads ahead the cursors and suspended portals still
// reading their query, before a statement of their transaction takes a
// new snapshot or makes the transaction's writes visible: a cursor sees
// what its DECLARE saw, and a portal what its first Execute saw, as in
// PostgreSQL, but the scans under them read in batches, each in the
// transaction's snapshot of the moment. FETCH, MOVE and CLOSE read no
// table and move no snapshot, so a cursor read with nothing in between
// streams, as does a portal. An error reading ahead is kept for the FETCH
// or Execute that reaches it.
func (s *Session) settleReaders(ctx context.Context) {
	for _, cur := range s.cursors {
		if !cur.held && cur.rows != nil {
			if err := cur.persist(ctx); err != nil {
				cur.broken = err
			}
		}
	}
	for pt := range s.reading {
		delete(s.reading, pt)
		pt.x.Ctx = ctx
		store := rowexec.NewRowStore(pt.x)
		err := store.AddAll(pt.rows)
		pt.rows = &settledRows{RowIter: rowexec.StoreRows(store), err: err}
	}
}

// settledRows are a portal's rows read ahead, then the error that ended
// the reading, if one did.
type settledRows struct {
	rowexec.RowIter
	err error
}

func (r *settledRows) Next() ([]any, error) {
	row, err := r.RowIter.Next()
	if row == nil && err == nil {
		err = r.err
	}
	return row, err
}

// movesNoSnapshot says a statement reads no table through the
// transaction's snapshot, so that it need not start a new one.
func movesNoSnapshot(cmd any) bool {
	switch cmd.(type) {
	case *parser.Fetch, *parser.Close:
		return true
	}
	return false
}

// cursorsCommitted marks every cursor left at a commit as held.
func (s *Session) cursorsCommitted() {
	for _, cur := range s.cursors {
		cur.held = true
	}
}

// cursorsRolledBack closes the cursors declared in what a rollback undoes:
// the transaction, or with a savepoint depth the work since it.
func (s *Session) cursorsRolledBack(depth int) {
	s.closeCursors(func(cur *cursor) bool { return !cur.held && cur.depth >= depth })
}

// cursorsReleased moves the cursors declared since the savepoint at depth
// to the one that encloses it, which a rollback to it then undoes.
func (s *Session) cursorsReleased(depth int) {
	for _, cur := range s.cursors {
		if !cur.held && cur.depth >= depth {
			cur.depth = depth - 1
		}
	}
}

// cursorViews are the session's cursors as pg_cursors shows them.
func (s *Session) cursorViews() []pgcatalog.CursorView {
	out := make([]pgcatalog.CursorView, 0, len(s.cursors))
	for _, cur := range s.cursors {
		out = append(out, pgcatalog.CursorView{Name: cur.name, Statement: cur.statement, Holdable: cur.hold,
			Binary: cur.binary, Scrollable: cur.scroll, Created: cur.created})
	}
	return out
}
