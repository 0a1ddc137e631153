package sql

import (
	"fmt"
	"maps"
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

// PL/pgSQL: an interpreter over the planner. parser.ParsePL gives the
// statement tree; a plFunction walks it. Every variable has a slot in the
// call's frame, fixed when the function is compiled, and the expressions
// and SQL statements of the body are planned, when they first run, with
// the variables in scope as parameters (slot i is $i+1, so a function's
// own $n are its parameters), as PostgreSQL's PL/pgSQL passes variables
// to the executor. A plan is kept for the session and planned again when
// a record variable it reads has taken another shape.
//
// A block with an EXCEPTION clause runs in a savepoint: an error that a
// handler catches rolls back exactly the block's writes. Errors leave
// with PostgreSQL's CONTEXT line for the statement they happened in.

// plVar is a variable of a PL/pgSQL function.
type plVar struct {
	name string
	slot int
	t    types.T
	// record: its type is whatever row was last assigned to it.
	record            bool
	constant, notNull bool
	def               string
}

// plScope is the variables a block declares, inside its enclosing
// block's.
type plScope struct {
	parent *plScope
	label  string
	vars   []*plVar
}

func (sc *plScope) lookup(name string) *plVar {
	for s := sc; s != nil; s = s.parent {
		for i := len(s.vars) - 1; i >= 0; i-- {
			if s.vars[i].name == name {
				return s.vars[i]
			}
		}
	}
	return nil
}

// labeled finds variable name of the block labeled label.
func (sc *plScope) labeled(label, name string) *plVar {
	for s := sc; s != nil; s = s.parent {
		if s.label == label {
			for _, v := range s.vars {
				if v.name == name {
					return v
				}
			}
		}
	}
	return nil
}

// plFunction is a compiled PL/pgSQL function or DO block.
type plFunction struct {
	s     *Session
	f     *catalog.Function // nil for DO
	name  string            // as CONTEXT lines name it
	block *parser.PLBlock
	ret   types.T
	// nslots is the frame's size; root holds the parameters and OUT
	// variables; out are the slots of the OUT parameters.
	nslots int
	root   *plScope
	out    []int
	found  *plVar
	scopes map[any]*plScope
	// tg, for a trigger function, are the variables a trigger sets.
	tg *plTriggerVars
	// plans are the compiled expressions and statements, by the node and
	// the index of the expression in it.
	plans map[plKey]*plPlan
	// types are the slots' declared types, which a frame starts with.
	types []types.T
	// rowTypes caches the record type of a trigger's table's rows, and
	// tgTexts the values of its text TG_ variables for each trigger and
	// event.
	rowTypes map[*catalog.Table]types.T
	tgTexts  map[tgKey][]any
	// trans are the transition tables of the trigger the function last
	// ran for, which its statements are planned against; transOf says
	// which table and names they are for (see bindTransitions).
	trans   []*plan.Transition
	transOf transitionShape
	// spare is the frame of a trigger call that ended, for the next one:
	// a row trigger runs once per row, and a frame with its environment
	// costs as much to make as its body takes to run.
	spare *plFrame
}

// transitionShape is what a function's transition tables are planned
// for: a version of a table and the names REFERENCING gives its rows.
type transitionShape struct {
	t        *catalog.Table
	old, new string
}

type plKey struct {
	node any
	i    int
}

// plPlan is one expression or statement, planned.
type plPlan struct {
	ts   []types.T // the slots' types it was planned with
	expr plan.Expr // a FROM-less SELECT of one expression
	p    *Prepared
}

// compilePL compiles f, or with f nil, a DO block's code.
func (s *Session) compilePL(f *catalog.Function, code string) (*plFunction, error) {
	name := "inline_code_block"
	if f != nil {
		name = f.Name
	}
	b, err := parser.ParsePL(code, name)
	if err != nil {
		return nil, err
	}
	fn := &plFunction{s: s, f: f, block: b, name: "inline_code_block", scopes: map[any]*plScope{}, plans: map[plKey]*plPlan{},
		ret: types.T{Oid: types.OidVoid, Mod: -1}}
	fn.root = &plScope{}
	if f != nil {
		// As format_procedure prints it, in PostgreSQL's CONTEXT lines.
		fn.name = strings.ReplaceAll(s.routineName(f), ", ", ",")
		fn.ret = plan.RoutineResult(f)
		fn.root.label = f.Name
		for i, p := range f.Params {
			v := fn.newVar(fn.root, p.Name, p.Type)
			if p.Name == "" {
				v.name = "$" + strconv.Itoa(i+1)
			}
			if p.Out() {
				fn.out = append(fn.out, v.slot)
			}
		}
		for i, p := range f.Params {
			if p.Name != "" && p.In() {
				fn.root.vars = append(fn.root.vars, &plVar{name: "$" + strconv.Itoa(i+1), slot: fn.root.vars[i].slot, t: p.Type})
			}
		}
	}
	fn.found = fn.newVar(fn.root, "found", types.Bool)
	if f != nil && f.Returns.Oid == types.OidTrigger {
		fn.ret = types.T{Oid: types.OidRecord, Mod: -1}
		fn.tg = &plTriggerVars{}
		rec := types.T{Oid: types.OidRecord, Mod: -1}
		fn.tg.new, fn.tg.old = fn.newVar(fn.root, "new", rec), fn.newVar(fn.root, "old", rec)
		for _, name := range []string{"tg_name", "tg_when", "tg_level", "tg_op", "tg_relname", "tg_table_name", "tg_table_schema"} {
			fn.tg.text = append(fn.tg.text, fn.newVar(fn.root, name, types.Name))
		}
		fn.tg.relid = fn.newVar(fn.root, "tg_relid", types.T{Oid: types.OidOid, Mod: -1})
		fn.tg.nargs = fn.newVar(fn.root, "tg_nargs", types.Int4)
		fn.tg.argv = fn.newVar(fn.root, "tg_argv", types.TextArray)
	}
	if err := fn.declare(b, fn.root); err != nil {
		return nil, err
	}
	return fn, nil
}

func (fn *plFunction) newVar(sc *plScope, name string, t types.T) *plVar {
	v := &plVar{name: name, slot: fn.nslots, t: t, record: t.Oid == types.OidRecord && t.Mod < 0}
	fn.nslots++
	sc.vars = append(sc.vars, v)
	return v
}

// declare makes the scopes and variables of block b and of the blocks
// and loops in it.
func (fn *plFunction) declare(b *parser.PLBlock, parent *plScope) error {
	sc := &plScope{parent: parent, label: b.Label}
	fn.scopes[b] = sc
	for _, d := range b.Decls {
		if d.Alias != "" {
			target := sc.lookup(d.Alias)
			if target == nil {
				return pgerr.New(pgerr.UndefinedObject, "variable %q does not exist", d.Alias)
			}
			sc.vars = append(sc.vars, &plVar{name: d.Name, slot: target.slot, t: target.t, record: target.record})
			continue
		}
		t, err := fn.declType(d.Type)
		if err != nil {
			return err
		}
		v := fn.newVar(sc, d.Name, t)
		v.constant, v.notNull, v.def = d.Constant, d.NotNull, d.Default
	}
	if err := fn.declareStmts(b.Body, sc); err != nil {
		return err
	}
	for i := range b.Handlers {
		h := &b.Handlers[i]
		hs := &plScope{parent: sc}
		fn.newVar(hs, "sqlstate", types.Text)
		fn.newVar(hs, "sqlerrm", types.Text)
		fn.scopes[&h.Body] = hs
		for _, c := range h.Conditions {
			if _, ok := conditionCode(c); !ok && c != "others" {
				return pgerr.New(pgerr.UndefinedObject, "unrecognized exception condition %q", c)
			}
		}
		if err := fn.declareStmts(h.Body, hs); err != nil {
			return err
		}
	}
	return nil
}

// declareBranches declares the blocks and loops of an IF's or a CASE's
// branches.
func (fn *plFunction) declareBranches(thens [][]parser.PLStmt, els []parser.PLStmt, sc *plScope) error {
	for _, t := range append(thens, els) {
		if err := fn.declareStmts(t, sc); err != nil {
			return err
		}
	}
	return nil
}

func (fn *plFunction) declareStmts(stmts []parser.PLStmt, sc *plScope) error {
	for _, st := range stmts {
		switch st := st.(type) {
		case *parser.PLBlockStmt:
			if err := fn.declare(st.Block, sc); err != nil {
				return err
			}
		case *parser.PLIf:
			if err := fn.declareBranches(st.Thens, st.Else, sc); err != nil {
				return err
			}
		case *parser.PLCase:
			if err := fn.declareBranches(st.Thens, st.Else, sc); err != nil {
				return err
			}
		case *parser.PLLoop:
			ls := &plScope{parent: sc, label: st.Label}
			fn.scopes[st] = ls
			switch st.Kind {
			case "int":
				fn.newVar(ls, st.Var, types.Int4)
			case "query", "execute", "foreach":
				for _, name := range strings.Split(st.Var, ",") {
					if sc.lookup(name) == nil {
						if st.Kind == "foreach" || strings.Contains(st.Var, ",") {
							return pgerr.New(pgerr.SyntaxError, "loop variable of loop over rows must be a record variable or list of scalar variables")
						}
						return pgerr.New(pgerr.SyntaxError, "loop variable of loop over rows must be a record variable or list of scalar variables")
					}
				}
			}
			if err := fn.declareStmts(st.Body, ls); err != nil {
				return err
			}
		}
	}
	return nil
}

// declType resolves a declared type: a type name, table.column%TYPE,
// table%ROWTYPE, or record.
func (fn *plFunction) declType(name string) (types.T, error) {
	if rel, ok := strings.CutSuffix(name, "%rowtype"); ok {
		t, err := tableNamed(fn.s.host(), rel)
		if err != nil {
			return types.T{}, err
		}
		return t.RowType(), nil
	}
	if strings.HasSuffix(name, "%type") {
		return fn.s.routineType(name)
	}
	if t, err := fn.s.parseTypeName(name); err == nil {
		return t, nil
	} else if t, terr := tableNamed(fn.s.host(), name); terr == nil {
		return t.RowType(), nil
	} else {
		return types.T{}, err
	}
}

// plFrame is one call's state.
type plFrame struct {
	fn   *plFunction
	env  *plan.Env // the caller's
	vals []any
	ts   []types.T
	// rowCount is the last SQL statement's, for GET DIAGNOSTICS.
	rowCount int64
	// caught is the error the innermost running handler caught, for RAISE
	// alone and GET STACKED DIAGNOSTICS.
	caught *pgerr.Error
	// set collects RETURN NEXT's and RETURN QUERY's rows.
	set []any
	// contexted is the last error a CONTEXT line was added to.
	contexted error
	// callEnv is the environment the frame's expressions run in, with
	// the slots as their parameters; made at the first, or remade there
	// from a spare frame's (staleEnv).
	callEnv  *plan.Env
	staleEnv bool
}

// exprEnv is the environment an expression of the frame evaluates in.
// The slots are its parameters: it reads their values as they are when
// it runs, so one serves the whole call, its subqueries' cached results
// forgotten each time.
func (fr *plFrame) exprEnv() *plan.Env {
	if fr.callEnv == nil || fr.staleEnv {
		fr.callEnv, fr.staleEnv = fr.env.CallEnvIn(fr.callEnv, fr.vals), false
	} else {
		fr.callEnv.Forget()
	}
	return fr.callEnv
}

// plCtl is a change of control flow: EXIT, CONTINUE or RETURN.
type plCtl struct {
	exit, cont, ret bool
	label           string
	value           any
}

func (fn *plFunction) Call(e *plan.Env, args []any) (any, error) {
	if fn.tg != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "trigger functions can only be called as triggers").
			WithContext("compilation of PL/pgSQL function %q near line 1", fn.f.Name)
	}
	fr, err := fn.start(e, args)
	if err != nil {
		return nil, err
	}
	defer fn.exit()
	ctl, err := fr.runBlock(fn.block, fn.root)
	if err != nil {
		return nil, err
	}
	if ctl != nil && ctl.ret {
		return ctl.value, nil
	}
	switch {
	case fn.ret.Oid == types.OidVoid:
		return nil, nil
	case len(fn.out) > 0:
		return fr.outValue(), nil
	}
	return nil, pgerr.New(pgerr.SQLRoutineException, "control reached end of function without RETURN").
		WithContext("PL/pgSQL function %s", fn.name)
}

