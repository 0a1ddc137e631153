package sql

import (
	"context"
	"fmt"
	"slices"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// ALTER TABLE's renames and NOT NULL changes. Foreign keys, indexes and
// sequences refer to a table and its columns by id and position, so a
// rename touches only names; CHECK expressions name columns and are
// rewritten. A view keeps its query's text, which a rename would break:
// renaming what a view reads is refused, where PostgreSQL, which keeps
// views parsed, follows the rename.

// renameTable renames t, which the DDL d has claimed, to name.
func renameTable(d *catalog.DDL, ctx context.Context, t *catalog.Table, name string) error {
	if d.Cat.HasRelation(t.Schema, name) {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	if err := renameInViews(d, ctx, t.ID, t.Name, name); err != nil {
		return err
	}
	if err := d.ClaimName(ctx, catalog.QName{Schema: t.Schema, Name: name}, t.ID); err != nil {
		return err
	}
	if err := d.ReleaseName(ctx, t.QName()); err != nil {
		return err
	}
	delete(d.Cat.TableByName, t.QName())
	t.Name = name
	return nil
}

// renameInViews follows the rename of relation id from old to new into
// the queries of the views and materialized views that read it, as
// PostgreSQL's views, which hold parse trees, follow it by themselves.
// A query whose text names old in a way the rewrite cannot tell apart
// (see parser.RenameRelation) stops the rename.
func renameInViews(d *catalog.DDL, ctx context.Context, id uint32, old, new string) error {
	for _, v := range d.Cat.Views() {
		if !slices.Contains(v.Deps, id) {
			continue
		}
		sql, ok, err := parser.RenameRelation(v.SQL, old, new)
		if err != nil || !ok {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename %q because view %q reads it in a way epochdb cannot rewrite", old, v.Name).
				WithHint("Drop the view, rename, and create the view again.")
		}
		renamed := *v
		renamed.SQL = sql
		if err := d.PutView(ctx, &renamed); err != nil {
			return err
		}
	}
	for _, t := range d.Cat.Tables() {
		if !t.IsMatView() || !slices.Contains(t.Deps, id) {
			continue
		}
		sql, ok, err := parser.RenameRelation(t.MatView, old, new)
		if err != nil || !ok {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename %q because materialized view %q reads it in a way epochdb cannot rewrite", old, t.Name).
				WithHint("Drop the materialized view, rename, and create it again.")
		}
		renamed := t.Clone()
		renamed.MatView = sql
		if err := d.PutTable(ctx, renamed); err != nil {
			return err
		}
	}
	return nil
}

// renameColumn renames t's column from to to, and the column in t's CHECK
// constraints.
func renameColumn(d *catalog.DDL, t *catalog.Table, from, to string) error {
	_, col := t.Column(from)
	if col == nil {
		return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", from)
	}
	if _, dup := t.Column(to); dup != nil {
		return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", to, t.Name)
	}
	for _, v := range d.Cat.ViewByName {
		if viewUsesColumn(v, t, from) {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename column %s of table %s because view %s uses it", from, t.Name, v.Name).
				WithHint("Drop the view, rename the column, and create the view again.")
		}
	}
	for i, ck := range t.Checks {
		n, err := plan.ParseExpr(ck.Expr)
		if err != nil {
			return err
		}
		n.Accept(columnRenamer{from: from, to: to})
		renamed := *ck
		renamed.Expr = plan.StoredExpr(n)
		t.Checks[i] = &renamed
	}
	for _, g := range t.Columns {
		if g.Generated == "" {
			continue
		}
		n, err := plan.ParseExpr(g.Generated)
		if err != nil {
			return err
		}
		n.Accept(columnRenamer{from: from, to: to})
		g.Generated = plan.StoredExpr(n)
	}
	col.Name = to
	return nil
}

// columnRenamer renames the column references of an expression.
type columnRenamer struct{ from, to string }

func (r columnRenamer) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name.Name.O == r.from {
		c.Name.Name.O, c.Name.Name.L = r.to, r.to
	}
	return n, false
}

func (r columnRenamer) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// setNotNull makes t's column name NOT NULL, or with drop, nullable again.
// SET NOT NULL checks the existing rows.
func (s *Session) setNotNull(ctx context.Context, d *catalog.DDL, t *catalog.Table, name string, drop bool) error {
	i, col := t.Column(name)
	if col == nil {
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
	}
	if drop {
		if pk := t.PrimaryKey(); pk != nil && slices.Contains(pk.Columns, i) {
			return pgerr.New(pgerr.InvalidTableDefinition, "column %q is in a primary key", name)
		}
		col.NotNull = false
		return nil
	}
	if col.NotNull {
		return nil
	}
	col.NotNull = true
	return s.eachRow(ctx, d, t, func(_ *plan.ExecCtx, row []any) error {
		if row[i] != nil {
			return nil
		}
		e := pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", name, t.Name)
		e.Table, e.Column = t.Name, name
		return e
	})
}

// setDefault is ALTER COLUMN ... SET DEFAULT expr, or DROP DEFAULT when cd
// has no default: it applies to rows inserted later.
func (s *Session) setDefault(t *catalog.Table, cd *ast.ColumnDef) error {
	_, col := t.Column(cd.Name.Name.O)
	if col == nil {
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cd.Name.Name.O, t.Name)
	}
	if col.Generated != "" {
		return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is a generated column", col.Name, t.Name)
	}
	if col.Identity != 0 {
		return errIdentityDefault(col, t)
	}
	if len(cd.Options) == 0 {
		col.Default = ""
		return nil
	}
	o := cd.Options[0]
	if plan.HasSubquery(o.Expr) {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression")
	}
	next := *col
	next.Default = s.storedDefault(o.Expr)
	if _, err := s.compileDefault(&next); err != nil {
		return err
	}
	*col = next
	return nil
}

