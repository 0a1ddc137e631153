package sql

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/rowexec"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// writableTable resolves the table a statement writes: for a view, its
// RowTable, which only its INSTEAD OF triggers write through (see
// viewwrite.go).
func writableTable(c *plan.Compiler, schema, name, verb string) (*catalog.Table, error) {
	cat := c.Host.Catalog()
	q, err := cat.Resolve(c.SearchPath(), schema, name)
	if pgerr.Code(err) == pgerr.FeatureNotSupported {
		return nil, err // another session's temporary table
	}
	if err != nil || !q.Found() {
		return nil, plan.ErrNoRelation(schema, name)
	}
	if sc := cat.SchemaByID[q.Schema]; sc.System {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for table %s", name)
	}
	if v := cat.ViewByName[q]; v != nil {
		return viewWriteTarget(v, verb)
	}
	t := cat.TableByName[q]
	switch {
	case t == nil:
		return nil, plan.ErrNoRelation(schema, name)
	case t.IsMatView():
		return nil, errMatViewWrite(name)
	}
	return t, nil
}

// targetTable resolves the table an INSERT, UPDATE or DELETE writes.
func targetTable(c *plan.Compiler, refs *ast.TableRefsClause, verb string) (*catalog.Table, string, error) {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return nil, "", pgerr.New(pgerr.FeatureNotSupported, "writing to several tables in one statement is not supported")
	}
	ts, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, "", errWriteTarget()
	}
	return targetTableOf(c, ts, verb)
}

func errWriteTarget() error {
	return pgerr.New(pgerr.FeatureNotSupported, "unsupported write target")
}

// targetTableOf resolves the table an INSERT, UPDATE or DELETE writes, and
// the name its rows go by.
func targetTableOf(c *plan.Compiler, ts *ast.TableSource, verb string) (*catalog.Table, string, error) {
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, "", errWriteTarget()
	}
	t, err := writableTable(c, tn.Schema.O, tn.Name.O, verb)
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
func planReturning(c *plan.Compiler, p *plan.WritePlan, sc *plan.Scope, list *ast.FieldList) error {
	if list == nil {
		return nil
	}
	sp := &plan.SelectPlan{}
	in := c.WithScope(sc)
	in.Clause = "RETURNING"
	for _, f := range list.Fields {
		if f.WildCard != nil {
			if err := sp.ExpandStar(sc, f.WildCard.Table.O); err != nil {
				return err
			}
			continue
		}
		e, err := in.Compile(f.Expr)
		if err != nil {
			return err
		}
		if e, err = in.ResolveUnknown(e); err != nil {
			return err
		}
		name := f.AsName.O
		if name == "" {
			name = plan.FieldName(f.Expr)
		}
		sp.Exprs = append(sp.Exprs, e)
		sp.Cols = append(sp.Cols, plan.Column{Name: name, Type: e.Type()})
	}
	p.Returning, p.Cols = sp.Exprs, sp.Cols
	return nil
}

// namesTable reports whether a select list has a column reference
// qualified by table.
func namesTable(list *ast.FieldList, table string) bool {
	found := false
	list.Accept(&plan.ColumnVisitor{Visit: func(cn *ast.ColumnNameExpr) {
		found = found || cn.Name.Schema.L == "" && cn.Name.Table.L == table
	}})
	return found
}

