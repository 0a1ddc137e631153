package sql

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Storage options CREATE TABLE ... WITH (...) accepts. fillfactor is
// PostgreSQL's and has no effect here; ingest_* configure ingest tables.
var tableOptions = map[string]bool{
	"fillfactor": true, "ingest_producer": true, "ingest_sequence": true,
	"ingest_epoch": true, "ingest_window": true, "ingest_producer_ttl": true,
}

// newTable is the descriptor of a table CREATE TABLE st makes, with id
// and name q, before its columns: its storage options and what commits do
// to it.
func (s *Session) newTable(d *catalog.DDL, st *parser.Statement, id uint32, q catalog.QName) (*catalog.Table, error) {
	t := &catalog.Table{ID: id, Name: q.Name, Schema: q.Schema, DataID: id, Options: map[string]string{}}
	for _, o := range st.Options {
		if !tableOptions[o.Name] {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter %q", o.Name)
		}
		t.Options[o.Name] = o.Value
	}
	return t, s.noteOnCommit(d.Cat, t, st.OnCommit)
}

func (s *Session) createTable(ctx context.Context, st *parser.Statement, n *ast.CreateTableStmt) error {
	if n.ReferTable != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "CREATE TABLE ... LIKE is not supported yet")
	}
	q, err := s.createRelIn(ctx, n.Table.Schema.O, n.Table.Name.O, st.Temp)
	if err != nil {
		return err
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	name := q.Name
	if d.Cat.HasRelation(q.Schema, name) {
		if n.IfNotExists {
			s.notice(pgerr.DuplicateTable, "relation %q already exists, skipping", name)
			return nil
		}
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return err
	}
	t, err := s.newTable(d, st, id, q)
	if err != nil {
		return err
	}
	var pk []string
	var pkName string
	type unique struct {
		cols []string
		name string
	}
	var uniques []unique
	var pend pendingConstraints
	for i, cd := range n.Cols {
		col, colPK, isUnique, err := s.columnDef(ctx, d, t, cd, columnType(st, i), st, &pend)
		if err != nil {
			return err
		}
		if _, dup := t.Column(col.Name); dup != nil {
			return pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", col.Name)
		}
		t.Columns = append(t.Columns, col)
		if colPK {
			if pk != nil {
				return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", name)
			}
			pk = []string{col.Name}
		}
		if isUnique {
			uniques = append(uniques, unique{cols: []string{col.Name}})
		}
	}
	for _, cons := range n.Constraints {
		if cons.Tp == ast.ConstraintCheck {
			pend.checks = append(pend.checks, pendingCheck{name: cons.Name, expr: cons.Expr})
			continue
		}
		cols := make([]string, len(cons.Keys))
		for i, k := range cons.Keys {
			if k.Column == nil {
				return pgerr.New(pgerr.FeatureNotSupported, "expression indexes are not supported")
			}
			cols[i] = k.Column.Name.O
		}
		switch cons.Tp {
		case ast.ConstraintPrimaryKey:
			if pk != nil {
				return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", name)
			}
			pk, pkName = cols, cons.Name
		case ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex:
			uniques = append(uniques, unique{cols: cols, name: cons.Name})
		case ast.ConstraintForeignKey:
			pend.fks = append(pend.fks, pendingFK{name: cons.Name, cols: cols, ref: cons.Refer})
		default:
			return pgerr.New(pgerr.FeatureNotSupported, "this table constraint is not supported yet")
		}
	}
	for i, ck := range pend.checks {
		if ck.name != "" && slices.ContainsFunc(pend.checks[:i], func(c pendingCheck) bool { return c.name == ck.name }) {
			return pgerr.New(pgerr.DuplicateObject, "check constraint %q already exists", ck.name)
		}
	}
	if err := indexNamesFree(d, t, pkName); err != nil {
		return err
	}
	if pk != nil {
		if err := addIndex(t, pk, true, pkName); err != nil {
			return err
		}
	} else if err := s.addRowIDSeq(ctx, d, t); err != nil {
		return err
	}
	for _, u := range uniques {
		if err := indexNamesFree(d, t, u.name); err != nil {
			return err
		}
		if err := addIndex(t, u.cols, false, u.name); err != nil {
			return err
		}
	}
	for _, ck := range pend.checks {
		if _, err := s.addCheck(d.Cat, t, ck.name, ck.expr); err != nil {
			return err
		}
	}
	for _, pf := range withDeferral(st, pend.fks) {
		if _, err := s.addForeignKey(d, t, pf); err != nil {
			return err
		}
	}
	if err := s.checkGenerated(t); err != nil {
		return err
	}
	if t.Ingest, err = ingestSpec(t); err != nil {
		return err
	}
	if err := d.ClaimName(ctx, q, id); err != nil {
		return err
	}
	return d.PutTable(ctx, t)
}