func (fn *plFunction) Rows(e *plan.Env, args []any) (func() (any, bool, error), error) {
	fr, err := fn.start(e, args)
	if err != nil {
		return nil, err
	}
	defer fn.exit()
	if _, err := fr.runBlock(fn.block, fn.root); err != nil {
		return nil, err
	}
	vals := fr.set
	return func() (any, bool, error) {
		if len(vals) == 0 {
			return nil, false, nil
		}
		v := vals[0]
		vals = vals[1:]
		return v, true, nil
	}, nil
}

// start makes the frame of a call with args.
func (fn *plFunction) start(e *plan.Env, args []any) (*plFrame, error) {
	if err := fn.s.routines.enter(); err != nil {
		return nil, err
	}
	if fn.types == nil {
		fn.types = make([]types.T, fn.nslots)
		for _, sc := range append([]*plScope{fn.root}, slices.Collect(maps.Values(fn.scopes))...) {
			for _, v := range sc.vars {
				fn.types[v.slot] = v.t
			}
		}
	}
	fr := fn.spare
	if fr != nil {
		fn.spare = nil
		*fr = plFrame{fn: fn, env: e, vals: fr.vals, ts: fr.ts, callEnv: fr.callEnv, staleEnv: true}
		copy(fr.ts, fn.types)
	} else {
		fr = &plFrame{fn: fn, env: e, vals: make([]any, fn.nslots), ts: slices.Clone(fn.types)}
	}
	if fn.f != nil {
		in := 0
		for i, p := range fn.f.Params {
			if fn.f.Kind == 'p' && p.Mode == 'o' || p.In() {
				if in < len(args) {
					fr.vals[i] = args[in]
					if row, ok := args[in].([]any); ok {
						fr.vals[i] = slices.Clone(row) // a record slot owns its fields (see store)
					}
				}
				in++
			}
		}
	}
	fr.vals[fn.found.slot] = false
	return fr, nil
}

type tgKey struct {
	tg    *catalog.Trigger
	event int
}

// plTriggerVars are a trigger function's special variables.
type plTriggerVars struct {
	new, old, relid, nargs, argv *plVar
	text                         []*plVar // tg_name, tg_when, tg_level, tg_op, tg_relname, tg_table_name, tg_table_schema
}

