package plan

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// StoredExpr prints n as SQL that parseExpr reads back. TiDB's grammar
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
		case "nextval", "setval", "lastval", "currval":
			f.Tp = ast.FuncCallExprTypeGeneric
		}
	}
	return n, false
}

func (genericCalls) Leave(n ast.Node) (ast.Node, bool) { return n, true }