// planInsert plans INSERT ... VALUES / SELECT / DEFAULT VALUES.
func planInsert(c *plan.Compiler, n *ast.InsertStmt, st *parser.Statement) (*plan.WritePlan, error) {
	returning, oc := st.Returning, st.OnConflict
	if n.IsReplace || len(n.OnDuplicate) > 0 || n.Setlist {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of INSERT is not supported")
	}
	if st.With != nil {
		// WITH ... INSERT: the WITH queries are visible to all of it.
		var err error
		if c, _, err = c.PlanWith(st.With); err != nil {
			return nil, err
		}
	}
	t, alias, err := targetTable(c, n.Table, "INSERT")
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
	ins, err := insertInto(c, t, names)
	if err != nil {
		return nil, err
	}
	p := &plan.WritePlan{Verb: "INSERT", Table: t}
	if err := planReturning(c, p, plan.TableScope(t, alias), returning); err != nil {
		if oc != nil && pgerr.Code(err) == pgerr.UndefinedTable && returning != nil && namesTable(returning, "excluded") {
			// Only DO UPDATE's SET and WHERE see the row that was proposed.
			return nil, pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table \"excluded\"")
		}
		return nil, err
	}
	if oc != nil {
		if ins.conflict, err = planOnConflict(c, t, alias, ins.defaults, oc); err != nil {
			return nil, err
		}
	}
	empty := c.WithScope(&plan.Scope{})
	ins.alias = alias
	if n.Select != nil {
		qp, err := c.PlanQuery(n.Select)
		if err != nil {
			return nil, err
		}
		ins.source = qp
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
		in := plan.InputTypes(qp)
		casts := make([]plan.Expr, len(ins.targets))
		for i, ti := range ins.targets {
			if t.Columns[ti].Identity != 0 && st.Overriding == parser.OverridingUser {
				casts[i] = ins.defaults[ti]
				continue
			}
			col := &plan.ColExpr{T: in[i], Index: i}
			if casts[i], err = empty.Assign(col, t.Columns[ti].Type); err != nil {
				return nil, err
			}
		}
		ins.rows = func(x *plan.ExecCtx) (rowexec.RowIter, error) {
			// The rows stream from the query into the table: the query
			// cannot see them, which the transaction's statement numbers
			// see to (a statement reads only earlier statements' writes).
			it, err := plan.OpenTracked(x, qp)
			if err != nil {
				return nil, err
			}
			return &plan.ProjectIter{In: it, X: x, Exprs: casts}, nil
		}
		return ins.plan(p), nil
	}
	lists := n.Lists
	if len(lists) == 0 { // DEFAULT VALUES
		lists = [][]ast.ExprNode{nil}
		ins.targets = nil
	}
	width := len(lists[0])
	exprs := make([]plan.Expr, 0, len(lists)*width)
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
			e, err := empty.CompileAssign(item, col.Type)
			if err != nil {
				return nil, err
			}
			if col.Identity != 0 && st.Overriding == parser.OverridingUser {
				e = ins.defaults[ins.targets[i]]
			}
			exprs = append(exprs, e)
		}
	}
	ins.rows, ins.values = valuesRows(len(lists), width, make([]any, len(exprs)), exprs), len(lists)
	return ins.plan(p), nil
}

// planInsertValues plans the INSERT ... VALUES of literals that the
// parser's fast path read. It compiles each literal as planInsert compiles
// the same literal in TiDB's AST.
func planInsertValues(c *plan.Compiler, v *parser.InsertValues) (*plan.WritePlan, error) {
	t, err := writableTable(c, v.Schema, v.Table, "INSERT")
	if err != nil {
		return nil, err
	}
	ins, err := insertInto(c, t, v.Columns)
	if err != nil {
		return nil, err
	}
	if err := ins.fit(v.Width); err != nil {
		return nil, err
	}
	if v.OnConflict != nil {
		if ins.conflict, err = planOnConflict(c, t, t.Name, ins.defaults, v.OnConflict); err != nil {
			return nil, err
		}
	}
	// Literals convert to their columns' types as the general path compiles
	// them: now where compiling folds them to a constant, at each run where
	// it leaves a cast to evaluate. DEFAULT waits for the run too.
	consts := make([]any, len(v.Values))
	exprs := make([]plan.Expr, len(v.Values))
	for j, lit := range v.Values {
		ti := ins.targets[j%v.Width]
		if lit.Kind == parser.LitDefault {
			exprs[j] = ins.defaults[ti] // nil: NULL
			continue
		}
		if err := writeGuard(t.Columns[ti], false); err != nil {
			return nil, err
		}
		if consts[j], exprs[j], err = literalValue(c, lit, t.Columns[ti].Type); err != nil {
			return nil, err
		}
	}
	ins.rows, ins.values = valuesRows(v.Rows(), v.Width, consts, exprs), v.Rows()
	return ins.plan(&plan.WritePlan{Verb: "INSERT", Table: t}), nil
}

