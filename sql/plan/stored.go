package plan

import (
	"slices"
	"strings"
	"sync"

	"github.com/epochdb/epochdb/sql/pgerr"
	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Expressions the catalog keeps as SQL: defaults, generated columns,
// CHECK constraints, index expressions and predicates. StoredExpr prints
// one as the catalog keeps it, ParseExpr reads it back, and ColumnsNamed
// lists the columns it names, which DDL's dependency checks follow.

// StoredExpr prints n as SQL that ParseExpr reads back. TiDB's grammar
// gives nextval and its kin a special form that takes a table name, so
// calls of them must print as quoted, ordinary calls.
func StoredExpr(n ast.ExprNode) string {
	n.Accept(genericCalls{})
	return Restore(n)
}

type genericCalls struct{}

func (genericCalls) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok {
		switch f.FnName.L {
		case "nextval", "setval", "lastval", "currval", "digest":
			f.Tp = ast.FuncCallExprTypeGeneric
		}
	}
	return n, false
}

func (genericCalls) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// ParseExpr parses a stored expression (TiDB SQL, as StoredExpr printed it).
func ParseExpr(sql string) (ast.ExprNode, error) {
	p := tidbParsers.Get().(*tidb.Parser)
	defer tidbParsers.Put(p)
	stmts, _, err := p.Parse("SELECT "+sql, "", "")
	if err != nil || len(stmts) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "stored expression %q does not parse: %v", sql, err)
	}
	return stmts[0].(*ast.SelectStmt).Fields.Fields[0].Expr, nil
}

var tidbParsers = sync.Pool{New: func() any {
	p := tidb.New()
	p.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	return p
}}

// ColumnsNamed lists the distinct column names an expression uses.
func ColumnsNamed(n ast.ExprNode) []string {
	v := &columnCollector{}
	n.Accept(v)
	return v.names
}

type columnCollector struct{ names []string }

func (v *columnCollector) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && !slices.Contains(v.names, c.Name.Name.O) {
		v.names = append(v.names, c.Name.Name.O)
	}
	return n, false
}

func (v *columnCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// TableNameFinder collects the names a query reads, less those its WITH
// clauses define.
type TableNameFinder struct{ Names, ctes, Sequences []string }

func (f *TableNameFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.TableName:
		if !slices.Contains(f.ctes, n.Name.O) {
			f.Names = append(f.Names, n.Name.O)
		}
	case *ast.CommonTableExpression:
		f.ctes = append(f.ctes, n.Name.O)
	case *ast.FuncCallExpr:
		// nextval('seq') and its kin read a sequence by name.
		switch n.FnName.L {
		case "nextval", "currval", "setval":
			if len(n.Args) > 0 {
				arg := n.Args[0]
				// 'seq'::regclass, as PostgreSQL stores it and pg_dump writes it.
				if c, ok := arg.(*ast.FuncCallExpr); ok && c.FnName.L == "epochdb_cast" && len(c.Args) > 0 {
					arg = c.Args[0]
				}
				if v, ok := arg.(*driver.ValueExpr); ok {
					if name, ok := v.GetValue().(string); ok {
						f.Names = append(f.Names, strings.TrimPrefix(name, "public."))
						f.Sequences = append(f.Sequences, strings.TrimPrefix(name, "public."))
					}
				}
			}
		}
	}
	return n, false
}

func (f *TableNameFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
