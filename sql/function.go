package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Functions and procedures: CREATE, ALTER and DROP of them, and CALL.
// The catalog keeps a routine's header and its body as written
// (catalog.Function); routine.go compiles and runs bodies.

// routineLanguages are the languages a routine may be written in.
var routineLanguages = map[string]bool{"sql": true, "plpgsql": true}

// createFunction runs CREATE [OR REPLACE] FUNCTION and PROCEDURE.
func (s *Session) createFunction(ctx context.Context, cmd *parser.CreateFunction) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	q, err := s.createName(ctx, cmd.Name)
	if err != nil {
		return err
	}
	f := &catalog.Function{Schema: q.Schema, Name: q.Name, Kind: 'f', Owner: s.user, Body: cmd.Body}
	if cmd.Procedure {
		f.Kind = 'p'
	}
	if err := s.routineLanguage(f, cmd); err != nil {
		return err
	}
	if f.Params, err = s.routineParams(cmd.Params, f.Kind); err != nil {
		return err
	}
	if err := s.routineResult(f, cmd); err != nil {
		return err
	}
	if err := s.applyFuncOptions(f, &cmd.Options); err != nil {
		return err
	}
	if cmd.SQLBody != "" {
		if f.Language != "sql" {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "inline SQL function body only valid for language SQL")
		}
		f.Body, f.SQLBody = sqlBodyText(cmd.SQLBody), cmd.SQLBody
	}
	old := d.Cat.FunctionBySignature(f.Schema, f.Name, f.Signature())
	switch {
	case old != nil && !cmd.OrReplace:
		return pgerr.New(pgerr.DuplicateFunction, "%s %q already exists with same argument types", f.KindName(), f.Name)
	case old != nil:
		if err := replaceable(old, f); err != nil {
			return err
		}
		f.ID = old.ID
	default:
		if f.ID, err = d.NextID(ctx); err != nil {
			return err
		}
	}
	// The function is in the catalog when its body is checked, so that
	// the body may call it, as PostgreSQL's validators see it.
	if err := d.PutFunction(ctx, f); err != nil {
		return err
	}
	if s.settings["check_function_bodies"] == "off" {
		// pg_dump turns checking off, since it makes functions before
		// the tables their bodies read.
		return nil
	}
	return s.validateRoutine(f)
}

// routineLanguage sets f's language from LANGUAGE, or SQL for a
// SQL-standard body.
func (s *Session) routineLanguage(f *catalog.Function, cmd *parser.CreateFunction) error {
	lang := cmd.Options.Language
	switch {
	case lang == "" && cmd.SQLBody != "":
		lang = "sql"
	case lang == "" && cmd.Body == "":
		return pgerr.New(pgerr.InvalidFunctionDefinition, "no function body specified")
	case lang == "":
		return pgerr.New(pgerr.InvalidFunctionDefinition, "no language specified")
	case lang == "c" || lang == "internal":
		return pgerr.New(pgerr.FeatureNotSupported, "functions in language %s are not supported", lang)
	case !routineLanguages[lang]:
		return pgerr.New(pgerr.UndefinedObject, "language %q does not exist", lang).
			WithHint("Use CREATE EXTENSION to load the language into the database.")
	}
	if cmd.Body == "" && cmd.SQLBody == "" {
		return pgerr.New(pgerr.InvalidFunctionDefinition, "no function body specified")
	}
	f.Language = lang
	return nil
}

// sqlBodyText is the body a SQL-standard body runs: RETURN expr is
// SELECT expr; BEGIN ATOMIC ... END, the statements between.
func sqlBodyText(body string) string {
	if rest, ok := cutWord(body, "return"); ok {
		return "SELECT " + rest
	}
	rest, _ := cutWord(body, "begin")
	rest, _ = cutWord(rest, "atomic")
	rest = strings.TrimSpace(rest)
	return strings.TrimSpace(rest[:len(rest)-len("end")])
}

// cutWord cuts the keyword w, in any case, from the start of s.
func cutWord(s, w string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= len(w) && strings.EqualFold(s[:len(w)], w) {
		return s[len(w):], true
	}
	return s, false
}

var paramModes = map[string]byte{"in": 'i', "out": 'o', "inout": 'b', "variadic": 'v', "table": 't'}

