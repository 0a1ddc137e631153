package plan

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

func init() {
	maps.Copy(FuncCompilers, map[string]Builtin{
		"epochdb_cast": compileCast,
		// The parser writes a numeric constant TiDB cannot read exactly
		// (an exponent, or more digits than its decimals hold) as
		// epochdb_numeric('1e400').
		"epochdb_numeric": func(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
			v, err := types.ParseText(types.Numeric, n.Args[0].(*driver.ValueExpr).GetString(), nil)
			if err != nil {
				return nil, err
			}
			return &ConstExpr{T: types.Numeric, V: v}, nil
		},
		"epochdb_nulls": func(*Compiler, *ast.FuncCallExpr) (Expr, error) {
			return nil, pgerr.New(pgerr.SyntaxError, "NULLS FIRST/LAST is only allowed in ORDER BY")
		},
		// The parser wraps DEFAULT expressions TiDB's DDL grammar would
		// not take; the wrapper means nothing else.
		"epochdb_default": func(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
			if len(n.Args) != 1 {
				return nil, ArgCountErr(n, nil)
			}
			return c.Compile(n.Args[0])
		},
		// The parser renders name => value as epochdb_named; only the
		// functions that take named arguments read it.
		"epochdb_named": func(_ *Compiler, n *ast.FuncCallExpr) (Expr, error) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "named arguments are not supported in this call")
		},
		"coalesce": compileCoalesce,
		"nullif":   compileNullif,
		"greatest": compileExtreme(1),
		"least":    compileExtreme(-1),

		"trim":              compileTrim,
		"epochdb_concat_op": compileConcatOp,

		"mod": compileMod,

		"localtime":      compileLocalTime,
		"localtimestamp": compileLocalTime,
		"current_time":   compileCurrentTime,
	})
	maps.Copy(FuncCompilers, arrayBuiltins)
	maps.Copy(FuncCompilers, srfBuiltins)
}

// Builtin compiles a call of one built-in function that needs more of
// the compiler than sql/builtins' overloads give: special syntax
// (CAST, COALESCE, TRIM, LOCALTIME(p)), the session's catalog (nextval,
// the catalog functions, enum_range) or the engine.
type Builtin func(c *Compiler, n *ast.FuncCallExpr) (Expr, error)

// FuncCompilers are those functions; every other one is in sql/builtins.
var FuncCompilers = map[string]Builtin{}

// rewrittenCalls are the names the parser gives calls it rewrote from
// special syntax, for those that are PostgreSQL functions by another name:
// EXTRACT(field FROM x) is extract('field', x).
var rewrittenCalls = map[string]string{"epochdb_extract": "extract"}

// operatorCalls are the operators TiDB's grammar lacks, by the names of
// the calls the parser writes them as.
var operatorCalls = map[string]string{
	"epochdb_arrow": "->", "epochdb_arrow_text": "->>", "epochdb_path": "#>", "epochdb_path_text": "#>>",
	"epochdb_contains": "@>", "epochdb_contained": "<@", "epochdb_overlap": "&&", "epochdb_exists": "?",
	"epochdb_exists_any": "?|", "epochdb_exists_all": "?&", "epochdb_delete_path": "#-",
}

func (c *Compiler) call(n *ast.FuncCallExpr) (Expr, error) {
	name := n.FnName.L
	if !systemCall(n) {
		return c.callUser(n)
	}
	if b, ok := FuncCompilers[name]; ok {
		return b(c, n)
	}
	if typeNameCall(n, name) {
		return compileCast(c, &ast.FuncCallExpr{Args: []ast.ExprNode{n.Args[0], ast.NewValueExpr(name, "", "")}})
	}
	if real, ok := rewrittenCalls[name]; ok {
		name = real
	}
	if op, ok := operatorCalls[name]; ok {
		args, err := CompileArgs(c, n)
		if err != nil {
			return nil, err
		}
		if len(args) != 2 {
			return nil, pgerr.New(pgerr.InternalError, "malformed %s", name)
		}
		return c.callOperator(op, args[0], args[1])
	}
	if name == "epochdb_op" {
		return c.namedOperator(n)
	}
	if name == "epochdb_match" {
		args, err := CompileArgs(c, n)
		if err != nil {
			return nil, err
		}
		return c.regexMatch(args)
	}
	if c.isTableFunc(n) {
		return CompileSRFRef(c, n)
	}
	ovs, err := c.withUserOverloads(n, name, c.overloads(name, n.Schema.L))
	if err != nil {
		return nil, err
	}
	if ovs != nil {
		return c.notProcedure(n, name)(c.callOverloaded(n, name, ovs))
	}
	return c.notProcedure(n, name)(nil, c.noSuchFunction(n, name))
}

