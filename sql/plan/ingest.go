package plan

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// NamedArg unpacks the parser's rendering of a named argument, name =>
// value, as epochdb_named('name', value).
func NamedArg(n ast.ExprNode) (string, ast.ExprNode, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "epochdb_named" || len(f.Args) != 2 {
		return "", nil, false
	}
	name, ok := f.Args[0].(interface{ GetString() string })
	if !ok {
		return "", nil, false
	}
	return name.GetString(), f.Args[1], true
}