func columnType(st *parser.Statement, i int) string {
	if i < len(st.ColumnTypes) {
		return st.ColumnTypes[i]
	}
	return ""
}

// pendingCheck is a CHECK constraint of a CREATE TABLE, added once all
// columns are known.
type pendingCheck struct {
	name string
	expr ast.ExprNode
}

// pendingConstraints are the CHECK and FOREIGN KEY clauses of a CREATE or
// ALTER TABLE, added once its columns and keys are in place.
type pendingConstraints struct {
	checks []pendingCheck
	fks    []pendingFK
}

// columnDef builds a column from its definition; serial types create their
// sequence, and CHECK constraints go to checks.
func (s *Session) columnDef(ctx context.Context, d *catalog.DDL, t *catalog.Table, cd *ast.ColumnDef, typeName string, st *parser.Statement,
	pend *pendingConstraints) (*catalog.TableColumn, bool, bool, error) {
	t.NextNum++
	col := &catalog.TableColumn{Num: t.NextNum, Name: cd.Name.Name.O}
	serial := map[string]types.T{"serial": types.Int4, "serial4": types.Int4, "bigserial": types.Int8,
		"serial8": types.Int8, "smallserial": types.Int2, "serial2": types.Int2}
	if st, ok := serial[typeName]; ok {
		col.Type, col.NotNull = st, true
		q := catalog.QName{Schema: t.Schema, Name: fmt.Sprintf("%s_%s_seq", t.Name, col.Name)}
		seq, err := s.newSequence(ctx, d, q, t.ID, st, catalog.SeqBlock)
		if err != nil {
			return nil, false, false, err
		}
		col.Serial = seq.ID
		col.Default = nextvalDefault(d.Cat, seq)
	} else {
		typ, err := s.parseTypeName(typeName)
		if err != nil {
			return nil, false, false, err
		}
		if err := pgcatalog.Storable(col.Name, typ); err != nil {
			return nil, false, false, err
		}
		col.Type = typ
	}
	var pk, unique bool
	for _, o := range cd.Options {
		switch o.Tp {
		case ast.ColumnOptionNotNull:
			col.NotNull = true
		case ast.ColumnOptionNull:
		case ast.ColumnOptionDefaultValue:
			if plan.HasSubquery(o.Expr) {
				return nil, false, false, pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression")
			}
			col.Default = s.storedDefault(o.Expr)
			// Check the default now, as PostgreSQL does at CREATE time.
			if _, err := s.compileDefault(col); err != nil {
				return nil, false, false, err
			}
		case ast.ColumnOptionPrimaryKey:
			pk, col.NotNull = true, true
		case ast.ColumnOptionUniqKey:
			unique = true
		case ast.ColumnOptionGenerated:
			if err := s.generatedDef(col, o); err != nil {
				return nil, false, false, err
			}
		case ast.ColumnOptionAutoIncrement:
			var opts *parser.IdentityColumn
			for i := range st.IdentityColumns {
				if st.IdentityColumns[i].Column == col.Name {
					opts = &st.IdentityColumns[i]
				}
			}
			if err := s.identityDef(ctx, d, t, col, opts); err != nil {
				return nil, false, false, err
			}
		case ast.ColumnOptionComment:
			// The parser's mark of GENERATED ALWAYS AS IDENTITY.
			if v, ok := o.Expr.(*driver.ValueExpr); !ok || v.GetString() != "epochdb_identity_always" {
				return nil, false, false, pgerr.New(pgerr.FeatureNotSupported, "column option %q is not supported", plan.Restore(o))
			}
			col.Identity = 'a'
		case ast.ColumnOptionCheck:
			pend.checks = append(pend.checks, pendingCheck{name: o.ConstraintName, expr: o.Expr})
		case ast.ColumnOptionReference:
			pend.fks = append(pend.fks, pendingFK{name: o.ConstraintName, cols: []string{col.Name}, ref: o.Refer})
		default:
			return nil, false, false, pgerr.New(pgerr.FeatureNotSupported, "column option %q is not supported", plan.Restore(o))
		}
	}
	return col, pk, unique, nil
}

func (s *Session) compileDefault(col *catalog.TableColumn) (plan.Expr, error) {
	n, err := plan.ParseExpr(col.Default)
	if err != nil {
		return nil, err
	}
	var params []types.T
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: &plan.Scope{}}
	return c.CompileAssign(n, col.Type)
}