// typeNameCall reports whether a call of name is typename('literal'),
// which PostgreSQL reads as a cast when no function takes an unknown
// argument exactly, as none does: cidr('10/8') is '10/8'::cidr, not the
// function cidr(inet) of the literal read as an inet.
func typeNameCall(n *ast.FuncCallExpr, name string) bool {
	if len(n.Args) != 1 || !types.IsTypeName(name) {
		return false
	}
	v, ok := n.Args[0].(*driver.ValueExpr)
	if !ok {
		return false
	}
	_, ok = v.GetValue().(string)
	return ok
}

// callUser compiles a call that names a schema other than pg_catalog:
// of a user-defined function.
func (c *Compiler) callUser(n *ast.FuncCallExpr) (Expr, error) {
	if c.isTableFunc(n) {
		return CompileSRFRef(c, n)
	}
	ovs, err := c.withUserOverloads(n, n.FnName.O, c.overloads(n.FnName.L, n.Schema.L))
	if err != nil {
		return nil, err
	}
	name := n.Schema.O + "." + n.FnName.O
	if ovs == nil {
		return c.notProcedure(n, name)(nil, c.noSuchFunction(n, name))
	}
	return c.notProcedure(n, name)(c.callOverloaded(n, n.FnName.O, ovs))
}

// noSuchFunction is the error for a call of a name no function has,
// which PostgreSQL prints with the arguments' types.
func (c *Compiler) noSuchFunction(n *ast.FuncCallExpr, name string) error {
	args, _, err := compileNamedArgs(c, n)
	if err != nil {
		return err
	}
	return noFunction(name, args)
}

// namedOperator compiles epochdb_op('op', a, b[, 'schema']), as the
// parser writes an operator only an extension has (pg_trgm's <->), and
// OPERATOR(schema.op), which names an extension's operator in its schema
// (as ruleutils prints citext's = where the search path does not find
// it): the operator is resolved with the extension's operators there
// only.
func (c *Compiler) namedOperator(n *ast.FuncCallExpr) (Expr, error) {
	var words []string
	for i, a := range n.Args {
		if v, ok := a.(*driver.ValueExpr); ok && (i == 0 || i == 3) {
			words = append(words, v.GetString())
		}
	}
	if len(n.Args) < 3 || len(n.Args) > 4 || len(words) != len(n.Args)-2 {
		return nil, pgerr.New(pgerr.InternalError, "malformed epochdb_op")
	}
	args, err := CompileArgs(c, &ast.FuncCallExpr{Args: n.Args[1:3]})
	if err != nil {
		return nil, err
	}
	op, l, r := words[0], args[0], args[1]
	in := c
	if len(words) == 2 {
		cc := *c
		cc.opSchema, in = words[1], &cc
	}
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		return in.comparison(op, l, r)
	case "~~", "!~~", "~~*", "!~~*":
		return in.likeOf(l, r, op[0] == '!', strings.HasSuffix(op, "*"), '\\')
	case "~", "!~", "~*", "!~*":
		args := []Expr{l, r}
		if strings.HasSuffix(op, "*") {
			args = append(args, &ConstExpr{T: types.Text, V: "i"})
		}
		e, err := in.regexMatch(args)
		if err != nil || op[0] != '!' {
			return e, err
		}
		return &notExpr{e: e}, nil
	}
	return in.callOperator(op, l, r)
}

