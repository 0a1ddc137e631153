package sql

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Routines' bodies. The planner resolves a call of a user-defined
// function to its catalog.Function and, at the call's first evaluation,
// asks the session for the compiled body (plan.Host's Routine). The
// session compiles it once per catalog and search path, as PostgreSQL
// plans a function's statements once per backend until something they
// depend on changes, and keeps it in routines.
//
// A LANGUAGE sql body is its statements, planned with the function's
// parameters as the statements' parameters: $n, or a parameter's name
// where no column of that name is in scope (or qualified with the
// function's name). A call runs them in order, each a statement nested in
// the caller's (txn.Tx.Nested), and returns what the last one returns: its
// first row, or for a set-returning function all its rows. A body that is
// one SELECT of expressions, with no FROM, compiles to those expressions,
// which a call evaluates directly: what PostgreSQL gets from inlining such
// a function.

// maxRoutineDepth bounds how deep routines may call routines, in place
// of PostgreSQL's max_stack_depth.
const maxRoutineDepth = 1000

// routineCache holds the session's compiled routines, valid for one
// catalog and search path.
type routineCache struct {
	cat  *catalog.Catalog
	path string
	m    map[string]plan.Routine
	// triggers are the trigger functions by trigger, which the writes
	// fire per row.
	triggers map[*catalog.Trigger]*plFunction
	// whens are the triggers' compiled WHEN conditions.
	whens map[*catalog.Trigger]plan.Expr
	// depth counts the routine calls under way.
	depth int
}

// currentRoutines is the session's routine cache, emptied if the catalog
// or search path it was filled under is no longer the session's.
func (s *Session) currentRoutines() *routineCache {
	rc := &s.routines
	if cat, path := s.catalog(), s.settings["search_path"]; rc.cat != cat || rc.path != path || rc.m == nil {
		rc.cat, rc.path, rc.m, rc.triggers, rc.whens = cat, path, make(map[string]plan.Routine), nil, nil
	}
	return rc
}

// typeKey is t in a cache key: its oid and typmod, which name it in
// every process.
func typeKey(t types.T) string {
	return strconv.FormatUint(uint64(t.Oid), 10) + "/" + strconv.FormatInt(int64(t.Mod), 10)
}

// routine is plan.Host's Routine: f's compiled body, for a call whose
// polymorphic types resolved to ts.
func (s *Session) routine(f *catalog.Function, ts *plan.RoutineTypes) (plan.Routine, error) {
	rc := s.currentRoutines()
	key := strconv.FormatUint(uint64(f.ID), 10)
	if ts != nil {
		for _, t := range ts.Args {
			key += "," + typeKey(t)
		}
		key += ":" + typeKey(ts.Ret)
	}
	if r, ok := rc.m[key]; ok {
		return r, nil
	}
	r, err := s.compileRoutine(f, ts)
	if err != nil {
		return nil, err
	}
	rc.m[key] = r
	return r, nil
}

// compileRoutine compiles f's body.
func (s *Session) compileRoutine(f *catalog.Function, ts *plan.RoutineTypes) (plan.Routine, error) {
	switch f.Language {
	case "sql":
		r, err := s.compileSQLRoutine(f, ts, false)
		if err != nil {
			return nil, inRoutine(err, f, "during startup")
		}
		return r, nil
	case "plpgsql":
		return s.compilePL(f, f.Body)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "functions in language %s are not supported", f.Language)
}

// inRoutine adds to err the CONTEXT line that says it happened in f, at
// where: "" when its body was checked, "during startup" when compiled
// for a call, "statement 2" when running.
func inRoutine(err error, f *catalog.Function, where string) error {
	pe := pgerr.Convert(err)
	if where == "" {
		return pe.WithContext("SQL function %q", f.Name)
	}
	return pe.WithContext("SQL function %q %s", f.Name, where)
}

