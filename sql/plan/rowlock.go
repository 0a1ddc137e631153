package plan

import (
	"errors"
	"slices"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// rowLocking is a SELECT's locking clause (FOR UPDATE, FOR SHARE, with
// NOWAIT or SKIP LOCKED, and OF): which rows of the FROM clause's tables
// each result row locks, and how to re-check a row whose locked rows
// changed while it waited.
//
// As in PostgreSQL, the rows are locked as they leave ORDER BY and before
// LIMIT, so that `ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED` locks one
// row, not every row that matches. Under READ COMMITTED a locked row that
// another transaction changed meanwhile is re-read: the WHERE clause and
// the join conditions are checked again on its newest version, the row
// is dropped if they fail, and its output columns are computed anew (its
// place in the order is not, as in PostgreSQL). Under REPEATABLE READ such
// a row fails with 40001.
type rowLocking struct {
	Word     string // "FOR UPDATE" or "FOR SHARE"
	mode     txn.LockMode
	nowait   bool
	skip     bool
	targets  []lockTarget
	rechecks []joinCheck // join conditions, innermost first
	src      int         // the index of the source row among the plan's exprs
}

// lockTarget is a table whose rows a result row locks: its row sits at
// off in the source row, its key last.
type lockTarget struct {
	t   *catalog.Table
	off int
}

// joinCheck is a join's condition over the part of the source row it
// joined; right is where the right side's columns start. A LEFT JOIN row
// that fails the condition keeps its left side, padded with NULLs; a
// RIGHT JOIN row its right side. (A FULL JOIN has no side to lock.)
type joinCheck struct {
	on                    Expr
	off, width            int
	leftOuter, rightOuter bool
	right                 int
}

// lockWord is the clause as PostgreSQL names it in messages.
func lockWord(info *ast.SelectLockInfo) string {
	switch info.LockType {
	case ast.SelectLockForShare, ast.SelectLockForShareNoWait, ast.SelectLockForShareSkipLocked:
		return "FOR SHARE"
	}
	return "FOR UPDATE"
}

// locking reports whether a SELECT has a locking clause.
func locking(n *ast.SelectStmt) bool {
	return n.LockInfo != nil && n.LockInfo.LockType != ast.SelectLockNone
}

// planLocking plans n's locking clause over p, whose source row scope is
// sc. It runs once the select list and ORDER BY are planned.
func (p *SelectPlan) planLocking(n *ast.SelectStmt, sc *Scope) error {
	info := n.LockInfo
	word := lockWord(info)
	notAllowed := func(with string) error {
		return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with %s", word, with)
	}
	switch {
	case p.distinct:
		return notAllowed("DISTINCT clause")
	case n.GroupBy != nil:
		return notAllowed("GROUP BY clause")
	case n.Having != nil:
		return notAllowed("HAVING clause")
	case p.agg != nil:
		return notAllowed("aggregate functions")
	case p.windows != nil:
		return notAllowed("window functions")
	case p.srfs != nil:
		return notAllowed("set-returning functions in the target list")
	}
	l := &rowLocking{Word: word, mode: txn.LockUpdate}
	switch info.LockType {
	case ast.SelectLockForShare, ast.SelectLockForShareNoWait, ast.SelectLockForShareSkipLocked:
		// FOR KEY SHARE reaches here as FOR SHARE, and FOR NO KEY UPDATE
		// as FOR UPDATE: stronger, so they wait more often than in
		// PostgreSQL, never less.
		l.mode = txn.LockShare
	case ast.SelectLockForUpdateWaitN:
		return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"WAIT\"")
	}
	switch info.LockType {
	case ast.SelectLockForUpdateNoWait, ast.SelectLockForShareNoWait:
		l.nowait = true
	case ast.SelectLockForUpdateSkipLocked, ast.SelectLockForShareSkipLocked:
		l.skip = true
	}
	var of []string
	for _, tn := range info.Tables {
		of = append(of, tn.Name.O)
	}
	found := make([]bool, len(of))
	wants := func(alias string) bool {
		if len(of) == 0 {
			return true
		}
		i := slices.Index(of, alias)
		if i >= 0 {
			found[i] = true
		}
		return i >= 0
	}
	if err := l.walk(p.src, sc, 0, len(sc.Cols), false, word, wants); err != nil {
		return err
	}
	for i, ok := range found {
		if !ok && !slices.Contains(of[:i], of[i]) {
			return pgerr.New(pgerr.UndefinedTable, "relation %q in %s clause not found in FROM clause", of[i], word)
		}
	}
	l.src = len(p.Exprs)
	p.Exprs = append(p.Exprs, sourceRow{})
	p.Locking = l
	return nil
}