// regexMatch compiles epochdb_match(a, b[, 'i']), as the parser writes
// a ~ b and a ~* b. Of two arguments it is the operator ~, resolved as
// PostgreSQL resolves an operator: an untyped operand taken first as the
// other one's type, which picks citext's ~ for citext ~ 'x'.
func (c *Compiler) regexMatch(args []Expr) (Expr, error) {
	ovs := c.overloads("epochdb_match", "")
	var cand candidate
	var err error
	if len(args) == 2 {
		cand, err = chooseOperator("~", argTypesOf(args), ovs)
	} else {
		cand, err = ChooseOverload("epochdb_match", args, make([]string, len(args)), ovs)
	}
	if err != nil {
		return nil, err
	}
	call, err := c.applyCandidate("epochdb_match", cand, args)
	if err != nil {
		return nil, err
	}
	return call.expr("epochdb_match"), nil
}

func compileCast(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	name := n.Args[1].(*driver.ValueExpr).GetString()
	t, err := c.Host.ParseTypeName(name)
	if err != nil {
		if rt, ok := c.tableRowType(name); ok && pgerr.Code(err) == pgerr.UndefinedObject {
			return c.castToRow(n.Args[0], rt, name)
		}
		return nil, err
	}
	if isEmptyArray(n.Args[0]) && t.IsArray() {
		return &ConstExpr{T: t, V: []any{}}, nil
	}
	e, err := c.Compile(n.Args[0])
	if err != nil {
		return nil, err
	}
	if types.IsReg(t.Oid) && e.Type().Oid != t.Oid {
		return c.toReg(e, t)
	}
	if types.HasEnum(t) {
		return c.toEnum(e, t, true)
	}
	switch x := e.(type) {
	case *unknownExpr:
		// An explicit cast, so a too-long string is cut, not an error.
		v, err := types.Cast(x.s, types.Unknown, t, c.Host.Location())
		if err != nil {
			return nil, err
		}
		return &ConstExpr{T: t, V: v}, nil
	case *ParamExpr:
		if e.Type().Oid == types.OidUnknown {
			(*c.Params)[x.Index] = types.T{Oid: t.Oid, Mod: -1}
		}
	}
	if e.Type().Oid == t.Oid && e.Type().Mod == t.Mod {
		return e, nil
	}
	return &castExpr{e: e, from: e.Type(), to: t, explicit: true}, nil
}

// tableRowType is the row type of the table name names, as a cast to a
// table's name reads it.
func (c *Compiler) tableRowType(name string) (types.T, bool) {
	parts := parser.SplitName(name)
	if len(parts) > 2 {
		return types.T{}, false
	}
	schema := ""
	if len(parts) == 2 {
		schema = parts[0]
	}
	cat := c.Host.Catalog()
	q, err := cat.Resolve(c.SearchPath(), schema, parts[len(parts)-1])
	t := cat.TableByName[q]
	if err != nil || t == nil {
		return types.T{}, false
	}
	return t.RowType(), true
}

// castToRow casts a row value to a table's row type: field by field.
func (c *Compiler) castToRow(n ast.ExprNode, rt types.T, name string) (Expr, error) {
	e, err := c.Compile(n)
	if err != nil {
		return nil, err
	}
	want, _ := rt.Fields()
	have, ok := e.Type().Fields()
	if !ok {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", e.Type(), name)
	}
	if len(have) != len(want) {
		detail := "Input has too few columns."
		if len(have) > len(want) {
			detail = "Input has too many columns."
		}
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", e.Type(), name).WithDetail("%s", detail)
	}
	loc := c.Host.Location()
	return &FuncExpr{Name: "row", T: rt, Args: []Expr{e}, Strict: true, Fn: func(_ *Env, a []any) (any, error) {
		in := a[0].([]any)
		out := make([]any, len(in))
		for i, v := range in {
			if v == nil || have[i].T == want[i].T {
				out[i] = v
				continue
			}
			from := have[i].T
			if from.Oid == types.OidUnknown {
				from = types.Text
			}
			cv, err := types.Cast(v, from, want[i].T, loc)
			if err != nil {
				return nil, err
			}
			out[i] = cv
		}
		return out, nil
	}}, nil
}

