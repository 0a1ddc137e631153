package sql

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// addCheck adds a CHECK constraint to t, which DDL is changing. Without a
// name it takes PostgreSQL's: t_col_check if the expression names one
// column, else t_check, numbered to differ from every constraint of the
// schema.
func (s *Session) addCheck(cat *catalog.Catalog, t *catalog.Table, name string, n ast.ExprNode) (*catalog.Check, error) {
	if plan.HasSubquery(n) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in check constraint")
	}
	ck := &catalog.Check{Name: name, Expr: s.storedExpr(n), TimeZone: s.settings["TimeZone"]}
	if _, err := s.compileCheck(t, ck); err != nil {
		return nil, err
	}
	if ck.Name == "" {
		column := ""
		if cols := plan.ColumnsNamed(n); len(cols) == 1 {
			column = cols[0]
		}
		ck.Name = parser.ObjectName(t.Name, column, "check")
		for i := 1; constraintTaken(cat, t, ck.Name); i++ {
			ck.Name = parser.ObjectName(t.Name, column, fmt.Sprintf("check%d", i))
		}
	} else if tableConstraintNamed(t, ck.Name) {
		return nil, pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", ck.Name, t.Name)
	}
	t.Checks = append(t.Checks, ck)
	slices.SortFunc(t.Checks, func(a, b *catalog.Check) int { return cmp.Compare(a.Name, b.Name) })
	return ck, nil
}

// tableConstraintNamed reports whether t has a constraint (a CHECK, a
// primary key, unique or foreign key constraint; an index CREATE INDEX
// made is none)
// called name.
func tableConstraintNamed(t *catalog.Table, name string) bool {
	return slices.ContainsFunc(t.Checks, func(ck *catalog.Check) bool { return ck.Name == name }) ||
		slices.ContainsFunc(t.Indexes, func(ix *catalog.Index) bool { return ix.Name == name && !ix.Standalone }) ||
		slices.ContainsFunc(t.ForeignKeys, func(fk *catalog.ForeignKey) bool { return fk.Name == name })
}

// constraintTaken reports whether name is a constraint's of t or of any
// table of cat: PostgreSQL's automatic names differ across the schema.
func constraintTaken(cat *catalog.Catalog, t *catalog.Table, name string) bool {
	if tableConstraintNamed(t, name) {
		return true
	}
	for _, other := range cat.TableByName {
		if tableConstraintNamed(other, name) {
			return true
		}
	}
	return false
}

// compileCheck compiles a check over t's rows, its literals read in the
// time zone it was made in. It must be boolean.
func (s *Session) compileCheck(t *catalog.Table, ck *catalog.Check) (plan.Expr, error) {
	n, err := plan.ParseExpr(ck.Expr)
	if err != nil {
		return nil, err
	}
	if ck.TimeZone != "" {
		if loc, err := loadLocation(ck.TimeZone); err == nil {
			saved := s.loc()
			s.loc_ = loc
			defer func() { s.loc_ = saved }()
		}
	}
	var params []types.T
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: plan.TableScope(t, t.Name)}
	e, err := c.Compile(n)
	if err != nil {
		return nil, err
	}
	if et := e.Type(); et.Oid != types.OidBool {
		if et.Oid != types.OidUnknown {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of CHECK must be type boolean, not type %s", et)
		}
		if e, err = c.Coerce(e, types.Bool); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// checksOf returns t's checks compiled, from the session's cache: tables
// are immutable once in a catalog, so a table's pointer names its checks.
func (s *Session) checksOf(t *catalog.Table) ([]plan.Expr, error) {
	if len(t.Checks) == 0 {
		return nil, nil
	}
	if exprs, ok := s.checkCache[t]; ok {
		return exprs, nil
	}
	exprs := make([]plan.Expr, len(t.Checks))
	for i, ck := range t.Checks {
		var err error
		if exprs[i], err = s.compileCheck(t, ck); err != nil {
			return nil, err
		}
	}
	if s.checkCache == nil || len(s.checkCache) > 64 {
		s.checkCache = map[*catalog.Table][]plan.Expr{}
	}
	s.checkCache[t] = exprs
	return exprs, nil
}

// failedCheck returns the first of t's checks that row makes false, or
// nil.
func (s *Session) failedCheck(t *catalog.Table, row []any) (*catalog.Check, error) {
	exprs, err := s.checksOf(t)
	if err != nil || len(exprs) == 0 {
		return nil, err
	}
	e := &plan.Env{Ctx: context.Background(), Row: row, Host: s.host()}
	for i, ex := range exprs {
		v, err := ex.Eval(e)
		if err != nil {
			return nil, err
		}
		if v == false {
			return t.Checks[i], nil
		}
	}
	return nil, nil
}

// validateCheck checks every row of t against a check that ALTER TABLE
// adds.
func (s *Session) validateCheck(ctx context.Context, d *catalog.DDL, t *catalog.Table, ck *catalog.Check) error {
	ex, err := s.compileCheck(t, ck)
	if err != nil {
		return err
	}
	return s.eachRow(ctx, d, t, func(x *plan.ExecCtx, row []any) error {
		v, err := ex.Eval(x.Env(row))
		if err != nil || v != false {
			return err
		}
		return violatedBySomeRow(t, ck.Name)
	})
}

// violatedBySomeRow is the error of a new CHECK constraint that an
// existing row breaks.
func violatedBySomeRow(t *catalog.Table, name string) error {
	e := pgerr.New(pgerr.CheckViolation, "check constraint %q of relation %q is violated by some row", name, t.Name)
	e.Table, e.Constraint = t.Name, name
	return e
}

// dropChecksOn drops t's checks that name column i, as dropping the column
// does in PostgreSQL.
func dropChecksOn(t *catalog.Table, i int) error {
	var kept []*catalog.Check
	for _, ck := range t.Checks {
		n, err := plan.ParseExpr(ck.Expr)
		if err != nil {
			return err
		}
		if !slices.Contains(plan.ColumnsNamed(n), t.Columns[i].Name) {
			kept = append(kept, ck)
		}
	}
	t.Checks = kept
	return nil
}

// checkDef is pg_get_constraintdef of a check: CHECK ((a > 0)), or with
// pretty, CHECK (a > 0).
func (s *Session) checkDef(t *catalog.Table, ck *catalog.Check, pretty bool) string {
	text := ck.Expr // as stored, if it does not compile or print
	if e, err := s.compileCheck(t, ck); err == nil {
		names := make([]string, len(t.Columns))
		for i, col := range t.Columns {
			names[i] = col.Name
		}
		if pretty {
			if d, ok := plan.DeparsePretty(s.host(), e, names); ok {
				text = d
			}
		} else if d, ok := plan.Deparse(s.host(), e, names); ok {
			text = d
		}
	}
	return "CHECK (" + text + ")"
}

// immutable reports whether n, compiled with volatility collecting the
// overloads it calls, is immutable: it calls none of MutableFuncs and
// only immutable overloads.
func immutable(n ast.Node, volatility builtins.Volatility) bool {
	v := &plan.MutableCallFinder{}
	n.Accept(v)
	return !v.Found && volatility == builtins.Immutable
}
