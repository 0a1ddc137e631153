package sql

import (
	"context"
	"fmt"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Identity columns: GENERATED { BY DEFAULT | ALWAYS } AS IDENTITY. Like a
// serial column, one draws its values from a sequence it owns, named
// table_column_seq, and is NOT NULL; unlike one, the catalogs show it as
// an identity (pg_attribute.attidentity, information_schema's
// is_identity) with no default, and a GENERATED ALWAYS column takes no
// value from INSERT or UPDATE, as in PostgreSQL.

// identityDef makes col an identity column of t, with the sequence options
// opts if it has any.
func (s *Session) identityDef(ctx context.Context, d *catalog.DDL, t *catalog.Table, col *catalog.TableColumn, opts *parser.IdentityColumn) error {
	switch col.Type.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8:
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	if col.Serial != 0 {
		return pgerr.New(pgerr.SyntaxError, "both default and identity specified for column %q of table %q", col.Name, t.Name)
	}
	name := catalog.QName{Schema: t.Schema, Name: fmt.Sprintf("%s_%s_seq", t.Name, col.Name)}
	var seqOpts []*ast.SequenceOption
	if opts != nil {
		if opts.SequenceName != "" {
			var err error
			if name, err = s.createName(ctx, opts.SequenceName); err != nil {
				return err
			}
		}
		seqOpts = opts.Sequence.AST.(*ast.CreateSequenceStmt).SeqOptions
	}
	seq, err := s.sequenceWith(ctx, d, name, t.ID, col.Type, seqOpts)
	if err != nil {
		return err
	}
	col.Serial, col.NotNull, col.Identity = seq.ID, true, 'd'
	col.Default = nextvalDefault(d.Cat, seq)
	return nil
}

// errIdentityInsert is INSERT's error for a value given to a GENERATED
// ALWAYS identity column.
func errIdentityInsert(col *catalog.TableColumn) error {
	return pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", col.Name).
		WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name).
		WithHint("Use OVERRIDING SYSTEM VALUE to override.")
}

// errIdentityUpdate is UPDATE's error for a GENERATED ALWAYS identity
// column set to anything but DEFAULT.
func errIdentityUpdate(col *catalog.TableColumn) error {
	return pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", col.Name).
		WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name)
}

// errIdentityDefault is ALTER COLUMN SET or DROP DEFAULT's error on an
// identity column.
func errIdentityDefault(col *catalog.TableColumn, t *catalog.Table) error {
	return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is an identity column", col.Name, t.Name).
		WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
}

// insertGuard is writeGuard for INSERT, which OVERRIDING SYSTEM VALUE
// lets give GENERATED ALWAYS identity columns values, and OVERRIDING
// USER VALUE lets give any identity column values that it then ignores.
func insertGuard(col *catalog.TableColumn, o parser.Overriding) error {
	if col.Identity != 0 && o != "" {
		return nil
	}
	return writeGuard(col, false)
}

// assignment compiles UPDATE's or DO UPDATE's SET col = expr over in; def
// is col's default, for SET col = DEFAULT. It is nil, with no error, for
// a generated column set to DEFAULT, which checkRow computes.
func assignment(in *plan.Compiler, a *ast.Assignment, col *catalog.TableColumn, def plan.Expr) (plan.Expr, error) {
	if _, isDefault := a.Expr.(*ast.DefaultExpr); isDefault {
		switch {
		case col.Generated != "":
			return nil, nil
		case def == nil:
			return &plan.ConstExpr{T: col.Type}, nil
		}
		return def, nil
	}
	if err := writeGuard(col, true); err != nil {
		return nil, err
	}
	return in.CompileAssign(a.Expr, col.Type)
}

// writeGuard is the error for giving column col a value in INSERT (or,
// with update, in UPDATE), if it takes none: a generated column, or a
// GENERATED ALWAYS identity column.
func writeGuard(col *catalog.TableColumn, update bool) error {
	switch {
	case col.Generated != "" && update:
		return errGeneratedUpdate(col)
	case col.Generated != "":
		return errGeneratedInsert(col)
	case col.Identity == 'a' && update:
		return errIdentityUpdate(col)
	case col.Identity == 'a':
		return errIdentityInsert(col)
	}
	return nil
}