// walk finds the tables to lock in the source src, whose rows sit at off
// in the source row and are width wide, and the join conditions above
// them. nullable says an outer join may pad src's rows with NULLs.
func (l *rowLocking) walk(src Source, sc *Scope, off, width int, nullable bool, word string, wants func(string) bool) error {
	alias := ""
	if width > 0 {
		alias = sc.Cols[off].Table
	}
	switch s := src.(type) {
	case *filtered:
		return l.walk(s.in, sc, off, width, nullable, word, wants)
	case *TableScan:
		if !wants(alias) {
			return nil
		}
		if nullable {
			return pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to the nullable side of an outer join", word)
		}
		l.targets = append(l.targets, lockTarget{t: s.Table, off: off})
	case *NestedJoin:
		// The join's rows are its USING columns, then the pair.
		pair, left := off+len(s.using), s.LeftWidth
		if err := l.walk(s.Left, sc, pair, left, nullable || s.rightOuter, word, wants); err != nil {
			return err
		}
		if err := l.walk(s.Right, sc, pair+left, s.RightWidth, nullable || s.leftOuter, word, wants); err != nil {
			return err
		}
		if s.on != nil {
			l.rechecks = append(l.rechecks, joinCheck{on: s.on, off: pair, width: left + s.RightWidth,
				leftOuter: s.leftOuter, rightOuter: s.rightOuter, right: pair + left})
		}
	case *derived, *narrowed:
		// PostgreSQL pulls a simple view or subquery up into the query
		// and locks its tables' rows as they come out on top; epochdb
		// does not plan that way yet, and locking every row the inner
		// query returns would lock too much.
		if wants(alias) && !readsNoTable(src) {
			return pgerr.New(pgerr.FeatureNotSupported, "%s on a view or a subquery in FROM is not supported yet", word).
				WithHint("Name the tables to lock with %s OF.", word)
		}
	}
	// WITH queries, VALUES, functions and catalogs have no rows to lock,
	// as PostgreSQL leaves WITH queries alone.
	return nil
}

// readsNoTable reports whether a FROM item's query reads no table (a
// VALUES list, say), so that a locking clause has nothing in it to lock.
func readsNoTable(src Source) bool {
	switch s := src.(type) {
	case *narrowed:
		return readsNoTable(s.in)
	case *filtered:
		return readsNoTable(s.in)
	case *derived:
		sp, ok := s.plan.(*SelectPlan)
		return ok && readsNoTable(sp.src)
	case *valuesSource, oneRow:
		return true
	}
	return false
}

// sourceRow is a hidden output column that carries the whole source row,
// for the locking step to re-check.
type sourceRow struct{}

func (sourceRow) Type() types.T { return types.Bytea }

func (sourceRow) Eval(e *Env) (any, error) { return slices.Clone(e.Row), nil }

// lockIter locks the rows behind each result row of p as it passes.
type lockIter struct {
	in rowexec.RowIter
	x  *ExecCtx
	p  *SelectPlan
}

func (it *lockIter) Next() ([]any, error) {
	l := it.p.Locking
	for {
		row, err := it.in.Next()
		if row == nil || err != nil {
			return nil, err
		}
		src := row[l.src].([]any)
		keep, changed, err := it.lock(src)
		if err != nil {
			return nil, err
		}
		if !keep {
			continue
		}
		if changed {
			if keep, err = it.recheck(src); err != nil {
				return nil, err
			}
			if !keep {
				continue
			}
			e := it.x.Env(src)
			for i, ex := range it.p.Exprs[:it.p.visible] {
				if row[i], err = ex.Eval(e); err != nil {
					return nil, err
				}
			}
		}
		return row[:it.p.visible], nil
	}
}

// lock locks each target row of src. keep is false if one is gone or, with
// SKIP LOCKED, held by another transaction; changed says src now holds a
// newer version of one.
func (it *lockIter) lock(src []any) (keep, changed bool, err error) {
	l := it.p.Locking
	for _, target := range l.targets {
		width := len(target.t.Columns)
		key, _ := src[target.off+width].([]byte)
		if key == nil {
			continue // a row a join padded with NULLs: nothing to lock
		}
		got, err := it.x.Tx.LockRow(it.x.Ctx, key, l.mode, l.nowait || l.skip)
		switch {
		case errors.Is(err, txn.ErrLockNotAvailable) && l.skip:
			return false, false, nil
		case errors.Is(err, txn.ErrLockNotAvailable):
			return false, false, pgerr.New(pgerr.LockNotAvailable, "could not obtain lock on row in relation %q", target.t.Name)
		case err != nil:
			return false, false, pgerr.Convert(err)
		case !got.Exists, got.ByStatement:
			return false, false, nil
		case got.Changed:
			fresh, err := target.t.DecodeRow(key, got.Value)
			if err != nil {
				return false, false, err
			}
			copy(src[target.off:target.off+width+1], fresh)
			changed = true
		}
	}
	return true, changed, nil
}

// recheck evaluates the join conditions and the WHERE clause on src. A
// LEFT JOIN whose condition no longer holds pads its right side with
// NULLs, as PostgreSQL's EvalPlanQual does; one already padded stays so.
func (it *lockIter) recheck(src []any) (bool, error) {
	for _, jc := range it.p.Locking.rechecks {
		left, right := src[jc.off:jc.right], src[jc.right:jc.off+jc.width]
		padded := func(part []any) bool { return !slices.ContainsFunc(part, func(v any) bool { return v != nil }) }
		if jc.leftOuter && padded(right) || jc.rightOuter && padded(left) {
			continue
		}
		v, err := jc.on.Eval(it.x.Env(src[jc.off : jc.off+jc.width]))
		switch {
		case err != nil:
			return false, err
		case IsTrue(v):
		case jc.leftOuter:
			clear(right)
		case jc.rightOuter:
			clear(left)
		default:
			return false, nil
		}
	}
	if it.p.checkWhere == nil {
		return true, nil
	}
	v, err := it.p.checkWhere.Eval(it.x.Env(src))
	return IsTrue(v), err
}

func (it *lockIter) Close() { it.in.Close() }