// routineParams resolves a routine's parameters, checking them as
// PostgreSQL's CREATE FUNCTION does.
func (s *Session) routineParams(in []parser.FuncParam, kind byte) ([]catalog.Param, error) {
	var out []catalog.Param
	defaults, variadic := false, false
	for _, p := range in {
		t, err := s.routineType(p.Type)
		var row uint32
		if err != nil && pgerr.Code(err) == pgerr.UndefinedObject && !strings.Contains(p.Type, "%") {
			// A table's name is its row type.
			if tab, terr := tableNamed(s.host(), p.Type); terr == nil {
				t, row, err = tab.RowType(), tab.ID, nil
			}
		}
		if err != nil {
			return nil, err
		}
		cp := catalog.Param{Name: p.Name, Type: t, Mode: paramModes[p.Mode], Row: row}
		switch {
		case p.Name != "" && slices.ContainsFunc(out, func(o catalog.Param) bool {
			return o.Name == p.Name && (o.In() == cp.In() || o.Out() == cp.Out() || cp.Mode == 'b' || o.Mode == 'b')
		}):
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "parameter name %q used more than once", p.Name)
		case variadic && cp.In():
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be the last input parameter")
		case variadic && kind == 'p':
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be the last parameter")
		case cp.Mode == 'v' && !t.IsArray() && t.Oid != types.OidAny:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be an array")
		case cp.Mode == 'o' && p.Default != "":
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only input parameters can have default values")
		case cp.In() && p.Default == "" && defaults:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		case cp.Mode == 'o' && kind == 'p' && p.Default == "" && defaults:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "procedure OUT parameters cannot appear after one with a default value")
		}
		if cp.Mode == 'v' {
			variadic = true
		}
		if p.Default != "" {
			defaults = true
			if cp.Default, err = s.storedParamDefault(p.Default, t); err != nil {
				return nil, err
			}
		}
		out = append(out, cp)
	}
	return out, nil
}

// storedParamDefault checks a parameter's default, which may name no
// column, and returns it as the catalog keeps expressions.
func (s *Session) storedParamDefault(text string, t types.T) (string, error) {
	n, err := parseOneExpr(text)
	if err != nil {
		return "", err
	}
	params := []types.T{}
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: &plan.Scope{}, Clause: "DEFAULT"}
	if _, err := c.CompileAssign(n, t); err != nil {
		return "", err
	}
	return plan.StoredExpr(n), nil
}

// routineType resolves a parameter's or result's type; name%type is the
// type of a column, with PostgreSQL's NOTICE.
func (s *Session) routineType(name string) (types.T, error) {
	ref, ok := strings.CutSuffix(name, "%type")
	if !ok {
		return s.parseTypeName(name)
	}
	parts := parser.SplitName(ref)
	if len(parts) < 2 || len(parts) > 3 {
		return types.T{}, pgerr.New(pgerr.SyntaxError, "improper %%TYPE reference (too few dotted names): %s", ref)
	}
	col := parts[len(parts)-1]
	t, err := tableNamed(s.host(), strings.Join(parts[:len(parts)-1], "."))
	if err != nil {
		return types.T{}, err
	}
	for _, c := range t.Columns {
		if c.Visible() && c.Name == col {
			s.notice(pgerr.SuccessfulCompletion, "type reference %s%%TYPE converted to %s", ref, c.Type)
			return c.Type, nil
		}
	}
	return types.T{}, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", col, t.Name)
}