// validateRoutine checks a routine's body at CREATE, as PostgreSQL's
// validators do with check_function_bodies on: a SQL body must parse and,
// up to its first utility statement (which may create what the rest
// reads), plan, and its last statement must return the declared type.
func (s *Session) validateRoutine(f *catalog.Function) error {
	switch f.Language {
	case "sql":
		_, err := s.compileSQLRoutine(f, nil, true)
		if err != nil {
			return inRoutine(err, f, "")
		}
		return nil
	case "plpgsql":
		_, err := s.compilePL(f, f.Body)
		return err
	}
	return pgerr.New(pgerr.FeatureNotSupported, "functions in language %s are not supported", f.Language)
}

// routineVars resolves the names of f's input parameters in a statement of
// its body whose parameter types are *ts: a bare name, or one qualified
// with f's name.
func routineVars(f *catalog.Function, ts *[]types.T) plan.Vars {
	in := f.InParams()
	return func(table, name string) (plan.Expr, bool) {
		if table != "" && table != f.Name {
			return nil, false
		}
		for i, p := range in {
			if p.Name == name {
				return plan.NewParam(i, ts), true
			}
		}
		return nil, false
	}
}

// sqlRoutine is a compiled LANGUAGE sql body.
type sqlRoutine struct {
	s    *Session
	f    *catalog.Function
	ret  types.T
	args []types.T
	// exprs, for a body that is one SELECT of expressions without FROM,
	// are those expressions; stmts otherwise are its statements.
	exprs []plan.Expr
	// scalar is set when exprs is one expression whose value is the
	// function's; env is the environment exprs ran in last, for the next
	// call to reuse (nil while a call uses it).
	scalar bool
	env    *plan.Env
	stmts  []*Prepared
	// last is the type of each column the last statement returns.
	last []types.T
}

// compileSQLRoutine compiles f's SQL body. Planning stops at the first
// utility statement, whose effects later statements may need; those are
// planned when they run.
func (s *Session) compileSQLRoutine(f *catalog.Function, ts *plan.RoutineTypes, validate bool) (*sqlRoutine, error) {
	stmts, err := parser.Parse(f.Body)
	if err != nil {
		return nil, err
	}
	r := &sqlRoutine{s: s, f: f, ret: plan.RoutineResult(f)}
	for _, p := range f.InParams() {
		r.args = append(r.args, p.Type)
	}
	if ts != nil {
		copy(r.args, ts.Args)
		r.ret = ts.Ret
	}
	planned := true
	for _, st := range stmts {
		if st.NumParams > len(r.args) {
			return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", st.NumParams)
		}
		if err := routineStatementAllowed(st); err != nil {
			return nil, err
		}
		p := &Prepared{st: st, params: slices.Clone(r.args), vars: func(ts *[]types.T) plan.Vars { return routineVars(f, ts) }}
		r.stmts = append(r.stmts, p)
		if st.AST == nil || !plannable(st.AST) {
			planned = false
			continue
		}
		if !planned {
			continue
		}
		if err := s.plan(p); err != nil {
			return nil, err
		}
	}
	if err := r.checkResult(planned); err != nil {
		return nil, err
	}
	if !validate {
		r.inline()
	}
	return r, nil
}

// plannable reports whether n is a statement with a plan: a query or a
// write, rather than DDL.
func plannable(n ast.StmtNode) bool {
	switch n.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt, *ast.InsertStmt, *ast.UpdateStmt, *ast.DeleteStmt:
		return true
	}
	return false
}

// routineStatementAllowed refuses what a SQL function may not run.
func routineStatementAllowed(st *parser.Statement) error {
	switch st.Cmd.(type) {
	case *parser.Begin, *parser.Commit, *parser.Rollback, *parser.Savepoint, *parser.Release, *parser.RollbackTo:
		return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed in an SQL function", strings.ToUpper(firstWords(st.SQL)))
	case *parser.Copy:
		return pgerr.New(pgerr.FeatureNotSupported, "COPY is not allowed in an SQL function")
	}
	return nil
}