func CompileArgs(c *Compiler, n *ast.FuncCallExpr) ([]Expr, error) {
	args := make([]Expr, len(n.Args))
	for i, a := range n.Args {
		var err error
		if args[i], err = c.Compile(a); err != nil {
			return nil, err
		}
	}
	return args, nil
}

func compileCoalesce(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	args, err := CompileArgs(c, n)
	if err != nil {
		return nil, err
	}
	t, err := c.commonType("COALESCE", args)
	if err != nil {
		return nil, err
	}
	return &coalesceExpr{t: t, args: args}, nil
}

func compileNullif(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	args, err := CompileArgs(c, n)
	if err != nil || len(args) != 2 {
		return nil, ArgCountErr(n, err)
	}
	lt := args[0].Type()
	t, ok := c.citextOps(comparisonType(lt, args[1].Type()))
	if !ok {
		return nil, noOperator("=", lt, args[1].Type())
	}
	// NULLIF is the = operator's, and varchar has none of its own.
	if t.Oid == types.OidUnknown || t.Oid == types.OidVarchar {
		t = types.Text
	}
	rt := nullifType(lt, args[1].Type(), t)
	if args[0], err = c.Coerce(args[0], rt); err != nil {
		return nil, err
	}
	if args[1], err = c.Coerce(args[1], t); err != nil {
		return nil, err
	}
	return &FuncExpr{Name: "nullif", T: rt, Args: args, Fn: func(e *Env, a []any) (any, error) {
		if a[0] == nil || a[1] == nil {
			return a[0], nil
		}
		x := a[0]
		if rt.Oid != t.Oid {
			var err error
			if x, err = types.CastImplicit(x, rt, t, e.Host.Location()); err != nil {
				return nil, err
			}
		}
		if types.Compare(t, x, a[1]) == 0 {
			return nil, nil
		}
		return a[0], nil
	}}, nil
}

func compileExtreme(sign int) Builtin {
	return func(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
		args, err := CompileArgs(c, n)
		if err != nil {
			return nil, err
		}
		t, err := c.commonType(strings.ToUpper(n.FnName.L), args)
		if err != nil {
			return nil, err
		}
		return &FuncExpr{Name: n.FnName.L, T: t, Args: args, Fn: func(_ *Env, a []any) (any, error) {
			var best any
			for _, v := range a {
				if v != nil && (best == nil || types.Compare(t, v, best)*sign > 0) {
					best = v
				}
			}
			return best, nil
		}}, nil
	}
}

// CoerceArg converts args[i] of a call of name to t. An argument of a type
// that does not convert gets PostgreSQL's error for a call no version of
// the function takes; an untyped literal that does not parse, its own.
func (c *Compiler) CoerceArg(name string, args []Expr, i int, t types.T) error {
	e, err := c.Coerce(args[i], t)
	if err != nil {
		if pgerr.Code(err) == pgerr.DatatypeMismatch {
			return noFunction(name, args)
		}
		return err
	}
	args[i] = e
	return nil
}

// noFunction is PostgreSQL's error for a call no version of the function
// takes.
func noFunction(name string, args []Expr) error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Type().String()
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, joinComma(names)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func joinComma(s []string) string {
	var b []byte
	for i, x := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, x...)
	}
	return string(b)
}

