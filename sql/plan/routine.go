package plan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// User-defined functions. A call of a function that CREATE FUNCTION made
// resolves as a built-in's does: the catalog's overloads of its name on
// the search path become builtins.Overloads, chosen among with the
// built-in ones by the same rules, and an overload's implementation asks
// the Host for the function's compiled body (a Routine) at its first
// call. The body is the session's to compile and cache, once per session
// and catalog, as PostgreSQL caches a function's plans per backend; asking
// at the first call rather than at planning lets a function call itself.

// Routine is the compiled body of a user-defined function.
type Routine interface {
	// Call runs a function that returns one value (a record for several
	// OUT parameters). args are converted to the input parameters' types.
	Call(e *Env, args []any) (any, error)
	// Rows runs a set-returning function, returning its values one at a
	// time.
	Rows(e *Env, args []any) (next func() (any, bool, error), err error)
}

// Vars resolves the names a routine's body may use beyond its tables'
// columns: its parameters and, in PL/pgSQL, its variables. table is the
// qualifier written ("" for none). A name that is no variable gives false.
type Vars func(table, name string) (Expr, bool)

// NewParam is a reference to parameter idx of a statement whose
// parameter types are *ts.
func NewParam(idx int, ts *[]types.T) Expr { return &ParamExpr{Index: idx, types: ts} }

// CallEnv is the environment a routine's body runs in when called from e:
// the caller's transaction and session, with args as its parameters, and
// no caller's row.
func (e *Env) CallEnv(args []any) *Env {
	x := &ExecCtx{Ctx: e.Ctx, Host: e.Host, Params: args}
	if e.x != nil {
		x.Tx, x.FK, x.temp = e.x.Tx, e.x.FK, e.x.temp
	}
	return x.Env(nil)
}

// CallEnvIn is CallEnv made in reuse, an environment that CallEnv or
// CallEnvIn made before and that no evaluation uses any longer, for a
// routine called once per row; with reuse nil it is CallEnv.
func (e *Env) CallEnvIn(reuse *Env, args []any) *Env {
	if reuse == nil {
		return e.CallEnv(args)
	}
	reuse.Forget()
	x := reuse.x
	*x = ExecCtx{Ctx: e.Ctx, Host: e.Host, Params: args, cache: x.cache}
	if e.x != nil {
		x.Tx, x.FK, x.temp = e.x.Tx, e.x.FK, e.x.temp
	}
	*reuse = Env{Ctx: e.Ctx, params: args, Host: e.Host, x: x}
	return reuse
}

// Forget drops what e's execution has cached of its subqueries and WITH
// queries, which a routine's environment, reused from one expression to
// the next with other parameters, must compute again.
func (e *Env) Forget() {
	if x := e.x; x != nil && len(x.cache) > 0 {
		x.closeCTEs()
		clear(x.cache)
	}
}

// Exec is the execution e's row belongs to, for a routine that runs
// statements in it.
func (e *Env) Exec() *ExecCtx { return e.x }