// checkResult checks that the body's last statement returns what f
// declares, as PostgreSQL's check_sql_fn_retval: the last statement of a
// function that returns a value must return rows, of one column of a type
// that converts to the result's by assignment, or of the record's fields.
func (r *sqlRoutine) checkResult(planned bool) error {
	f := r.f
	void := r.ret.Oid == types.OidVoid
	if len(r.stmts) == 0 {
		if void {
			return nil
		}
		return r.mismatch().WithDetail("Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.")
	}
	last := r.stmts[len(r.stmts)-1]
	if !planned || last.plan == nil {
		if void || !planned {
			return nil
		}
		return r.mismatch().WithDetail("Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.")
	}
	cols := last.cols
	if void {
		return nil
	}
	if len(cols) == 0 {
		return r.mismatch().WithDetail("Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.")
	}
	want := []types.T{r.ret}
	if fields, ok := r.ret.Fields(); ok && (len(cols) > 1 || f.Kind == 'p' || cols[0].Type.Oid != types.OidRecord) {
		want = want[:0]
		for _, fl := range fields {
			want = append(want, fl.T)
		}
	}
	if r.ret.Oid == types.OidRecord && r.ret.Mod < 0 {
		// RETURNS record with no OUT parameters: any row.
		for _, c := range cols {
			r.last = append(r.last, c.Type)
		}
		return nil
	}
	if len(cols) != len(want) {
		if len(want) == 1 {
			return r.mismatch().WithDetail("Final statement must return exactly one column.")
		}
		if len(cols) < len(want) {
			return r.mismatch().WithDetail("Final statement returns too few columns.")
		}
		return r.mismatch().WithDetail("Final statement returns too many columns.")
	}
	for i, c := range cols {
		t := c.Type
		if t.Oid == types.OidUnknown {
			t = types.Text
		}
		if t.Oid != want[i].Oid && !plan.AssignableTo(t, want[i]) {
			if len(want) == 1 {
				return r.mismatch().WithDetail("Actual return type is %s.", t)
			}
			return r.mismatch().WithDetail("Final statement returns %s instead of %s at column %d.", t, want[i], i+1)
		}
		r.last = append(r.last, t)
	}
	return nil
}