func ArgCountErr(n *ast.FuncCallExpr, err error) error {
	if err != nil {
		return err
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", n.FnName.L, len(n.Args))
}

// Fixed compiles a strict function with fixed argument types.
func Fixed(ret types.T, params []types.T, fn func(*Env, []any) (any, error)) Builtin {
	return func(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
		if len(n.Args) != len(params) {
			return nil, ArgCountErr(n, nil)
		}
		args := make([]Expr, len(params))
		for i, a := range n.Args {
			var err error
			if args[i], err = c.CompileAs(a, params[i]); err != nil {
				return nil, err
			}
		}
		return &FuncExpr{Name: n.FnName.L, T: ret, Args: args, Strict: true, Fn: fn}, nil
	}
}

// Overloaded compiles calls of a function with overloads ovs, resolved as
// sql/builtins' functions are, for a function of a package above plan
// (one that needs the session): its overloads' Fn get the call's *Env as
// their builtins.Env.
func Overloaded(ovs []builtins.Overload) Builtin {
	return func(c *Compiler, n *ast.FuncCallExpr) (Expr, error) { return c.callOverloaded(n, n.FnName.L, ovs) }
}

// compileTrim handles TiDB's TRIM([BOTH|LEADING|TRAILING] [chars] FROM s),
// whose arguments arrive as (s, chars, direction): it is btrim, ltrim or
// rtrim(s [, chars]), as PostgreSQL's grammar makes it.
func compileTrim(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	name := "btrim"
	args := n.Args
	if len(args) == 3 {
		if d, ok := args[2].(*ast.TrimDirectionExpr); ok {
			switch d.Direction {
			case ast.TrimLeading:
				name = "ltrim"
			case ast.TrimTrailing:
				name = "rtrim"
			}
		}
		args = args[:2]
	}
	if len(args) == 2 {
		if v, ok := args[1].(*driver.ValueExpr); ok && v.GetValue() == nil {
			args = args[:1]
		}
	}
	return c.callOverloaded(&ast.FuncCallExpr{FnName: ast.NewCIStr(name), Args: args}, name, c.overloads(name, ""))
}

// compileConcatOp is the || operator, which the parser writes as
// epochdb_concat_op(a, b): NULL if either operand is, text || text, or
// text with a value of another type in its text form.
func compileConcatOp(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	args, err := CompileArgs(c, n)
	if err != nil {
		return nil, err
	}
	if len(args) != 2 {
		return nil, pgerr.New(pgerr.InternalError, "malformed epochdb_concat_op")
	}
	if args[0].Type().IsArray() || args[1].Type().IsArray() {
		return c.arrayConcat(args[0], args[1])
	}
	if lo, ro := args[0].Type().Oid, args[1].Type().Oid; lo == types.OidJSONB && (ro == types.OidJSONB || ro == types.OidUnknown) || ro == types.OidJSONB && lo == types.OidUnknown {
		return c.callOperator("||", args[0], args[1])
	}
	if args[0].Type().Oid == types.OidBytea && args[1].Type().Oid == types.OidBytea {
		return &FuncExpr{Name: "||", T: types.Bytea, Args: args, Strict: true, Fn: func(_ *Env, a []any) (any, error) {
			return append(append([]byte(nil), a[0].([]byte)...), a[1].([]byte)...), nil
		}}, nil
	}
	stringy := 0
	for i, a := range args {
		switch o := a.Type().Oid; {
		case o == types.OidUnknown || o == types.OidBpchar:
			// char(n) loses its padding on the way to text.
			if args[i], err = c.Coerce(a, types.Text); err != nil {
				return nil, err
			}
			stringy++
		case IsString(o):
			stringy++
		}
	}
	if stringy == 0 {
		return nil, noOperator("||", args[0].Type(), args[1].Type())
	}
	return &FuncExpr{Name: "||", T: types.Text, Args: args, Strict: true, Fn: textFunc(args, c.Host.Location(), "")}, nil
}

// textFunc joins the text forms of the non-NULL values of args with sep.
func textFunc(args []Expr, loc *time.Location, sep string) func(*Env, []any) (any, error) {
	return func(_ *Env, a []any) (any, error) {
		var sb strings.Builder
		first := true
		for i, v := range a {
			if v == nil {
				continue
			}
			if !first {
				sb.WriteString(sep)
			}
			first = false
			if s, ok := v.(string); ok {
				sb.WriteString(s)
			} else {
				sb.Write(types.AppendText(nil, args[i].Type(), v, loc))
			}
		}
		return sb.String(), nil
	}
}

func compileMod(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	if len(n.Args) != 2 {
		return nil, ArgCountErr(n, nil)
	}
	args, err := CompileArgs(c, n)
	if err != nil {
		return nil, err
	}
	return c.arith('%', args[0], args[1])
}

// compileLocalTime is LOCALTIME[(p)] and LOCALTIMESTAMP[(p)]: the time of
// day, or the date and time, at the start of the transaction in the
// session's time zone, rounded to p fractional digits and typed time(p) or
// timestamp(p).
func compileLocalTime(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
	t, typ := types.TimeType, "TIME"
	if n.FnName.L == "localtimestamp" {
		t, typ = types.Timestamp, "TIMESTAMP"
	}
	var args []Expr
	switch len(n.Args) {
	case 0:
	case 1:
		p, err := c.CompileAs(n.Args[0], types.Int4)
		if err != nil {
			return nil, err
		}
		v, err := p.Eval(&Env{Ctx: context.Background(), Host: c.Host})
		if !constant(p) || err != nil || v == nil {
			return nil, pgerr.New(pgerr.SyntaxError, "%s precision must be an integer constant", strings.ToUpper(n.FnName.L))
		}
		prec := v.(int64)
		if prec < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s(%d) precision must not be negative", typ, prec)
		}
		t.Mod = int32(min(prec, 6))
		args = []Expr{&ConstExpr{T: types.Int4, V: prec}}
	default:
		return nil, ArgCountErr(n, nil)
	}
	return &FuncExpr{Name: n.FnName.L, T: t, Args: args, Strict: true, Fn: func(e *Env, _ []any) (any, error) {
		wall := types.WallClock(e.Host.TransactionTime().Truncate(time.Microsecond), e.Host.Location())
		if t.Oid == types.OidTime {
			return types.Coerce(t, types.TimeOfDay(wall))
		}
		return types.Coerce(t, wall)
	}}, nil
}

