package plan

import (
	"slices"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Inlining SQL functions. A call of a LANGUAGE sql function whose body is
// one SELECT of one expression, with no FROM or other clause, compiles to
// that expression with the call's arguments in the parameters' places, as
// PostgreSQL's inline_function does: f(x) over a million rows then costs
// what x * 2 + 1 costs, with no call, environment or boxing per row.
//
// A call stays a call wherever inlining could change what it means:
//   - the function returns a set, is STRICT (the body need not give NULL
//     for a NULL argument), is SECURITY DEFINER, has SET clauses, takes
//     VARIADIC arguments, or is a procedure;
//   - the body is more volatile than the function is declared, holds a
//     subquery, an aggregate or a window function, or does not compile;
//   - an argument would be computed other than once (its parameter is
//     used twice, or not at all) and is not a column, a constant or a
//     parameter, which cost nothing to read again or not at all;
//   - the function is already being inlined into this call's own body.
//
// The caller's plan holds the body, so it must be planned again when the
// function changes: plans are made per catalog, and CREATE OR REPLACE
// FUNCTION makes a new one.

// inlining is the call a body is compiled in place of.
type inlining struct {
	f      *catalog.Function
	args   []Expr
	uses   []int
	parent *inlining
}

// arg is the argument that takes parameter idx's place.
func (in *inlining) arg(idx int) (Expr, error) {
	if idx >= len(in.args) {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", idx+1)
	}
	in.uses[idx]++
	return in.args[idx], nil
}

// vars resolves the parameters' names, alone or qualified by the
// function's name, to the arguments.
func (in *inlining) vars(table, name string) (Expr, bool) {
	if table != "" && table != in.f.Name {
		return nil, false
	}
	for i, p := range in.f.InParams() {
		if p.Name != "" && p.Name == name {
			e, _ := in.arg(i)
			return e, true
		}
	}
	return nil, false
}

// active reports whether f's body is being inlined at in or above it.
func (in *inlining) active(f *catalog.Function) bool {
	for ; in != nil; in = in.parent {
		if in.f.ID == f.ID {
			return true
		}
	}
	return false
}

// inline compiles call into the body of the SQL function it calls, if it
// may (see above).
func (c *Compiler) inline(call *resolvedCall) (Expr, bool) {
	o := call.o
	if o.Function == 0 || o.Variadic || o.Rows != nil {
		return nil, false
	}
	f := c.Host.Catalog().FunctionByID[o.Function]
	if f == nil || f.Kind != 'f' || f.Language != "sql" || f.ReturnsSet || f.Strict || f.SecurityDefiner ||
		len(f.Config) > 0 || len(f.OutParams()) > 0 || f.Returns.Oid == types.OidVoid || c.inlined.active(f) {
		return nil, false
	}
	if _, record := RoutineResult(f).Fields(); record {
		return nil, false
	}
	sel, order, ok := inlinableBody(f)
	if !ok {
		return nil, false
	}
	in := &inlining{f: f, args: call.args, uses: make([]int, len(call.args)), parent: c.inlined}
	params := make([]types.T, len(call.args))
	for i, a := range call.args {
		params[i] = a.Type()
	}
	vol := builtins.Immutable
	bc := &Compiler{Host: c.Host, Params: &params, Order: order, Scope: &Scope{}, Vars: in.vars,
		Volatility: &vol, Uses: c.Uses, ExtensionsOnPath: c.ExtensionsOnPath, inlined: in}
	e, err := bc.Compile(sel.Fields.Fields[0].Expr)
	if err != nil {
		return nil, false
	}
	if e, err = bc.Assign(e, call.ret); err != nil {
		return nil, false
	}
	if vol > volatilityOf(f.Volatility) {
		return nil, false
	}
	for i, n := range in.uses {
		if n != 1 && !cheapToRepeat(call.args[i]) {
			return nil, false
		}
	}
	return e, true
}

// inlinableBody is f's body if it is one SELECT of one expression with
// no clause but the select list, and the order of its $n markers.
func inlinableBody(f *catalog.Function) (*ast.SelectStmt, []int, bool) {
	stmts, err := parser.Parse(f.Body)
	if err != nil || len(stmts) != 1 {
		return nil, nil, false
	}
	st := stmts[0]
	sel, ok := st.AST.(*ast.SelectStmt)
	if !ok || len(st.WithDML) > 0 || sel.From != nil || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil ||
		sel.OrderBy != nil || sel.Limit != nil || sel.Distinct || sel.With != nil || sel.LockInfo != nil ||
		sel.WindowSpecs != nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, nil, false
	}
	fl := sel.Fields.Fields[0]
	if fl.WildCard != nil || HasSubquery(fl.Expr) || HasWindowOrAggregate(fl.Expr) {
		return nil, nil, false
	}
	return sel, slices.Clone(st.ParamOrder), true
}

// cheapToRepeat reports whether e may be computed twice, or not at all,
// in place of once, at no cost and with the same value.
func cheapToRepeat(e Expr) bool {
	switch e.(type) {
	case *ColExpr, *ConstExpr, *ParamExpr:
		return true
	}
	return false
}