// indexNamesFree checks that a primary key or unique constraint may take
// name ("" passes): its index is a relation, and it is a constraint.
func indexNamesFree(d *catalog.DDL, t *catalog.Table, name string) error {
	switch {
	case name == "":
	case d.Cat.HasRelation(t.Schema, name) || slices.ContainsFunc(t.Indexes, func(ix *catalog.Index) bool { return ix.Name == name }):
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	case tableConstraintNamed(t, name):
		return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", name, t.Name)
	}
	return nil
}

// addIndex adds the primary key or a unique constraint over cols, named
// name or, if that is empty, as PostgreSQL names it.
func addIndex(t *catalog.Table, cols []string, primary bool, name string) error {
	ix := &catalog.Index{ID: catalog.PrimaryIndexID, Primary: primary, NullEntries: true, Name: name}
	if primary {
		ix.Name = cmp.Or(name, parser.ObjectName(t.Name, "", "pkey"))
	} else {
		ix.Name = cmp.Or(name, parser.ObjectName(t.Name, strings.Join(cols, "_"), "key"))
		var err error
		if ix.ID, err = t.NextIndexID(); err != nil {
			return err
		}
	}
	for _, name := range cols {
		i, col := t.Column(name)
		if col == nil {
			return pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", name)
		}
		if primary {
			col.NotNull = true
		}
		ix.Columns = append(ix.Columns, i)
	}
	if primary {
		t.Indexes = append([]*catalog.Index{ix}, t.Indexes...)
	} else {
		t.Indexes = append(t.Indexes, ix)
	}
	return nil
}

// nextvalDefault is the default of a column that seq feeds: nextval of
// seq.
func nextvalDefault(cat *catalog.Catalog, seq *catalog.Sequence) string {
	return `"nextval"(` + parser.QuoteLiteral(sequenceRef(cat, seq)) + `)`
}

// sequenceRef is seq's name as stored expressions give it to nextval:
// qualified, so that it names seq whatever the search path.
func sequenceRef(cat *catalog.Catalog, seq *catalog.Sequence) string {
	return qualifiedRef(cat, catalog.QName{Schema: seq.Schema, Name: seq.Name})
}

// qualifiedRef is q as stored expressions name it: schema.name, quoted.
func qualifiedRef(cat *catalog.Catalog, q catalog.QName) string {
	return parser.QuoteIdent(cat.SchemaName(q.Schema)) + "." + parser.QuoteIdent(q.Name)
}

// storedDefault is a column default as the descriptor stores it, with
// the sequences it names bound (see plan.BindSequences).
func (s *Session) storedDefault(n ast.ExprNode) string {
	plan.BindSequences(n, func(name string) string {
		if seq := plan.SequenceNamed(s.host(), name); seq != nil {
			return sequenceRef(s.catalog(), seq)
		}
		return name
	})
	return s.storedExpr(n)
}

// storedExpr is an expression as the catalog stores it, with the enum
// and extension types its casts name bound to their schemas (see
// plan.BindTypes).
func (s *Session) storedExpr(n ast.ExprNode) string {
	plan.BindTypes(n, func(name string) string {
		elem, array := strings.CutSuffix(name, "[]")
		t, ok := s.catalogType(elem)
		if !ok {
			return name
		}
		q, _ := s.catalog().TypeQName(t.Oid)
		if array {
			return qualifiedRef(s.catalog(), q) + "[]"
		}
		return qualifiedRef(s.catalog(), q)
	})
	return plan.StoredExpr(n)
}

// addRowIDSeq gives a table without primary key the sequence its hidden
// row ids come from. Its name starts with a NUL byte, so SQL never sees it.
func (s *Session) addRowIDSeq(ctx context.Context, d *catalog.DDL, t *catalog.Table) error {
	seq, err := s.newSequence(ctx, d, catalog.QName{Schema: t.Schema, Name: "\x00rowid." + t.Name}, t.ID, types.Int8, catalog.RowIDBlock)
	if err != nil {
		return err
	}
	t.RowIDSeq = seq.ID
	return nil
}

func (s *Session) newSequence(ctx context.Context, d *catalog.DDL, q catalog.QName, owner uint32, t types.T, block int64) (*catalog.Sequence, error) {
	id, err := d.NextID(ctx)
	if err != nil {
		return nil, err
	}
	maxV := int64(math.MaxInt64)
	switch t.Oid {
	case types.OidInt4:
		maxV = math.MaxInt32
	case types.OidInt2:
		maxV = math.MaxInt16
	}
	seq := &catalog.Sequence{ID: id, Name: q.Name, Schema: q.Schema, Start: 1, Increment: 1, Min: 1, Max: maxV, Owner: owner,
		Block: block, Type: t.Oid}
	if err := d.ClaimName(ctx, q, id); err != nil {
		return nil, err
	}
	return seq, d.PutSequence(ctx, seq)
}

