package sql

import (
	"context"
	"fmt"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// Identity columns: GENERATED { BY DEFAULT | ALWAYS } AS IDENTITY. Like a
// serial column, one draws its values from a sequence it owns, named
// table_column_seq, and is NOT NULL; unlike one, the catalogs show it as
// an identity (pg_attribute.attidentity, information_schema's
// is_identity) with no default, and a GENERATED ALWAYS column takes no
// value from INSERT or UPDATE, as in PostgreSQL.

// identityDef makes col an identity column of t.
func (s *Session) identityDef(ctx context.Context, d *ddl, t *Table, col *TableColumn) error {
	switch col.Type.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8:
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	if col.Serial != 0 {
		return pgerr.New(pgerr.SyntaxError, "both default and identity specified for column %q of table %q", col.Name, t.Name)
	}
	seq, err := s.newSequence(ctx, d, fmt.Sprintf("%s_%s_seq", t.Name, col.Name), t.ID, col.Type, seqBlock)
	if err != nil {
		return err
	}
	col.Serial, col.NotNull, col.Identity = seq.ID, true, 'd'
	col.Default = fmt.Sprintf(`"nextval"('%s')`, seq.Name)
	return nil
}

// errIdentityInsert is INSERT's error for a value given to a GENERATED
// ALWAYS identity column.
func errIdentityInsert(col *TableColumn) error {
	return pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", col.Name).
		WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name).
		WithHint("Use OVERRIDING SYSTEM VALUE to override.")
}

// errIdentityUpdate is UPDATE's error for a GENERATED ALWAYS identity
// column set to anything but DEFAULT.
func errIdentityUpdate(col *TableColumn) error {
	return pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", col.Name).
		WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name)
}

// errIdentityDefault is ALTER COLUMN SET or DROP DEFAULT's error on an
// identity column.
func errIdentityDefault(col *TableColumn, t *Table) error {
	return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is an identity column", col.Name, t.Name).
		WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
}

// writeGuard is the error for giving column col a value in INSERT (or,
// with update, in UPDATE), if it takes none: a generated column, or a
// GENERATED ALWAYS identity column.
func writeGuard(col *TableColumn, update bool) error {
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