// routineResult sets f's result from RETURNS and its OUT parameters.
func (s *Session) routineResult(f *catalog.Function, cmd *parser.CreateFunction) error {
	if cmd.Table != nil {
		cols, err := s.routineParams(cmd.Table, f.Kind)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(f.Params, func(p catalog.Param) bool { return p.Out() }) {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "OUT and INOUT arguments aren't allowed in TABLE functions")
		}
		f.Params = append(f.Params, cols...)
		f.ReturnsSet = true
	}
	f.ReturnsSet = f.ReturnsSet || cmd.ReturnsSet
	out := f.OutParams()
	var implied types.T
	switch {
	case len(out) == 1:
		implied = out[0].Type
	case len(out) > 1 || f.Kind == 'p' && len(out) == 1:
		implied = types.T{Oid: types.OidRecord, Mod: -1}
	case f.Kind == 'p':
		implied = types.T{Oid: types.OidVoid, Mod: -1}
	}
	if f.Kind == 'p' && len(out) > 0 {
		implied = types.T{Oid: types.OidRecord, Mod: -1}
	}
	if cmd.Returns == "" {
		if implied.Oid == 0 {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "function result type must be specified")
		}
		f.Returns = implied
		return nil
	}
	t, err := s.routineType(cmd.Returns)
	if err != nil && pgerr.Code(err) == pgerr.UndefinedObject && !strings.Contains(cmd.Returns, "%") {
		// A table's name is its row type.
		if tab, terr := tableNamed(s.host(), cmd.Returns); terr == nil && len(f.OutParams()) == 0 {
			f.Returns, f.ReturnsRow = types.T{Oid: types.OidRecord, Mod: -1}, tab.ID
			return nil
		}
	}
	if err != nil {
		return err
	}
	if implied.Oid != 0 && implied.Oid != t.Oid {
		return pgerr.New(pgerr.InvalidFunctionDefinition, "function result type must be %s because of OUT parameters", implied)
	}
	if t.Oid == types.OidTrigger && (f.Language == "sql" || len(f.Params) > 0) {
		if f.Language == "sql" {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "SQL functions cannot return type trigger")
		}
		return pgerr.New(pgerr.InvalidFunctionDefinition, "trigger functions cannot have declared arguments").
			WithHint("The arguments of the trigger can be accessed through TG_NARGS and TG_ARGV instead.")
	}
	f.Returns = t
	return nil
}

// applyFuncOptions sets the options CREATE or ALTER FUNCTION gave.
func (s *Session) applyFuncOptions(f *catalog.Function, o *parser.FuncOptions) error {
	if f.Volatility == 0 {
		f.Volatility, f.Parallel, f.Cost = 'v', 'u', 100
		if f.ReturnsSet {
			f.Rows = 1000
		}
	}
	if o.Volatility != "" {
		f.Volatility = o.Volatility[0]
	}
	if o.Strict != "" {
		f.Strict = o.Strict == "strict"
	}
	if o.Security != "" {
		f.SecurityDefiner = o.Security == "definer"
	}
	if o.Leakproof != "" {
		f.Leakproof = o.Leakproof == "leakproof"
	}
	if o.Parallel != "" {
		f.Parallel = o.Parallel[0]
	}
	if o.Cost != 0 {
		f.Cost = o.Cost
	}
	if o.Rows != 0 {
		if !f.ReturnsSet {
			return pgerr.New(pgerr.InvalidParameterValue, "ROWS is not applicable when function does not return a set")
		}
		f.Rows = o.Rows
	}
	if o.Support != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "SUPPORT functions are not supported")
	}
	if o.Window {
		return pgerr.New(pgerr.FeatureNotSupported, "window functions written in %s are not supported", f.Language)
	}
	for _, r := range o.Reset {
		if r == "all" {
			f.Config = nil
			continue
		}
		f.Config = slices.DeleteFunc(f.Config, func(c string) bool { return strings.HasPrefix(c, r+"=") })
	}
	for _, set := range o.Set {
		name, value, _ := strings.Cut(set, "=")
		st, err := lookupSetting(name)
		if err != nil {
			return err
		}
		if value == "\x00current" {
			if value, err = s.getSetting(st.name); err != nil {
				return err
			}
		}
		f.Config = slices.DeleteFunc(f.Config, func(c string) bool { return strings.HasPrefix(c, st.name+"=") })
		f.Config = append(f.Config, st.name+"="+value)
	}
	return nil
}

