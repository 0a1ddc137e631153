package sql

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// pendingFK is a FOREIGN KEY clause of CREATE or ALTER TABLE, added once
// the table's columns and keys are known.
type pendingFK struct {
	name string
	cols []string
	ref  *ast.ReferenceDef
	// deferral is the clause's DEFERRABLE, if the statement has one for
	// it (see withDeferral).
	deferral *parser.DeferrableFK
}

// withDeferral finds the DEFERRABLE clauses of st's foreign keys.
func withDeferral(st *parser.Statement, fks []pendingFK) []pendingFK {
	for i, pf := range fks {
		for j, df := range st.DeferrableFKs {
			if slices.Equal(df.Columns, pf.cols) && df.Table == pf.ref.Table.Name.O {
				fks[i].deferral = &st.DeferrableFKs[j]
			}
		}
	}
	return fks
}

var fkActions = map[ast.ReferOptionType]byte{
	ast.ReferOptionNoOption: 'a', ast.ReferOptionNoAction: 'a', ast.ReferOptionRestrict: 'r',
	ast.ReferOptionCascade: 'c', ast.ReferOptionSetNull: 'n', ast.ReferOptionSetDefault: 'd',
}

var fkActionNames = map[byte]string{'r': "RESTRICT", 'c': "CASCADE", 'n': "SET NULL", 'd': "SET DEFAULT"}

