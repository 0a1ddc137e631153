package sql

import (
	"math"
	"slices"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Indexes on expressions: CREATE INDEX ON t (lower(email)). An expression
// an index keys on becomes a hidden stored generated column of its table
// (TableColumn.Hidden), and the index keys on that column as on any other.
// So every path that maintains indexes (INSERT, UPDATE, COPY, rebuilds,
// uniqueness, ON CONFLICT's checks) needs nothing new: the column is
// computed with the row, as generated columns are. No query, catalog or
// dump sees the column; pg_get_indexdef prints the expression in its
// place, pg_index's indkey has 0 there, and a query that writes the same
// expression over the table reads the column instead of computing it
// (matchHidden), which lets the planner use the index.
//
// Indexes share the column of an expression they both key on. The column
// goes when the last index on it does, or when a column it reads is
// dropped, which drops those indexes too, as in PostgreSQL.

// hiddenColumnFor returns the position in t of the hidden column that
// computes e, adding one if t has none, and whether it added it.
func (s *Session) hiddenColumnFor(t *catalog.Table, e ast.ExprNode) (int, bool, error) {
	if plan.HasSubquery(e) {
		return 0, false, pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in index expression")
	}
	e = plan.Unparen(e)
	stored := s.storedExpr(e)
	for i, c := range t.Columns {
		if c.Hidden && !c.Dropped && c.Generated == stored {
			return i, false, nil
		}
	}
	var params []types.T
	vol := builtins.Immutable
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: plan.PlainTableScope(t, t.Name), Volatility: &vol}
	compiled, err := c.Compile(e)
	if err != nil {
		return 0, false, err
	}
	if !immutable(e, vol) {
		return 0, false, pgerr.New(pgerr.InvalidObjectDefinition, "functions in index expression must be marked IMMUTABLE")
	}
	typ := compiled.Type()
	if typ.Oid == types.OidUnknown {
		typ = types.Text
	}
	// PostgreSQL names an index's expression column after the function
	// it calls, or the constructor, or "expr".
	name := "expr"
	switch f := e.(type) {
	case *ast.FuncCallExpr:
		name = f.FnName.L
		if name == "epochdb_array" {
			name = "array"
		}
	case *ast.RowExpr:
		name = "row"
	}
	if elem, _ := typ.Elem(); typ.Oid == types.OidRecord || elem.Oid == types.OidRecord {
		// An anonymous record has no type a stored column could keep.
		return 0, false, pgerr.New(pgerr.InvalidTableDefinition, "column %q has pseudo-type %s", name, types.T{Oid: typ.Oid, Mod: -1})
	}
	// Hidden columns take attnums from the top down, so that the visible
	// ones keep PostgreSQL's numbering; none is reused.
	num := int16(math.MaxInt16)
	for _, col := range t.Columns {
		if col.Hidden {
			num = min(num, col.Num-1)
		}
	}
	t.Columns = append(t.Columns, &catalog.TableColumn{Num: num, Name: name, Type: typ, Generated: stored, Hidden: true})
	return len(t.Columns) - 1, true, nil
}

// hiddenColumnOf is the position of t's hidden column that computes e
// over t's unqualified columns, or -1.
func hiddenColumnOf(t *catalog.Table, alias string, e ast.ExprNode) int {
	text := plan.UnqualifiedText(plan.Unparen(e), alias)
	for i, c := range t.Columns {
		if c.Hidden && !c.Dropped && c.Generated == text {
			return i
		}
	}
	return -1
}

// dropUnusedHidden drops the hidden columns of t that no index keys on.
// Their stored values stay in the rows, unread, as a dropped column's do.
func dropUnusedHidden(t *catalog.Table) {
	for i, c := range t.Columns {
		if !c.Hidden || c.Dropped {
			continue
		}
		used := slices.ContainsFunc(t.Indexes, func(ix *catalog.Index) bool { return slices.Contains(ix.Columns, i) })
		if !used {
			c.Dropped = true
		}
	}
}

// hiddenUsing lists the hidden columns of t whose expression reads the
// column name.
func hiddenUsing(t *catalog.Table, name string) []int {
	var out []int
	for i, c := range t.Columns {
		if !c.Hidden || c.Dropped {
			continue
		}
		n, err := plan.ParseExpr(c.Generated)
		if err == nil && slices.Contains(plan.ColumnsNamed(n), name) {
			out = append(out, i)
		}
	}
	return out
}

// indexColumnText is how pg_get_indexdef prints column i of t in an
// index: its name, or for a hidden column its expression, parenthesized
// unless it is a function call, as PostgreSQL prints it.
func (s *Session) indexColumnText(t *catalog.Table, i int) string {
	c := t.Columns[i]
	if !c.Hidden {
		return parser.QuoteIdent(c.Name)
	}
	text := c.Generated
	if e, err := s.compileGenerated(t, c); err == nil {
		if d, ok := plan.Deparse(s.host(), e, columnNames(t)); ok {
			text = d
		}
		if f, call := e.(*plan.FuncExpr); call && !plan.IsOperatorName(f.Name) && plan.RegexOperator(f, false) == "" {
			return text
		}
	}
	return "(" + text + ")"
}

// columnNames are t's column names by position, as deparse reads them.
func columnNames(t *catalog.Table) []string {
	names := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		names[i] = col.Name
	}
	return names
}