func (r *sqlRoutine) mismatch() *pgerr.Error {
	return pgerr.New(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", r.ret)
}

// inline compiles a body that is one SELECT of expressions, with no FROM
// or other clause, to those expressions.
func (r *sqlRoutine) inline() {
	if len(r.stmts) != 1 || r.f.ReturnsSet {
		return
	}
	p := r.stmts[0]
	sel, ok := p.st.AST.(*ast.SelectStmt)
	if !ok || sel.From != nil || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil || sel.OrderBy != nil ||
		sel.Limit != nil || sel.Distinct || sel.With != nil || sel.LockInfo != nil || sel.WindowSpecs != nil || p.dml != nil || len(sel.Fields.Fields) != len(r.last) {
		return
	}
	params := slices.Clone(r.args)
	c := &plan.Compiler{Host: r.s.host(), Params: &params, Order: p.st.ParamOrder, Scope: &plan.Scope{}, Vars: routineVars(r.f, &params)}
	var exprs []plan.Expr
	for i, fl := range sel.Fields.Fields {
		if fl.WildCard != nil || plan.HasWindowOrAggregate(fl.Expr) {
			return
		}
		e, err := c.Compile(fl.Expr)
		if err != nil {
			return
		}
		if e, err = c.Assign(e, r.lastType(i)); err != nil {
			return
		}
		exprs = append(exprs, e)
	}
	r.exprs = exprs
	r.scalar = len(exprs) == 1 && r.ret.Oid != types.OidVoid && r.oneValue()
}

// lastType is the type column i of the result converts to.
func (r *sqlRoutine) lastType(i int) types.T {
	if fields, ok := r.ret.Fields(); ok && len(r.last) == len(fields) && (len(r.last) > 1 || r.f.Kind == 'p') {
		return fields[i].T
	}
	if r.ret.Oid == types.OidRecord && r.ret.Mod < 0 {
		return r.last[i]
	}
	return r.ret
}

// enter counts a routine call, failing past maxRoutineDepth with
// PostgreSQL's error; exit ends it.
func (rc *routineCache) enter() error {
	if rc.depth >= maxRoutineDepth {
		return pgerr.New(pgerr.StackDepthExceeded, "stack depth limit exceeded").
			WithHint("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.")
	}
	rc.depth++
	return nil
}

func (rc *routineCache) exit() { rc.depth-- }

func (r *sqlRoutine) Call(e *plan.Env, args []any) (any, error) {
	if err := r.s.routines.enter(); err != nil {
		return nil, err
	}
	defer r.s.routines.exit()
	if r.exprs != nil {
		env := e.CallEnvIn(r.env, args)
		r.env = nil
		defer func() { r.env = env }()
		if r.scalar {
			return r.exprs[0].Eval(env) // an inlined body's errors are the caller's, as in PostgreSQL
		}
		vals := make([]any, len(r.exprs))
		for i, x := range r.exprs {
			v, err := x.Eval(env)
			if err != nil {
				return nil, err // an inlined body's errors are the caller's, as in PostgreSQL
			}
			vals[i] = v
		}
		return r.result(vals), nil
	}
	var out any
	err := r.run(e, args, func(it rowexec.RowIter) error {
		row, err := it.Next()
		if err != nil || row == nil {
			return err
		}
		out, err = r.convert(row)
		if err != nil {
			return err
		}
		out = r.result(out.([]any))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (r *sqlRoutine) Rows(e *plan.Env, args []any) (func() (any, bool, error), error) {
	if err := r.s.routines.enter(); err != nil {
		return nil, err
	}
	defer r.s.routines.exit()
	// The rows are read whole: the statements' nesting ends with the call.
	var vals []any
	err := r.run(e, args, func(it rowexec.RowIter) error {
		for {
			row, err := it.Next()
			if err != nil || row == nil {
				return err
			}
			v, err := r.convert(row)
			if err != nil {
				return err
			}
			vals = append(vals, r.result(v.([]any)))
		}
	})
	if err != nil {
		return nil, err
	}
	return func() (any, bool, error) {
		if len(vals) == 0 {
			return nil, false, nil
		}
		v := vals[0]
		vals = vals[1:]
		return v, true, nil
	}, nil
}

// result is the value a row of the last statement gives: its one column,
// or a record of its columns.
func (r *sqlRoutine) result(row []any) any {
	if r.ret.Oid == types.OidVoid {
		return nil
	}
	if len(row) == 1 && r.oneValue() {
		return row[0]
	}
	return slices.Clone(row)
}

// oneValue reports whether the function's value is the one column of its
// last statement's row itself, rather than a record of the row.
func (r *sqlRoutine) oneValue() bool {
	if r.f.Kind == 'p' && r.ret.Oid == types.OidRecord {
		return false
	}
	_, record := r.ret.Fields()
	return !record || len(r.last) == 1 && r.last[0].Oid == types.OidRecord
}

// convert converts a row of the last statement to the result's types.
func (r *sqlRoutine) convert(row []any) (any, error) {
	if r.ret.Oid == types.OidVoid {
		return []any{}, nil
	}
	out := make([]any, len(row))
	for i, v := range row {
		if i >= len(r.last) {
			break
		}
		from, to := r.last[i], r.lastType(i)
		if v == nil || from == to || from.Oid == to.Oid && to.Mod < 0 {
			out[i] = v
			continue
		}
		c, err := types.CastImplicit(v, from, to, r.s.loc())
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// run runs the body's statements with args, each nested in the calling
// statement, and hands the last one's rows to last.
func (r *sqlRoutine) run(e *plan.Env, args []any, last func(rowexec.RowIter) error) error {
	for i, p := range r.stmts {
		var each func(rowexec.RowIter) error
		if i == len(r.stmts)-1 {
			each = last
		}
		if _, err := r.s.runNested(e, p, args, each); err != nil {
			return inRoutine(err, r.f, "statement "+strconv.Itoa(i+1))
		}
	}
	return nil
}

// runNested runs p, a statement of a routine's body, with args as its
// parameters, nested in the statement that e's row belongs to: planned
// again if the catalog or search path changed, its tables locked, and
// its rows, if any, handed to rows (or read and dropped, if rows is nil).
// It returns the statement's tag.
func (s *Session) runNested(e *plan.Env, p *Prepared, args []any, rows func(rowexec.RowIter) error) (string, error) {
	caller := e.Exec()
	if caller == nil || caller.Tx == nil {
		return "", pgerr.New(pgerr.InternalError, "a routine's statement ran outside a transaction")
	}
	end := caller.Tx.Nested()
	defer end()
	if (p.plan == nil || !s.planCurrent(p)) && p.st.AST != nil && plannable(p.st.AST) {
		if err := s.plan(p); err != nil {
			return "", err
		}
	}
	if err := s.lockTables(e.Ctx, p); err != nil {
		return "", err
	}
	x := e.CallEnv(args).Exec()
	if p.plan == nil {
		pt := &Portal{p: p, params: args, nested: true}
		tag, err := s.direct(e.Ctx, pt, x)
		if pt.rows != nil {
			pt.rows.Close()
		}
		return tag, err
	}
	it, tag, err := s.runPlan(x, p)
	if err != nil || it == nil {
		return tag, err
	}
	defer it.Close()
	if rows != nil {
		return tag, rows(it)
	}
	for {
		row, err := it.Next()
		if err != nil || row == nil {
			return tag, err
		}
	}
}

// call runs CALL.
func (s *Session) call(ctx context.Context, pt *Portal, x *plan.ExecCtx) (string, error) {
	cp, _ := pt.p.plan.(*callPlan)
	if cp == nil {
		return "", pgerr.New(pgerr.InternalError, "CALL was not planned")
	}
	v, err := cp.e.Eval(x.Env(nil))
	if err != nil {
		return "", err
	}
	if pt.p.cols != nil {
		row, _ := v.([]any)
		if row == nil {
			row = make([]any, len(pt.p.cols))
		}
		pt.rows = &rowexec.SliceIter{Rows: [][]any{row}}
		pt.tag = "CALL"
		return "", nil
	}
	return "CALL", nil
}

// callPlan is a planned CALL: the procedure's call.
type callPlan struct{ e plan.Expr }

// planCall plans CALL: the procedure it calls, and the columns of the row
// it returns, if the procedure has output parameters.
func (s *Session) planCall(c *plan.Compiler, p *Prepared, cmd *parser.Call) error {
	sel, _ := cmd.Call.AST.(*ast.SelectStmt)
	var call *ast.FuncCallExpr
	if sel != nil && sel.From == nil && len(sel.Fields.Fields) == 1 {
		call, _ = sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	}
	if call == nil {
		return pgerr.New(pgerr.SyntaxError, "syntax error at or near %q", firstWords(cmd.Call.SQL))
	}
	var subqueries subqueryFinder
	call.Accept(&subqueries)
	if subqueries.found {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in CALL argument")
	}
	c.Order = cmd.Call.ParamOrder
	e, f, err := c.CompileProcedureCall(call)
	if err != nil {
		return err
	}
	p.plan = &callPlan{e: e}
	if fields, ok := plan.RoutineResult(f).Fields(); ok {
		for _, fl := range fields {
			p.cols = append(p.cols, plan.Column{Name: fl.Name, Type: fl.T})
		}
	}
	return nil
}

// subqueryFinder finds a subquery in an expression.
type subqueryFinder struct{ found bool }

func (f *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		f.found = true
		return n, true
	}
	return n, false
}

func (f *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
