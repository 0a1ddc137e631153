package plan

import (
	"context"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Functions in FROM. The parser writes FROM f(args) alias(c, ...) as the
// derived table (SELECT epochdb_table(f(args), 'c', ...)) AS alias; its
// rows are the values f returns, in one column named by the alias (or c),
// or for a function returning records, a column per field (named by the
// fields, or c, ...). The arguments may read the enclosing queries' rows,
// not the other FROM items' (that would be LATERAL).

func init() {
	TableFuncs["_pg_expandarray"] = (*Compiler).expandArray
	TableFuncs["pg_partition_ancestors"] = (*Compiler).partitionAncestors
	TableFuncs["pg_options_to_table"] = (*Compiler).optionsToTable
}

// tableFuncCall returns the call of a function in FROM, or nil if n is
// something else.
func tableFuncCall(n *ast.TableSource) *ast.FuncCallExpr {
	sel, ok := n.Source.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From != nil {
		return nil
	}
	f, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !ok || !isTableMarker(f.FnName.L) || len(f.Args) == 0 {
		return nil
	}
	call, _ := f.Args[0].(*ast.FuncCallExpr)
	return call
}

// isTableMarker reports whether name is the parser's marker of a function
// in FROM.
func isTableMarker(name string) bool {
	return name == "epochdb_table" || name == "epochdb_table_ordinality"
}

// withOrdinality reports whether a function in FROM is WITH ORDINALITY.
func withOrdinality(n *ast.TableSource) bool {
	return n.Source.(*ast.SelectStmt).Fields.Fields[0].Expr.(*ast.FuncCallExpr).FnName.L == "epochdb_table_ordinality"
}

// columnAliases returns the column aliases of a function in FROM.
func columnAliases(n *ast.TableSource) []string {
	f := n.Source.(*ast.SelectStmt).Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	var names []string
	for _, a := range f.Args[1:] {
		names = append(names, a.(*driver.ValueExpr).GetString())
	}
	return names
}

// TableFunc produces a set-returning function's rows from its evaluated
// arguments.
type TableFunc struct {
	Name string
	T    types.T
	args []Expr
	Rows func(args []any) ([]any, error)
	// series, when set instead of rows, yields the values one at a time,
	// so that a long series in FROM is never held in memory whole.
	series func(e *Env, args []any) (next func() (any, bool, error), err error)
	// column names the one column of a function of scalar results that
	// has a name of its own (an OUT parameter: jsonb_array_elements's
	// value); others take the FROM item's alias.
	column string
	// ordinality adds a last column numbering the rows from 1 (WITH
	// ORDINALITY).
	ordinality bool
}

func (f *TableFunc) Describe(e *Explainer) *Node {
	// PostgreSQL's guess for a set-returning function: prorows, 1000.
	return &Node{Type: "Function Scan", Label: "Function Scan on " + f.Name, Attrs: []Field{{"Function Name", f.Name}},
		Est: Estimate{Total: 10, Rows: 1000, Width: 32}}
}

// values calls the function with its arguments evaluated in e.
func (f *TableFunc) values(e *Env) ([]any, error) {
	next, err := f.iterate(e)
	if err != nil {
		return nil, err
	}
	var out []any
	for {
		v, ok, err := next()
		if !ok || err != nil {
			return out, err
		}
		out = append(out, v)
		if len(out)%4096 == 0 && e.Ctx.Err() != nil {
			return nil, pgerr.Convert(context.Cause(e.Ctx))
		}
	}
}

// iterate calls the function with its arguments evaluated in e, and
// returns its values one at a time.
func (f *TableFunc) iterate(e *Env) (next func() (any, bool, error), err error) {
	vals, err := f.evalArgs(e)
	if err != nil {
		return nil, err
	}
	if vals == nil {
		return func() (any, bool, error) { return nil, false, nil }, nil
	}
	if f.series != nil {
		return f.series(e, vals)
	}
	out, err := f.Rows(vals)
	if err != nil {
		return nil, err
	}
	return func() (any, bool, error) {
		if len(out) == 0 {
			return nil, false, nil
		}
		v := out[0]
		out = out[1:]
		return v, true, nil
	}, nil
}

// evalArgs evaluates the arguments, or returns nil if one is NULL: the
// functions are strict, and give no rows then.
func (f *TableFunc) evalArgs(e *Env) ([]any, error) {
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.Eval(e)
		if v == nil || err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// Open reads the function in FROM: a record's fields are columns.
func (f *TableFunc) Open(x *ExecCtx) (rowexec.RowIter, error) {
	if f.series != nil {
		return f.openSeries(x)
	}
	out, err := f.values(x.Env(nil))
	if err != nil {
		return nil, err
	}
	_, record := f.T.Fields()
	rows := make([][]any, len(out))
	for i, v := range out {
		if record {
			rows[i] = v.([]any)
		} else {
			rows[i] = []any{v}
		}
		if f.ordinality {
			rows[i] = append(slices.Clip(rows[i]), int64(i+1))
		}
	}
	return &rowexec.SliceIter{Rows: rows}, nil
}

// openSeries reads a function that yields its values one at a time.
func (f *TableFunc) openSeries(x *ExecCtx) (rowexec.RowIter, error) {
	e := x.Env(nil)
	vals, err := f.evalArgs(e)
	if vals == nil || err != nil {
		return &rowexec.SliceIter{}, err
	}
	next, err := f.series(e, vals)
	if err != nil {
		return nil, err
	}
	n := int64(0)
	_, record := f.T.Fields()
	return &rowexec.FuncIter{F: func() ([]any, error) {
		v, ok, err := next()
		if !ok || err != nil {
			return nil, err
		}
		n++
		row := []any{v}
		if record {
			row = slices.Clip(v.([]any))
		}
		if f.ordinality {
			row = append(row, n)
		}
		return row, nil
	}}, nil
}

// FromPlanners plan the functions in FROM that are relations of their own
// rather than rows computed from their arguments, by name.
var FromPlanners = map[string]func(c *Compiler, n *ast.TableSource, call *ast.FuncCallExpr) (Source, *Scope, error){}

// TableFuncs compile the set-returning functions, other than those of
// sql/builtins, that compute their rows from their arguments, by name.
var TableFuncs = map[string]func(c *Compiler, call *ast.FuncCallExpr) (*TableFunc, error){}

func (c *Compiler) planTableFunc(n *ast.TableSource, call *ast.FuncCallExpr) (Source, *Scope, error) {
	if plan, ok := FromPlanners[call.FnName.L]; ok {
		return plan(c, n, call)
	}
	if calls := zippedUnnest(call); calls != nil {
		return c.planRowsFrom(n, calls)
	}
	f, err := c.WithScope(&Scope{}).compileTableFunc(call)
	if err != nil {
		return nil, nil, err
	}
	alias, names := n.AsName.O, columnAliases(n)
	cols := []ScopeCol{{Table: alias, Name: alias, T: f.T, funcValue: true}}
	if f.column != "" {
		cols[0].Name = f.column
	}
	if fields, ok := f.T.Fields(); ok {
		cols = cols[:0]
		for _, fl := range fields {
			cols = append(cols, ScopeCol{Table: alias, Name: fl.Name, T: fl.T})
		}
	}
	if f.ordinality = withOrdinality(n); f.ordinality {
		cols = append(cols, ScopeCol{Table: alias, Name: "ordinality", T: types.Int8})
	}
	if len(names) > len(cols) {
		return nil, nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", alias, len(cols), len(names))
	}
	for i, name := range names {
		cols[i].Name = name
	}
	return f, &Scope{Cols: cols}, nil
}

// isTableFunc reports whether n calls a set-returning function that
// compileTableFunc compiles.
func (c *Compiler) isTableFunc(n *ast.FuncCallExpr) bool {
	name, schema := n.FnName.L, callSchema(n)
	if systemCall(n) {
		if _, ok := TableFuncs[name]; ok || builtins.ReturnsSet(name) {
			return true
		}
		if schema != "" {
			return false
		}
	}
	fs, _ := c.Host.Catalog().FunctionOverloads(c.SearchPath(), schema, n.FnName.O)
	return slices.ContainsFunc(fs, func(f *catalog.Function) bool { return f.ReturnsSet && f.Kind == 'f' })
}

// compileTableFunc compiles a call of a set-returning function that
// computes its rows from its arguments alone, or of any other function
// in FROM, whose one value is the one row.
func (c *Compiler) compileTableFunc(call *ast.FuncCallExpr) (*TableFunc, error) {
	name := call.FnName.L
	builtin := systemCall(call)
	if compile, ok := TableFuncs[name]; ok && builtin {
		return compile(c, call)
	}
	if builtin && builtins.ReturnsSet(name) {
		return c.tableFuncOverloaded(call, name, builtins.Lookup(name))
	}
	if c.isTableFunc(call) {
		ovs, err := c.withUserOverloads(call, name, nil)
		if err != nil {
			return nil, err
		}
		return c.tableFuncOverloaded(call, call.FnName.O, ovs)
	}
	e, err := c.Compile(call)
	if err != nil {
		return nil, err
	}
	column := ""
	if f, _, ok := c.matchRoutine(call, 'f'); ok {
		if out := f.OutParams(); len(out) == 1 {
			column = out[0].Name // its column is named after its OUT parameter
		}
	}
	return &TableFunc{Name: call.FnName.O, T: e.Type(), column: column, series: func(env *Env, _ []any) (func() (any, bool, error), error) {
		v, err := e.Eval(env)
		if err != nil {
			return nil, err
		}
		done := false
		return func() (any, bool, error) {
			if done {
				return nil, false, nil
			}
			done = true
			return v, true, nil
		}, nil
	}}, nil
}

// partitionAncestors is pg_partition_ancestors(regclass): a partition's
// ancestors, and none for a relation that is no partition, which every
// epochdb table is. psql's \d asks it of tables with foreign keys.
func (c *Compiler) partitionAncestors(n *ast.FuncCallExpr) (*TableFunc, error) {
	if len(n.Args) != 1 {
		return nil, ArgCountErr(n, nil)
	}
	args, err := CompileArgs(c, n)
	if err != nil {
		return nil, err
	}
	regclass := types.T{Oid: types.OidRegclass, Mod: -1}
	if args[0], err = c.Coerce(args[0], regclass); err != nil {
		return nil, err
	}
	return &TableFunc{Name: "pg_partition_ancestors", T: regclass, args: args, Rows: func([]any) ([]any, error) {
		return nil, nil
	}}, nil
}

// expandArray is information_schema._pg_expandarray(array): a record
// (x, n) per element, x the element and n its position from 1. pgjdbc
// reads index columns with it.
func (c *Compiler) expandArray(n *ast.FuncCallExpr) (*TableFunc, error) {
	if len(n.Args) != 1 {
		return nil, ArgCountErr(n, nil)
	}
	arr, err := arrayOperand(c, n)
	if err != nil {
		return nil, err
	}
	elem, _ := arr.Type().Elem()
	t := types.RecordOf([]types.Field{{Name: "x", T: types.T{Oid: elem.Oid, Mod: -1}}, {Name: "n", T: types.Int4}})
	return &TableFunc{Name: "_pg_expandarray", T: t, args: []Expr{arr}, Rows: func(a []any) ([]any, error) {
		vals := a[0].([]any)
		out := make([]any, len(vals))
		for i, v := range vals {
			out[i] = []any{v, int64(i + 1)}
		}
		return out, nil
	}}, nil
}

// optionsToTable is pg_options_to_table(options): a reloptions-style
// array of name=value, split at the first '='.
func (c *Compiler) optionsToTable(n *ast.FuncCallExpr) (*TableFunc, error) {
	if len(n.Args) != 1 {
		return nil, ArgCountErr(n, nil)
	}
	arr, err := c.CompileAs(n.Args[0], types.TextArray)
	if err != nil {
		return nil, err
	}
	t := types.RecordOf([]types.Field{{Name: "option_name", T: types.Text}, {Name: "option_value", T: types.Text}})
	return &TableFunc{Name: "pg_options_to_table", T: t, args: []Expr{arr}, Rows: func(a []any) ([]any, error) {
		var out []any
		for _, o := range a[0].([]any) {
			if o == nil {
				continue
			}
			name, value, ok := strings.Cut(o.(string), "=")
			if ok {
				out = append(out, []any{name, value})
			} else {
				out = append(out, []any{name, nil})
			}
		}
		return out, nil
	}}, nil
}