// replaceable checks that CREATE OR REPLACE may replace old with f, as
// PostgreSQL's checks in ProcedureCreate.
func replaceable(old, f *catalog.Function) error {
	drop := fmt.Sprintf("Use DROP %s %s first.", strings.ToUpper(old.KindName()), routineSignature(old))
	if old.Kind != f.Kind {
		return pgerr.New(pgerr.WrongObjectType, "cannot change routine kind").
			WithDetail("%q is a %s.", old.Name, old.KindName())
	}
	if old.Returns != f.Returns || old.ReturnsSet != f.ReturnsSet {
		return pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change return type of existing function").WithHint("%s", drop)
	}
	if outs := f.OutParams(); len(outs) > 1 {
		olds := old.OutParams()
		for i, p := range outs {
			if i >= len(olds) || olds[i].Type != p.Type {
				return pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change return type of existing function").
					WithDetail("Row type defined by OUT parameters is different.").WithHint("%s", drop)
			}
		}
	}
	oldIn, newIn := old.InParams(), f.InParams()
	for i, p := range oldIn {
		if p.Name != "" && p.Name != newIn[i].Name {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change name of input parameter %q", p.Name).WithHint("%s", drop)
		}
	}
	for i, p := range oldIn {
		if p.Default != "" && newIn[i].Default == "" {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "cannot remove parameter defaults from existing function").WithHint("%s", drop)
		}
	}
	return nil
}

// routineSignature is how PostgreSQL's messages name a routine: its name
// and its input parameters' types, "f(integer, text)".
func routineSignature(f *catalog.Function) string {
	var ts []types.T
	for _, p := range f.InParams() {
		ts = append(ts, p.Type)
	}
	return f.Name + "(" + catalog.SignatureText(ts) + ")"
}

// routineName is how a NOTICE or DETAIL names f: its signature,
// qualified unless the search path finds it.
func (s *Session) routineName(f *catalog.Function) string {
	fs, _ := s.catalog().FunctionOverloads(s.searchPath(), "", f.Name)
	if slices.Contains(fs, f) {
		return routineSignature(f)
	}
	return s.catalog().SchemaName(f.Schema) + "." + routineSignature(f)
}

// funcRefSignature resolves the input parameters' types of a routine
// that DROP or ALTER names.
func (s *Session) funcRefSignature(ref parser.FuncRef) ([]types.T, error) {
	var sig []types.T
	for _, p := range ref.Params {
		if p.Mode == "out" {
			continue
		}
		t, err := s.routineType(p.Type)
		if err != nil {
			return nil, err
		}
		sig = append(sig, t)
	}
	return sig, nil
}

// lookupRoutine finds the routine ref names, of kind "function",
// "procedure" or "routine". found is false, with no error, for one that
// does not exist under IF EXISTS, after the NOTICE that says so.
func (s *Session) lookupRoutine(ref parser.FuncRef, kind string, ifExists bool) (f *catalog.Function, found bool, err error) {
	schema, name, err := splitSchema(ref.Name)
	if err != nil {
		return nil, false, err
	}
	cat := s.catalog()
	if sc, _ := cat.SchemaOn(s.searchPath(), schema); schema != "" && sc == nil {
		if ifExists {
			s.notice(pgerr.SuccessfulCompletion, "schema %q does not exist, skipping", schema)
			return nil, false, nil
		}
		return nil, false, catalog.ErrNoSchema(schema)
	}
	fs, err := cat.FunctionOverloads(s.searchPath(), schema, name)
	if err != nil {
		return nil, false, err
	}
	what := kind
	if kind == "routine" {
		what = "function"
	}
	if !ref.HasArgs {
		switch len(fs) {
		case 0:
			if ifExists {
				s.notice(pgerr.SuccessfulCompletion, "%s %s() does not exist, skipping", what, ref.Name)
				return nil, false, nil
			}
			return nil, false, pgerr.New(pgerr.UndefinedFunction, "could not find a %s named %q", what, ref.Name)
		case 1:
			f = fs[0]
		default:
			return nil, false, pgerr.New(pgerr.AmbiguousFunction, "%s name %q is not unique", what, ref.Name).
				WithHint("Specify the argument list to select the %s unambiguously.", what)
		}
	} else {
		sig, err := s.funcRefSignature(ref)
		if err != nil {
			return nil, false, err
		}
		oids := make([]types.Oid, len(sig))
		for i, t := range sig {
			oids[i] = t.Oid
		}
		for _, g := range fs {
			if slices.Equal(g.Signature(), oids) {
				f = g
				break
			}
		}
		if f == nil {
			text := ref.Name + "(" + catalog.SignatureText(sig) + ")"
			if ifExists {
				s.notice(pgerr.SuccessfulCompletion, "%s %s does not exist, skipping", what, text)
				return nil, false, nil
			}
			return nil, false, pgerr.New(pgerr.UndefinedFunction, "%s %s does not exist", what, text)
		}
	}
	switch {
	case kind == "function" && f.Kind == 'p':
		return nil, false, pgerr.New(pgerr.WrongObjectType, "%s is not a function", routineSignature(f))
	case kind == "procedure" && f.Kind != 'p':
		return nil, false, pgerr.New(pgerr.WrongObjectType, "%s is not a procedure", routineSignature(f))
	}
	return f, true, nil
}