// trigger runs a trigger function for call, and returns what it returns:
// a row (as NEW holds it) or NULL.
func (fn *plFunction) trigger(e *plan.Env, call *triggerCall) (any, error) {
	fr, err := fn.start(e, nil)
	if err != nil {
		return nil, err
	}
	defer fn.exit()
	// What the call returns is NEW's row, which the frame does not own
	// (store copies a record it takes): the frame can serve the next call.
	// A call in progress below this one (a trigger that fires itself) has
	// its own.
	defer func() {
		clear(fr.vals)
		fr.env, fr.set, fr.caught, fr.contexted = nil, nil, nil, nil
		fn.spare = fr
	}()
	tv := fn.tg
	rt, ok := fn.rowTypes[call.t]
	if !ok {
		if fn.rowTypes == nil {
			fn.rowTypes = map[*catalog.Table]types.T{}
		}
		rt = call.t.RowType()
		fn.rowTypes[call.t] = rt
	}
	level := "STATEMENT"
	if call.tg.Row {
		level = "ROW"
	}
	for _, v := range []*plVar{tv.new, tv.old} {
		fr.ts[v.slot] = rt
	}
	defer fn.bindTransitions(call, rt)()
	// A missing row is NULL, not an empty record.
	if call.new != nil {
		fr.vals[tv.new.slot] = call.new
	}
	if call.old != nil {
		fr.vals[tv.old.slot] = call.old
	}
	key := tgKey{call.tg, call.event}
	texts := fn.tgTexts[key]
	if texts == nil {
		schema := fn.s.catalog().SchemaName(call.t.Schema)
		when := strings.ToUpper(call.tg.Timing)
		if call.tg.Timing == "instead" {
			when = "INSTEAD OF"
		}
		for _, val := range []string{call.tg.Name, when, level, triggerEvents[call.event], call.t.Name, call.t.Name, schema} {
			texts = append(texts, val)
		}
		if fn.tgTexts == nil {
			fn.tgTexts = map[tgKey][]any{}
		}
		fn.tgTexts[key] = texts
	}
	for i, val := range texts {
		fr.vals[tv.text[i].slot] = val
	}
	var args []any
	if len(call.tg.Args) > 0 {
		args = make([]any, len(call.tg.Args))
		for i, a := range call.tg.Args {
			args[i] = a
		}
	} else {
		args = []any{}
	}
	fr.vals[tv.relid.slot], fr.vals[tv.nargs.slot], fr.vals[tv.argv.slot] = int64(call.t.ID), int64(len(args)), args
	ctl, err := fr.runBlock(fn.block, fn.root)
	if err != nil {
		return nil, err
	}
	if ctl == nil || !ctl.ret {
		return nil, pgerr.New(pgerr.SQLRoutineException, "control reached end of trigger procedure without RETURN").
			WithContext("PL/pgSQL function %s", fn.name)
	}
	return ctl.value, nil
}

// bindTransitions gives the function's transition tables the rows of
// call, and returns what puts back the rows they held before (a trigger
// that fires itself through its own writes). The statements are planned
// against the Transitions, which keep their identity while the table and
// names stay; for others the plans are dropped and made again.
func (fn *plFunction) bindTransitions(call *triggerCall, rt types.T) func() {
	shape := transitionShape{t: call.t, old: call.tg.OldTable, new: call.tg.NewTable}
	if shape.old == "" && shape.new == "" {
		shape.t = nil
	}
	if shape != fn.transOf {
		fn.plans, fn.trans, fn.transOf = map[plKey]*plPlan{}, nil, shape
		fields, _ := rt.Fields()
		var cols []plan.Column
		for _, f := range fields {
			cols = append(cols, plan.Column{Name: f.Name, Type: f.T})
		}
		for _, name := range []string{shape.old, shape.new} {
			if name != "" {
				fn.trans = append(fn.trans, &plan.Transition{Name: name, Cols: cols})
			}
		}
	}
	var rows []*rowexec.RowStore
	if call.trans != nil {
		if shape.old != "" {
			rows = append(rows, call.trans.old)
		}
		if shape.new != "" {
			rows = append(rows, call.trans.new)
		}
	}
	prev := make([]*rowexec.RowStore, len(fn.trans))
	for i, tr := range fn.trans {
		prev[i], tr.Rows = tr.Rows, nil
		if i < len(rows) {
			tr.Rows = rows[i]
		}
	}
	return func() {
		for i, tr := range fn.trans {
			tr.Rows = prev[i]
		}
	}
}

// planning lets what the session plans until the returned func is
// called see the function's transition tables: the function's own
// statements and expressions.
func (fn *plFunction) planning() func() {
	s := fn.s
	prev := s.transitions
	s.transitions = fn.trans
	return func() { s.transitions = prev }
}

// exit ends a call that start began.
func (fn *plFunction) exit() { fn.s.routines.exit() }

// outValue is the OUT parameters' values: the one's, or a record.
func (fr *plFrame) outValue() any {
	if len(fr.fn.out) == 1 && fr.fn.f.Kind != 'p' {
		return fr.vals[fr.fn.out[0]]
	}
	row := make([]any, len(fr.fn.out))
	for i, slot := range fr.fn.out {
		row[i] = fr.vals[slot]
	}
	return row
}

// runBlock runs a block: its declarations' defaults, its statements, and,
// for a block with handlers, in a savepoint that a caught error rolls
// back to.
func (fr *plFrame) runBlock(b *parser.PLBlock, parent *plScope) (*plCtl, error) {
	sc := fr.fn.scopes[b]
	if sc == nil {
		sc = parent
	}
	for i, d := range b.Decls {
		if d.Alias != "" {
			continue
		}
		v := sc.lookup(d.Name)
		fr.vals[v.slot] = nil
		if d.Default != "" {
			val, t, err := fr.eval(plKey{b, i}, sc, d.Default)
			if err != nil {
				return nil, fr.context(err, d.Line, "statement block")
			}
			if err := fr.store(v, val, t); err != nil {
				return nil, fr.context(err, d.Line, "statement block")
			}
		} else if d.NotNull {
			return nil, fr.context(pgerr.New(pgerr.NullValueNotAllowed, "variable %q must have a default value, since it's declared NOT NULL", d.Name), d.Line, "statement block")
		}
	}
	if len(b.Handlers) == 0 {
		return fr.runStmts(b.Body, sc)
	}
	tx := fr.env.Exec().Tx
	depth, err := tx.Savepoint()
	if err != nil {
		return nil, err
	}
	ctl, err := fr.runStmts(b.Body, sc)
	if err == nil {
		return ctl, tx.Release(depth)
	}
	pe := pgerr.Convert(err)
	if isQueryCanceled(pe) {
		return nil, err
	}
	for i := range b.Handlers {
		h := &b.Handlers[i]
		if !handles(*h, pe.Code) {
			continue
		}
		if rerr := tx.RollbackTo(depth); rerr != nil {
			return nil, rerr
		}
		if rerr := tx.Release(depth); rerr != nil {
			return nil, rerr
		}
		hs := fr.fn.scopes[&h.Body]
		fr.vals[hs.vars[0].slot], fr.vals[hs.vars[1].slot] = pe.Code, pe.Message
		prev := fr.caught
		fr.caught = pe
		ctl, err := fr.runStmts(h.Body, hs)
		fr.caught = prev
		return ctl, err
	}
	return nil, err
}

// isQueryCanceled reports whether e ends the statement whatever a
// handler says: a cancel or timeout, which only a handler naming it
// catches in PostgreSQL, and which OTHERS does not.
func isQueryCanceled(e *pgerr.Error) bool { return e.Code == pgerr.QueryCanceled }

// handles reports whether handler h catches an error of SQLSTATE code.
func handles(h parser.PLHandler, code string) bool {
	for _, c := range h.Conditions {
		if c == "others" && code != pgerr.QueryCanceled && code != pgerr.AssertFailure {
			return true
		}
		want, ok := conditionCode(c)
		if !ok {
			continue
		}
		if want == code || strings.HasSuffix(want, "000") && strings.HasPrefix(code, want[:2]) {
			return true
		}
	}
	return false
}