// literalValue converts a literal of the fast path to a column's type t as
// compiling it with LiteralOf and assigning it to t would: to a constant
// value, or to an expression to evaluate at run time. The commonest cases
// take no expressions at all: an untyped string literal is read as t, and
// an integer literal goes into a bigint as it is.
func literalValue(c *plan.Compiler, lit parser.Literal, t types.T) (any, plan.Expr, error) {
	switch {
	case lit.Kind == parser.LitNull:
		return nil, nil, nil
	case lit.Kind == parser.LitString && !types.IsReg(t.Oid) && !types.IsEnum(t.Oid):
		v, err := types.ParseText(t, lit.Text, c.Host.Location())
		return v, nil, err
	case lit.Kind == parser.LitInteger && t.Oid == types.OidInt8:
		v, err := strconv.ParseInt(lit.Text, 10, 64)
		return v, nil, err
	}
	e, err := plan.LiteralOf(lit)
	if err != nil {
		return nil, nil, err
	}
	if e, err = c.WithScope(&plan.Scope{}).Assign(e, t); err != nil {
		return nil, nil, err
	}
	if k, ok := e.(*plan.ConstExpr); ok {
		return k.V, nil, nil
	}
	return nil, e, nil
}

// insert is an INSERT being planned: the table, the columns its values go
// to, and where its rows come from.
type insert struct {
	t        *catalog.Table
	explicit bool        // the statement lists its columns
	fitted   bool        // fit has seen a row
	targets  []int       // targets[i] is the table column the i-th value goes to
	defaults []plan.Expr // each column's default (nil: NULL)
	rows     func(x *plan.ExecCtx) (rowexec.RowIter, error)
	// For EXPLAIN: INSERT ... SELECT's query, or the number of VALUES
	// rows; and the name the statement gives the table.
	source   plan.QueryPlan
	values   int
	alias    string
	conflict *onConflict // ON CONFLICT, or nil
}

// insertInto resolves an INSERT's column list (nil: all columns).
func insertInto(c *plan.Compiler, t *catalog.Table, names []string) (*insert, error) {
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
	ins.defaults, err = defaults(c, t)
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
func valuesRows(n, width int, consts []any, exprs []plan.Expr) func(x *plan.ExecCtx) (rowexec.RowIter, error) {
	split := func(flat []any) [][]any {
		rows := make([][]any, n)
		for r := range rows {
			rows[r] = flat[r*width : (r+1)*width : (r+1)*width]
		}
		return rows
	}
	if !slices.ContainsFunc(exprs, func(e plan.Expr) bool { return e != nil }) {
		rows := split(consts)
		return func(*plan.ExecCtx) (rowexec.RowIter, error) { return &rowexec.SliceIter{Rows: rows}, nil }
	}
	return func(x *plan.ExecCtx) (rowexec.RowIter, error) {
		flat := slices.Clone(consts)
		e := x.Env(nil)
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
func (ins *insert) plan(p *plan.WritePlan) *plan.WritePlan {
	if ins.t.IsView() {
		return ins.planInstead(p)
	}
	t, targets, defaults, rows := ins.t, ins.targets, ins.defaults, ins.rows
	// Columns the statement does not name take their defaults.
	named := make(map[int]bool, len(targets))
	for _, ti := range targets {
		named[ti] = true
	}
	p.Run = func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error) {
		vals, err := rows(x)
		if err != nil {
			return nil, 0, err
		}
		defer vals.Close()
		out := p.Returned(x)
		var ingest *ingestBatch // deduplicates the rows of an ingest table
		if t.Ingest != nil {
			ingest = sessionOf(x.Host).newIngestBatch(x, t)
		}
		var conflicts *conflictRun
		if ins.conflict != nil {
			conflicts = &conflictRun{oc: ins.conflict, affected: map[string]bool{}}
		}
		e := x.Env(nil)
		s := sessionOf(x.Host)
		triggered := t.HasTrigger("before", catalog.TriggerInsert, true)
		row := make([]any, len(t.Columns)+1) // reused: nothing keeps a written row
		var n int64
		for {
			v, err := vals.Next()
			if err != nil {
				return plan.FailRun(out, err)
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
						return plan.FailRun(out, err)
					}
				}
			}
			if triggered && ingest == nil {
				fired, skip, err := s.beforeRow(x, t, catalog.TriggerInsert, nil, row)
				if err != nil {
					return plan.FailRun(out, err)
				}
				if skip {
					n--
					continue
				}
				copy(row, fired)
			}
			if err := s.checkRow(t, row); err != nil {
				return plan.FailRun(out, err)
			}
			if ingest != nil {
				fresh, err := ingest.admit(row)
				if err != nil {
					return plan.FailRun(out, err)
				}
				if !fresh {
					continue
				}
				// An ingest table's triggers fire for the rows it
				// takes, not for the duplicates it skips.
				if triggered {
					fired, skip, err := s.beforeRow(x, t, catalog.TriggerInsert, nil, row)
					if err == nil && !skip {
						copy(row, fired)
						err = s.checkRow(t, row)
					}
					if err != nil {
						return plan.FailRun(out, err)
					}
					if skip {
						n--
						continue
					}
				}
			}
			if conflicts != nil {
				inserted, err := conflicts.upsert(x, t, row, func(updated []any) error {
					if p.Returning != nil {
						r, err := p.Project(x, updated)
						if err != nil {
							return err
						}
						return out.Add(r)
					}
					return nil
				})
				if err != nil {
					return plan.FailRun(out, err)
				}
				if !inserted {
					continue
				}
			} else if err := sessionOf(x.Host).writeRow(x, t, row); err != nil {
				return plan.FailRun(out, err)
			}
			if len(t.Triggers) > 0 {
				if err := afterRow(x, t, catalog.TriggerInsert, nil, row); err != nil {
					return plan.FailRun(out, err)
				}
			}
			if p.Returning != nil {
				r, err := p.Project(x, row)
				if err == nil {
					err = out.Add(r)
				}
				if err != nil {
					return plan.FailRun(out, err)
				}
			}
		}
		var dups int64
		if conflicts != nil {
			dups += conflicts.skipped
		}
		if ingest != nil {
			if err := ingest.finish(); err != nil {
				return plan.FailRun(out, err)
			}
			dups += ingest.dups
		}
		return out, n - dups, nil
	}
	p.Run = withTriggers(t, catalog.TriggerInsert, ins.conflict != nil && ins.conflict.update, nil, p.Run)
	p.Describe = func(e *plan.Explainer) *plan.Node {
		var from *plan.Node
		switch {
		case ins.source != nil:
			from = e.Node(ins.source)
		case ins.values > 1:
			from = &plan.Node{Type: "Values Scan", Label: `Values Scan on "*VALUES*"`, Est: plan.Estimate{Total: float64(ins.values) * 0.01, Rows: float64(ins.values)}}
		default:
			from = &plan.Node{Type: "Result", Est: plan.Estimate{Total: 0.01, Rows: 1}}
		}
		return plan.ModifyNode("Insert", t.Name, ins.alias, from)
	}
	return p
}