// addForeignKey adds a FOREIGN KEY constraint to t, which DDL is changing
// (or creating: a table may reference itself).
func (s *Session) addForeignKey(d *catalog.DDL, t *catalog.Table, pf pendingFK) (*catalog.ForeignKey, error) {
	schema, refName := pf.ref.Table.Schema.O, pf.ref.Table.Name.O
	q, err := d.Cat.Resolve(s.searchPath(), schema, refName)
	if err != nil {
		return nil, err
	}
	parent := d.Cat.TableByName[q]
	// A table that CREATE TABLE is making is not in the catalog yet.
	if q == t.QName() || !q.Found() && refName == t.Name && (schema == "" || d.Cat.SchemaName(t.Schema) == schema) {
		parent = t
	}
	if sc := d.Cat.SchemaByID[q.Schema]; parent == nil && sc != nil && sc.System {
		return nil, plan.ErrNoRelation(pf.ref.Table.Schema.O, refName)
	}
	if parent == nil {
		if d.Cat.ViewByName[q] != nil {
			return nil, pgerr.New(pgerr.WrongObjectType, "referenced relation %q is not a table", refName)
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", refName)
	}
	switch temp := isTemp(d.Cat, t.Schema); {
	case temp && !isTemp(d.Cat, parent.Schema):
		return nil, pgerr.New(pgerr.InvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
	case !temp && isTemp(d.Cat, parent.Schema):
		return nil, pgerr.New(pgerr.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	}
	fk := &catalog.ForeignKey{Name: pf.name, RefTable: parent.ID, OnDelete: 'a', OnUpdate: 'a', Match: 's'}
	if pf.deferral != nil {
		fk.Deferrable, fk.InitiallyDeferred = true, pf.deferral.InitiallyDeferred
	}
	if pf.ref.OnDelete != nil {
		fk.OnDelete = fkActions[pf.ref.OnDelete.ReferOpt]
	}
	if pf.ref.OnUpdate != nil {
		fk.OnUpdate = fkActions[pf.ref.OnUpdate.ReferOpt]
	}
	if pf.ref.Match == ast.MatchFull {
		fk.Match = 'f'
	}
	for _, name := range pf.cols {
		i, col := t.Column(name)
		if col == nil {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q referenced in foreign key constraint does not exist", name)
		}
		fk.Columns = append(fk.Columns, i)
	}
	var ix *catalog.Index
	if len(pf.ref.IndexPartSpecifications) == 0 {
		if ix = parent.PrimaryKey(); ix == nil {
			return nil, pgerr.New(pgerr.UndefinedObject, "there is no primary key for referenced table %q", parent.Name)
		}
		fk.RefColumns = slices.Clone(ix.Columns)
	} else {
		for _, part := range pf.ref.IndexPartSpecifications {
			if part.Column == nil {
				return nil, pgerr.New(pgerr.SyntaxError, "syntax error in REFERENCES column list")
			}
			i, col := parent.Column(part.Column.Name.O)
			if col == nil {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q referenced in foreign key constraint does not exist", part.Column.Name.O)
			}
			fk.RefColumns = append(fk.RefColumns, i)
		}
	}
	if len(fk.Columns) != len(fk.RefColumns) {
		return nil, pgerr.New(pgerr.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
	}
	if ix == nil {
		ix = uniqueIndexOn(parent, fk.RefColumns)
		if ix == nil {
			return nil, pgerr.New(pgerr.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table %q", parent.Name)
		}
	}
	fk.RefIndex = ix.ID
	if fk.Name == "" {
		names := make([]string, len(fk.Columns))
		for i, ci := range fk.Columns {
			names[i] = t.Columns[ci].Name
		}
		column := strings.Join(names, "_")
		fk.Name = parser.ObjectName(t.Name, column, "fkey")
		for i := 1; constraintTaken(d.Cat, t, fk.Name); i++ {
			fk.Name = parser.ObjectName(t.Name, column, fmt.Sprintf("fkey%d", i))
		}
	} else if tableConstraintNamed(t, fk.Name) {
		return nil, pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", fk.Name, t.Name)
	}
	for i, ci := range fk.Columns {
		a, b := t.Columns[ci], parent.Columns[fk.RefColumns[i]]
		if !keyComparable(a.Type, b.Type) {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "foreign key constraint %q cannot be implemented", fk.Name).
				WithDetail("Key columns %q and %q are of incompatible types: %s and %s.", a.Name, b.Name, a.Type, b.Type)
		}
	}
	t.ForeignKeys = append(t.ForeignKeys, fk)
	return fk, nil
}

// uniqueIndexOn finds t's primary key or unique index on exactly the
// columns cols, in any order.
func uniqueIndexOn(t *catalog.Table, cols []int) *catalog.Index {
	for _, ix := range t.Indexes {
		if ix.NonUnique || ix.Where != "" || len(ix.Columns) != len(cols) {
			continue
		}
		if !slices.ContainsFunc(ix.Columns, func(c int) bool { return !slices.Contains(cols, c) }) {
			return ix
		}
	}
	return nil
}

// keyComparable reports whether a foreign key column of type a may
// reference one of type b: the same type, or two of one family whose
// values the key encoding compares alike once coerced. char(n) is a
// family of its own: its trailing spaces do not count, text's do, so a
// key of one could equal several keys of the other.
func keyComparable(a, b types.T) bool {
	if a.Oid == b.Oid {
		return true
	}
	family := func(t types.T) int {
		switch t.Oid {
		case types.OidInt2, types.OidInt4, types.OidInt8:
			return 1
		case types.OidText, types.OidVarchar, types.OidName:
			return 2
		}
		return 0
	}
	return family(a) != 0 && family(a) == family(b)
}

// fkState is what a writing statement owes its foreign keys when it ends.
type fkState struct {
	children []childCheck
	parents  []parentCheck
}

// childCheck says that a child row's key must exist in its parent.
type childCheck struct {
	t   *catalog.Table
	fk  *catalog.ForeignKey
	row []any
}

// parentCheck says that a parent's old key, deleted or changed, must no
// longer be referenced, unless the parent has the key again.
type parentCheck struct {
	parent *catalog.Table
	ref    catalog.FKRef
	old    []any
}

// queueChildChecks notes the foreign keys of t that a new or changed row
// must satisfy: all of them for a new row (old nil), the ones whose
// columns changed for an updated one.
func queueChildChecks(x *plan.ExecCtx, t *catalog.Table, old, row []any) {
	fks, _ := x.FK.(*fkState)
	if fks == nil {
		return
	}
	for _, fk := range t.ForeignKeys {
		if old != nil && !keyChanged(t, fk.Columns, old, row) {
			continue
		}
		fks.children = append(fks.children, childCheck{t, fk, row})
	}
}

// keyChanged reports whether the columns cols differ between two rows of t.
func keyChanged(t *catalog.Table, cols []int, old, row []any) bool {
	for _, ci := range cols {
		a, b := old[ci], row[ci]
		if (a == nil) != (b == nil) {
			return true
		}
		if a != nil && !bytes.Equal(types.AppendKey(nil, t.Columns[ci].Type, a, false), types.AppendKey(nil, t.Columns[ci].Type, b, false)) {
			return true
		}
	}
	return false
}

// fkKey returns the child's key values for fk, and whether the row
// references anything: MATCH SIMPLE skips a key with a NULL in it, MATCH
// FULL one that is all NULL and fails one that mixes.
func fkKey(t *catalog.Table, fk *catalog.ForeignKey, row []any) ([]any, bool, error) {
	key := make([]any, len(fk.Columns))
	nulls := 0
	for i, ci := range fk.Columns {
		if key[i] = row[ci]; key[i] == nil {
			nulls++
		}
	}
	switch {
	case nulls == 0:
		return key, true, nil
	case fk.Match == 'f' && nulls < len(key):
		e := pgerr.New(pgerr.ForeignKeyViolation, "insert or update on table %q violates foreign key constraint %q", t.Name, fk.Name).
			WithDetail("MATCH FULL does not allow mixing of null and nonnull key values.")
		e.Table, e.Constraint = t.Name, fk.Name
		return nil, false, e
	}
	return nil, false, nil
}

// parentEntry is the key of the parent's index entry for a child key:
// the parent's row key for a primary key, else the unique entry.
func parentEntry(parent *catalog.Table, ix *catalog.Index, fk *catalog.ForeignKey, key []any) ([]byte, error) {
	prow := make([]any, len(parent.Columns)+1)
	for i, pi := range fk.RefColumns {
		v, err := types.Coerce(parent.Columns[pi].Type, key[i])
		if err != nil {
			return nil, err
		}
		prow[pi] = v
	}
	if ix.Primary {
		return parent.RowKey(prow, 0), nil
	}
	return parent.IndexKey(ix, prow), nil
}

// checkChild makes sure a child row's key exists in the parent, and locks
// the parent's entry against deletion and key changes (KEY SHARE) until
// the transaction ends.
func checkChild(x *plan.ExecCtx, c childCheck) error {
	key, refs, err := fkKey(c.t, c.fk, c.row)
	if err != nil || !refs {
		return err
	}
	parent, ix := x.Host.Catalog().ParentOf(c.fk)
	if ix == nil {
		return pgerr.New(pgerr.InternalError, "foreign key %q has lost its parent's index", c.fk.Name)
	}
	// A key the parent's type cannot hold (out of its range) is in no
	// parent row.
	if entry, err := parentEntry(parent, ix, c.fk, key); err == nil {
		got, err := x.Tx.LockRow(x.Ctx, entry, txn.LockKeyShare, false)
		if err != nil || got.Exists {
			return err
		}
	}
	e := pgerr.New(pgerr.ForeignKeyViolation, "insert or update on table %q violates foreign key constraint %q", c.t.Name, c.fk.Name).
		WithDetail("Key %s is not present in table %q.", keyText(c.t, c.fk.Columns, c.row, sessionOf(x.Host)), parent.Name)
	e.Table, e.Constraint = c.t.Name, c.fk.Name
	return e
}

// keyText renders (a, b)=(1, x) for a row's columns cols.
func keyText(t *catalog.Table, cols []int, row []any, s *Session) string {
	names := make([]string, len(cols))
	vals := make([]string, len(cols))
	for i, ci := range cols {
		c := t.Columns[ci]
		names[i] = c.Name
		if row[ci] == nil {
			vals[i] = "null"
		} else {
			vals[i] = string(types.AppendText(nil, c.Type, row[ci], s.loc()))
		}
	}
	return fmt.Sprintf("(%s)=(%s)", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// afterParentChange applies the foreign keys that reference t to a row of
// t that was deleted (row nil) or updated: where the referenced key
// changed, RESTRICT fails if a child still references the old key, the
// actions change the children, and NO ACTION is checked when the
// statement ends.
func afterParentChange(x *plan.ExecCtx, t *catalog.Table, old, row []any) error {
	fks, _ := x.FK.(*fkState)
	if fks == nil {
		return nil
	}
	for _, ref := range x.Host.Catalog().Referencing(t.ID) {
		fk := ref.FK
		if row != nil && !keyChanged(t, fk.RefColumns, old, row) {
			continue
		}
		action := fk.OnDelete
		if row != nil {
			action = fk.OnUpdate
		}
		switch action {
		case 'a':
			fks.parents = append(fks.parents, parentCheck{t, ref, old})
		case 'r':
			if err := checkUnreferenced(x, t, ref, old, false); err != nil {
				return err
			}
		default:
			if err := referentialAction(x, t, ref, action, old, row); err != nil {
				return err
			}
		}
	}
	return nil
}

// children calls fn with each row of ref's child whose key equals the
// parent row old's referenced key, by newest committed versions.
func children(x *plan.ExecCtx, ref catalog.FKRef, old []any, fn func(key []byte, row []any) (bool, error)) error {
	child := ref.Child
	want, ok := referencedKey(ref, old)
	if !ok {
		return nil
	}
	ix, prefix := childIndex(ref, want)
	if ix == nil {
		prefix = catalog.IndexPrefix(child.DataID, catalog.PrimaryIndexID) // every row
	}
	// An index's entries name the rows; read those after the scan, which
	// must not nest another.
	var rowKeys [][]byte
	var rows [][]any
	var ferr error
	err := x.Tx.ScanLatest(prefix, catalog.PrefixEnd(prefix), func(k, v []byte) bool {
		if ix != nil && !ix.Primary {
			rowKeys = append(rowKeys, bytes.Clone(v))
			return true
		}
		row, err := child.DecodeRow(bytes.Clone(k), v)
		if err != nil {
			ferr = err
			return false
		}
		if references(ref, row, want) {
			rows = append(rows, row)
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	for _, key := range rowKeys {
		if err != nil {
			break
		}
		err = x.Tx.ScanLatest(key, catalog.PrefixEnd(key), func(k, v []byte) bool {
			if !bytes.Equal(k, key) {
				return false
			}
			row, derr := child.DecodeRow(key, v)
			if derr != nil {
				ferr = derr
			} else if references(ref, row, want) {
				rows = append(rows, row)
			}
			return false
		})
		if err == nil {
			err = ferr
		}
	}
	if err != nil {
		return err
	}
	for _, row := range rows {
		if more, err := fn(row[len(child.Columns)].([]byte), row); err != nil || !more {
			return err
		}
	}
	return nil
}

// childIndex finds an index of ref's child that leads with exactly the
// foreign key's columns and has an entry for every row holding the key
// want, and the prefix of those entries; nil if the rows must be scanned.
// As in PostgreSQL, a foreign key column without an index makes every
// delete of a parent read the whole child.
func childIndex(ref catalog.FKRef, want [][]byte) (*catalog.Index, []byte) {
	child, fk := ref.Child, ref.FK
	for _, ix := range child.Indexes {
		n := len(fk.Columns)
		if len(ix.Columns) < n || len(ix.Columns) > n && !ix.NullEntries && !ix.Primary || ix.Where != "" {
			continue
		}
		if slices.ContainsFunc(ix.Columns[:n], func(c int) bool { return !slices.Contains(fk.Columns, c) }) {
			continue
		}
		id := ix.ID
		if ix.Primary {
			id = catalog.PrimaryIndexID
		}
		prefix := catalog.IndexPrefix(child.DataID, id)
		for _, c := range ix.Columns[:n] {
			prefix = append(prefix, want[slices.Index(fk.Columns, c)]...)
		}
		return ix, prefix
	}
	return nil, nil
}

// referencedKey encodes a parent row's key as ref's child columns hold
// it, for references to compare; ok is false if no child row can hold it
// (a NULL, or a value out of the child type's range).
func referencedKey(ref catalog.FKRef, parentRow []any) (want [][]byte, ok bool) {
	want = make([][]byte, len(ref.FK.Columns))
	for i, ci := range ref.FK.Columns {
		v := parentRow[ref.FK.RefColumns[i]]
		if v == nil {
			return nil, false
		}
		t := ref.Child.Columns[ci].Type
		cv, err := types.Coerce(t, v)
		if err != nil {
			return nil, false
		}
		want[i] = types.AppendKey(nil, t, cv, false)
	}
	return want, true
}

// references reports whether a child row holds the key want.
func references(ref catalog.FKRef, row []any, want [][]byte) bool {
	for i, ci := range ref.FK.Columns {
		if row[ci] == nil || !bytes.Equal(types.AppendKey(nil, ref.Child.Columns[ci].Type, row[ci], false), want[i]) {
			return false
		}
	}
	return true
}

// checkUnreferenced fails if a child of ref still references the parent
// row old's key. With again, a parent row that has the key again (an
// update back, or a new row) satisfies the children.
func checkUnreferenced(x *plan.ExecCtx, parent *catalog.Table, ref catalog.FKRef, old []any, again bool) error {
	if again {
		_, ix := x.Host.Catalog().ParentOf(ref.FK)
		if ix != nil {
			key := make([]any, len(ref.FK.RefColumns))
			for i, pi := range ref.FK.RefColumns {
				key[i] = old[pi]
			}
			entry, err := parentEntry(parent, ix, ref.FK, key)
			if err != nil {
				return err
			}
			found := false
			if err := x.Tx.ScanLatest(entry, catalog.PrefixEnd(entry), func(k, _ []byte) bool {
				found = bytes.Equal(k, entry)
				return false
			}); err != nil {
				return err
			}
			if found {
				return nil
			}
		}
	}
	referenced := false
	if err := children(x, ref, old, func([]byte, []any) (bool, error) {
		referenced = true
		return false, nil
	}); err != nil || !referenced {
		return err
	}
	e := pgerr.New(pgerr.ForeignKeyViolation, "update or delete on table %q violates foreign key constraint %q on table %q",
		parent.Name, ref.FK.Name, ref.Child.Name).
		WithDetail("Key %s is still referenced from table %q.", keyText(parent, ref.FK.RefColumns, old, sessionOf(x.Host)), ref.Child.Name)
	e.Table, e.Constraint = ref.Child.Name, ref.FK.Name
	return e
}

// referentialAction applies CASCADE, SET NULL or SET DEFAULT to the
// children of a parent row whose key was deleted (row nil) or changed.
func referentialAction(x *plan.ExecCtx, parent *catalog.Table, ref catalog.FKRef, action byte, old, row []any) error {
	child, fk := ref.Child, ref.FK
	var keys [][]byte
	if err := children(x, ref, old, func(key []byte, _ []any) (bool, error) {
		keys = append(keys, key)
		return true, nil
	}); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	var setDefaults []plan.Expr
	if action == 'd' {
		var params []types.T
		var err error
		if setDefaults, err = defaults((&plan.Compiler{Host: x.Host, Params: &params}), child); err != nil {
			return err
		}
	}
	update := func(cur []any) ([]any, error) {
		next := slices.Clone(cur)
		for i, ci := range fk.Columns {
			switch action {
			case 'c':
				v, err := types.Coerce(child.Columns[ci].Type, row[fk.RefColumns[i]])
				if err != nil {
					return nil, err
				}
				next[ci] = v
			case 'n':
				next[ci] = nil
			case 'd':
				next[ci] = nil
				if setDefaults[ci] != nil {
					v, err := setDefaults[ci].Eval(x.Env(nil))
					if err != nil {
						return nil, err
					}
					next[ci] = v
				}
			}
		}
		return next, sessionOf(x.Host).checkRow(child, next)
	}
	if action == 'c' && row == nil {
		update = nil // ON DELETE CASCADE deletes the children
	}
	// The child rows must still reference the old key when they are
	// locked, as a concurrent change may have moved them.
	want, _ := referencedKey(ref, old)
	still := func(cur []any) (bool, error) { return references(ref, cur, want), nil }
	for _, key := range keys {
		if err := sessionOf(x.Host).modifyRow(x, child, key, false, still, update, func([]any) error { return nil }); err != nil {
			return err
		}
	}
	if action == 'd' {
		// A child whose key was already the default keeps it, and its
		// update owes no check; but the parent row with that key is the
		// one going, as PostgreSQL checks too.
		return checkUnreferenced(x, parent, ref, old, false)
	}
	return nil
}

// flushFK runs the checks a statement owes its foreign keys: the parents
// of new and changed child rows must exist, and NO ACTION parents' old
// keys must be unreferenced. Checks queued while flushing (by cascades)
// run too.
func flushFK(x *plan.ExecCtx) error {
	fks, _ := x.FK.(*fkState)
	if fks == nil {
		return nil
	}
	s := sessionOf(x.Host)
	for len(fks.children) > 0 || len(fks.parents) > 0 {
		children, parents := fks.children, fks.parents
		fks.children, fks.parents = nil, nil
		for _, c := range parents {
			if s.deferredNow(c.ref.FK) {
				s.deferredFK.parents = append(s.deferredFK.parents, c)
				continue
			}
			if err := checkUnreferenced(x, c.parent, c.ref, c.old, true); err != nil {
				return err
			}
		}
		for _, c := range children {
			if s.deferredNow(c.fk) {
				s.deferredFK.children = append(s.deferredFK.children, c)
				continue
			}
			if !rowStillThere(x, c.t, c.row) {
				continue
			}
			if err := checkChild(x, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowStillThere reports whether a row the statement wrote still exists as
// written: a later change in the same statement (a cascade) brings its
// own checks, as PostgreSQL skips the trigger of a row version no longer
// live.
func rowStillThere(x *plan.ExecCtx, t *catalog.Table, row []any) bool {
	key, _ := row[len(t.Columns)].([]byte)
	if key == nil {
		return true
	}
	found := false
	_ = x.Tx.ScanLatest(key, catalog.PrefixEnd(key), func(k, v []byte) bool {
		if bytes.Equal(k, key) {
			cur, err := t.DecodeRow(key, v)
			found = err == nil && !keyChanged(t, allColumns(t), cur, row)
		}
		return false
	})
	return found
}

func allColumns(t *catalog.Table) []int {
	cols := make([]int, 0, len(t.Columns))
	for i, c := range t.Columns {
		if !c.Dropped {
			cols = append(cols, i)
		}
	}
	return cols
}

// validateForeignKey checks t's existing rows against a new foreign key.
func (s *Session) validateForeignKey(x *plan.ExecCtx, t *catalog.Table, fk *catalog.ForeignKey) error {
	it, err := (&plan.TableScan{Table: t, Access: plan.Access{Kind: "seq"}}).Open(x)
	if err != nil {
		return err
	}
	defer it.Close()
	for {
		row, err := it.Next()
		if err != nil || row == nil {
			return err
		}
		if err := checkChild(x, childCheck{t, fk, row}); err != nil {
			return err
		}
	}
}

// fkDef is pg_get_constraintdef of a foreign key.
func (s *Session) fkDef(t *catalog.Table, fk *catalog.ForeignKey) string {
	var b strings.Builder
	b.WriteString("FOREIGN KEY (")
	for i, ci := range fk.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(parser.QuoteIdent(t.Columns[ci].Name))
	}
	b.WriteString(") REFERENCES ")
	parent := s.catalog().TableByID[fk.RefTable]
	if parent == nil {
		return b.String()
	}
	b.WriteString(s.qualifiedName(parent.QName()) + "(")
	for i, pi := range fk.RefColumns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(parser.QuoteIdent(parent.Columns[pi].Name))
	}
	b.WriteString(")")
	if fk.Match == 'f' {
		b.WriteString(" MATCH FULL")
	}
	if name, ok := fkActionNames[fk.OnUpdate]; ok {
		b.WriteString(" ON UPDATE " + name)
	}
	if name, ok := fkActionNames[fk.OnDelete]; ok {
		b.WriteString(" ON DELETE " + name)
	}
	if fk.Deferrable {
		b.WriteString(" DEFERRABLE")
	}
	if fk.InitiallyDeferred {
		b.WriteString(" INITIALLY DEFERRED")
	}
	return b.String()
}

// fkBlocksIndexDrop fails if a foreign key finds its keys in ix of t.
func fkBlocksIndexDrop(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, what string) error {
	for _, ref := range cat.Referencing(t.ID) {
		if ref.FK.RefIndex != ix.ID {
			continue
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("constraint %s on table %s depends on index %s", ref.FK.Name, ref.Child.Name, ix.Name).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	return nil
}

// addForeignKeys adds ALTER TABLE's foreign keys to t and checks t's rows
// against them, with each parent's writers held off (PostgreSQL's SHARE
// ROW EXCLUSIVE on both tables).
func (s *Session) addForeignKeys(ctx context.Context, d *catalog.DDL, t *catalog.Table, fks []pendingFK) error {
	if len(fks) == 0 {
		return nil
	}
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: d.Tx}
	defer x.CloseTemps()
	// The checks find parents in the DDL's catalog, where t, which may
	// reference itself and may have been rebuilt, must be as it will be.
	d.Stage(t)
	for _, pf := range fks {
		fk, err := s.addForeignKey(d, t, pf)
		if err != nil {
			return err
		}
		if parent := d.Cat.TableByID[fk.RefTable]; parent != nil && parent.ID != t.ID {
			if err := s.lockTableForDDL(ctx, d, parent, false); err != nil {
				return err
			}
		}
		d.Tx.NextStatement() // a rebuild's rows are this statement's own
		if err := s.validateForeignKey(x, t, fk); err != nil {
			return err
		}
	}
	return nil
}