func (s *Session) createSequence(ctx context.Context, st *parser.Statement, n *ast.CreateSequenceStmt) error {
	q, err := s.createRelIn(ctx, n.Name.Schema.O, n.Name.Name.O, st.Temp)
	if err != nil {
		return err
	}
	typ, err := sequenceAs(columnType(st, 0))
	if err != nil {
		return err
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	name := q.Name
	if d.Cat.HasRelation(q.Schema, name) {
		if n.IfNotExists {
			s.notice(pgerr.DuplicateTable, "relation %q already exists, skipping", name)
			return nil
		}
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	if _, err = s.sequenceWith(ctx, d, q, 0, typ, n.SeqOptions); err != nil {
		return err
	}
	if st.OwnedBy != nil && st.OwnedBy.Table != "" {
		owned := *st.OwnedBy
		owned.Name = parser.QuoteIdent(d.Cat.SchemaName(q.Schema)) + "." + parser.QuoteIdent(name)
		return s.sequenceOwnedBy(ctx, &owned)
	}
	return nil
}

// sequenceWith makes the sequence name of type typ, owned by table owner
// (or none), with CREATE SEQUENCE's options.
func (s *Session) sequenceWith(ctx context.Context, d *catalog.DDL, q catalog.QName, owner uint32, typ types.T, opts []*ast.SequenceOption) (*catalog.Sequence, error) {
	seq, err := s.newSequence(ctx, d, q, owner, typ, catalog.SeqBlock)
	if err != nil {
		return nil, err
	}
	if _, err := applySeqOptions(seq, opts, true); err != nil {
		return nil, err
	}
	return seq, d.PutSequence(ctx, seq)
}

func (s *Session) dropTables(ctx context.Context, n *ast.DropTableStmt, cascade bool) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	// Resolve every name first: a table named twice is dropped once.
	var tables []*catalog.Table
	for _, tn := range n.Tables {
		q, ok, err := s.findIn(tn.Schema.O, tn.Name.O, n.IfExists)
		if !ok {
			if err != nil {
				return err
			}
			continue
		}
		t := d.Cat.TableByName[q]
		if t == nil && d.Cat.ViewByName[q] != nil {
			return pgerr.New(pgerr.WrongObjectType, "%q is not a table", tn.Name.O).
				WithHint("Use DROP VIEW to remove a view.")
		}
		if t == nil {
			if n.IfExists {
				s.notice(pgerr.SuccessfulCompletion, "table %q does not exist, skipping", tn.Name.O)
				continue
			}
			return pgerr.New(pgerr.UndefinedTable, "table %q does not exist", tn.Name.O)
		}
		if t.IsMatView() {
			return pgerr.New(pgerr.WrongObjectType, "%q is not a table", t.Name).
				WithHint("Use DROP MATERIALIZED VIEW to remove a materialized view.")
		}
		if !slices.Contains(tables, t) {
			tables = append(tables, t)
		}
	}
	return s.dropRelations(ctx, d, tables, "table", cascade)
}

// dropRelations drops tables or materialized views (kind says which),
// after the checks of their dependents.
func (s *Session) dropRelations(ctx context.Context, d *catalog.DDL, tables []*catalog.Table, kind string, cascade bool) error {
	ids := make([]uint32, len(tables))
	targets := make([]dropTarget, len(tables))
	for i, t := range tables {
		ids[i], targets[i] = t.ID, dropTarget{kind: kind, name: t.Name, id: t.ID}
	}
	deps, err := s.checkDependents(d.Cat, targets, ids, cascade)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := s.refusePendingChecks(t, "DROP TABLE"); err != nil {
			return err
		}
		if err := s.lockTableForDDL(ctx, d, t, true); err != nil {
			return err
		}
	}
	if err := s.dropDependents(ctx, d, deps); err != nil {
		return err
	}
	for _, t := range tables {
		if err := d.DropTable(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) dropSequences(ctx context.Context, n *ast.DropSequenceStmt, cascade bool) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	for _, tn := range n.Sequences {
		q, ok, err := s.findIn(tn.Schema.O, tn.Name.O, n.IfExists)
		if !ok {
			if err != nil {
				return err
			}
			continue
		}
		seq := d.Cat.SequenceByName[q]
		if err := viewMisuse(d.Cat, q, "sequence"); err != nil {
			return err
		}
		if seq == nil {
			if n.IfExists {
				s.notice(pgerr.SuccessfulCompletion, "sequence %q does not exist, skipping", tn.Name.O)
				continue
			}
			return pgerr.New(pgerr.UndefinedTable, "sequence %q does not exist", tn.Name.O)
		}
		if owner := d.Cat.TableByID[seq.Owner]; owner != nil {
			for _, c := range owner.Columns {
				if c.Identity != 0 && c.Serial == seq.ID && !c.Dropped {
					return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", seq.Name, c.Name, owner.Name).
						WithHint("You can drop column %s of table %s instead.", c.Name, owner.Name)
				}
			}
		}
		deps, err := s.checkDependents(d.Cat, []dropTarget{{kind: "sequence", name: seq.Name, id: seq.ID}}, nil, cascade)
		if err != nil {
			return err
		}
		if err := s.dropDependents(ctx, d, deps); err != nil {
			return err
		}
		if err := d.DropSequence(ctx, seq); err != nil {
			return err
		}
		s.e.seqs.Forget(seq.StorageID())
	}
	return nil
}

func (s *Session) truncate(ctx context.Context, cmd *parser.Truncate) (err error) {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	var tables []*catalog.Table
	for _, qualified := range cmd.Tables {
		q, err := s.lookName(qualified)
		if err != nil {
			return err
		}
		t := d.Cat.TableByName[q]
		if err := viewMisuse(d.Cat, q, "truncate"); err != nil {
			return err
		}
		if t == nil {
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified)
		}
		if !slices.Contains(tables, t) {
			tables = append(tables, t)
		}
	}
	// CASCADE takes in the tables whose foreign keys reference those
	// truncated, and theirs in turn.
	for i := 0; i < len(tables); i++ {
		for _, ref := range d.Cat.Referencing(tables[i].ID) {
			switch {
			case slices.Contains(tables, ref.Child):
			case cmd.Cascade:
				s.notice(pgerr.SuccessfulCompletion, "truncate cascades to table %q", ref.Child.Name)
				tables = append(tables, ref.Child)
			default:
				return pgerr.New(pgerr.FeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
					WithDetail("Table %q references %q.", ref.Child.Name, tables[i].Name).
					WithHint("Truncate table %q at the same time, or use TRUNCATE ... CASCADE.", ref.Child.Name)
			}
		}
	}
	// TRUNCATE's triggers fire before and after it, statement triggers
	// only, in its transaction.
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: s.tx}
	for _, t := range tables {
		if err := s.statementTriggers(x, t, "before", catalog.TriggerTruncate, nil); err != nil {
			return err
		}
	}
	defer func() {
		for _, t := range tables {
			if err == nil {
				err = s.statementTriggers(x, t, "after", catalog.TriggerTruncate, nil)
			}
		}
	}()
	for _, t := range tables {
		if err := s.refusePendingChecks(t, "TRUNCATE"); err != nil {
			return err
		}
		if err := s.lockTableForDDL(ctx, d, t, true); err != nil {
			return err
		}
		// As PostgreSQL gives the table a new relfilenode: the rows stay
		// under the old data id for the snapshots that still read it, and
		// go with it once none does.
		nt := t.Clone()
		if nt.DataID, err = d.NextID(ctx); err != nil {
			return err
		}
		if err := d.PutTable(ctx, nt); err != nil {
			return err
		}
		if err := d.DeleteData(ctx, t.DataID); err != nil {
			return err
		}
		if cmd.RestartIdentity {
			for _, seq := range d.Cat.SequenceByName {
				if seq.Owner != t.ID {
					continue
				}
				if err := d.RestartSequence(ctx, seq, nil); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ddlTable begins or continues the session's DDL, finds the table it
// changes, and claims it: exclusively, except for CREATE INDEX. An ALTER
// TABLE that rewrites is more than a rename: it, like CREATE INDEX, must
// wait until no deferred check of the table's rows is pending.
func (s *Session) ddlTable(ctx context.Context, q catalog.QName, op string, rewrites bool) (*catalog.DDL, *catalog.Table, error) {
	d, err := s.ddl(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := viewMisuse(d.Cat, q, op); err != nil {
		return nil, nil, err
	}
	t := d.Cat.TableByName[q]
	if t == nil {
		return nil, nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", q.Name)
	}
	switch {
	case op == "create index":
		err = s.refusePendingChecks(t, "CREATE INDEX")
	case rewrites:
		err = s.refusePendingChecks(t, "ALTER TABLE")
	}
	if err != nil {
		return nil, nil, err
	}
	// CREATE INDEX lets readers in, as PostgreSQL's SHARE lock does.
	return d, t, s.lockTableForDDL(ctx, d, t, op != "create index")
}

func (s *Session) alterTable(ctx context.Context, st *parser.Statement, n *ast.AlterTableStmt) error {
	q, err := s.lookIn(n.Table.Schema.O, n.Table.Name.O)
	if err != nil {
		return err
	}
	action := ""
	if len(n.Specs) > 0 {
		action = map[ast.AlterTableType]string{ast.AlterTableAddColumns: "ADD COLUMN", ast.AlterTableDropColumn: "DROP COLUMN",
			ast.AlterTableAddConstraint: "ADD CONSTRAINT", ast.AlterTableDropCheck: "DROP CONSTRAINT"}[n.Specs[0].Tp]
	}
	if s.catalog().ViewByName[q] != nil && len(n.Specs) == 1 {
		// ALTER TABLE renames a view as ALTER VIEW does.
		switch spec := n.Specs[0]; spec.Tp {
		case ast.AlterTableRenameTable:
			return s.alterViewRename(ctx, &parser.AlterViewRename{Name: n.Table.Name.O, NewName: spec.NewTable.Name.O})
		case ast.AlterTableRenameColumn:
			return s.alterViewRename(ctx, &parser.AlterViewRename{Name: n.Table.Name.O, Column: spec.OldColumnName.Name.O,
				NewName: spec.NewColumnName.Name.O})
		}
	}
	if action == "" && s.catalog().ViewByName[q] != nil {
		// What PostgreSQL allows on views (RENAME, SET DEFAULT) epochdb
		// does not do yet, on tables either.
		return pgerr.New(pgerr.FeatureNotSupported, "this form of ALTER TABLE is not supported yet")
	}
	renamesOnly := !slices.ContainsFunc(n.Specs, func(spec *ast.AlterTableSpec) bool {
		return spec.Tp != ast.AlterTableRenameColumn && spec.Tp != ast.AlterTableRenameTable
	})
	d, old, err := s.ddlTable(ctx, q, "alter "+action, !renamesOnly)
	if err != nil {
		return err
	}
	t := old.Clone()
	typeIdx := 0
	// fill lists the new columns that existing rows must be rewritten for:
	// they take the column's default, and NOT NULL is checked.
	var fill []int
	var conv []typeChange // columns whose rows are converted to a new type
	var pend pendingConstraints
	for _, spec := range n.Specs {
		switch spec.Tp {
		case ast.AlterTableAddColumns:
			for _, cd := range spec.NewColumns {
				typeName := columnType(st, typeIdx)
				typeIdx++
				if _, dup := t.Column(cd.Name.Name.O); dup != nil {
					if spec.IfNotExists {
						s.notice(pgerr.DuplicateColumn, "column %q of relation %q already exists, skipping", cd.Name.Name.O, t.Name)
						continue
					}
					return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", cd.Name.Name.O, t.Name)
				}
				col, pk, unique, err := s.columnDef(ctx, d, t, cd, typeName, st, &pend)
				if err != nil {
					return err
				}
				t.Columns = append(t.Columns, col)
				if col.NotNull || col.Default != "" || col.Generated != "" {
					fill = append(fill, len(t.Columns)-1)
				}
				if pk && t.PrimaryKey() != nil {
					return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", t.Name)
				}
				if pk || unique {
					if err := addIndex(t, []string{col.Name}, pk, ""); err != nil {
						return err
					}
				}
			}
		case ast.AlterTableDropColumn:
			i, col := t.Column(spec.OldColumnName.Name.O)
			if col == nil {
				if spec.IfExists {
					s.notice(pgerr.SuccessfulCompletion, "column %q of relation %q does not exist, skipping", spec.OldColumnName.Name.O, t.Name)
					continue
				}
				return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", spec.OldColumnName.Name.O, t.Name)
			}
			for _, ix := range t.Indexes {
				if ix.Primary && slices.Contains(ix.Columns, i) {
					return pgerr.New(pgerr.FeatureNotSupported, "dropping a primary key is not supported yet").
						WithDetail("Column %s is part of the primary key of table %s.", col.Name, t.Name)
				}
			}
			if err := s.dropColumnWithDependents(ctx, d, old, t, i, st.Cascade); err != nil {
				return err
			}
		case ast.AlterTableAddConstraint:
			cons := spec.Constraint
			var cols []string
			for _, k := range cons.Keys {
				cols = append(cols, k.Column.Name.O)
			}
			switch cons.Tp {
			case ast.ConstraintPrimaryKey:
				if t.PrimaryKey() != nil {
					return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", t.Name)
				}
				if err := indexNamesFree(d, t, cons.Name); err != nil {
					return err
				}
				if err := addIndex(t, cols, true, cons.Name); err != nil {
					return err
				}
			case ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex:
				if err := indexNamesFree(d, t, cons.Name); err != nil {
					return err
				}
				if err := addIndex(t, cols, false, cons.Name); err != nil {
					return err
				}
			case ast.ConstraintCheck:
				pend.checks = append(pend.checks, pendingCheck{name: cons.Name, expr: cons.Expr})
			case ast.ConstraintForeignKey:
				pend.fks = append(pend.fks, pendingFK{name: cons.Name, cols: cols, ref: cons.Refer})
			default:
				return pgerr.New(pgerr.FeatureNotSupported, "this constraint is not supported yet")
			}
		case ast.AlterTableDropCheck:
			if st.Cascade {
				if err := s.dropConstraintDependents(ctx, d, old, spec.Constraint.Name); err != nil {
					return err
				}
			}
			if err := dropConstraint(t, d.Cat, spec.Constraint.Name); err != nil {
				return err
			}
		case ast.AlterTableRenameColumn:
			if err := renameColumn(d, t, spec.OldColumnName.Name.O, spec.NewColumnName.Name.O); err != nil {
				return err
			}
		case ast.AlterTableRenameTable:
			if err := renameTable(d, ctx, t, spec.NewTable.Name.O); err != nil {
				return err
			}
		case ast.AlterTableAlterColumn:
			if err := s.setDefault(t, spec.NewColumns[0]); err != nil {
				return err
			}
		case ast.AlterTableModifyColumn:
			// The parser's forms of ALTER COLUMN TYPE, and of SET and
			// DROP NOT NULL.
			cd := spec.NewColumns[0]
			if isTypeChange(cd) {
				c, err := s.alterType(d, old, t, cd, columnType(st, typeIdx))
				typeIdx++
				if err != nil {
					return err
				}
				conv = append(conv, c)
				continue
			}
			drop := !slices.ContainsFunc(cd.Options, func(o *ast.ColumnOption) bool { return o.Tp == ast.ColumnOptionNotNull })
			if err := s.setNotNull(ctx, d, t, cd.Name.Name.O, drop); err != nil {
				return err
			}
		default:
			return pgerr.New(pgerr.FeatureNotSupported, "this form of ALTER TABLE is not supported yet")
		}
	}
	if err := s.checkGenerated(t); err != nil {
		return err
	}
	var added []*catalog.Check
	for _, pc := range pend.checks {
		ck, err := s.addCheck(d.Cat, t, pc.name, pc.expr)
		if err != nil {
			return err
		}
		added = append(added, ck)
	}
	if !sameIndexes(old, t) || len(fill) > 0 || len(conv) > 0 {
		// The rebuild checks every row against every constraint.
		if err := s.rebuild(ctx, d, old, t, fill, conv); err != nil {
			return err
		}
	} else {
		for _, ck := range added {
			if err := s.validateCheck(ctx, d, t, ck); err != nil {
				return err
			}
		}
	}
	if err := s.addForeignKeys(ctx, d, t, withDeferral(st, pend.fks)); err != nil {
		return err
	}
	return d.PutTable(ctx, t)
}

// dropColumn drops column i of t, and what goes with it, as in
// PostgreSQL: the indexes and unique constraints on it or on an
// expression that reads it (the rebuild its change of indexes brings
// drops their entries), the foreign keys it is part of, and the CHECK
// constraints that name it.
func dropColumn(t *catalog.Table, i int) error {
	gone := append(hiddenUsing(t, t.Columns[i].Name), i)
	var dropped []uint8
	t.Indexes = slices.DeleteFunc(t.Indexes, func(ix *catalog.Index) bool {
		if slices.ContainsFunc(ix.Columns, func(c int) bool { return slices.Contains(gone, c) }) || predicateReads(ix, t.Columns[i].Name) {
			dropped = append(dropped, ix.ID)
			return true
		}
		return false
	})
	dropUnusedHidden(t)
	// Its foreign keys go, and those of t that found their keys in an
	// index that went.
	t.ForeignKeys = slices.DeleteFunc(t.ForeignKeys, func(fk *catalog.ForeignKey) bool {
		return slices.Contains(fk.Columns, i) || fk.RefTable == t.ID && slices.Contains(dropped, fk.RefIndex)
	})
	if err := dropChecksOn(t, i); err != nil {
		return err
	}
	t.Columns[i].Dropped = true
	return nil
}

// predicateReads reports whether partial index ix's predicate reads the
// column called name, which it goes with, as in PostgreSQL.
func predicateReads(ix *catalog.Index, name string) bool {
	if ix.Where == "" {
		return false
	}
	n, err := plan.ParseExpr(ix.Where)
	return err == nil && slices.Contains(plan.ColumnsNamed(n), name)
}

// dropConstraint drops a CHECK or UNIQUE constraint of t by name; a
// dropped UNIQUE's index goes with it, through the rebuild its change of
// indexes brings.
func dropConstraint(t *catalog.Table, cat *catalog.Catalog, name string) error {
	if i := slices.IndexFunc(t.Checks, func(ck *catalog.Check) bool { return ck.Name == name }); i >= 0 {
		t.Checks = slices.Delete(t.Checks, i, i+1)
		return nil
	}
	if i := slices.IndexFunc(t.ForeignKeys, func(fk *catalog.ForeignKey) bool { return fk.Name == name }); i >= 0 {
		t.ForeignKeys = slices.Delete(t.ForeignKeys, i, i+1)
		return nil
	}
	i := slices.IndexFunc(t.Indexes, func(ix *catalog.Index) bool { return ix.Name == name && !ix.Standalone })
	switch {
	case i < 0:
		return pgerr.New(pgerr.UndefinedObject, "constraint %q of relation %q does not exist", name, t.Name)
	case t.Indexes[i].Primary:
		return pgerr.New(pgerr.FeatureNotSupported, "dropping a primary key is not supported yet")
	}
	if err := fkBlocksIndexDrop(cat, t, t.Indexes[i], fmt.Sprintf("constraint %s on table %s", name, t.Name)); err != nil {
		return err
	}
	t.Indexes = slices.Delete(t.Indexes, i, i+1)
	return nil
}

// sameIndexes reports whether a and b have the same indexes, by id and
// columns: if not, the entries must be rebuilt.
func sameIndexes(a, b *catalog.Table) bool {
	return slices.EqualFunc(a.Indexes, b.Indexes, func(x, y *catalog.Index) bool {
		return x.ID == y.ID && slices.Equal(x.Columns, y.Columns) && x.NonUnique == y.NonUnique && x.Where == y.Where
	})
}

// rebuild rewrites a table's rows under a new data id, for a new primary
// key or unique constraint, for new columns with values, or for columns of
// a new type: keys are re-derived, the columns in fill take their defaults
// (evaluated per row, as PostgreSQL does for nextval), those in conv their
// converted values, and uniqueness and NOT NULL are checked on every
// existing row.
func (s *Session) rebuild(ctx context.Context, d *catalog.DDL, old, t *catalog.Table, fill []int, conv []typeChange) error {
	id, err := d.NextID(ctx)
	if err != nil {
		return err
	}
	t.DataID = id
	for _, ix := range t.Indexes {
		ix.NullEntries = true // every entry is written anew, NULLs included
	}
	if t.PrimaryKey() != nil && old.PrimaryKey() == nil && t.RowIDSeq != 0 {
		if seq := d.Cat.SequenceByID[t.RowIDSeq]; seq != nil {
			if err := d.DropSequence(ctx, seq); err != nil {
				return err
			}
		}
		t.RowIDSeq = 0
	}
	defaults := make([]plan.Expr, len(fill))
	for i, ci := range fill {
		if t.Columns[ci].Default == "" {
			continue
		}
		if defaults[i], err = s.compileDefault(t.Columns[ci]); err != nil {
			return err
		}
	}
	// Row by row from the old data id to the new: the two never share a
	// key, so the scan goes on undisturbed by the writes.
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: d.Tx}
	defer x.CloseTemps()
	scan := &plan.TableScan{Table: old, Access: plan.Access{Kind: "seq"}}
	it, err := scan.Open(x)
	if err != nil {
		return err
	}
	defer it.Close()
	row := make([]any, len(t.Columns)+1) // reused: insertRow keeps no row
	for {
		r, err := it.Next()
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		if modifyHook != nil {
			modifyHook()
		}
		clear(row)
		copy(row, r[:len(r)-1])
		for _, c := range conv {
			if row[c.col], err = c.e.Eval(x.Env(r)); err != nil {
				return err
			}
		}
		for i, ci := range fill {
			if defaults[i] == nil {
				continue
			}
			if row[ci], err = defaults[i].Eval(x.Env(nil)); err != nil {
				return err
			}
		}
		if err := s.insertRow(x, t, row); err != nil {
			pe, ok := err.(*pgerr.Error)
			if ok && pe.Code == pgerr.CheckViolation {
				return violatedBySomeRow(t, pe.Constraint)
			}
			// As PostgreSQL words it when a new constraint's index meets
			// existing duplicates.
			if ok && pe.Code == pgerr.UniqueViolation {
				for _, ix := range t.Indexes {
					if ix.Name == pe.Constraint {
						return pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", ix.Name).
							WithDetail("Key %s is duplicated.", keyValues(t, ix, row, s))
					}
				}
			}
			return err
		}
	}
	return d.DeleteData(ctx, old.DataID)
}
