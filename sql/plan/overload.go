package plan

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// env gives the functions of sql/builtins what they may ask.
var _ builtins.Env = (*Env)(nil)

// callOverloaded compiles a call of a function of sql/builtins.
func (c *Compiler) callOverloaded(n *ast.FuncCallExpr, name string, ovs []builtins.Overload) (Expr, error) {
	call, err := c.resolveCall(n, name, ovs)
	if err != nil {
		return nil, err
	}
	if e, ok := c.inline(call); ok {
		return e, nil
	}
	return call.expr(name), nil
}

// tableFuncOverloaded compiles a call of a set-returning function of
// sql/builtins.
func (c *Compiler) tableFuncOverloaded(n *ast.FuncCallExpr, name string, ovs []builtins.Overload) (*TableFunc, error) {
	call, err := c.resolveCall(n, name, ovs)
	if err != nil {
		return nil, err
	}
	rows := call.o.Rows
	if call.o.TypedRows != nil {
		rows = call.o.TypedRows(argTypesOf(call.args))
	}
	return &TableFunc{Name: name, T: call.ret, args: call.args, column: call.o.Column, series: func(e *Env, a []any) (func() (any, bool, error), error) {
		return rows(e, a)
	}}, nil
}

// A resolvedCall is a call of a function of sql/builtins with its
// overload chosen: its arguments converted to the overload's parameters,
// in their order, and its result type.
type resolvedCall struct {
	o    *builtins.Overload
	args []Expr
	ret  types.T
}

// resolveCall compiles the arguments of a call, chooses the overload as
// PostgreSQL's function type resolution does (the "Functions" section of
// its chapter on type conversion), converts the arguments to the chosen
// signature, and fills in the defaults of those left out.
func (c *Compiler) resolveCall(n *ast.FuncCallExpr, name string, ovs []builtins.Overload) (*resolvedCall, error) {
	args, names, err := compileNamedArgs(c, n)
	if err != nil {
		return nil, err
	}
	cand, err := ChooseOverload(name, args, names, ovs)
	if err != nil {
		return nil, err
	}
	return c.applyCandidate(name, cand, args)
}

// callOperator compiles operator op of sql/builtins applied to its
// operands: two for an infix operator, one for a prefix one.
func (c *Compiler) callOperator(op string, operands ...Expr) (Expr, error) {
	cand, err := chooseOperator(op, argTypesOf(operands), c.installedOnly(builtins.LookupOperator(op), ""))
	if err != nil {
		return nil, err
	}
	call, err := c.applyCandidate(op, cand, operands)
	if err != nil {
		return nil, err
	}
	return call.expr(op), nil
}

// expr is the call as an expression, named name.
func (call *resolvedCall) expr(name string) Expr {
	o, fn := call.o, call.o.Fn
	if o.Typed != nil {
		fn = o.Typed(argTypesOf(call.args), call.ret)
	}
	return &FuncExpr{Name: name, ext: o.Extension, T: call.ret, Args: call.args, Strict: !o.CalledOnNull,
		Fn: func(e *Env, a []any) (any, error) { return fn(e, a) }}
}

// applyCandidate converts the arguments of a call of name to candidate
// cand's parameters, resolving its polymorphic types, and fills in
// defaults.
func (c *Compiler) applyCandidate(name string, cand candidate, args []Expr) (*resolvedCall, error) {
	o := cand.Overload
	if c.Volatility != nil {
		*c.Volatility = max(*c.Volatility, o.Volatility)
	}
	if c.Uses != nil && o.Extension != "" {
		c.Uses(name, o)
	}
	targets, ret, err := resolvePolymorphic(cand, argTypesOf(args))
	if err != nil {
		return nil, err
	}
	// The arguments in the order of the parameters, and after a variadic
	// one's first, the rest of its arguments in turn.
	nparams := len(o.Args)
	if o.Variadic {
		nparams = len(args)
	}
	params := make([]Expr, nparams)
	for j, i := range cand.param {
		if o.Variadic && i == len(o.Args)-1 {
			i = j
		}
		if params[i], err = c.Coerce(args[j], targets[j]); err != nil {
			return nil, err
		}
	}
	for i := range params {
		if params[i] != nil {
			continue
		}
		// A user-defined function's defaults are expressions.
		switch d := o.Defaults[i-(len(o.Args)-len(o.Defaults))].(type) {
		case Expr:
			if params[i], err = c.Coerce(d, o.Args[i]); err != nil {
				return nil, err
			}
		default:
			params[i] = &ConstExpr{T: o.Args[i], V: d}
		}
	}
	return &resolvedCall{o: o, args: params, ret: ret}, nil
}

// argTypesOf is the types of args.
func argTypesOf(args []Expr) []types.T {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	return ts
}