func (fr *plFrame) runStmts(stmts []parser.PLStmt, sc *plScope) (*plCtl, error) {
	for _, st := range stmts {
		ctl, err := fr.run(st, sc)
		if err != nil || ctl != nil {
			return ctl, err
		}
		if err := fr.env.Ctx.Err(); err != nil {
			return nil, pgerr.Convert(err)
		}
	}
	return nil, nil
}

// context adds to err the CONTEXT line of the statement at line, what,
// once per frame.
func (fr *plFrame) context(err error, line int, what string) error {
	if err == nil || err == fr.contexted {
		return err
	}
	pe := pgerr.Convert(err)
	if fr.contexted == error(pe) {
		return pe
	}
	pe.WithContext("PL/pgSQL function %s line %d at %s", fr.fn.name, line, what)
	fr.contexted = pe
	return pe
}

// run runs one statement.
func (fr *plFrame) run(st parser.PLStmt, sc *plScope) (*plCtl, error) {
	line := st.StmtLine()
	switch st := st.(type) {
	case *parser.PLNull:
		return nil, nil
	case *parser.PLAssign:
		return nil, fr.context(fr.assignTo(plKey{st, 0}, sc, st), line, "assignment")
	case *parser.PLBlockStmt:
		ctl, err := fr.runBlock(st.Block, sc)
		if ctl != nil && (ctl.exit || ctl.cont) && ctl.label != "" && ctl.label == st.Block.Label {
			return nil, err
		}
		return ctl, fr.context(err, line, "statement block")
	case *parser.PLIf:
		for i, cond := range st.Conds {
			ok, err := fr.cond(plKey{st, i}, sc, cond)
			if err != nil {
				return nil, fr.context(err, line, "IF")
			}
			if ok {
				return fr.runStmts(st.Thens[i], sc)
			}
		}
		return fr.runStmts(st.Else, sc)
	case *parser.PLCase:
		return fr.runCase(st, sc)
	case *parser.PLLoop:
		return fr.runLoop(st, sc)
	case *parser.PLExit:
		if st.When != "" {
			ok, err := fr.cond(plKey{st, 0}, sc, st.When)
			if err != nil || !ok {
				return nil, fr.context(err, line, "EXIT")
			}
		}
		return &plCtl{exit: !st.Continue, cont: st.Continue, label: st.Label}, nil
	case *parser.PLReturn:
		return fr.runReturn(st, sc)
	case *parser.PLPerform:
		n := int64(0)
		_, err := fr.runSQL(plKey{st, 0}, sc, st.Query, func(it rowexec.RowIter) error {
			for {
				row, err := it.Next()
				if err != nil || row == nil {
					return err
				}
				n++
			}
		})
		fr.rowCount, fr.vals[fr.fn.found.slot] = n, n > 0
		return nil, fr.context(err, line, "PERFORM")
	case *parser.PLSQL:
		return nil, fr.context(fr.runSQLStmt(st, sc), line, "SQL statement")
	case *parser.PLExecute:
		return nil, fr.context(fr.runExecute(st, sc), line, "EXECUTE")
	case *parser.PLRaise:
		return nil, fr.context(fr.raise(st, sc), line, "RAISE")
	case *parser.PLGetDiag:
		return nil, fr.context(fr.getDiag(st, sc), line, "GET DIAGNOSTICS")
	case *parser.PLAssert:
		ok, err := fr.cond(plKey{st, 0}, sc, st.Cond)
		if err != nil || ok {
			return nil, fr.context(err, line, "ASSERT")
		}
		msg := "assertion failed"
		if st.Message != "" {
			v, t, err := fr.eval(plKey{st, 1}, sc, st.Message)
			if err != nil {
				return nil, fr.context(err, line, "ASSERT")
			}
			msg = fr.text(v, t)
		}
		return nil, fr.context(pgerr.New(pgerr.AssertFailure, "%s", msg), line, "ASSERT")
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "PL/pgSQL statement %T is not supported", st)
}

// vars resolves a statement's names in scope sc, given the statement's
// parameter types.
func (fr *plFrame) vars(sc *plScope) func(*[]types.T) plan.Vars {
	fn := fr.fn
	return func(ts *[]types.T) plan.Vars {
		return func(table, name string) (plan.Expr, bool) {
			var v *plVar
			switch {
			case table == "":
				v = sc.lookup(name)
			default:
				if v = sc.labeled(table, name); v == nil {
					// rec.field
					rec := sc.lookup(table)
					if rec == nil || (*ts)[rec.slot].Oid != types.OidRecord {
						return nil, false
					}
					if _, ok := (*ts)[rec.slot].Fields(); !ok {
						return &errExpr{err: pgerr.New(pgerr.ObjectNotInPrerequisiteState, "record %q is not assigned yet", table).
							WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")}, true
					}
					e, err := plan.FieldOf(plan.NewParam(rec.slot, ts), name)
					if err != nil {
						return &errExpr{err: pgerr.New(pgerr.UndefinedColumn, "record %q has no field %q", table, name)}, true
					}
					return e, true
				}
			}
			if v == nil {
				return nil, false
			}
			if fn.tg != nil && v == fn.tg.argv {
				return plan.ZeroBased{Expr: plan.NewParam(v.slot, ts)}, true
			}
			return plan.NewParam(v.slot, ts), true
		}
	}
}

// errExpr is a name that resolved to an error, which it reports when the
// statement is planned: a field of a record not yet assigned.
type errExpr struct{ err error }

func (e *errExpr) Type() types.T               { return types.Unknown }
func (e *errExpr) Eval(*plan.Env) (any, error) { return nil, e.err }

// prepare plans text, a SQL statement or, with expr, "SELECT expr", at
// key, reusing the plan while the slots' types are those it was made
// with.
func (fr *plFrame) prepare(key plKey, sc *plScope, text string) (*plPlan, error) {
	return fr.prepareAs(key, sc, "", text)
}

// prepareAs is prepare of prefix+text, which it only joins when it plans.
func (fr *plFrame) prepareAs(key plKey, sc *plScope, prefix, text string) (*plPlan, error) {
	if pp := fr.fn.plans[key]; pp != nil && slices.Equal(pp.ts, fr.ts) && (pp.expr != nil || fr.fn.s.planCurrent(pp.p)) {
		return pp, nil
	}
	text = prefix + text
	stmts, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "query %q is not a single statement", text)
	}
	st := stmts[0]
	if st.NumParams > len(fr.ts) {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", st.NumParams)
	}
	pp := &plPlan{ts: slices.Clone(fr.ts)}
	defer fr.fn.planning()()
	vars := fr.vars(sc)
	if sel, ok := st.AST.(*ast.SelectStmt); ok && simpleSelect(sel) && len(sel.Fields.Fields) == 1 && st.WithDML == nil {
		params := slices.Clone(fr.ts)
		c := &plan.Compiler{Host: fr.fn.s.host(), Params: &params, Order: st.ParamOrder, Scope: &plan.Scope{}}
		c.Vars = vars(&params)
		if e, err := c.Compile(sel.Fields.Fields[0].Expr); err == nil {
			if ee, bad := e.(*errExpr); bad {
				return nil, ee.err
			}
			pp.expr = e
			fr.fn.plans[key] = pp
			return pp, nil
		} else if !plan.HasWindowOrAggregate(sel) {
			return nil, err
		}
	}
	pp.p = &Prepared{st: st, params: slices.Clone(fr.ts), vars: vars}
	if st.AST != nil && plannable(st.AST) {
		if err := fr.fn.s.plan(pp.p); err != nil {
			return nil, err
		}
	}
	fr.fn.plans[key] = pp
	return pp, nil
}