// dropFunctions runs DROP FUNCTION, PROCEDURE and ROUTINE.
func (s *Session) dropFunctions(ctx context.Context, cmd *parser.DropFunction) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	var targets []*catalog.Function
	for _, ref := range cmd.Funcs {
		f, ok, err := s.lookupRoutine(ref, cmd.Kind, cmd.IfExists)
		if err != nil {
			return err
		}
		if ok && !slices.Contains(targets, f) {
			targets = append(targets, f)
		}
	}
	var drops []dropTarget
	var ids []uint32
	for _, f := range targets {
		drops = append(drops, dropTarget{kind: f.KindName(), name: s.routineName(f), id: f.ID})
		ids = append(ids, f.ID)
	}
	deps, err := s.checkDependents(d.Cat, drops, ids, cmd.Cascade)
	if err != nil {
		return err
	}
	if err := s.dropDependents(ctx, d, deps); err != nil {
		return err
	}
	for _, f := range targets {
		if err := s.dropFunction(ctx, d, f); err != nil {
			return err
		}
	}
	return nil
}

// dropFunction removes f; its comment stays behind unseen, as every
// dropped object's does (see comment.go).
func (s *Session) dropFunction(ctx context.Context, d *catalog.DDL, f *catalog.Function) error {
	return d.DropFunction(ctx, f)
}

// alterFunction runs ALTER FUNCTION, PROCEDURE and ROUTINE.
func (s *Session) alterFunction(ctx context.Context, cmd *parser.AlterFunction) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	old, _, err := s.lookupRoutine(cmd.Func, cmd.Kind, false)
	if err != nil {
		return err
	}
	f := *old
	f.Params, f.Config = slices.Clone(old.Params), slices.Clone(old.Config)
	switch {
	case cmd.Rename != "":
		f.Name = cmd.Rename
		if g := d.Cat.FunctionBySignature(f.Schema, f.Name, f.Signature()); g != nil {
			return pgerr.New(pgerr.DuplicateFunction, "%s %s already exists in schema %q", f.KindName(), routineSignature(&f), d.Cat.SchemaName(f.Schema))
		}
	case cmd.Owner != "":
		switch cmd.Owner {
		case "current_user", "session_user", s.user:
		default:
			return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", cmd.Owner)
		}
		return nil
	case cmd.SetSchema != "":
		sc, err := d.Cat.Schema(cmd.SetSchema)
		if err != nil {
			return err
		}
		if sc.System {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot move objects into or out of system schemas")
		}
		f.Schema = sc.ID
		if g := d.Cat.FunctionBySignature(f.Schema, f.Name, f.Signature()); g != nil && g.ID != f.ID {
			return pgerr.New(pgerr.DuplicateFunction, "%s %s already exists in schema %q", f.KindName(), routineSignature(&f), sc.Name)
		}
	default:
		if cmd.Kind == "procedure" && (cmd.Options.Volatility != "" || cmd.Options.Strict != "" || cmd.Options.Rows != 0) {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "invalid attribute in procedure definition")
		}
		if err := s.applyFuncOptions(&f, &cmd.Options); err != nil {
			return err
		}
	}
	return d.PutFunction(ctx, &f)
}

// parseOneExpr parses an expression written in PostgreSQL's dialect.
func parseOneExpr(text string) (ast.ExprNode, error) {
	stmts, err := parser.Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	if sel, ok := stmts[0].AST.(*ast.SelectStmt); ok && len(stmts) == 1 && sel.From == nil && len(sel.Fields.Fields) == 1 {
		return sel.Fields.Fields[0].Expr, nil
	}
	return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near %q", text)
}