// compileNamedArgs compiles a call's arguments and the names of those
// given in named notation (name => value; "" for one by position),
// failing as PostgreSQL's parser does on a name given twice or a
// positional argument after a named one.
func compileNamedArgs(c *Compiler, n *ast.FuncCallExpr) ([]Expr, []string, error) {
	args, names := make([]Expr, len(n.Args)), make([]string, len(n.Args))
	named := false
	for j, a := range n.Args {
		name, value, ok := NamedArg(a)
		switch {
		case ok && slices.Contains(names[:j], name):
			return nil, nil, pgerr.New(pgerr.SyntaxError, "argument name \"%s\" used more than once", name)
		case ok:
			names[j], named = name, true
		case named:
			return nil, nil, pgerr.New(pgerr.SyntaxError, "positional argument cannot follow named argument")
		default:
			value = a
		}
		var err error
		if args[j], err = c.Compile(value); err != nil {
			return nil, nil, err
		}
	}
	return args, names, nil
}

// A candidate is an overload that a call's arguments fit by number and
// name: param[j] is the parameter argument j goes to.
type candidate struct {
	Overload *builtins.Overload
	param    []int
}

// bind matches a call's arguments to o's parameters, by position and
// then by name, as PostgreSQL does; every parameter left without an
// argument must have a default.
func bind(o *builtins.Overload, nargs int, names []string) (candidate, bool) {
	c := candidate{Overload: o, param: make([]int, nargs)}
	if nargs > len(o.Args) && !o.Variadic {
		return c, false
	}
	filled := make([]bool, len(o.Args))
	for j := range nargs {
		i := min(j, len(o.Args)-1)
		if names[j] != "" && o.Variadic && i == len(o.Args)-1 {
			return c, false
		}
		if names[j] != "" {
			if i = slices.Index(o.Params, names[j]); i < 0 || filled[i] {
				return c, false
			}
		}
		c.param[j], filled[i] = i, true
	}
	for i, f := range filled {
		if !f && i < len(o.Args)-len(o.Defaults) {
			return c, false
		}
	}
	return c, true
}