// simpleSelect reports whether sel is a SELECT of expressions alone.
func simpleSelect(sel *ast.SelectStmt) bool {
	return sel.From == nil && sel.Where == nil && sel.GroupBy == nil && sel.Having == nil && sel.OrderBy == nil &&
		sel.Limit == nil && !sel.Distinct && sel.With == nil && sel.LockInfo == nil && sel.WindowSpecs == nil &&
		sel.Fields != nil && !slices.ContainsFunc(sel.Fields.Fields, func(f *ast.SelectField) bool { return f.WildCard != nil })
}

// eval evaluates an expression: its value and type. Its errors say
// which expression.
func (fr *plFrame) eval(key plKey, sc *plScope, text string) (any, types.T, error) {
	v, t, err := fr.evalRaw(key, sc, text)
	if err != nil {
		return nil, t, pgerr.Convert(err).WithContext("PL/pgSQL expression %q", text)
	}
	return v, t, nil
}

func (fr *plFrame) evalRaw(key plKey, sc *plScope, text string) (any, types.T, error) {
	pp, err := fr.prepareAs(key, sc, "SELECT ", text)
	if err != nil {
		return nil, types.T{}, err
	}
	if pp.expr != nil {
		// A subquery in it sees the body's writes so far.
		end := fr.env.Exec().Tx.Nested()
		v, err := pp.expr.Eval(fr.exprEnv())
		end()
		t := pp.expr.Type()
		if t.Oid == types.OidUnknown {
			t = types.Text
		}
		return v, t, err
	}
	cols := pp.p.cols
	if len(cols) != 1 {
		return nil, types.T{}, pgerr.New(pgerr.SyntaxError, "query %q returned %d columns", "SELECT "+text, len(cols))
	}
	var val any
	n := 0
	_, err = fr.fn.s.runNested(fr.env, pp.p, fr.vals, func(it rowexec.RowIter) error {
		for {
			row, err := it.Next()
			if err != nil || row == nil {
				return err
			}
			n++
			if n > 1 {
				return pgerr.New(pgerr.CardinalityViolation, "query %q returned more than one row", "SELECT "+text)
			}
			val = row[0]
		}
	})
	return val, cols[0].Type, err
}

// cond evaluates a condition: NULL is false.
func (fr *plFrame) cond(key plKey, sc *plScope, text string) (bool, error) {
	v, t, err := fr.eval(key, sc, text)
	if err != nil {
		return false, err
	}
	if v == nil {
		return false, nil
	}
	if t.Oid != types.OidBool {
		c, err := types.CastImplicit(v, t, types.Bool, fr.fn.s.loc())
		if err != nil {
			return false, err
		}
		v = c
	}
	return v.(bool), nil
}

// assign stores val, of type t, in v, converting it to v's type.
func (fr *plFrame) assign(v *plVar, val any, t types.T) error {
	if v.constant {
		return pgerr.New(pgerr.SyntaxError, "variable %q is declared CONSTANT", v.name)
	}
	return fr.store(v, val, t)
}

func (fr *plFrame) store(v *plVar, val any, t types.T) error {
	if val == nil && v.notNull {
		return pgerr.New(pgerr.NullValueNotAllowed, "null value cannot be assigned to variable %q declared NOT NULL", v.name)
	}
	if v.record || fr.ts[v.slot].Oid == types.OidRecord && t.Oid == types.OidRecord {
		if v.record {
			fr.ts[v.slot] = t
		}
		// A record slot owns its fields, which assignments to them change
		// in place: it takes a copy.
		if row, ok := val.([]any); ok {
			val = slices.Clone(row)
		}
		fr.vals[v.slot] = val
		return nil
	}
	want := fr.ts[v.slot]
	if val != nil && t != want && !(t.Oid == want.Oid && want.Mod < 0) {
		if t.Oid == types.OidUnknown {
			t = types.Text
		}
		c, err := types.CastImplicit(val, t, want, fr.fn.s.loc())
		if err != nil {
			if c2, err2 := types.Cast(val, t, want, fr.fn.s.loc()); err2 == nil {
				c, err = c2, nil
			} else {
				return err
			}
		}
		val = c
	}
	fr.vals[v.slot] = val
	return nil
}

// target resolves an assignment's or INTO's target: a variable, or a
// field of a record variable (field >= 0).
func (fr *plFrame) target(sc *plScope, name string) (*plVar, int, error) {
	if v := sc.lookup(name); v != nil {
		return v, -1, nil
	}
	rec, field, ok := strings.Cut(name, ".")
	if ok {
		if v := sc.labeled(rec, field); v != nil {
			return v, -1, nil
		}
		if v := sc.lookup(rec); v != nil {
			fields, ok := fr.ts[v.slot].Fields()
			if !ok {
				return nil, 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "record %q is not assigned yet", rec).
					WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
			}
			i := slices.IndexFunc(fields, func(f types.Field) bool { return f.Name == field })
			if i < 0 {
				return nil, 0, pgerr.New(pgerr.UndefinedColumn, "record %q has no field %q", rec, field)
			}
			return v, i, nil
		}
	}
	return nil, 0, pgerr.New(pgerr.SyntaxError, "%q is not a known variable", name)
}

// setTarget stores val in a target.
func (fr *plFrame) setTarget(sc *plScope, name string, val any, t types.T) error {
	v, field, err := fr.target(sc, name)
	if err != nil {
		return err
	}
	if field < 0 {
		return fr.assign(v, val, t)
	}
	fields, _ := fr.ts[v.slot].Fields()
	if val != nil && t != fields[field].T {
		c, err := types.CastImplicit(val, t, fields[field].T, fr.fn.s.loc())
		if err != nil {
			return err
		}
		val = c
	}
	// A record slot's fields are its own (see store): set in place.
	row, _ := fr.vals[v.slot].([]any)
	if row == nil {
		row = make([]any, len(fields))
	}
	row[field] = val
	fr.vals[v.slot] = row
	return nil
}

func (fr *plFrame) assignTo(key plKey, sc *plScope, st *parser.PLAssign) error {
	val, t, err := fr.evalRaw(key, sc, st.Expr)
	if err != nil {
		return pgerr.Convert(err).WithContext("PL/pgSQL assignment %q", st.Text)
	}
	return fr.setTarget(sc, st.Target, val, t)
}

// setInto stores a row in INTO's targets: one record variable takes it
// whole; otherwise each target takes a column.
func (fr *plFrame) setInto(sc *plScope, targets []string, row []any, cols []plan.Column) error {
	if len(targets) == 1 {
		if v, field, err := fr.target(sc, targets[0]); err == nil && field < 0 && (v.record || fr.ts[v.slot].Oid == types.OidRecord) {
			if row == nil {
				if v.record && len(cols) > 0 {
					fr.ts[v.slot] = recordOfColumns(cols)
				}
				fr.vals[v.slot] = nil
				return nil
			}
			if v.record {
				fr.ts[v.slot] = recordOfColumns(cols)
				fr.vals[v.slot] = slices.Clone(row)
				return nil
			}
			return fr.store(v, convertRow(fr, row, cols, fr.ts[v.slot]), fr.ts[v.slot])
		}
	}
	for i, name := range targets {
		var val any
		t := types.Text
		if i < len(cols) {
			t = cols[i].Type
			if row != nil {
				val = row[i]
			}
		}
		if err := fr.setTarget(sc, name, val, t); err != nil {
			return err
		}
	}
	return nil
}

// convertRow converts a row of cols to the fields of record type t.
func convertRow(fr *plFrame, row []any, cols []plan.Column, t types.T) []any {
	fields, _ := t.Fields()
	out := make([]any, len(fields))
	for i := range fields {
		if i < len(row) {
			out[i] = row[i]
			if row[i] != nil && cols[i].Type != fields[i].T {
				if c, err := types.CastImplicit(row[i], cols[i].Type, fields[i].T, fr.fn.s.loc()); err == nil {
					out[i] = c
				}
			}
		}
	}
	return out
}

