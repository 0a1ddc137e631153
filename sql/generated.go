package sql

import (
	"context"
	"slices"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Generated columns: GENERATED ALWAYS AS (expr) STORED. The expression is
// kept as SQL, like a default, and computed over the rest of the row each
// time a row is written: checkRow fills the generated columns before it
// checks NOT NULL and CHECK constraints, so INSERT, UPDATE, ON CONFLICT,
// COPY and ALTER TABLE's rewrites all store the computed value. Writing a
// generated column directly fails with PostgreSQL's 428C9; COPY leaves
// generated columns out of its default column list.

// generatedDef reads a column's GENERATED ALWAYS AS option.
func (s *Session) generatedDef(col *catalog.TableColumn, o *ast.ColumnOption) error {
	if !o.Stored {
		return pgerr.New(pgerr.SyntaxError, "generated columns must be STORED")
	}
	if plan.HasSubquery(o.Expr) {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in column generation expression")
	}
	col.Generated = s.storedExpr(o.Expr)
	return nil
}

// checkGenerated checks t's generation expressions once all its columns
// are known: each must compile over the row, to the column's type, and
// read no generated column.
func (s *Session) checkGenerated(t *catalog.Table) error {
	for _, col := range t.Columns {
		if col.Generated == "" || col.Dropped {
			continue
		}
		if col.Default != "" || col.Serial != 0 {
			return pgerr.New(pgerr.SyntaxError, "both default and generation expression specified for column %q of table %q", col.Name, t.Name)
		}
		n, err := plan.ParseExpr(col.Generated)
		if err != nil {
			return err
		}
		for _, name := range plan.ColumnsNamed(n) {
			if _, ref := t.Column(name); ref != nil && ref.Generated != "" {
				return pgerr.New(pgerr.InvalidObjectDefinition, "cannot use generated column %q in column generation expression", name).
					WithDetail("A generated column cannot reference another generated column.")
			}
		}
		vol := builtins.Immutable
		if _, err := s.compileGeneratedInto(t, col, &vol); err != nil {
			return err
		}
		if !immutable(n, vol) {
			return pgerr.New(pgerr.InvalidObjectDefinition, "generation expression is not immutable")
		}
	}
	return nil
}

// compileGenerated compiles col's generation expression over t's rows.
func (s *Session) compileGenerated(t *catalog.Table, col *catalog.TableColumn) (plan.Expr, error) {
	return s.compileGeneratedInto(t, col, nil)
}

// compileGeneratedInto is compileGenerated collecting into volatility,
// if set, the volatility of the functions it calls.
func (s *Session) compileGeneratedInto(t *catalog.Table, col *catalog.TableColumn, volatility *builtins.Volatility) (plan.Expr, error) {
	n, err := plan.ParseExpr(col.Generated)
	if err != nil {
		return nil, err
	}
	var params []types.T
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: plan.PlainTableScope(t, t.Name), Volatility: volatility}
	return c.CompileAssign(n, col.Type)
}

// fillGenerated computes row's generated columns.
func (s *Session) fillGenerated(t *catalog.Table, row []any) error {
	if !t.HasGenerated() {
		return nil
	}
	exprs, ok := s.genCache[t]
	if !ok {
		exprs = make([]plan.Expr, len(t.Columns))
		for i, col := range t.Columns {
			if col.Generated == "" || col.Dropped {
				continue
			}
			var err error
			if exprs[i], err = s.compileGenerated(t, col); err != nil {
				return err
			}
		}
		if s.genCache == nil || len(s.genCache) > 64 {
			s.genCache = map[*catalog.Table][]plan.Expr{}
		}
		s.genCache[t] = exprs
	}
	e := &plan.Env{Ctx: context.Background(), Row: row, Host: s.host()}
	for i, ex := range exprs {
		if ex == nil {
			continue
		}
		v, err := ex.Eval(e)
		if err != nil {
			return err
		}
		row[i] = v
	}
	return nil
}

// errGeneratedInsert is INSERT's error for a value given to a generated
// column.
func errGeneratedInsert(col *catalog.TableColumn) error {
	return pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", col.Name).
		WithDetail("Column %q is a generated column.", col.Name)
}

// errGeneratedUpdate is UPDATE's error for a generated column set to
// anything but DEFAULT.
func errGeneratedUpdate(col *catalog.TableColumn) error {
	return pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", col.Name).
		WithDetail("Column %q is a generated column.", col.Name)
}

// generatedUses returns a generated column of t whose expression reads
// column name, or nil.
func generatedUses(t *catalog.Table, name string) *catalog.TableColumn {
	for _, col := range t.Columns {
		if col.Generated == "" || !col.Visible() {
			continue
		}
		if n, err := plan.ParseExpr(col.Generated); err != nil || slices.Contains(plan.ColumnsNamed(n), name) {
			return col
		}
	}
	return nil
}