// createTableAs is CREATE TABLE name AS query: a table with the query's
// columns, names and types, filled with its rows in the same transaction.
// It returns how many rows it wrote, or -1 if IF NOT EXISTS found the
// table there.
func (s *Session) createTableAs(ctx context.Context, st *parser.Statement, n *ast.CreateTableStmt) (int64, error) {
	if len(n.Cols) > 0 || len(n.Constraints) > 0 {
		return 0, pgerr.New(pgerr.FeatureNotSupported, "column lists in CREATE TABLE AS are not supported")
	}
	q, err := s.createRelIn(ctx, n.Table.Schema.O, n.Table.Name.O, st.Temp)
	if err != nil {
		return 0, err
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return 0, err
	}
	name := q.Name
	if d.Cat.HasRelation(q.Schema, name) {
		if n.IfNotExists {
			s.notice(pgerr.DuplicateTable, "relation %q already exists, skipping", name)
			return -1, nil
		}
		return 0, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	var params []types.T
	qp, err := (&plan.Compiler{Host: s.host(), Params: &params, Order: st.ParamOrder, Scope: &plan.Scope{}, ExtensionsOnPath: true}).PlanQuery(n.Select)
	if err != nil {
		return 0, err
	}
	if len(params) > 0 {
		return 0, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $1")
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return 0, err
	}
	t, err := s.newTable(d, st, id, q)
	if err != nil {
		return 0, err
	}
	for _, c := range qp.Columns() {
		if _, dup := t.Column(c.Name); dup != nil {
			return 0, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", c.Name)
		}
		typ := c.Type
		if typ.Oid == types.OidUnknown {
			typ = types.Text
		}
		if err := pgcatalog.Storable(c.Name, typ); err != nil {
			return 0, err
		}
		t.NextNum++
		t.Columns = append(t.Columns, &catalog.TableColumn{Num: t.NextNum, Name: c.Name, Type: typ})
	}
	if err := s.addRowIDSeq(ctx, d, t); err != nil {
		return 0, err
	}
	if err := d.ClaimName(ctx, q, id); err != nil {
		return 0, err
	}
	if err := d.PutTable(ctx, t); err != nil {
		return 0, err
	}
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: d.Tx}
	defer x.CloseTemps()
	it, err := qp.Open(x)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var rows int64
	for {
		r, err := it.Next()
		if err != nil || r == nil {
			return rows, err
		}
		row := make([]any, len(t.Columns)+1)
		copy(row, r[:len(t.Columns)])
		if err := s.insertRow(x, t, row); err != nil {
			return 0, err
		}
		rows++
	}
}

// typeChange converts one column's values to its new type in a rebuild:
// e computes the new value over the old row.
type typeChange struct {
	col int
	e   plan.Expr
}