// defaults compiles each column's default expression (nil: NULL).
func defaults(c *plan.Compiler, t *catalog.Table) ([]plan.Expr, error) {
	out := make([]plan.Expr, len(t.Columns))
	empty := c.WithScope(&plan.Scope{})
	for i, col := range t.Columns {
		if col.Default == "" || col.Dropped {
			continue
		}
		n, err := plan.ParseExpr(col.Default)
		if err != nil {
			return nil, err
		}
		if out[i], err = empty.CompileAssign(n, col.Type); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// insertRow checks and writes one new row and its unique index entries.
func (s *Session) insertRow(x *plan.ExecCtx, t *catalog.Table, row []any) error {
	if err := s.checkRow(t, row); err != nil {
		return err
	}
	return s.writeRow(x, t, row)
}

// writeRow writes a row that checkRow has passed.
func (s *Session) writeRow(x *plan.ExecCtx, t *catalog.Table, row []any) error {
	if t.IsView() {
		return pgerr.New(pgerr.InternalError, "write to view %q, which has no rows of its own", t.Name)
	}
	var rowID int64
	if t.PrimaryKey() == nil {
		seq := s.catalog().SequenceByID[t.RowIDSeq]
		id, err := s.e.seqs.Nextval(x.Ctx, seq)
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
	err := x.Tx.MutateNew(x.Ctx, key, func(_ []byte, exists bool) ([]byte, txn.Op, error) {
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
	if len(t.ForeignKeys) > 0 && x.FK != nil {
		// The caller may reuse row and key: the check keeps copies.
		written := slices.Clone(row)
		written[len(t.Columns)] = bytes.Clone(key)
		queueChildChecks(x, t, nil, written)
	}
	return nil
}

func (s *Session) insertIndexEntries(x *plan.ExecCtx, t *catalog.Table, row []any, key []byte) error {
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
	in    *plan.Compiler // compiles expressions over the table's rows
	scan  *plan.TableScan
	where plan.Expr
	// keysKept says the statement changes no column of a primary key or
	// unique index, which a foreign key could reference.
	keysKept bool
	// joined, for UPDATE ... FROM and DELETE ... USING, is the target
	// joined with the other FROM items; width is the target's part of
	// its rows (see dmljoin.go).
	joined plan.Source
	width  int
	// view, for a view's UPDATE or DELETE, reads the view's rows (see
	// viewwrite.go).
	view plan.Source
}

func planTarget(c *plan.Compiler, p *plan.WritePlan, with *ast.WithClause, refs *ast.TableRefsClause, where ast.ExprNode, returning *ast.FieldList) (*modifyTarget, error) {
	if with != nil {
		var err error
		if c, _, err = c.PlanWith(with); err != nil {
			return nil, err
		}
	}
	if refs != nil && refs.TableRefs != nil && refs.TableRefs.Right != nil {
		return planJoinedTarget(c, p, refs, where, returning)
	}
	t, alias, err := targetTable(c, refs, p.Verb)
	if err != nil {
		return nil, err
	}
	if t.IsView() {
		return planViewTarget(c, p, t, refs, where, returning)
	}
	sc := plan.TableScope(t, alias)
	m := &modifyTarget{t: t, in: c.WithScope(sc), scan: &plan.TableScan{Table: t, Access: plan.Access{Kind: "seq"}}}
	if where != nil {
		if m.where, err = m.in.CompileAs(where, types.Bool); err != nil {
			return nil, err
		}
		m.scan.Access = plan.ChooseAccess(t, m.where, c.Host.PartialImplied(t, m.where))
	}
	p.Table = t
	if err := planReturning(c, p, sc, returning); err != nil {
		return nil, err
	}
	p.Describe = func(e *plan.Explainer) *plan.Node {
		scan := e.Node(m.scan)
		e.Where(scan, m.scan, m.where, sc.Cols)
		return plan.ModifyNode(p.Verb, t.Name, "", scan)
	}
	return m, nil
}

// runModify makes p.run: modifyRows with update (nil deletes), counting
// the rows written and projecting RETURNING.
func runModify(p *plan.WritePlan, m *modifyTarget, set []int16, update func(x *plan.ExecCtx, old []any) ([]any, error)) {
	event := catalog.TriggerDelete
	if update != nil {
		event = catalog.TriggerUpdate
	}
	defer func() { p.Run = withTriggers(m.t, event, false, set, p.Run) }()
	if m.view != nil {
		p.Run = insteadModify(p, m, event, update)
		return
	}
	p.Run = func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error) {
		out := p.Returned(x)
		var count int64
		var up func(old []any) ([]any, error)
		if update != nil {
			up = func(old []any) ([]any, error) { return update(x, old) }
		}
		if m.keysKept {
			x.Tx.KeepKeys(true)
			defer x.Tx.KeepKeys(false)
		}
		modify := func(up func(old []any) ([]any, error), done func(row []any) error) error {
			if m.joined != nil {
				return sessionOf(x.Host).modifyJoined(x, m, up, done)
			}
			return sessionOf(x.Host).modifyRows(x, m.t, m.scan, m.where, up, done)
		}
		err := modify(up, func(row []any) error {
			count++
			if p.Returning != nil {
				r, err := p.Project(x, row)
				if err != nil {
					return err
				}
				return out.Add(r)
			}
			return nil
		})
		if err != nil {
			return plan.FailRun(out, err)
		}
		return out, count, nil
	}
}

// planUpdate plans UPDATE t SET ... WHERE ...
func planUpdate(c *plan.Compiler, n *ast.UpdateStmt, returning *ast.FieldList) (*plan.WritePlan, error) {
	if n.Order != nil || n.Limit != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "UPDATE with ORDER BY or LIMIT is not supported")
	}
	p := &plan.WritePlan{Verb: "UPDATE"}
	m, err := planTarget(c, p, n.With, n.TableRefs, n.Where, returning)
	if err != nil {
		return nil, err
	}
	t := m.t
	defaults, err := defaults(c, t)
	if err != nil {
		return nil, err
	}
	type set struct {
		col int
		e   plan.Expr
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
	var setCols []int16
	for _, st := range sets {
		setCols = append(setCols, t.Columns[st.col].Num)
	}
	runModify(p, m, setCols, func(x *plan.ExecCtx, old []any) ([]any, error) {
		row := append([]any(nil), old[:len(t.Columns)+1]...) // without the FROM items' part
		e := x.Env(old)
		for _, st := range sets {
			v, err := st.e.Eval(e)
			if err != nil {
				return nil, err
			}
			row[st.col] = v
		}
		return row, sessionOf(x.Host).checkRow(t, row)
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
func planDelete(c *plan.Compiler, n *ast.DeleteStmt, returning *ast.FieldList) (*plan.WritePlan, error) {
	if n.IsMultiTable && n.TableRefs.TableRefs.Right == nil || n.Order != nil || n.Limit != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of DELETE is not supported")
	}
	p := &plan.WritePlan{Verb: "DELETE"}
	m, err := planTarget(c, p, n.With, n.TableRefs, n.Where, returning)
	if err != nil {
		return nil, err
	}
	runModify(p, m, nil, nil)
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
func (s *Session) modifyRows(x *plan.ExecCtx, t *catalog.Table, scan *plan.TableScan, where plan.Expr,
	update func(old []any) ([]any, error), done func(row []any) error) error {
	it, err := plan.OpenTracked(x, scan)
	if err != nil {
		return err
	}
	candidates := &plan.FilterIter{In: it, X: x, Pred: trueIfNil(where)}
	defer candidates.Close()
	var pred func(old []any) (bool, error)
	if where != nil {
		pred = func(old []any) (bool, error) {
			v, err := where.Eval(x.Env(old))
			return plan.IsTrue(v), err
		}
	}
	event := catalog.TriggerDelete
	if update != nil {
		event = catalog.TriggerUpdate
	}
	triggered := t.HasTrigger("before", event, true)
	for {
		cand, err := candidates.Next()
		if err != nil || cand == nil {
			return err
		}
		if modifyHook != nil {
			modifyHook()
		}
		key := cand[len(t.Columns)].([]byte)
		if triggered {
			// The scan's version is most likely the newest: the trigger
			// runs on it, and the write checks that it still is.
			err = s.modifyTriggered(x, t, key, true, pred, update, done, cand)
		} else {
			err = s.modifyRow(x, t, key, true, pred, update, done)
		}
		switch {
		case errors.Is(err, txn.ErrWrittenByTrigger) && update == nil && !triggered:
			// What PostgreSQL's DELETE says itself; with a BEFORE
			// trigger, the trigger's fetch of the row says "updated".
			return pgerr.New(pgerr.TriggeredDataChangeViolation, "tuple to be deleted was already modified by an operation triggered by the current command").
				WithHint("Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.")
		case err != nil && !errors.Is(err, txn.ErrWrittenByStatement):
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
func (s *Session) modifyRow(x *plan.ExecCtx, t *catalog.Table, key []byte, once bool, pred func(old []any) (bool, error),
	update func(old []any) ([]any, error), done func(row []any) error) error {
	event := catalog.TriggerDelete
	if update != nil {
		event = catalog.TriggerUpdate
	}
	if t.HasTrigger("before", event, true) {
		return s.modifyTriggered(x, t, key, once, pred, update, done, nil)
	}
	return s.writeModified(x, t, key, once, nil, pred, update, done)
}

// errWrittenMeanwhile is modifyUnlocked's report that the statement itself
// changed the row while its new value was computed.
var errWrittenMeanwhile = errors.New("row written by the statement while its update was computed")

// errRowGone is modifyUnlocked's report that the row was deleted, before
// or while its new value was computed: there was nothing to update.
var errRowGone = errors.New("row deleted before its update was written")

// modifyUnlocked is modifyRow for an update whose expressions may run
// statements, such as ON CONFLICT DO UPDATE's SET reading a
// data-modifying WITH query that writes the same row: it reads the row,
// computes the new one without holding the row's lock (which the
// statements would wait on forever), and writes it only if the row is
// still as read. A row another transaction changed meanwhile is read
// again, as PostgreSQL re-checks an updated row; one the statement itself
// changed meanwhile fails with errWrittenMeanwhile, and the caller leaves
// it alone, as PostgreSQL leaves a row its command already updated.
func (s *Session) modifyUnlocked(x *plan.ExecCtx, t *catalog.Table, key []byte, pred func(old []any) (bool, error),
	update func(old []any) ([]any, error), done func(row []any) error) error {
	for {
		var old []any
		var seen []byte
		err := x.Tx.MutateOnce(x.Ctx, key, func(cur []byte, exists bool) ([]byte, txn.Op, error) {
			if !exists {
				return nil, txn.Keep, nil
			}
			var err error
			old, err = t.DecodeRow(key, cur)
			seen = bytes.Clone(cur)
			return nil, txn.Keep, err
		})
		switch {
		case err != nil:
			return err
		case old == nil:
			return errRowGone
		}
		if pred != nil {
			if ok, err := pred(old); err != nil || !ok {
				return err
			}
		}
		row, err := update(old)
		if err != nil {
			return err
		}
		changed, gone := false, true
		same := func(cur []byte) bool {
			changed, gone = !bytes.Equal(cur, seen), false
			return !changed
		}
		err = s.writeModified(x, t, key, true, same, nil, func([]any) ([]any, error) { return row, nil }, done)
		switch {
		case errors.Is(err, txn.ErrWrittenByStatement):
			return errWrittenMeanwhile
		case err != nil:
			return err
		case gone:
			return errRowGone
		case !changed:
			return nil
		}
	}
}

// writeModified is modifyRow without BEFORE ROW triggers: what
// modifyTriggered writes once they have run. With seen set, it writes
// only if the row's newest version is seen, byte for byte, and otherwise
// reports the row changed (changed unwritten: old nil, and done uncalled).
func (s *Session) writeModified(x *plan.ExecCtx, t *catalog.Table, key []byte, once bool, seen func(cur []byte) bool, pred func(old []any) (bool, error),
	update func(old []any) ([]any, error), done func(row []any) error) error {
	var old, row []any
	mutate := x.Tx.Mutate
	if once {
		mutate = x.Tx.MutateOnce
	}
	err := mutate(x.Ctx, key, func(cur []byte, exists bool) ([]byte, txn.Op, error) {
		if !exists {
			return nil, txn.Keep, nil // deleted meanwhile
		}
		if seen != nil && !seen(cur) {
			return nil, txn.Keep, nil
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
		if err := afterParentChange(x, t, old, nil); err != nil {
			return err
		}
	} else {
		if len(t.ForeignKeys) > 0 {
			queueChildChecks(x, t, old, slices.Clone(row))
		}
		if err := afterParentChange(x, t, old, row); err != nil {
			return err
		}
	}
	if len(t.Triggers) > 0 {
		event, written := catalog.TriggerUpdate, row
		if update == nil {
			event, written = catalog.TriggerDelete, nil
		}
		if err := afterRow(x, t, event, old, written); err != nil {
			return err
		}
	}
	return done(row)
}

// fixIndexes brings index entries (and a moved primary key) in line with
// an updated or deleted row. key is the row's key before the change.
func (s *Session) fixIndexes(x *plan.ExecCtx, t *catalog.Table, key []byte, old, row []any, deleted bool) error {
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
			if err := x.Tx.Delete(x.Ctx, before); err != nil {
				return err
			}
		}
	}
	if deleted {
		return nil
	}
	if !bytes.Equal(newKey, key) {
		val := t.EncodeRow(row)
		err := x.Tx.Mutate(x.Ctx, newKey, func(_ []byte, exists bool) ([]byte, txn.Op, error) {
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
				if err := x.Tx.Put(x.Ctx, after, newKey); err != nil {
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

func trueIfNil(e plan.Expr) plan.Expr {
	if e == nil {
		return &plan.ConstExpr{T: types.Bool, V: true}
	}
	return e
}

// keyDescription renders "Key (a, b)=(1, x) already exists." for
// unique-violation details.
func keyDescription(t *catalog.Table, ix *catalog.Index, row []any, s *Session) string {
	return "Key " + keyValues(t, ix, row, s) + " already exists."
}

// keyValues renders "(a, b)=(1, x)": an index's columns and row's values.
func keyValues(t *catalog.Table, ix *catalog.Index, row []any, s *Session) string {
	names := make([]string, len(ix.Columns))
	vals := make([]string, len(ix.Columns))
	for i, ci := range ix.Columns {
		c := t.Columns[ci]
		names[i] = c.Name
		if c.Hidden {
			names[i] = s.indexColumnText(t, ci)
		}
		vals[i] = string(types.AppendText(nil, c.Type, row[ci], s.loc()))
	}
	return fmt.Sprintf("(%s)=(%s)", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// rowDescription renders a row for not-null violation details.
func rowDescription(t *catalog.Table, row []any, s *Session) string {
	var vals []string
	for i, c := range t.Columns {
		if !c.Visible() {
			continue
		}
		if row[i] == nil {
			vals = append(vals, "null")
		} else {
			vals = append(vals, string(types.AppendText(nil, c.Type, row[i], s.loc())))
		}
	}
	return "Failing row contains (" + strings.Join(vals, ", ") + ")."
}