// addIdentity is ALTER TABLE ... ALTER COLUMN ... ADD GENERATED ... AS
// IDENTITY, as pg_dump writes identity columns: the column, which must be
// NOT NULL and have no default, gets a sequence of its own type, named as
// the command says (or table_column_seq), with its options.
func (s *Session) addIdentity(ctx context.Context, cmd *parser.AddIdentity) error {
	table, err := s.lookName(cmd.Table)
	if err != nil {
		return err
	}
	d, old, err := s.ddlTable(ctx, table, "alter add identity", true)
	if err != nil {
		return err
	}
	t := old.Clone()
	_, col := t.Column(cmd.Column)
	switch {
	case col == nil:
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Column, t.Name)
	case col.Identity != 0:
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column %q of relation %q is already an identity column", col.Name, t.Name)
	case col.Default != "" || col.Generated != "":
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column %q of relation %q already has a default value", col.Name, t.Name)
	}
	switch col.Type.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8:
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	if !col.NotNull {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column %q of relation %q must be declared NOT NULL before identity can be added", col.Name, t.Name)
	}
	name := catalog.QName{Schema: t.Schema, Name: fmt.Sprintf("%s_%s_seq", t.Name, col.Name)}
	if cmd.SequenceName != "" {
		if name, err = s.createName(ctx, cmd.SequenceName); err != nil {
			return err
		}
	}
	seq, err := s.sequenceWith(ctx, d, name, t.ID, col.Type, cmd.Sequence.AST.(*ast.CreateSequenceStmt).SeqOptions)
	if err != nil {
		return err
	}
	col.Serial, col.Identity = seq.ID, 'd'
	if cmd.Always {
		col.Identity = 'a'
	}
	col.Default = nextvalDefault(d.Cat, seq)
	return d.PutTable(ctx, t)
}

// alterIdentity is ALTER TABLE ... ALTER COLUMN ... SET GENERATED,
// RESTART or DROP IDENTITY. Dropping the identity drops its sequence and
// leaves the column NOT NULL, with no default.
func (s *Session) alterIdentity(ctx context.Context, cmd *parser.AlterIdentity) error {
	table, err := s.lookName(cmd.Table)
	if err != nil {
		return err
	}
	d, old, err := s.ddlTable(ctx, table, "alter identity", true)
	if err != nil {
		return err
	}
	t := old.Clone()
	_, col := t.Column(cmd.Column)
	switch {
	case col == nil:
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Column, t.Name)
	case col.Identity == 0 && cmd.Drop && cmd.IfExists:
		s.notice(pgerr.SuccessfulCompletion, "column %q of relation %q is not an identity column, skipping", col.Name, t.Name)
		return nil
	case col.Identity == 0:
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column %q of relation %q is not an identity column", col.Name, t.Name)
	}
	seq := d.Cat.SequenceByID[col.Serial]
	if seq == nil {
		return pgerr.New(pgerr.InternalError, "identity column %q of relation %q has no sequence", col.Name, t.Name)
	}
	if cmd.Drop {
		if _, err := s.checkDependents(d.Cat, []dropTarget{{kind: "sequence", name: seq.Name, id: seq.ID}}, []uint32{t.ID}, false); err != nil {
			return err
		}
		col.Serial, col.Identity, col.Default = 0, 0, ""
		if err := d.PutTable(ctx, t); err != nil {
			return err
		}
		if err := d.DropSequence(ctx, seq); err != nil {
			return err
		}
		s.e.seqs.Forget(seq.StorageID())
		return nil
	}
	if cmd.SetGenerated != 0 {
		col.Identity = cmd.SetGenerated
		if err := d.PutTable(ctx, t); err != nil {
			return err
		}
	}
	altered := *seq
	if cmd.Sequence != nil {
		if _, err := applySeqOptions(&altered, cmd.Sequence.AST.(*ast.AlterSequenceStmt).SeqOptions, false); err != nil {
			return err
		}
		s.e.seqs.Forget(seq.StorageID())
	}
	if cmd.RestartWith != nil {
		if err := checkRestart(&altered, *cmd.RestartWith); err != nil {
			return err
		}
	}
	if cmd.Restart {
		return d.RestartSequence(ctx, &altered, cmd.RestartWith)
	}
	if cmd.Sequence != nil {
		return d.PutSequence(ctx, &altered)
	}
	return nil
}