func recordOfColumns(cols []plan.Column) types.T {
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.Name, T: c.Type}
	}
	return types.RecordOf(fields)
}

// runSQL runs text, a SQL statement, with the variables as parameters;
// rows, if not nil, reads its rows.
func (fr *plFrame) runSQL(key plKey, sc *plScope, text string, rows func(rowexec.RowIter) error) (*plPlan, error) {
	pp, err := fr.runSQLRaw(key, sc, text, rows)
	if err != nil {
		return pp, pgerr.Convert(err).WithContext("SQL statement %q", text)
	}
	return pp, nil
}

func (fr *plFrame) runSQLRaw(key plKey, sc *plScope, text string, rows func(rowexec.RowIter) error) (*plPlan, error) {
	pp, err := fr.prepare(key, sc, text)
	if err != nil {
		return nil, err
	}
	if pp.expr != nil {
		// A FROM-less SELECT of one expression: one row.
		end := fr.env.Exec().Tx.Nested()
		v, err := pp.expr.Eval(fr.exprEnv())
		end()
		if err != nil {
			return pp, err
		}
		if rows != nil {
			return pp, rows(&rowexec.SliceIter{Rows: [][]any{{v}}})
		}
		fr.rowCount = 1
		return pp, nil
	}
	tag, err := fr.fn.s.runNested(fr.env, pp.p, fr.vals, rows)
	if err != nil {
		return pp, err
	}
	if i := strings.LastIndexByte(tag, ' '); i >= 0 {
		fr.rowCount, _ = strconv.ParseInt(tag[i+1:], 10, 64)
	}
	return pp, nil
}

// planColumns are the columns a planned statement returns.
func (pp *plPlan) columns() []plan.Column {
	if pp.expr != nil {
		return []plan.Column{{Name: "?column?", Type: pp.expr.Type()}}
	}
	return pp.p.cols
}

// runSQLStmt runs a statement of the body, and its INTO.
func (fr *plFrame) runSQLStmt(st *parser.PLSQL, sc *plScope) error {
	key := plKey{st, 0}
	if st.Into == nil {
		n := int64(-1)
		pp, err := fr.runSQL(key, sc, st.SQL, func(it rowexec.RowIter) error {
			n = 0
			for {
				row, err := it.Next()
				if err != nil || row == nil {
					return err
				}
				n++
			}
		})
		if err != nil {
			return err
		}
		if n >= 0 {
			fr.rowCount = n
		}
		if pp.p != nil && pp.p.plan != nil {
			fr.vals[fr.fn.found.slot] = fr.rowCount > 0
		}
		return nil
	}
	var first []any
	n := int64(0)
	tooMany := false
	pp, err := fr.runSQL(key, sc, st.SQL, func(it rowexec.RowIter) error {
		for {
			row, err := it.Next()
			if err != nil || row == nil {
				return err
			}
			n++
			if n == 1 {
				first = slices.Clone(row)
			} else {
				tooMany = st.Strict
				return nil
			}
		}
	})
	if err != nil {
		return err
	}
	if tooMany {
		// The statement ran; what it returned is INTO's error.
		return pgerr.New(pgerr.TooManyRows, "query returned more than one row").
			WithHint("Make sure the query returns a single row, or use LIMIT 1.")
	}
	if n == 0 && st.Strict {
		return pgerr.New(pgerr.NoDataFound, "query returned no rows")
	}
	fr.rowCount = n
	fr.vals[fr.fn.found.slot] = n > 0
	return fr.setInto(sc, st.Into, first, pp.columns())
}

// dynamic plans and runs EXECUTE's string with USING's values as its
// parameters.
func (fr *plFrame) dynamic(key plKey, sc *plScope, expr string, using []string, rows func(cols []plan.Column, it rowexec.RowIter) error) error {
	v, t, err := fr.eval(key, sc, expr)
	if err != nil {
		return err
	}
	if v == nil {
		return pgerr.New(pgerr.NullValueNotAllowed, "query string argument of EXECUTE is null")
	}
	query := fr.text(v, t)
	var args []any
	var argTypes []types.Oid
	for i, u := range using {
		val, ut, err := fr.eval(plKey{key.node, key.i + 1 + i}, sc, u)
		if err != nil {
			return err
		}
		args, argTypes = append(args, val), append(argTypes, ut.Oid)
	}
	stmts, err := parser.Parse(query)
	if err != nil {
		return err
	}
	if len(stmts) != 1 {
		return pgerr.New(pgerr.FeatureNotSupported, "EXECUTE of a string of %d statements is not supported", len(stmts))
	}
	p := &Prepared{st: stmts[0], params: make([]types.T, max(stmts[0].NumParams, len(args)))}
	for i, o := range argTypes {
		if i < len(p.params) {
			p.params[i] = types.T{Oid: o, Mod: -1}
		}
	}
	if p.st.AST != nil && plannable(p.st.AST) {
		done := fr.fn.planning()
		err := fr.fn.s.plan(p)
		done()
		if err != nil {
			return err
		}
	}
	if len(args) < len(p.params) {
		return pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", len(args)+1)
	}
	var each func(rowexec.RowIter) error
	if rows != nil {
		each = func(it rowexec.RowIter) error { return rows(p.cols, it) }
	}
	tag, err := fr.fn.s.runNested(fr.env, p, args, each)
	if err != nil {
		return pgerr.Convert(err).WithContext("SQL statement %q", query)
	}
	if i := strings.LastIndexByte(tag, ' '); i >= 0 {
		fr.rowCount, _ = strconv.ParseInt(tag[i+1:], 10, 64)
	}
	return nil
}

func (fr *plFrame) runExecute(st *parser.PLExecute, sc *plScope) error {
	var first []any
	var cols []plan.Column
	n := int64(0)
	err := fr.dynamic(plKey{st, 0}, sc, st.Expr, st.Using, func(c []plan.Column, it rowexec.RowIter) error {
		cols = c
		for {
			row, err := it.Next()
			if err != nil || row == nil {
				return err
			}
			n++
			if n == 1 {
				first = slices.Clone(row)
			} else if st.Strict && st.Into != nil {
				return pgerr.New(pgerr.TooManyRows, "query returned more than one row")
			}
		}
	})
	if err != nil {
		return err
	}
	if st.Into == nil {
		return nil
	}
	if n == 0 && st.Strict {
		return pgerr.New(pgerr.NoDataFound, "query returned no rows")
	}
	fr.rowCount = n
	fr.vals[fr.fn.found.slot] = n > 0
	return fr.setInto(sc, st.Into, first, cols)
}

func (fr *plFrame) runCase(st *parser.PLCase, sc *plScope) (*plCtl, error) {
	line := st.StmtLine()
	for i, w := range st.Whens {
		cond := w
		if st.Expr != "" {
			// CASE x WHEN a, b: x IN (a, b).
			cond = "(" + st.Expr + ") IN (" + w + ")"
		}
		ok, err := fr.cond(plKey{st, i}, sc, cond)
		if err != nil {
			return nil, fr.context(err, line, "CASE")
		}
		if ok {
			return fr.runStmts(st.Thens[i], sc)
		}
	}
	if !st.HasElse {
		return nil, fr.context(pgerr.New(pgerr.CaseNotFound, "case not found").
			WithHint("CASE statement is missing ELSE part."), line, "CASE")
	}
	return fr.runStmts(st.Else, sc)
}