// isTypeChange reports whether a MODIFY COLUMN is the parser's form of
// ALTER COLUMN ... TYPE.
func isTypeChange(cd *ast.ColumnDef) bool {
	return slices.ContainsFunc(cd.Options, func(o *ast.ColumnOption) bool {
		v, ok := o.Expr.(*driver.ValueExpr)
		return o.Tp == ast.ColumnOptionComment && ok && v.GetString() == "epochdb_type"
	})
}

// alterType gives t's column cd names the type typeName. Its values are
// converted by the USING expression (in cd's DEFAULT), evaluated over the
// old row, or else by the assignment cast from the old type, which must
// exist, as in PostgreSQL; either way the rebuild writes them.
func (s *Session) alterType(d *catalog.DDL, old, t *catalog.Table, cd *ast.ColumnDef, typeName string) (typeChange, error) {
	name := cd.Name.Name.O
	i, col := t.Column(name)
	if col == nil {
		return typeChange{}, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
	}
	to, err := s.parseTypeName(typeName)
	if err != nil {
		return typeChange{}, err
	}
	if err := pgcatalog.Storable(name, to); err != nil {
		return typeChange{}, err
	}
	for _, v := range d.Cat.ViewByName {
		if viewUsesColumn(v, old, name) {
			return typeChange{}, pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by a view or rule").
				WithDetail("rule _RETURN on view %s depends on column %q", v.Name, name)
		}
	}
	if g := generatedUses(t, name); g != nil && g != col {
		return typeChange{}, pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by a generated column").
			WithDetail("Column %q is used by generated column %q.", name, g.Name)
	}
	if in := t.Ingest; in != nil && (i == in.Producer || i == in.Sequence || i == in.Epoch) {
		return typeChange{}, pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of ingest column %q", name)
	}
	c := &plan.Compiler{Host: s.host(), Params: new([]types.T), Scope: plan.TableScope(old, old.Name)}
	var using plan.Expr = &plan.ColExpr{T: col.Type, Index: i}
	explicit := false
	for _, o := range cd.Options {
		if o.Tp == ast.ColumnOptionDefaultValue {
			if using, err = c.Compile(o.Expr); err != nil {
				return typeChange{}, err
			}
			explicit = true
		}
	}
	conv, err := c.Assign(using, to)
	if err != nil {
		what := fmt.Sprintf("column %q", name)
		hint := fmt.Sprintf("You might need to specify \"USING %s::%s\".", name, to)
		if explicit {
			what = fmt.Sprintf("result of USING clause for column %q", name)
			hint = "You might need to add an explicit cast."
		}
		return typeChange{}, pgerr.New(pgerr.DatatypeMismatch, "%s cannot be cast automatically to type %s", what, to).WithHint("%s", hint)
	}
	next := *col
	next.Type, next.Stats = to, nil // the old statistics are of the old type
	if next.Default != "" {
		if _, err := s.compileDefault(&next); err != nil {
			return typeChange{}, pgerr.New(pgerr.DatatypeMismatch, "default for column %q cannot be cast automatically to type %s", name, to)
		}
	}
	*col = next
	if err := keysStillMatch(d.Cat, t, i); err != nil {
		return typeChange{}, err
	}
	return typeChange{col: i, e: conv}, nil
}