// userOverloads are the user-defined functions a call of schema.name may
// mean, as overloads; procedures are not among them (CALL runs those).
func (c *Compiler) userOverloads(schema, name string) ([]builtins.Overload, error) {
	cat := c.Host.Catalog()
	if len(cat.FunctionByID) == 0 && schema == "" {
		return nil, nil
	}
	fs, err := cat.FunctionOverloads(c.SearchPath(), schema, name)
	if err != nil {
		return nil, err
	}
	var out []builtins.Overload
	for _, f := range fs {
		if f.Kind == 'p' {
			continue
		}
		o, err := c.RoutineOverload(f)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// RoutineOverload is f as an overload that calls its body.
func (c *Compiler) RoutineOverload(f *catalog.Function) (builtins.Overload, error) {
	in := f.InParams()
	o := builtins.Overload{
		Ret:          RoutineResult(f),
		Volatility:   volatilityOf(f.Volatility),
		CalledOnNull: !f.Strict,
		Variadic:     f.Variadic(),
		Function:     f.ID,
	}
	for i, p := range in {
		t := p.Type
		if o.Variadic && i == len(in)-1 {
			t, _ = t.Elem()
		}
		o.Args, o.Params = append(o.Args, t), append(o.Params, p.Name)
		if p.Default != "" {
			n, err := ParseExpr(p.Default)
			if err != nil {
				return o, err
			}
			d, err := c.WithScope(&Scope{}).Compile(n)
			if err != nil {
				return o, err
			}
			o.Defaults = append(o.Defaults, d)
		} else if len(o.Defaults) > 0 {
			return o, pgerr.New(pgerr.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
	}
	variadic := o.Variadic
	pack := func(args []any) []any {
		if !variadic || len(args) < len(in) {
			return args
		}
		return append(slices.Clip(args[:len(in)-1]), args[len(in)-1:])
	}
	if out := f.OutParams(); len(out) == 1 {
		o.Column = out[0].Name
	}
	if f.ReturnsSet {
		o.Rows = func(env builtins.Env, args []any) (func() (any, bool, error), error) {
			e := env.(*Env)
			r, err := e.Host.Routine(f, nil)
			if err != nil {
				return nil, err
			}
			return r.Rows(e, pack(args))
		}
		return o, nil
	}
	o.Typed = func(args []types.T, ret types.T) func(builtins.Env, []any) (any, error) {
		var r Routine
		if variadic && len(args) >= len(in) {
			at, _ := types.ArrayOf(args[len(in)-1])
			args = append(slices.Clip(args[:len(in)-1]), at)
		}
		return func(env builtins.Env, vals []any) (any, error) {
			e := env.(*Env)
			if r == nil {
				var err error
				if r, err = e.Host.Routine(f, &RoutineTypes{Args: args, Ret: ret}); err != nil {
					return nil, err
				}
			}
			return r.Call(e, pack(vals))
		}
	}
	return o, nil
}

// RoutineTypes are the types a call of a polymorphic function resolved
// its parameters and result to.
type RoutineTypes struct {
	Args []types.T
	Ret  types.T
}

// RoutineResult is the type a call of f returns: its RETURNS type, or for
// OUT parameters, the one's type or a record of them all.
func RoutineResult(f *catalog.Function) types.T {
	if f.ReturnsRow != 0 {
		t, _ := f.RowType()
		return t
	}
	out := f.OutParams()
	switch {
	case len(out) == 1 && f.Kind != 'p':
		return out[0].Type
	case len(out) > 0:
		fields := make([]types.Field, len(out))
		for i, p := range out {
			fields[i] = types.Field{Name: p.Name, T: p.Type}
			if p.Name == "" {
				fields[i].Name = "column" + strconv.Itoa(i+1)
			}
		}
		return types.RecordOf(fields)
	}
	return f.Returns
}

// volatilityOf maps provolatile to the planner's volatility.
func volatilityOf(v byte) builtins.Volatility {
	switch v {
	case 'i':
		return builtins.Immutable
	case 's':
		return builtins.Stable
	}
	return builtins.Volatile
}

// callSchema is the schema a call names, "" for none.
func callSchema(n *ast.FuncCallExpr) string { return n.Schema.O }

// systemCall reports whether n may call a built-in function: it names no
// schema, or a system one (pg_catalog, information_schema), which hold
// the built-in functions and no user-defined one.
func systemCall(n *ast.FuncCallExpr) bool {
	switch n.Schema.O {
	case "", "pg_catalog", "information_schema":
		return true
	}
	return false
}

// withUserOverloads adds to the built-in overloads of a call the
// user-defined functions it may mean, except those whose signature a
// built-in one has (pg_catalog comes first on the path).
func (c *Compiler) withUserOverloads(n *ast.FuncCallExpr, name string, ovs []builtins.Overload) ([]builtins.Overload, error) {
	schema := callSchema(n)
	if schema != "" && systemCall(n) {
		return ovs, nil
	}
	user, err := c.userOverloads(schema, n.FnName.O)
	if err != nil || len(user) == 0 {
		return ovs, err
	}
	out := slices.Clip(ovs)
	for _, u := range user {
		if !slices.ContainsFunc(ovs, func(b builtins.Overload) bool { return slices.Equal(b.Args, u.Args) }) {
			out = append(out, u)
		}
	}
	return out, nil
}

// AssignableTo reports whether a value of type from converts to to in
// assignment, as a SQL function's result converts to its declared type.
func AssignableTo(from, to types.T) bool { return implicitOK(from, to) || assignmentOnly(from, to) }

// HasWindowOrAggregate reports whether n calls an aggregate or a window
// function outside its subqueries.
func HasWindowOrAggregate(n ast.Node) bool {
	var windows []*ast.WindowFuncExpr
	n.Accept(&windowFinder{found: &windows})
	return len(windows) > 0 || hasAggregateIn(n)
}

// CompileProcedureCall compiles CALL's call of a procedure, and returns
// the procedure it resolved to.
func (c *Compiler) CompileProcedureCall(n *ast.FuncCallExpr) (Expr, *catalog.Function, error) {
	cat := c.Host.Catalog()
	fs, err := cat.FunctionOverloads(c.SearchPath(), callSchema(n), n.FnName.O)
	if err != nil {
		return nil, nil, err
	}
	var procs []*catalog.Function
	var ovs []builtins.Overload
	for _, f := range fs {
		if f.Kind != 'p' {
			continue
		}
		o, err := c.RoutineOverload(f)
		if err != nil {
			return nil, nil, err
		}
		procs, ovs = append(procs, f), append(ovs, o)
	}
	name := n.FnName.O
	if s := callSchema(n); s != "" {
		name = s + "." + name
	}
	args, names, err := compileNamedArgs(c, n)
	if err != nil {
		return nil, nil, err
	}
	var cand candidate
	if len(ovs) > 0 {
		cand, err = ChooseOverload(name, args, names, ovs)
	}
	if len(ovs) == 0 || pgerr.Code(err) == pgerr.UndefinedFunction {
		if _, _, ok := c.matchRoutine(n, 'f'); ok {
			return nil, nil, pgerr.New(pgerr.WrongObjectType, "%s is not a procedure", routineCallText(name, args)).
				WithHint("To call a function, use SELECT.")
		}
		return nil, nil, noProcedure(name, args)
	}
	if err != nil {
		return nil, nil, err
	}
	call, err := c.applyCandidate(name, cand, args)
	if err != nil {
		return nil, nil, err
	}
	for i := range ovs {
		if &ovs[i] == cand.Overload {
			return call.expr(name), procs[i], nil
		}
	}
	return nil, nil, pgerr.New(pgerr.InternalError, "procedure %s resolved to no overload", name)
}

// notProcedure turns the error of a call that no function takes into
// PostgreSQL's 42809 if a procedure takes it: a procedure is CALLed.
func (c *Compiler) notProcedure(n *ast.FuncCallExpr, name string) func(Expr, error) (Expr, error) {
	return func(e Expr, err error) (Expr, error) {
		if pgerr.Code(err) != pgerr.UndefinedFunction || len(c.Host.Catalog().FunctionByID) == 0 {
			return e, err
		}
		if p, args, ok := c.matchRoutine(n, 'p'); ok {
			return nil, pgerr.New(pgerr.WrongObjectType, "%s is a procedure", routineCallText(p.Name, args)).
				WithHint("To call a procedure, use CALL.")
		}
		return e, err
	}
}

// matchRoutine resolves a call among the routines of kind named as n
// names them, without compiling it.
func (c *Compiler) matchRoutine(n *ast.FuncCallExpr, kind byte) (*catalog.Function, []Expr, bool) {
	fs, err := c.Host.Catalog().FunctionOverloads(c.SearchPath(), callSchema(n), n.FnName.O)
	if err != nil {
		return nil, nil, false
	}
	var match []*catalog.Function
	var ovs []builtins.Overload
	for _, f := range fs {
		if f.Kind != kind {
			continue
		}
		o, err := c.RoutineOverload(f)
		if err != nil {
			return nil, nil, false
		}
		match, ovs = append(match, f), append(ovs, o)
	}
	args, names, err := compileNamedArgs(c, n)
	if err != nil || len(ovs) == 0 {
		return nil, nil, false
	}
	cand, err := ChooseOverload(n.FnName.O, args, names, ovs)
	if err != nil {
		return nil, nil, false
	}
	for i := range ovs {
		if &ovs[i] == cand.Overload {
			return match[i], args, true
		}
	}
	return nil, nil, false
}

// routineCallText is name(types of args), as PostgreSQL's messages about
// a call print it.
func routineCallText(name string, args []Expr) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Type().String()
	}
	return name + "(" + strings.Join(names, ", ") + ")"
}

func noProcedure(name string, args []Expr) error {
	err := noFunction(name, args).(*pgerr.Error)
	err.Message = "procedure" + strings.TrimPrefix(err.Message, "function")
	err.Hint = "No procedure matches the given name and argument types. You might need to add explicit type casts."
	return err
}