// compileCurrentTime refuses CURRENT_TIME, which is a time with time zone.
func compileCurrentTime(*Compiler, *ast.FuncCallExpr) (Expr, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "type time with time zone is not supported").
		WithHint("Use LOCALTIME for the time of day as time without time zone.")
}

// overloads are the overloads of sql/builtins' function name that a call
// may resolve to: those of an extension only while it is installed. Of a
// name whose every overload is an uninstalled extension's, none (a call
// then fails as a call of a function that does not exist).
func (c *Compiler) overloads(name, schema string) []builtins.Overload {
	return c.installedOnly(builtins.Lookup(name), schema)
}

// installedOnly is ovs without the overloads of extensions that are not
// installed, or not visible from a call in schema (see installed): nil if
// ovs is, and otherwise not nil.
func (c *Compiler) installedOnly(ovs []builtins.Overload, schema string) []builtins.Overload {
	for i, o := range ovs {
		if !c.installed(o.Extension, schema) {
			out := ovs[:i:i] // a copy on the first append
			for _, o := range ovs[i+1:] {
				if c.installed(o.Extension, schema) {
					out = append(out, o)
				}
			}
			if out == nil {
				out = []builtins.Overload{}
			}
			return out
		}
	}
	return ovs
}

// installed reports whether the functions and operators of extension
// ext, if any, are there for a call: the extension is installed, in the
// schema the call names or, if it names none and the statement looks
// only there (ExtensionsOnPath), in one on the search path.
func (c *Compiler) installed(ext, schema string) bool {
	if ext == "" {
		return true
	}
	if schema == "" {
		schema = c.opSchema
	}
	e := c.Host.Catalog().ExtensionByName[ext]
	switch {
	case e == nil:
		return false
	case schema != "":
		return c.Host.Catalog().SchemaName(e.Schema) == schema
	}
	return !c.ExtensionsOnPath || slices.Contains(c.SearchPath().Schemas, e.Schema)
}

// citextOps is t, the type two operands compare in, unless it is citext
// while citext's operators are not on the search path: PostgreSQL then
// finds text's, to which citext converts implicitly. (Sorting, grouping
// and indexes use the type's operator class, wherever it is.)
func (c *Compiler) citextOps(t types.T, ok bool) (types.T, bool) {
	if ok && t.Oid == types.OidCitext && !c.installed("citext", "") {
		return types.Text, true
	}
	return t, ok
}
