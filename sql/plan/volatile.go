package plan

import (
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Volatility: which expressions may give another value for the same
// inputs. A subquery that calls one may not remember its results
// (memo.go), and a generated column or an index may not compute one.

// MutableFuncs are the functions compiled outside sql/builtins (whose
// overloads carry their own volatility) whose result is not fixed by
// their arguments, VOLATILE or STABLE in PostgreSQL: they depend on time,
// the session or a sequence. A generated column or an index may not call
// them, or its stored values would drift from what it computes.
var MutableFuncs = map[string]bool{
	"setseed": true,
	"nextval": true, "currval": true, "lastval": true, "setval": true,
	"current_time": true, "localtime": true, "localtimestamp": true, "timeofday": true,
	"current_schema": true, "current_schemas": true, "txid_current": true, "pg_current_xact_id": true, "pg_notify": true,
}

// callsMutable reports whether n may call a function that is not
// immutable: one of MutableFuncs, or one of sql/builtins with an overload
// that is not. A compiled expression knows which overloads it calls;
// immutable tells from that.
func callsMutable(n ast.Node) bool {
	v := &MutableCallFinder{overloads: true}
	n.Accept(v)
	return v.Found
}

// A MutableCallFinder looks for a call of MutableFuncs and, with
// overloads, of a function of sql/builtins with a mutable overload.
type MutableCallFinder struct{ overloads, Found bool }

func (v *MutableCallFinder) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && (MutableFuncs[f.FnName.L] || v.overloads && !builtinImmutable(f.FnName.L)) {
		v.Found = true
	}
	return n, v.Found
}

// builtinImmutable reports whether every overload of a function of
// sql/builtins is immutable; true for a name it does not have.
func builtinImmutable(name string) bool {
	for _, o := range builtins.Lookup(name) {
		if o.Volatility != builtins.Immutable {
			return false
		}
	}
	return true
}

func (v *MutableCallFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
