package sql

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/rowexec"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// writePlan is a planned INSERT, UPDATE or DELETE. run performs every write
// and returns the RETURNING rows (nil without RETURNING), which the
// caller reads and closes, and the number of rows affected.
type writePlan struct {
	verb      string
	t         *catalog.Table
	returning []expr
	cols      []Column
	run       func(x *execCtx) (rows *rowexec.RowStore, n int64, err error)
	explain   func() string
}

// returned collects the RETURNING rows of a run, within work_mem.
func (p *writePlan) returned(x *execCtx) *rowexec.RowStore {
	if p.returning == nil {
		return nil
	}
	return rowexec.NewRowStore(x)
}

// failRun ends a run that failed: its RETURNING rows are not wanted.
func failRun(out *rowexec.RowStore, err error) (*rowexec.RowStore, int64, error) {
	if out != nil {
		out.Close()
	}
	return nil, 0, err
}

// writableTable resolves the table a statement writes; a view is not one.
// Tables live in public: any other schema has none.
func (c *compiler) writableTable(schema, name, verb string) (*catalog.Table, error) {
	if schema != "" && schema != "public" {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	if c.s.catalog().ViewByName[name] != nil {
		what := map[string]string{"INSERT": "insert into", "UPDATE": "update", "DELETE": "delete from"}[verb]
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cannot %s view %q", what, name).
			WithDetail("Views are not automatically updatable in epochdb.")
	}
	t, err := c.s.catalog().Table(name)
	if err == nil && t.IsMatView() {
		return nil, errMatViewWrite(name)
	}
	return t, err
}

// targetTable resolves the table an INSERT, UPDATE or DELETE writes.
func (c *compiler) targetTable(refs *ast.TableRefsClause, verb string) (*catalog.Table, string, error) {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return nil, "", pgerr.New(pgerr.FeatureNotSupported, "writing to several tables in one statement is not supported")
	}
	ts, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, "", errWriteTarget()
	}
	return c.targetTableOf(ts, verb)
}

func errWriteTarget() error {
	return pgerr.New(pgerr.FeatureNotSupported, "unsupported write target")
}

// targetTableOf resolves the table an INSERT, UPDATE or DELETE writes, and
// the name its rows go by.
func (c *compiler) targetTableOf(ts *ast.TableSource, verb string) (*catalog.Table, string, error) {
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, "", errWriteTarget()
	}
	t, err := c.writableTable(tn.Schema.O, tn.Name.O, verb)
	if err != nil {
		return nil, "", err
	}
	alias := ts.AsName.O
	if alias == "" {
		alias = t.Name
	}
	return t, alias, nil
}

// planReturning compiles a RETURNING list over the table's rows.
func (c *compiler) planReturning(p *writePlan, sc *scope, list *ast.FieldList) error {
	if list == nil {
		return nil
	}
	sp := &selectPlan{}
	in := c.withScope(sc)
	in.clause = "RETURNING"
	for _, f := range list.Fields {
		if f.WildCard != nil {
			if err := sp.expandStar(sc, f.WildCard.Table.O); err != nil {
				return err
			}
			continue
		}
		e, err := in.compile(f.Expr)
		if err != nil {
			return err
		}
		if e, err = in.resolveUnknown(e); err != nil {
			return err
		}
		name := f.AsName.O
		if name == "" {
			name = fieldName(f.Expr)
		}
		sp.exprs = append(sp.exprs, e)
		sp.cols = append(sp.cols, Column{Name: name, Type: e.Type()})
	}
	p.returning, p.cols = sp.exprs, sp.cols
	return nil
}

