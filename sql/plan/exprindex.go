package plan

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Indexes on expressions, as queries meet them. An expression an index
// keys on is a hidden generated column of its table (see the sql root
// package's exprindex.go): a query that writes the same expression reads
// that column, so that the index serves it.

// matchHidden returns a reference to the hidden column whose expression n
// writes, if the scope has one: a query that writes an indexed expression
// reads what the index keys on.
func (c *Compiler) matchHidden(n ast.ExprNode) (Expr, bool) {
	switch n.(type) {
	case *ast.FuncCallExpr, *ast.BinaryOperationExpr, *ast.UnaryOperationExpr, *ast.FuncCastExpr:
	default:
		return nil, false
	}
	for i := range c.Scope.Cols {
		sc := &c.Scope.Cols[i]
		if sc.hiddenExpr == "" {
			continue
		}
		if UnqualifiedText(n, sc.Table) == sc.hiddenExpr && c.readsOnly(n, sc.Table) {
			return &ColExpr{T: sc.T, Index: i}, true
		}
	}
	return nil, false
}

// readsOnly reports whether every column n names resolves in the scope
// to a column of the FROM item table. The same text may name others: a
// JOIN USING column, which an outer join may take from the other side,
// or, unqualified beside a second table, an ambiguous name.
func (c *Compiler) readsOnly(n ast.ExprNode, table string) bool {
	ok := true
	n.Accept(&ColumnVisitor{Visit: func(cn *ast.ColumnNameExpr) {
		_, col, err := c.Scope.resolve(cn.Name.Table.O, cn.Name.Name.O)
		ok = ok && err == nil && cn.Name.Schema.L == "" && col.Table == table
	}})
	return ok
}

// UnqualifiedText is n as StoredExpr prints it, with the qualifier table
// taken off its column references; other qualifiers stay, so that a
// column of another table does not match.
func UnqualifiedText(n ast.ExprNode, table string) string {
	var stripped []*ast.ColumnName
	n.Accept(&qualifierStripper{table: table, stripped: &stripped})
	text := StoredExpr(n)
	for _, cn := range stripped {
		cn.Table = ast.NewCIStr(table)
	}
	return text
}

type qualifierStripper struct {
	table    string
	stripped *[]*ast.ColumnName
}

func (q *qualifierStripper) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name.Schema.L == "" && c.Name.Table.O == q.table && q.table != "" {
		c.Name.Table = ast.NewCIStr("")
		*q.stripped = append(*q.stripped, c.Name)
	}
	return n, false
}

func (q *qualifierStripper) Leave(n ast.Node) (ast.Node, bool) { return n, true }