// loopCtl decides what a loop does after its body returned ctl: true to
// stop looping (with ctl to return).
func loopCtl(l *parser.PLLoop, ctl *plCtl) (stop bool, out *plCtl) {
	switch {
	case ctl == nil:
		return false, nil
	case ctl.ret:
		return true, ctl
	case ctl.label != "" && ctl.label != l.Label:
		return true, ctl
	case ctl.exit:
		return true, nil
	}
	return false, nil // CONTINUE
}

func (fr *plFrame) runLoop(l *parser.PLLoop, sc *plScope) (*plCtl, error) {
	ls := fr.fn.scopes[l]
	line := l.StmtLine()
	body := func() (bool, *plCtl, error) {
		ctl, err := fr.runStmts(l.Body, ls)
		if err != nil {
			return true, nil, err
		}
		stop, out := loopCtl(l, ctl)
		return stop, out, nil
	}
	switch l.Kind {
	case "loop", "while":
		for {
			if l.Kind == "while" {
				ok, err := fr.cond(plKey{l, 0}, ls, l.Cond)
				if err != nil {
					return nil, fr.context(err, line, "WHILE")
				}
				if !ok {
					return nil, nil
				}
			}
			if stop, ctl, err := body(); stop || err != nil {
				return ctl, err
			}
		}
	case "int":
		what := "FOR with integer loop variable"
		bound := func(i int, text string) (int64, error) {
			v, t, err := fr.eval(plKey{l, i}, sc, text)
			if err != nil {
				return 0, err
			}
			if v == nil {
				names := []string{"lower", "upper", "BY value"}
				return 0, pgerr.New(pgerr.NullValueNotAllowed, "%s bound of FOR loop cannot be null", names[i])
			}
			c, err := types.CastImplicit(v, t, types.Int4, fr.fn.s.loc())
			if err != nil {
				return 0, err
			}
			return c.(int64), nil
		}
		lo, err := bound(0, l.Lo)
		if err != nil {
			return nil, fr.context(err, line, what)
		}
		hi, err := bound(1, l.Hi)
		if err != nil {
			return nil, fr.context(err, line, what)
		}
		step := int64(1)
		if l.By != "" {
			if step, err = bound(2, l.By); err != nil {
				return nil, fr.context(err, line, what)
			}
			if step <= 0 {
				return nil, fr.context(pgerr.New(pgerr.InvalidParameterValue, "BY value of FOR loop must be greater than zero"), line, what)
			}
		}
		v := ls.vars[0]
		found := false
		for i := lo; l.Reverse && i >= hi || !l.Reverse && i <= hi; {
			fr.vals[v.slot] = i
			found = true
			if stop, ctl, err := body(); stop || err != nil {
				fr.vals[fr.fn.found.slot] = true
				return ctl, err
			}
			if l.Reverse {
				i -= step
			} else {
				i += step
			}
		}
		fr.vals[fr.fn.found.slot] = found
		return nil, nil
	case "query", "execute":
		return fr.loopRows(l, sc, ls)
	case "foreach":
		v, t, err := fr.eval(plKey{l, 0}, sc, l.Query)
		if err != nil {
			return nil, fr.context(err, line, "FOREACH over array")
		}
		if v == nil {
			return nil, fr.context(pgerr.New(pgerr.NullValueNotAllowed, "FOREACH expression must not be null"), line, "FOREACH over array")
		}
		elem, ok := t.Elem()
		if !ok {
			return nil, fr.context(pgerr.New(pgerr.DatatypeMismatch, "FOREACH expression must yield an array, not type %s", t), line, "FOREACH over array")
		}
		target := ls.lookup(l.Var)
		for _, x := range v.([]any) {
			if err := fr.store(target, x, elem); err != nil {
				return nil, fr.context(err, line, "FOREACH over array")
			}
			if stop, ctl, err := body(); stop || err != nil {
				return ctl, err
			}
		}
		return nil, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "loop %s is not supported", l.Kind)
}

// loopRows runs FOR over a query's rows or EXECUTE's. The rows are read
// first, since the body's statements may write the tables the query
// reads; PostgreSQL's cursor would not see those writes either.
func (fr *plFrame) loopRows(l *parser.PLLoop, sc, ls *plScope) (*plCtl, error) {
	what := "FOR over SELECT rows"
	if l.Kind == "execute" {
		what = "FOR over EXECUTE statement"
	}
	var rows [][]any
	var cols []plan.Column
	collect := func(it rowexec.RowIter) error {
		for {
			row, err := it.Next()
			if err != nil || row == nil {
				return err
			}
			rows = append(rows, slices.Clone(row))
		}
	}
	var err error
	if l.Kind == "query" {
		var pp *plPlan
		pp, err = fr.runSQL(plKey{l, 0}, sc, l.Query, collect)
		if pp != nil {
			cols = pp.columns()
		}
	} else {
		err = fr.dynamic(plKey{l, 0}, sc, l.Query, l.Using, func(c []plan.Column, it rowexec.RowIter) error {
			cols = c
			return collect(it)
		})
	}
	if err != nil {
		return nil, fr.context(err, l.StmtLine(), what)
	}
	targets := strings.Split(l.Var, ",")
	for _, row := range rows {
		if err := fr.setInto(ls, targets, row, cols); err != nil {
			return nil, fr.context(err, l.StmtLine(), what)
		}
		ctl, err := fr.runStmts(l.Body, ls)
		if err != nil {
			return nil, err
		}
		if stop, out := loopCtl(l, ctl); stop {
			fr.vals[fr.fn.found.slot] = true
			return out, nil
		}
	}
	fr.vals[fr.fn.found.slot] = len(rows) > 0
	return nil, nil
}

func (fr *plFrame) runReturn(st *parser.PLReturn, sc *plScope) (*plCtl, error) {
	fn, line := fr.fn, st.StmtLine()
	set := fn.f != nil && fn.f.ReturnsSet
	switch {
	case st.Query:
		if !set {
			return nil, fr.context(pgerr.New(pgerr.SyntaxError, "cannot use RETURN QUERY in a non-SETOF function"), line, "RETURN QUERY")
		}
		add := func(cols []plan.Column, it rowexec.RowIter) error {
			for {
				row, err := it.Next()
				if err != nil || row == nil {
					return err
				}
				v, err := fr.setValue(row, cols)
				if err != nil {
					return err
				}
				fr.set = append(fr.set, v)
			}
		}
		var err error
		if st.Execute {
			err = fr.dynamic(plKey{st, 0}, sc, st.Expr, st.Using, add)
		} else {
			var pp *plPlan
			var cols []plan.Column
			pp, err = fr.prepare(plKey{st, 0}, sc, st.Expr)
			if err == nil {
				cols = pp.columns()
				_, err = fr.runSQL(plKey{st, 0}, sc, st.Expr, func(it rowexec.RowIter) error { return add(cols, it) })
			}
		}
		return nil, fr.context(err, line, "RETURN QUERY")
	case st.Next:
		if !set {
			return nil, fr.context(pgerr.New(pgerr.SyntaxError, "cannot use RETURN NEXT in a non-SETOF function"), line, "RETURN NEXT")
		}
		if st.Expr == "" {
			fr.set = append(fr.set, fr.outValue())
			return nil, nil
		}
		v, t, err := fr.eval(plKey{st, 0}, sc, st.Expr)
		if err == nil {
			v, err = fr.result(v, t)
		}
		if err != nil {
			return nil, fr.context(err, line, "RETURN NEXT")
		}
		if row, ok := v.([]any); ok {
			v = slices.Clone(row) // the slot it came from may change
		}
		fr.set = append(fr.set, v)
		return nil, nil
	}
	if set || st.Expr == "" {
		if st.Expr != "" {
			return nil, fr.context(pgerr.New(pgerr.SyntaxError, "RETURN cannot have a parameter in function returning set").
				WithHint("Use RETURN NEXT or RETURN QUERY."), line, "RETURN")
		}
		var v any
		if len(fn.out) > 0 && !set {
			v = fr.outValue()
		}
		return &plCtl{ret: true, value: v}, nil
	}
	if fn.ret.Oid == types.OidVoid || len(fn.out) > 0 {
		return nil, fr.context(pgerr.New(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function with OUT parameters"), line, "RETURN")
	}
	v, t, err := fr.eval(plKey{st, 0}, sc, st.Expr)
	if err == nil {
		v, err = fr.result(v, t)
	}
	if err != nil {
		return nil, fr.context(err, line, "RETURN")
	}
	return &plCtl{ret: true, value: v}, nil
}

// result converts a value of type t to the function's result type.
func (fr *plFrame) result(v any, t types.T) (any, error) {
	ret := fr.fn.ret
	if v == nil || t == ret || t.Oid == ret.Oid && ret.Mod < 0 || ret.Oid == types.OidRecord {
		return v, nil
	}
	if t.Oid == types.OidUnknown {
		t = types.Text
	}
	return types.CastImplicit(v, t, ret, fr.fn.s.loc())
}

// setValue is a row of RETURN QUERY as a value of the set.
func (fr *plFrame) setValue(row []any, cols []plan.Column) (any, error) {
	if fields, ok := fr.fn.ret.Fields(); ok {
		if len(row) != len(fields) {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "structure of query does not match function result type").
				WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(row), len(fields))
		}
		return convertRow(fr, row, cols, fr.fn.ret), nil
	}
	if len(row) != 1 {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "structure of query does not match function result type").
			WithDetail("Number of returned columns (%d) does not match expected column count (1).", len(row))
	}
	return fr.result(row[0], cols[0].Type)
}