func (p *writePlan) project(x *execCtx, row []any) ([]any, error) {
	out := make([]any, len(p.returning))
	e := x.env(row)
	for i, r := range p.returning {
		var err error
		if out[i], err = r.Eval(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// namesTable reports whether a select list has a column reference
// qualified by table.
func namesTable(list *ast.FieldList, table string) bool {
	found := false
	list.Accept(&columnVisitor{visit: func(cn *ast.ColumnNameExpr) {
		found = found || cn.Name.Schema.L == "" && cn.Name.Table.L == table
	}})
	return found
}

// planInsert plans INSERT ... VALUES / SELECT / DEFAULT VALUES.
func (c *compiler) planInsert(n *ast.InsertStmt, st *parser.Statement) (*writePlan, error) {
	returning, oc := st.Returning, st.OnConflict
	if n.IsReplace || len(n.OnDuplicate) > 0 || n.Setlist {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of INSERT is not supported")
	}
	if st.With != nil {
		// WITH ... INSERT: the WITH queries are visible to all of it.
		var err error
		if c, _, err = c.planWith(st.With); err != nil {
			return nil, err
		}
	}
	t, alias, err := c.targetTable(n.Table, "INSERT")
	if err != nil {
		return nil, err
	}
	if st.InsertAlias != "" {
		alias = st.InsertAlias
	}
	var names []string
	for _, cn := range n.Columns {
		names = append(names, cn.Name.O)
	}
	ins, err := c.insertInto(t, names)
	if err != nil {
		return nil, err
	}
	p := &writePlan{verb: "INSERT", t: t}
	if err := c.planReturning(p, tableScope(t, alias), returning); err != nil {
		if oc != nil && pgerr.Code(err) == pgerr.UndefinedTable && returning != nil && namesTable(returning, "excluded") {
			// Only DO UPDATE's SET and WHERE see the row that was proposed.
			return nil, pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table \"excluded\"")
		}
		return nil, err
	}
	if oc != nil {
		if ins.conflict, err = c.planOnConflict(t, alias, ins.defaults, oc); err != nil {
			return nil, err
		}
	}
	empty := c.withScope(&scope{})
	if n.Select != nil {
		qp, err := c.planQuery(n.Select)
		if err != nil {
			return nil, err
		}
		cols := qp.Columns()
		if err := ins.fit(len(cols)); err != nil {
			return nil, err
		}
		for _, ti := range ins.targets {
			if err := insertGuard(t.Columns[ti], st.Overriding); err != nil {
				return nil, err
			}
		}
		// An untyped literal in the query takes its column's type, as in
		// VALUES.
		in := inputTypes(qp)
		casts := make([]expr, len(ins.targets))
		for i, ti := range ins.targets {
			if t.Columns[ti].Identity != 0 && st.Overriding == parser.OverridingUser {
				casts[i] = ins.defaults[ti]
				continue
			}
			col := &colExpr{t: in[i], idx: i}
			if casts[i], err = empty.assign(col, t.Columns[ti].Type); err != nil {
				return nil, err
			}
		}
		ins.rows = func(x *execCtx) (rowexec.RowIter, error) {
			// The rows stream from the query into the table: the query
			// cannot see them, which the transaction's statement numbers
			// see to (a statement reads only earlier statements' writes).
			it, err := qp.Open(x)
			if err != nil {
				return nil, err
			}
			return &projectIter{in: it, x: x, exprs: casts}, nil
		}
		return ins.plan(p), nil
	}
	lists := n.Lists
	if len(lists) == 0 { // DEFAULT VALUES
		lists = [][]ast.ExprNode{nil}
		ins.targets = nil
	}
	width := len(lists[0])
	exprs := make([]expr, 0, len(lists)*width)
	for _, list := range lists {
		if len(list) != width {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		if err := ins.fit(len(list)); err != nil {
			return nil, err
		}
		for i, item := range list {
			col := t.Columns[ins.targets[i]]
			if _, ok := item.(*ast.DefaultExpr); ok {
				exprs = append(exprs, ins.defaults[ins.targets[i]])
				continue
			}
			if err := insertGuard(col, st.Overriding); err != nil {
				return nil, err
			}
			e, err := empty.compileAssign(item, col.Type)
			if err != nil {
				return nil, err
			}
			if col.Identity != 0 && st.Overriding == parser.OverridingUser {
				e = ins.defaults[ins.targets[i]]
			}
			exprs = append(exprs, e)
		}
	}
	ins.rows = valuesRows(len(lists), width, make([]any, len(exprs)), exprs)
	return ins.plan(p), nil
}

// planInsertValues plans the INSERT ... VALUES of literals that the
// parser's fast path read. It compiles each literal as planInsert compiles
// the same literal in TiDB's AST.
func (c *compiler) planInsertValues(v *parser.InsertValues) (*writePlan, error) {
	t, err := c.writableTable(v.Schema, v.Table, "INSERT")
	if err != nil {
		return nil, err
	}
	ins, err := c.insertInto(t, v.Columns)
	if err != nil {
		return nil, err
	}
	if err := ins.fit(v.Width); err != nil {
		return nil, err
	}
	if v.OnConflict != nil {
		if ins.conflict, err = c.planOnConflict(t, t.Name, ins.defaults, v.OnConflict); err != nil {
			return nil, err
		}
	}
	// Literals convert to their columns' types as the general path compiles
	// them: now where compiling folds them to a constant, at each run where
	// it leaves a cast to evaluate. DEFAULT waits for the run too.
	consts := make([]any, len(v.Values))
	exprs := make([]expr, len(v.Values))
	for j, lit := range v.Values {
		ti := ins.targets[j%v.Width]
		if lit.Kind == parser.LitDefault {
			exprs[j] = ins.defaults[ti] // nil: NULL
			continue
		}
		if err := writeGuard(t.Columns[ti], false); err != nil {
			return nil, err
		}
		if consts[j], exprs[j], err = c.literalValue(lit, t.Columns[ti].Type); err != nil {
			return nil, err
		}
	}
	ins.rows = valuesRows(v.Rows(), v.Width, consts, exprs)
	return ins.plan(&writePlan{verb: "INSERT", t: t}), nil
}

// literalValue converts a literal of the fast path to a column's type t as
// compiling it with literalOf and assigning it to t would: to a constant
// value, or to an expression to evaluate at run time. The commonest cases
// take no expressions at all: an untyped string literal is read as t, and
// an integer literal goes into a bigint as it is.
func (c *compiler) literalValue(lit parser.Literal, t types.T) (any, expr, error) {
	switch {
	case lit.Kind == parser.LitNull:
		return nil, nil, nil
	case lit.Kind == parser.LitString && !types.IsReg(t.Oid) && !types.IsEnum(t.Oid):
		v, err := types.ParseText(t, lit.Text, c.s.loc())
		return v, nil, err
	case lit.Kind == parser.LitInteger && t.Oid == types.OidInt8:
		v, err := strconv.ParseInt(lit.Text, 10, 64)
		return v, nil, err
	}
	e, err := literalOf(lit)
	if err != nil {
		return nil, nil, err
	}
	if e, err = c.withScope(&scope{}).assign(e, t); err != nil {
		return nil, nil, err
	}
	if k, ok := e.(*constExpr); ok {
		return k.v, nil, nil
	}
	return nil, e, nil
}

// insert is an INSERT being planned: the table, the columns its values go
// to, and where its rows come from.
type insert struct {
	t        *catalog.Table
	explicit bool   // the statement lists its columns
	fitted   bool   // fit has seen a row
	targets  []int  // targets[i] is the table column the i-th value goes to
	defaults []expr // each column's default (nil: NULL)
	rows     func(x *execCtx) (rowexec.RowIter, error)
	conflict *onConflict // ON CONFLICT, or nil
}

// insertInto resolves an INSERT's column list (nil: all columns).
func (c *compiler) insertInto(t *catalog.Table, names []string) (*insert, error) {
	ins := &insert{t: t, explicit: names != nil}
	if names == nil {
		for i, col := range t.Columns {
			if col.Visible() {
				ins.targets = append(ins.targets, i)
			}
		}
	}
	for _, name := range names {
		i, col := t.Column(name)
		if col == nil {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
		}
		if slices.Contains(ins.targets, i) {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		ins.targets = append(ins.targets, i)
	}
	var err error
	ins.defaults, err = c.defaults(t)
	return ins, err
}

// fit checks a row of n values against the target columns. Without a
// column list, the values may fill only the leading columns; the rest take
// their defaults.
func (ins *insert) fit(n int) error {
	if !ins.explicit && !ins.fitted && n < len(ins.targets) {
		ins.targets = ins.targets[:n]
	}
	ins.fitted = true
	switch {
	case n > len(ins.targets):
		return pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	case n < len(ins.targets):
		return pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	return nil
}

// valuesRows produces n VALUES rows of width values each from consts,
// except where exprs holds an expression to evaluate at each run. Without
// any, every run returns the same rows, which the run only reads.
func valuesRows(n, width int, consts []any, exprs []expr) func(x *execCtx) (rowexec.RowIter, error) {
	split := func(flat []any) [][]any {
		rows := make([][]any, n)
		for r := range rows {
			rows[r] = flat[r*width : (r+1)*width : (r+1)*width]
		}
		return rows
	}
	if !slices.ContainsFunc(exprs, func(e expr) bool { return e != nil }) {
		rows := split(consts)
		return func(*execCtx) (rowexec.RowIter, error) { return &rowexec.SliceIter{Rows: rows}, nil }
	}
	return func(x *execCtx) (rowexec.RowIter, error) {
		flat := slices.Clone(consts)
		e := x.env(nil)
		for i, ex := range exprs {
			if ex != nil {
				var err error
				if flat[i], err = ex.Eval(e); err != nil {
					return nil, err
				}
			}
		}
		return &rowexec.SliceIter{Rows: split(flat)}, nil
	}
}

// plan completes p with the run that checks, deduplicates and writes the
// rows.
func (ins *insert) plan(p *writePlan) *writePlan {
	t, targets, defaults, rows := ins.t, ins.targets, ins.defaults, ins.rows
	// Columns the statement does not name take their defaults.
	named := make(map[int]bool, len(targets))
	for _, ti := range targets {
		named[ti] = true
	}
	p.run = func(x *execCtx) (*rowexec.RowStore, int64, error) {
		vals, err := rows(x)
		if err != nil {
			return nil, 0, err
		}
		defer vals.Close()
		out := p.returned(x)
		var ingest *ingestBatch // deduplicates the rows of an ingest table
		if t.Ingest != nil {
			ingest = x.s.newIngestBatch(x, t)
		}
		var conflicts *conflictRun
		if ins.conflict != nil {
			conflicts = &conflictRun{oc: ins.conflict, affected: map[string]bool{}}
		}
		e := x.env(nil)
		row := make([]any, len(t.Columns)+1) // reused: nothing keeps a written row
		var n int64
		for {
			v, err := vals.Next()
			if err != nil {
				return failRun(out, err)
			}
			if v == nil {
				break
			}
			n++
			clear(row)
			for i, ti := range targets {
				row[ti] = v[i]
			}
			for i, d := range defaults {
				if named[i] {
					continue
				}
				if d != nil {
					if row[i], err = d.Eval(e); err != nil {
						return failRun(out, err)
					}
				}
			}
			if err := x.s.checkRow(t, row); err != nil {
				return failRun(out, err)
			}
			if ingest != nil {
				fresh, err := ingest.admit(row)
				if err != nil {
					return failRun(out, err)
				}
				if !fresh {
					continue
				}
			}
			if conflicts != nil {
				inserted, err := conflicts.upsert(x, t, row, func(updated []any) error {
					if p.returning != nil {
						r, err := p.project(x, updated)
						if err != nil {
							return err
						}
						return out.Add(r)
					}
					return nil
				})
				if err != nil {
					return failRun(out, err)
				}
				if !inserted {
					continue
				}
			} else if err := x.s.writeRow(x, t, row); err != nil {
				return failRun(out, err)
			}
			if p.returning != nil {
				r, err := p.project(x, row)
				if err == nil {
					err = out.Add(r)
				}
				if err != nil {
					return failRun(out, err)
				}
			}
		}
		var dups int64
		if conflicts != nil {
			dups += conflicts.skipped
		}
		if ingest != nil {
			if err := ingest.finish(); err != nil {
				return failRun(out, err)
			}
			dups += ingest.dups
		}
		return out, n - dups, nil
	}
	p.explain = func() string { return "Insert on " + t.Name }
	return p
}

// defaults compiles each column's default expression (nil: NULL).
func (c *compiler) defaults(t *catalog.Table) ([]expr, error) {
	out := make([]expr, len(t.Columns))
	empty := c.withScope(&scope{})
	for i, col := range t.Columns {
		if col.Default == "" || col.Dropped {
			continue
		}
		n, err := parseExpr(col.Default)
		if err != nil {
			return nil, err
		}
		if out[i], err = empty.compileAssign(n, col.Type); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// insertRow checks and writes one new row and its unique index entries.
func (s *Session) insertRow(x *execCtx, t *catalog.Table, row []any) error {
	if err := s.checkRow(t, row); err != nil {
		return err
	}
	return s.writeRow(x, t, row)
}

// writeRow writes a row that checkRow has passed.
func (s *Session) writeRow(x *execCtx, t *catalog.Table, row []any) error {
	var rowID int64
	if t.PrimaryKey() == nil {
		seq := s.catalog().SequenceByID[t.RowIDSeq]
		id, err := s.e.seqs.Nextval(x.ctx, seq)
		if err != nil {
			return err
		}
		rowID = id
	}
	// The key and value are built in the session's scratch buffers: Mutate
	// copies what it keeps, and nothing else holds them past this call.
	key := t.AppendRowKey(s.keyBuf[:0], row, rowID)
	val := types.EncodeRow(s.valBuf[:0], t.ColumnTypes(), row[:len(t.Columns)])
	s.keyBuf, s.valBuf = key, val // s.keyBuf stays the written row's key until the next write
	pk := t.PrimaryKey()
	err := x.tx.MutateNew(x.ctx, key, func(_ []byte, exists bool) ([]byte, txn.Op, error) {
		switch {
		case exists && pk == nil:
			// Hidden row ids are never handed out twice.
			return nil, txn.Keep, pgerr.New(pgerr.InternalError, "row id %d of table %q is taken", rowID, t.Name)
		case exists:
			return nil, txn.Keep, s.uniqueViolation(t, pk, row)
		}
		return val, txn.Put, nil
	})
	if err != nil {
		return err
	}
	if err := s.insertIndexEntries(x, t, row, key); err != nil {
		return err
	}
	if len(t.ForeignKeys) > 0 && x.fk != nil {
		// The caller may reuse row and key: the check keeps copies.
		written := slices.Clone(row)
		written[len(t.Columns)] = bytes.Clone(key)
		x.queueChildChecks(t, nil, written)
	}
	return nil
}

func (s *Session) insertIndexEntries(x *execCtx, t *catalog.Table, row []any, key []byte) error {
	for _, ix := range t.Indexes {
		if ix.Primary {
			continue
		}
		if err := s.insertIndexEntry(x, t, ix, row, key); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) uniqueViolation(t *catalog.Table, ix *catalog.Index, row []any) error {
	e := pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", ix.Name).
		WithDetail("%s", keyDescription(t, ix, row, s))
	e.Table, e.Constraint = t.Name, ix.Name
	return e
}

// checkRow applies column types (lengths, precision, ranges), NOT NULL and
// CHECK constraints.
func (s *Session) checkRow(t *catalog.Table, row []any) error {
	if err := s.resolveRow(t, row); err != nil {
		return err
	}
	if err := s.fillGenerated(t, row); err != nil {
		return err
	}
	for i, col := range t.Columns {
		if col.Dropped {
			continue
		}
		if row[i] == nil {
			if col.NotNull {
				e := pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", col.Name, t.Name).
					WithDetail("%s", rowDescription(t, row, s))
				e.Table, e.Column = t.Name, col.Name
				return e
			}
			continue
		}
		v, err := types.Coerce(col.Type, row[i])
		if err != nil {
			return err
		}
		row[i] = v
	}
	ck, err := s.failedCheck(t, row)
	if err != nil || ck == nil {
		return err
	}
	e := pgerr.New(pgerr.CheckViolation, "new row for relation %q violates check constraint %q", t.Name, ck.Name).
		WithDetail("%s", rowDescription(t, row, s))
	e.Table, e.Constraint = t.Name, ck.Name
	return e
}

// modifyTarget is what UPDATE and DELETE plan alike: the target table, the
// WHERE clause, and the access path it allows.
type modifyTarget struct {
	t     *catalog.Table
	in    *compiler // compiles expressions over the table's rows
	scan  *tableScan
	where expr
	// keysKept says the statement changes no column of a primary key or
	// unique index, which a foreign key could reference.
	keysKept bool
	// joined, for UPDATE ... FROM and DELETE ... USING, is the target
	// joined with the other FROM items; width is the target's part of
	// its rows (see dmljoin.go).
	joined source
	width  int
}

func (c *compiler) planTarget(p *writePlan, with *ast.WithClause, refs *ast.TableRefsClause, where ast.ExprNode, returning *ast.FieldList) (*modifyTarget, error) {
	if with != nil {
		var err error
		if c, _, err = c.planWith(with); err != nil {
			return nil, err
		}
	}
	if refs != nil && refs.TableRefs != nil && refs.TableRefs.Right != nil {
		return c.planJoinedTarget(p, refs, where, returning)
	}
	t, alias, err := c.targetTable(refs, p.verb)
	if err != nil {
		return nil, err
	}
	sc := tableScope(t, alias)
	m := &modifyTarget{t: t, in: c.withScope(sc), scan: &tableScan{t: t, access: access{kind: "seq"}}}
	if where != nil {
		if m.where, err = m.in.compileAs(where, types.Bool); err != nil {
			return nil, err
		}
		m.scan.access = chooseAccess(t, m.where, c.s.partialImplied(t, m.where))
	}
	p.t = t
	if err := c.planReturning(p, sc, returning); err != nil {
		return nil, err
	}
	p.explain = func() string {
		return strings.ToUpper(p.verb[:1]) + strings.ToLower(p.verb[1:]) + " on " + t.Name + "\n" + m.scan.Explain("  ")
	}
	return m, nil
}

// runModify makes p.run: modifyRows with update (nil deletes), counting
// the rows written and projecting RETURNING.
func (p *writePlan) runModify(m *modifyTarget, update func(x *execCtx, old []any) ([]any, error)) {
	p.run = func(x *execCtx) (*rowexec.RowStore, int64, error) {
		out := p.returned(x)
		var count int64
		var up func(old []any) ([]any, error)
		if update != nil {
			up = func(old []any) ([]any, error) { return update(x, old) }
		}
		if m.keysKept {
			x.tx.KeepKeys(true)
			defer x.tx.KeepKeys(false)
		}
		modify := func(up func(old []any) ([]any, error), done func(row []any) error) error {
			if m.joined != nil {
				return x.s.modifyJoined(x, m, up, done)
			}
			return x.s.modifyRows(x, m.t, m.scan, m.where, up, done)
		}
		err := modify(up, func(row []any) error {
			count++
			if p.returning != nil {
				r, err := p.project(x, row)
				if err != nil {
					return err
				}
				return out.Add(r)
			}
			return nil
		})
		if err != nil {
			return failRun(out, err)
		}
		return out, count, nil
	}
}

// planUpdate plans UPDATE t SET ... WHERE ...
func (c *compiler) planUpdate(n *ast.UpdateStmt, returning *ast.FieldList) (*writePlan, error) {
	if n.Order != nil || n.Limit != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "UPDATE with ORDER BY or LIMIT is not supported")
	}
	p := &writePlan{verb: "UPDATE"}
	m, err := c.planTarget(p, n.With, n.TableRefs, n.Where, returning)
	if err != nil {
		return nil, err
	}
	t := m.t
	defaults, err := c.defaults(t)
	if err != nil {
		return nil, err
	}
	type set struct {
		col int
		e   expr
	}
	var sets []set
	for _, a := range n.List {
		i, col, err := setTarget(t, a)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(sets, func(s set) bool { return s.col == i }) {
			return nil, pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", col.Name)
		}
		e, err := assignment(m.in, a, col, defaults[i])
		if err != nil {
			return nil, err
		}
		if e == nil {
			continue // a generated column, computed with the rest of the row
		}
		sets = append(sets, set{i, e})
	}
	m.keysKept = !slices.ContainsFunc(sets, func(s set) bool { return inUniqueKey(t, s.col) })
	p.runModify(m, func(x *execCtx, old []any) ([]any, error) {
		row := append([]any(nil), old[:len(t.Columns)+1]...) // without the FROM items' part
		e := x.env(old)
		for _, st := range sets {
			v, err := st.e.Eval(e)
			if err != nil {
				return nil, err
			}
			row[st.col] = v
		}
		return row, x.s.checkRow(t, row)
	})
	return p, nil
}

// inUniqueKey reports whether column col is part of t's primary key or of
// one of its unique indexes.
func inUniqueKey(t *catalog.Table, col int) bool {
	return slices.ContainsFunc(t.Indexes, func(ix *catalog.Index) bool {
		return !ix.NonUnique && slices.Contains(ix.Columns, col)
	})
}

// setTarget resolves the column an UPDATE or DO UPDATE assignment sets.
// PostgreSQL reads SET a.b as field b of a composite column a, which no
// epochdb column is, so a qualified name is always a missing column.
func setTarget(t *catalog.Table, a *ast.Assignment) (int, *catalog.TableColumn, error) {
	name := a.Column.Name.O
	if q := a.Column.Table.O; q != "" {
		name = q
	}
	i, col := t.Column(name)
	if col == nil || a.Column.Table.O != "" {
		return 0, nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
	}
	return i, col, nil
}

// planDelete plans DELETE FROM t WHERE ...
func (c *compiler) planDelete(n *ast.DeleteStmt, returning *ast.FieldList) (*writePlan, error) {
	if n.IsMultiTable && n.TableRefs.TableRefs.Right == nil || n.Order != nil || n.Limit != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of DELETE is not supported")
	}
	p := &writePlan{verb: "DELETE"}
	m, err := c.planTarget(p, n.With, n.TableRefs, n.Where, returning)
	if err != nil {
		return nil, err
	}
	p.runModify(m, nil)
	return p, nil
}

// modifyRows is UPDATE's and DELETE's shared loop. It finds candidate rows
// with the statement's snapshot, then locks each one through Mutate, which
// waits for a concurrent writer and hands back the newest committed version;
// the WHERE clause is re-checked on that version (PostgreSQL's EvalPlanQual
// under READ COMMITTED). update == nil deletes. done is called with the row
// as written (or deleted).
//
// Each candidate is written as the scan finds it, not after the scan:
// the scan reads at the statement's snapshot, which never shows the
// statement's own writes (txn's statement numbers), so it cannot meet a
// row this loop wrote, under its old key or a new one, and finds the
// rows it would have found had it run first. So memory does not grow
// with the table.
func (s *Session) modifyRows(x *execCtx, t *catalog.Table, scan *tableScan, where expr,
	update func(old []any) ([]any, error), done func(row []any) error) error {
	it, err := scan.Open(x)
	if err != nil {
		return err
	}
	candidates := &filterIter{in: it, x: x, pred: trueIfNil(where)}
	defer candidates.Close()
	var pred func(old []any) (bool, error)
	if where != nil {
		pred = func(old []any) (bool, error) {
			v, err := where.Eval(x.env(old))
			return isTrue(v), err
		}
	}
	for {
		cand, err := candidates.Next()
		if err != nil || cand == nil {
			return err
		}
		if modifyHook != nil {
			modifyHook()
		}
		err = s.modifyRow(x, t, cand[len(t.Columns)].([]byte), true, pred, update, done)
		if err != nil && !errors.Is(err, txn.ErrWrittenByStatement) {
			return err
		}
	}
}

// modifyHook, when set (by tests), runs before each row an UPDATE, a
// DELETE or a table's rewrite (rebuild) writes.
var modifyHook func()

// modifyRow updates (or, with update nil, deletes) the row at key, if it
// still exists and pred (nil: true) holds on its newest version, which it
// locks first; done is called with the row as written. With once, the row
// is a target of the statement's own UPDATE or DELETE, and another part of
// the statement (a data-modifying WITH query) having written it fails with
// txn.ErrWrittenByStatement; a foreign key's action changes it regardless.
func (s *Session) modifyRow(x *execCtx, t *catalog.Table, key []byte, once bool, pred func(old []any) (bool, error),
	update func(old []any) ([]any, error), done func(row []any) error) error {
	var old, row []any
	mutate := x.tx.Mutate
	if once {
		mutate = x.tx.MutateOnce
	}
	err := mutate(x.ctx, key, func(cur []byte, exists bool) ([]byte, txn.Op, error) {
		if !exists {
			return nil, txn.Keep, nil // deleted meanwhile
		}
		var err error
		if old, err = t.DecodeRow(key, cur); err != nil {
			return nil, txn.Keep, err
		}
		if pred != nil {
			ok, err := pred(old)
			if err != nil || !ok {
				old = nil
				return nil, txn.Keep, err
			}
		}
		if update == nil {
			row = old
			return nil, txn.Delete, nil
		}
		if row, err = update(old); err != nil {
			return nil, txn.Keep, err
		}
		if newKey := t.RowKey(row, 0); t.PrimaryKey() != nil && !bytes.Equal(newKey, key) {
			return nil, txn.Delete, nil // re-inserted under its new key below
		}
		return t.EncodeRow(row), txn.Put, nil
	})
	if err != nil || old == nil {
		return err
	}
	if err := s.fixIndexes(x, t, key, old, row, update == nil); err != nil {
		return err
	}
	if update == nil {
		if err := x.afterParentChange(t, old, nil); err != nil {
			return err
		}
	} else {
		if len(t.ForeignKeys) > 0 {
			x.queueChildChecks(t, old, slices.Clone(row))
		}
		if err := x.afterParentChange(t, old, row); err != nil {
			return err
		}
	}
	return done(row)
}

// fixIndexes brings index entries (and a moved primary key) in line with
// an updated or deleted row. key is the row's key before the change.
func (s *Session) fixIndexes(x *execCtx, t *catalog.Table, key []byte, old, row []any, deleted bool) error {
	newKey := key
	pk := t.PrimaryKey()
	if pk != nil && !deleted {
		if nk := t.RowKey(row, 0); !bytes.Equal(nk, key) {
			newKey = nk
		}
	}
	// entries returns ix's entry keys for the old and the new row; nil
	// where a row has none.
	entries := func(ix *catalog.Index) (before, after []byte, err error) {
		if ok, err := s.hasEntry(t, ix, old); err != nil {
			return nil, nil, err
		} else if ok {
			before = t.IndexEntryKey(ix, old, key)
		}
		if deleted {
			return before, nil, nil
		}
		if ok, err := s.hasEntry(t, ix, row); err != nil {
			return nil, nil, err
		} else if ok {
			after = t.IndexEntryKey(ix, row, newKey)
		}
		return before, after, nil
	}
	// Old entries go first, so that rows of one statement may trade values.
	for _, ix := range t.Indexes {
		if ix.Primary {
			continue
		}
		before, after, err := entries(ix)
		if err != nil {
			return err
		}
		if before != nil && !bytes.Equal(before, after) {
			if err := x.tx.Delete(x.ctx, before); err != nil {
				return err
			}
		}
	}
	if deleted {
		return nil
	}
	if !bytes.Equal(newKey, key) {
		val := t.EncodeRow(row)
		err := x.tx.Mutate(x.ctx, newKey, func(_ []byte, exists bool) ([]byte, txn.Op, error) {
			if exists {
				return nil, txn.Keep, s.uniqueViolation(t, pk, row)
			}
			return val, txn.Put, nil
		})
		if err != nil {
			return err
		}
	}
	row[len(t.Columns)] = newKey
	for _, ix := range t.Indexes {
		if ix.Primary {
			continue
		}
		before, after, err := entries(ix)
		if err != nil {
			return err
		}
		switch {
		case after == nil:
		case bytes.Equal(before, after):
			// A unique entry that stays must follow a moved primary key.
			if !bytes.Equal(newKey, key) {
				if err := x.tx.Put(x.ctx, after, newKey); err != nil {
					return err
				}
			}
		default:
			if err := s.insertIndexEntry(x, t, ix, row, newKey); err != nil {
				return err
			}
		}
	}
	return nil
}

func trueIfNil(e expr) expr {
	if e == nil {
		return &constExpr{t: types.Bool, v: true}
	}
	return e
}