// ChooseOverload picks the overload of a call with arguments args (names
// as compileNamedArgs gives them), or fails as PostgreSQL does: 42883 if
// none accepts them, 42725 if the rules leave more than one.
func ChooseOverload(name string, args []Expr, names []string, ovs []builtins.Overload) (candidate, error) {
	cand, n := bestCandidates(argTypesOf(args), names, ovs)
	switch n {
	case 1:
		return cand, nil
	case 0:
		return candidate{}, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, namedArgTypes(args, names)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	return candidate{}, pgerr.New(pgerr.AmbiguousFunction, "function %s(%s) is not unique", name, namedArgTypes(args, names)).
		WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
}

// chooseOperator picks the overload of operator op applied to operands
// of types in (two for an infix operator, one for a prefix one), as
// PostgreSQL's operator type resolution does: first an exact match, an
// unknown operand of an infix one taken as the other's type; then as for
// functions.
func chooseOperator(op string, in []types.T, ovs []builtins.Overload) (candidate, error) {
	exact := slices.Clone(in)
	if len(in) == 2 {
		switch {
		case in[0].Oid == types.OidUnknown:
			exact[0] = in[1]
		case in[1].Oid == types.OidUnknown:
			exact[1] = in[0]
		}
	}
	var found []candidate
	for i := range ovs {
		o := &ovs[i]
		match := len(o.Args) == len(in)
		for j := 0; match && j < len(in); j++ {
			match = o.Args[j].Oid == exact[j].Oid
		}
		if match {
			found = append(found, candidate{Overload: o, param: []int{0, 1}[:len(in)]})
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	cand, n := bestCandidates(in, make([]string, len(in)), ovs)
	signature := strings.Join(append([]string{op}, typeNames(in)...), " ")
	if len(in) == 2 {
		signature = in[0].String() + " " + op + " " + in[1].String()
	}
	switch n {
	case 1:
		return cand, nil
	case 0:
		return candidate{}, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", signature).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	return candidate{}, pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s", signature).
		WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
}

func typeNames(ts []types.T) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return names
}

// bestCandidates narrows the overloads a call with arguments of types in
// (names as compileNamedArgs gives them) may mean, by PostgreSQL's rules,
// and returns how many are left, and the one if one is.
func bestCandidates(in []types.T, names []string, ovs []builtins.Overload) (candidate, int) {
	// The candidates: the right number and names of arguments, each of
	// which is the parameter's type, unknown, or converts to it
	// implicitly.
	var cands []candidate
	for i := range ovs {
		if c, ok := bind(&ovs[i], len(in), names); ok && acceptsAll(c, in) {
			cands = append(cands, c)
		}
	}
	// Keep those with the most exact matches; then those with the most
	// arguments that match exactly or go to a preferred type of their
	// own category. Unknown arguments count in neither.
	cands = keepMost(cands, func(c candidate) (n int) {
		for j, t := range in {
			if t.Oid == c.arg(j).Oid {
				n++
			}
		}
		return n
	})
	cands = keepMost(cands, func(c candidate) (n int) {
		for j, t := range in {
			cat, _ := typeCategory(t)
			pcat, pref := typeCategory(c.arg(j))
			if t.Oid != types.OidUnknown && (t.Oid == c.arg(j).Oid || pref && pcat == cat) {
				n++
			}
		}
		return n
	})
	if len(cands) <= 1 {
		return first(cands), len(cands)
	}
	// Unknown arguments: at each, the string category if a candidate
	// takes one there, else the one category all candidates take (if
	// they disagree, nothing is decided here), and then its preferred
	// type if a candidate takes it.
	cats := make([]byte, len(in))
	decided := true
	for j, t := range in {
		if t.Oid == types.OidUnknown {
			cats[j], decided = unknownCategory(cands, j)
			if !decided {
				break
			}
		}
	}
	if decided {
		for j, t := range in {
			if t.Oid == types.OidUnknown {
				cands = keepMost(cands, func(c candidate) int {
					cat, pref := typeCategory(c.arg(j))
					return btoi(cat == cats[j]) * (1 + btoi(pref))
				})
			}
		}
		if len(cands) <= 1 {
			return first(cands), len(cands)
		}
	}
	// The last rule: with known arguments all of one type, the unknown
	// ones are taken as that type too; one candidate that takes it there
	// is the call.
	known := types.Unknown
	for _, t := range in {
		switch {
		case t.Oid == types.OidUnknown:
		case known.Oid == types.OidUnknown:
			known = t
		case known.Oid != t.Oid:
			return candidate{}, len(cands)
		}
	}
	if known.Oid == types.OidUnknown {
		return candidate{}, len(cands)
	}
	var takers []candidate
	for _, c := range cands {
		ok := true
		for j, t := range in {
			ok = ok && (t.Oid != types.OidUnknown || implicitOK(known, c.arg(j)))
		}
		if ok {
			takers = append(takers, c)
		}
	}
	if len(takers) == 1 {
		return takers[0], 1
	}
	return candidate{}, len(cands)
}

func first(cands []candidate) candidate {
	if len(cands) == 0 {
		return candidate{}
	}
	return cands[0]
}

// arg is the type of the parameter that argument j goes to.
func (c candidate) arg(j int) types.T { return c.Overload.Args[c.param[j]] }

// namedArgTypes is a call's signature for a message: its argument types,
// each given by name shown as name => type.
func namedArgTypes(args []Expr, names []string) string {
	shown := make([]string, len(args))
	for j, a := range args {
		shown[j] = a.Type().String()
		if names[j] != "" {
			shown[j] = names[j] + " => " + shown[j]
		}
	}
	return strings.Join(shown, ", ")
}

// acceptsAll reports whether every argument converts to its parameter
// implicitly. Among the numeric types PostgreSQL converts implicitly only
// upwards, int2 → int4 → int8 → numeric → float4 → float8 (float4 to
// numeric is an assignment cast), which decides power(2.0, 3::float4);
// among the dates and timestamps too, date → timestamp → timestamptz.
func acceptsAll(c candidate, in []types.T) bool {
	for j, t := range in {
		p := c.arg(j)
		if builtins.IsPolymorphic(p) {
			continue
		}
		if from, to := numRank(t.Oid), numRank(p.Oid); from > 0 && to > 0 && from > to {
			return false
		}
		if from, to := timeRank(t.Oid), timeRank(p.Oid); from > 0 && to > 0 && from > to {
			return false
		}
		if !implicitOK(t, p) {
			return false
		}
	}
	if !slices.ContainsFunc(c.Overload.Args, builtins.IsPolymorphic) {
		return true
	}
	_, _, err := resolvePolymorphic(c, in)
	return !errors.Is(err, errInconsistent)
}

// errInconsistent is resolvePolymorphic's for arguments that do not fit
// a polymorphic signature: the overload is no candidate.
var errInconsistent = errors.New("inconsistent polymorphic arguments")

// resolvePolymorphic returns the type each argument of a call converts to
// under candidate c, and the result type, resolving c's pseudo-types from
// the argument types in as PostgreSQL's enforce_generic_type_consistency
// does: the AnyElement family's arguments agree exactly on one element
// type (an array's element, for AnyArray), the AnyCompatible family's
// convert to the common type of theirs; unknown literals take the type
// found, or for AnyCompatible, text.
func resolvePolymorphic(c candidate, in []types.T) ([]types.T, types.T, error) {
	elem, compat := types.Unknown, []types.T(nil)
	for j, t := range in {
		p := c.arg(j)
		if t.Oid == types.OidUnknown {
			continue
		}
		e, isArray := t.Elem()
		switch p.Oid {
		case types.OidAnyArray, types.OidAnyCompatibleArray:
			if !isArray {
				return nil, types.T{}, errInconsistent
			}
			t = e
		case types.OidAnyNonArray:
			if isArray {
				return nil, types.T{}, errInconsistent
			}
		case types.OidAnyEnum:
			if !types.IsEnum(t.Oid) {
				return nil, types.T{}, errInconsistent
			}
		case types.OidRecord:
			if _, rec := t.Fields(); !rec {
				return nil, types.T{}, errInconsistent
			}
		}
		switch p.Oid {
		case types.OidAnyElement, types.OidAnyArray, types.OidAnyNonArray, types.OidAnyEnum:
			if elem.Oid != types.OidUnknown && elem.Oid != t.Oid {
				return nil, types.T{}, errInconsistent
			}
			elem = types.T{Oid: t.Oid, Mod: -1}
		case types.OidAnyCompatible, types.OidAnyCompatibleArray:
			compat = append(compat, t)
		}
	}
	common := types.Text
	if compat != nil {
		var err error
		if common, err = selectCommonType("", compat); err != nil {
			return nil, types.T{}, errInconsistent
		}
		common.Mod = -1
		for _, t := range compat {
			if !castsImplicitly(t, common) {
				return nil, types.T{}, errInconsistent
			}
		}
	}
	// concrete is the type pseudo-type p stands for in this call.
	concrete := func(p types.T) (types.T, error) {
		var t types.T
		switch p.Oid {
		case types.OidAnyElement, types.OidAnyNonArray, types.OidAnyArray, types.OidAnyEnum:
			if elem.Oid == types.OidUnknown {
				return types.T{}, pgerr.New(pgerr.DatatypeMismatch,
					"could not determine polymorphic type because input has type unknown")
			}
			t = elem
		case types.OidAnyCompatible, types.OidAnyCompatibleArray:
			t = common
		default:
			return p, nil
		}
		if p.Oid == types.OidAnyArray || p.Oid == types.OidAnyCompatibleArray {
			at, ok := types.ArrayOf(t)
			if !ok {
				return types.T{}, errInconsistent
			}
			return at, nil
		}
		return t, nil
	}
	targets := make([]types.T, len(in))
	for j, t := range in {
		p := c.arg(j)
		switch {
		case p.Oid == types.OidAny && t.Oid == types.OidUnknown:
			targets[j] = types.Text
		case p.Oid == types.OidAny || p.Oid == types.OidRecord:
			targets[j] = t
		default:
			var err error
			if targets[j], err = concrete(p); err != nil {
				return nil, types.T{}, err
			}
			if targets[j].Oid == t.Oid || p.Oid == types.OidAnyArray && types.LowerBound(t) != types.LowerBound(targets[j]) {
				// An array keeps its bounds; an int2vector, PostgreSQL's
				// array from 0, stays one for anyarray.
				targets[j] = t
			}
		}
	}
	ret, err := concrete(c.Overload.Ret)
	return targets, ret, err
}

// keepMost keeps the candidates that score highest.
func keepMost(cands []candidate, score func(candidate) int) []candidate {
	best, out := -1, cands[:0:0]
	for _, o := range cands {
		switch s := score(o); {
		case s > best:
			best, out = s, append(out[:0], o)
		case s == best:
			out = append(out, o)
		}
	}
	return out
}

// unknownCategory is the type category an unknown argument at position i
// takes among the candidates: 'S' if any takes a string there, else the
// one category they all take; false if they disagree.
func unknownCategory(cands []candidate, j int) (byte, bool) {
	var cat byte
	for _, cand := range cands {
		c, _ := typeCategory(cand.arg(j))
		if c == 'S' {
			return 'S', true
		}
		if cat != 0 && c != cat {
			return 0, false
		}
		cat = c
	}
	return cat, true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (e *Env) Context() context.Context { return e.Ctx }

func (e *Env) Location() *time.Location { return e.Host.Location() }

func (e *Env) TransactionTime() time.Time { return e.Host.TransactionTime() }

func (e *Env) StatementTime() time.Time { return e.Host.StatementTime() }

func (e *Env) Setting(name string) (string, error) { return e.Host.Setting(name) }

func (e *Env) SetSetting(name, value string, local bool) error {
	return e.Host.SetSetting(name, value, local)
}

func (e *Env) Session() builtins.Session {
	return e.Host.Identity()
}

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