// keysStillMatch checks the foreign keys column i of t is in, on either
// side, against its new type.
func keysStillMatch(cat *catalog.Catalog, t *catalog.Table, i int) error {
	check := func(fk *catalog.ForeignKey, a, b *catalog.TableColumn) error {
		if keyComparable(a.Type, b.Type) {
			return nil
		}
		return pgerr.New(pgerr.DatatypeMismatch, "foreign key constraint %q cannot be implemented", fk.Name).
			WithDetail("Key columns %q and %q are of incompatible types: %s and %s.", a.Name, b.Name, a.Type, b.Type)
	}
	for _, fk := range t.ForeignKeys {
		parent := cat.TableByID[fk.RefTable]
		if fk.RefTable == t.ID {
			parent = t
		}
		for k, ci := range fk.Columns {
			if pi := fk.RefColumns[k]; ci == i || fk.RefTable == t.ID && pi == i {
				if err := check(fk, t.Columns[ci], parent.Columns[pi]); err != nil {
					return err
				}
			}
		}
	}
	for _, ref := range cat.Referencing(t.ID) {
		if ref.Child.ID == t.ID {
			continue // checked above
		}
		for k, pi := range ref.FK.RefColumns {
			if pi == i {
				if err := check(ref.FK, ref.Child.Columns[ref.FK.Columns[k]], t.Columns[i]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkRestart checks RESTART WITH v against seq's bounds.
func checkRestart(seq *catalog.Sequence, v int64) error {
	if v < seq.Min || v > seq.Max {
		bound, word := seq.Min, "less than MINVALUE"
		if v > seq.Max {
			bound, word = seq.Max, "greater than MAXVALUE"
		}
		return pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be %s (%d)", v, word, bound)
	}
	return nil
}

// alterSequence is ALTER SEQUENCE name with CREATE SEQUENCE's options and
// RESTART [WITH n].
func (s *Session) alterSequence(ctx context.Context, n *ast.AlterSequenceStmt) error {
	q, ok, err := s.findIn(n.Name.Schema.O, n.Name.Name.O, n.IfExists)
	if !ok {
		return err
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	name := q.Name
	seq := d.Cat.SequenceByName[q]
	if seq == nil {
		if d.Cat.ViewByName[q] != nil || d.Cat.TableByName[q] != nil {
			return pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", name)
		}
		if n.IfExists {
			s.notice(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", name)
			return nil
		}
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	altered := *seq
	r, err := applySeqOptions(&altered, n.SeqOptions, false)
	if err != nil {
		return err
	}
	if altered.Start != seq.Start || altered.Increment != seq.Increment || altered.Min != seq.Min || altered.Max != seq.Max ||
		altered.Block != seq.Block {
		// Values already reserved were reserved under the old options;
		// take the next ones afresh, from where the reservations got to.
		s.e.seqs.Forget(seq.StorageID())
	}
	if !r.restart {
		return d.PutSequence(ctx, &altered)
	}
	return d.RestartSequence(ctx, &altered, r.with)
}

// alterIndexRename is ALTER INDEX name RENAME TO new_name. A primary key's
// or unique constraint's index and the constraint share their name, so
// both change.
func (s *Session) alterIndexRename(ctx context.Context, cmd *parser.AlterIndexRename) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	q, err := s.lookName(cmd.Name)
	if err != nil {
		return err
	}
	name := q.Name
	owner, _ := d.Cat.IndexNamed(q)
	if owner == nil {
		if d.Cat.TableByName[q] != nil {
			// PostgreSQL's ALTER INDEX renames a table too.
			d, old, err := s.ddlTable(ctx, q, "alter rename", false)
			if err != nil {
				return err
			}
			t := old.Clone()
			if err := renameTable(d, ctx, t, cmd.NewName); err != nil {
				return err
			}
			return d.PutTable(ctx, t)
		}
		if d.Cat.HasRelation(q.Schema, name) {
			return pgerr.New(pgerr.WrongObjectType, "%q is not an index", name)
		}
		if cmd.IfExists {
			s.notice(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", name)
			return nil
		}
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	if err := s.lockTableForDDL(ctx, d, owner, true); err != nil {
		return err
	}
	if d.Cat.HasRelation(owner.Schema, cmd.NewName) {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", cmd.NewName)
	}
	t := owner.Clone()
	for _, ix := range t.Indexes {
		if ix.Name == name {
			ix.Name = cmd.NewName
		}
	}
	return d.PutTable(ctx, t)
}

// renameConstraint is ALTER TABLE t RENAME CONSTRAINT name TO new_name;
// a primary key's or unique constraint's index is renamed with it.
func (s *Session) renameConstraint(ctx context.Context, cmd *parser.RenameConstraint) error {
	table, err := s.lookName(cmd.Table)
	if err != nil {
		return err
	}
	d, old, err := s.ddlTable(ctx, table, "alter rename constraint", false)
	if err != nil {
		return err
	}
	t := old.Clone()
	if !tableConstraintNamed(t, cmd.Name) {
		return pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", cmd.Name, t.Name)
	}
	if tableConstraintNamed(t, cmd.NewName) {
		return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", cmd.NewName, t.Name)
	}
	for _, ck := range t.Checks {
		if ck.Name == cmd.Name {
			ck.Name = cmd.NewName
		}
	}
	for _, fk := range t.ForeignKeys {
		if fk.Name == cmd.Name {
			fk.Name = cmd.NewName
		}
	}
	for _, ix := range t.Indexes {
		if ix.Name == cmd.Name && !ix.Standalone {
			if d.Cat.HasRelation(t.Schema, cmd.NewName) {
				return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", cmd.NewName)
			}
			ix.Name = cmd.NewName
		}
	}
	return d.PutTable(ctx, t)
}