// text is v as its type's text output, as RAISE and EXECUTE print it.
func (fr *plFrame) text(v any, t types.T) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(types.AppendText(nil, t, v, fr.fn.s.loc()))
}

// raise runs RAISE.
func (fr *plFrame) raise(st *parser.PLRaise, sc *plScope) error {
	if st.Reraise {
		if fr.caught == nil {
			return pgerr.New(pgerr.StackedDiagnosticsAccessedWithoutActiveHandler, "RAISE without parameters cannot be used outside an exception handler")
		}
		return fr.caught
	}
	e := &pgerr.Error{Code: pgerr.RaiseException}
	if st.Level != "exception" {
		e.Code = pgerr.SuccessfulCompletion
		if st.Level == "warning" {
			e.Code = pgerr.Warning
		}
	}
	if st.HasFormat {
		var b strings.Builder
		arg := 0
		for i := 0; i < len(st.Format); i++ {
			c := st.Format[i]
			switch {
			case c == '%' && i+1 < len(st.Format) && st.Format[i+1] == '%':
				b.WriteByte('%')
				i++
			case c == '%':
				v, t, err := fr.eval(plKey{st, arg}, sc, st.Args[arg])
				if err != nil {
					return err
				}
				if v == nil {
					b.WriteString("<NULL>")
				} else {
					b.WriteString(fr.text(v, t))
				}
				arg++
			default:
				b.WriteByte(c)
			}
		}
		e.Message = b.String()
	}
	if st.Condition != "" {
		code, ok := conditionCode(st.Condition)
		if !ok {
			return pgerr.New(pgerr.UndefinedObject, "unrecognized exception condition %q", st.Condition)
		}
		e.Code = code
		e.Message = strings.TrimPrefix(st.Condition, "sqlstate ")
	}
	seen := map[string]bool{}
	for i, o := range st.Options {
		name := strings.ToLower(o[0])
		if seen[name] || name == "message" && st.HasFormat {
			return pgerr.New(pgerr.SyntaxError, "RAISE option already specified: %s", strings.ToUpper(name))
		}
		seen[name] = true
		v, t, err := fr.eval(plKey{st, 100 + i}, sc, o[1])
		if err != nil {
			return err
		}
		if v == nil {
			return pgerr.New(pgerr.NullValueNotAllowed, "RAISE statement option cannot be null")
		}
		text := fr.text(v, t)
		switch name {
		case "message":
			e.Message = text
		case "detail":
			e.Detail = text
		case "hint":
			e.Hint = text
		case "errcode":
			code, ok := conditionCode(text)
			if !ok && len(text) == 5 {
				code, ok = strings.ToUpper(text), true
			}
			if !ok {
				return pgerr.New(pgerr.UndefinedObject, "unrecognized exception condition %q", text)
			}
			e.Code = code
			if st.Condition == "" && !st.HasFormat && !seen["message"] {
				e.Message = text
			}
		case "column":
			e.Column = text
		case "constraint":
			e.Constraint = text
		case "table":
			e.Table = text
		case "datatype", "schema":
		default:
			return pgerr.New(pgerr.SyntaxError, "unrecognized RAISE statement option %q", o[0])
		}
	}
	if e.Message == "" && !st.HasFormat {
		if e.Code == pgerr.RaiseException {
			e.Message = "P0001"
		} else {
			e.Message = e.Code
		}
	}
	if st.Level == "exception" {
		return e
	}
	switch st.Level {
	case "info", "notice", "warning":
		e.Severity = strings.ToUpper(st.Level)
		e.WithContext("PL/pgSQL function %s line %d at RAISE", fr.fn.name, st.StmtLine())
		if fn := fr.fn.s.noticeFn; fn != nil {
			fn(e)
		}
	}
	return nil
}

// getDiag runs GET DIAGNOSTICS.
func (fr *plFrame) getDiag(st *parser.PLGetDiag, sc *plScope) error {
	if st.Stacked && fr.caught == nil {
		return pgerr.New(pgerr.StackedDiagnosticsAccessedWithoutActiveHandler, "GET STACKED DIAGNOSTICS cannot be used outside an exception handler")
	}
	for _, it := range st.Items {
		var val any
		t := types.Text
		switch item := strings.ToLower(it[1]); {
		case !st.Stacked && item == "row_count":
			val, t = fr.rowCount, types.Int8
		case !st.Stacked && item == "pg_context":
			val = fmt.Sprintf("PL/pgSQL function %s line %d at GET DIAGNOSTICS", fr.fn.name, st.StmtLine())
		case st.Stacked:
			e := fr.caught
			switch item {
			case "returned_sqlstate":
				val = e.Code
			case "message_text":
				val = e.Message
			case "pg_exception_detail":
				val = e.Detail
			case "pg_exception_hint":
				val = e.Hint
			case "pg_exception_context":
				val = e.Where
			case "column_name":
				val = e.Column
			case "constraint_name":
				val = e.Constraint
			case "table_name":
				val = e.Table
			case "schema_name", "pg_datatype_name":
				val = ""
			default:
				return pgerr.New(pgerr.SyntaxError, "unrecognized GET DIAGNOSTICS item %q", it[1])
			}
		default:
			return pgerr.New(pgerr.SyntaxError, "unrecognized GET DIAGNOSTICS item %q", it[1])
		}
		if err := fr.setTarget(sc, it[0], val, t); err != nil {
			return err
		}
	}
	return nil
}

// runDo runs DO.
func (s *Session) runDo(e *plan.Env, cmd *parser.Do) error {
	if cmd.Language != "plpgsql" {
		if routineLanguages[cmd.Language] {
			return pgerr.New(pgerr.FeatureNotSupported, "language %q does not support inline code execution", cmd.Language)
		}
		return pgerr.New(pgerr.UndefinedObject, "language %q does not exist", cmd.Language)
	}
	fn, err := s.compilePL(nil, cmd.Code)
	if err != nil {
		return err
	}
	_, err = fn.Call(e, nil)
	return err
}
