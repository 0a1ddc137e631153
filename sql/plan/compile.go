package plan

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Scope is the set of columns an expression can name: the columns of the
// row it will be evaluated against, in order.
type Scope struct {
	Cols []ScopeCol
}

type ScopeCol struct {
	Table string // the table's name or alias, "" for computed columns
	Name  string
	T     types.T
	// TableOID and AttNum describe a column that comes straight from a
	// table, for RowDescription.
	TableOID uint32
	AttNum   int16
	// merged marks the right side's copy of a JOIN USING column: only a
	// qualified name reads it, and SELECT * shows the left side's.
	merged bool
	// funcValue marks the column of a function in FROM that returns
	// scalars: the FROM item's name reads it, not a record of it.
	funcValue bool
	// hiddenExpr is the expression a hidden column of an index on an
	// expression computes, as StoredExpr prints it (see matchHidden).
	hiddenExpr string
}

func (sc *Scope) resolve(table, name string) (int, *ScopeCol, error) {
	found := -1
	for i := range sc.Cols {
		c := &sc.Cols[i]
		if c.Name != name || (table != "" && c.Table != table) || table == "" && c.merged {
			continue
		}
		if found >= 0 {
			return 0, nil, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
		}
		found = i
	}
	if found < 0 {
		if table != "" {
			return 0, nil, pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name)
		}
		return 0, nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
	}
	return found, &sc.Cols[found], nil
}

// Compiler turns TiDB expression ASTs into typed exprs.
type Compiler struct {
	Host   Host
	Params *[]types.T // inferred parameter types, shared by the whole statement
	Order  []int      // TiDB marker order → parameter index
	Scope  *Scope
	// agg, when set, compiles in the post-aggregation scope of a grouped
	// query: aggregates become slots, GROUP BY expressions become columns.
	agg *aggPlan
	// outer compiles the enclosing query of a subquery, whose columns the
	// subquery may read; lvl records what this query level reads from
	// outside. Both are nil at the top of a statement. See subquery.go.
	outer *Compiler
	lvl   *level
	// ctes are the WITH queries in scope, innermost first.
	ctes *cteScope
	// subs, when set, collects the subqueries compiled into the plan being
	// built, for EXPLAIN.
	subs *[]*subquery
	// win and srf, when set, are the window and set-returning steps whose
	// columns the select list reads. See window.go and srf.go.
	win *winPlan
	srf *srfPlan
	// rowSubqueries are the subqueries of UPDATE's SET (a, b) = (SELECT
	// ...), by the parser's key, shared by the columns that read them.
	rowSubqueries map[int64]*rowSubquery
	// Clause names the clause being compiled, when errors about what it
	// may not hold name it, as PostgreSQL's do: "RETURNING".
	Clause string
	// WithDML are the data-modifying statements of the statement's own
	// WITH clause; nil below its top level (see dmlcte.go).
	WithDML []*parser.Statement
	// views are the views whose queries are being planned, innermost
	// last: one that reads itself is an error.
	views []uint32
	// path, when set, is the search path names are looked up on in place
	// of the session's: a view's (see view.go).
	path *catalog.Path
	// Vars, when set, resolves the names that are no column: a routine's
	// parameters and variables (see routine.go).
	Vars Vars
	// volatility, when set, collects the highest volatility of the
	// built-in functions compiled, for the expressions that must be
	// immutable: generated columns and index expressions and predicates.
	Volatility *builtins.Volatility
	// Uses, when set, is told of each overload of an extension's that is
	// compiled, function, operator or aggregate, with the name it is
	// called by: what keeps a stored expression's extension installed.
	Uses func(name string, o *builtins.Overload)
	// ExtensionsOnPath finds the functions and operators of extensions
	// only in the schemas on the search path, as PostgreSQL looks for them
	// in the statement it parses. Without it, stored expressions find them
	// in any schema: PostgreSQL binds those when they are made, and they
	// must compile the same under pg_dump's empty search path.
	ExtensionsOnPath bool
	// opSchema is the schema an OPERATOR(schema.op) being compiled names,
	// where the operator's extension must be.
	opSchema string
	// inlined, when set, is the call of a SQL function whose body is
	// being compiled in its place (see inline.go).
	inlined *inlining
}

func (c *Compiler) WithScope(sc *Scope) *Compiler {
	cc := *c
	cc.Scope = sc
	cc.agg = nil
	return &cc
}

func (c *Compiler) Compile(n ast.ExprNode) (Expr, error) {
	if c.agg != nil {
		if i, ok := c.agg.groupIndex(n); ok {
			return &ColExpr{T: c.agg.groupTypes[i], Index: i}, nil
		}
	}
	if c.Scope != nil {
		if e, ok := c.matchHidden(n); ok {
			return e, nil
		}
	}
	switch n := n.(type) {
	case *ast.ParenthesesExpr:
		return c.Compile(n.Expr)
	case *driver.ParamMarkerExpr:
		idx := n.Order
		if idx < len(c.Order) {
			idx = c.Order[idx]
		}
		if c.inlined != nil {
			return c.inlined.arg(idx)
		}
		p := &ParamExpr{Index: idx, types: c.Params}
		if idx < len(*c.Params) && types.HasEnum((*c.Params)[idx]) {
			// A parameter of an enum type the client named arrives as
			// a label.
			return c.toEnum(p, (*c.Params)[idx], false)
		}
		return p, nil
	case *driver.ValueExpr:
		return literal(n)
	case *ast.ColumnNameExpr:
		return c.column(n)
	case *ast.UnaryOperationExpr:
		return c.unary(n)
	case *ast.BinaryOperationExpr:
		return c.binary(n)
	case *ast.IsNullExpr:
		e, err := c.Compile(n.Expr)
		if err != nil {
			return nil, err
		}
		return &isNullExpr{e: e, not: n.Not}, nil
	case *ast.IsTruthExpr:
		e, err := c.CompileAs(n.Expr, types.Bool)
		if err != nil {
			return nil, err
		}
		return &isTruthExpr{e: e, truth: n.True != 0, not: n.Not}, nil
	case *ast.BetweenExpr:
		return c.between(n)
	case *ast.PatternInExpr:
		return c.in(n)
	case *ast.PatternLikeOrIlikeExpr:
		return c.like(n)
	case *ast.CaseExpr:
		return c.caseExpr(n)
	case *ast.FuncCallExpr:
		if a, ok := asAggregate(n); ok {
			return c.Compile(a)
		}
		if err := c.notAggregate(n); err != nil {
			return nil, err
		}
		return c.call(n)
	case *ast.AggregateFuncExpr:
		if c.agg == nil {
			if c.Clause != "" {
				return nil, pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", c.Clause)
			}
			return nil, pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed here")
		}
		return c.agg.add(c, n)
	case *ast.DefaultExpr:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DEFAULT is not allowed in this context")
	case *ast.SubqueryExpr:
		return c.scalarSubquery(n)
	case *ast.ExistsSubqueryExpr:
		return c.exists(n)
	case *ast.CompareSubqueryExpr:
		return c.quantified(n.L, cmpOps[n.Op], n.All, n.R)
	case *ast.WindowFuncExpr:
		return c.windowRef(n)
	case *ast.RowExpr:
		return c.rowValue(n)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "expression %s is not supported", Restore(n))
}

// CompileAs compiles n and coerces it to t.
func (c *Compiler) CompileAs(n ast.ExprNode, t types.T) (Expr, error) {
	e, err := c.Compile(n)
	if err != nil {
		return nil, err
	}
	return c.Coerce(e, t)
}

func literal(v *driver.ValueExpr) (Expr, error) {
	switch x := v.GetValue().(type) {
	case nil:
		return &ConstExpr{T: types.Unknown}, nil
	case int64:
		// TiDB turns TRUE and FALSE into 1 and 0, but flags them.
		if v.Type.GetFlag()&mysql.IsBooleanFlag != 0 {
			return &ConstExpr{T: types.Bool, V: x != 0}, nil
		}
		if x >= -1<<31 && x < 1<<31 {
			return &ConstExpr{T: types.Int4, V: x}, nil
		}
		return &ConstExpr{T: types.Int8, V: x}, nil
	case uint64, float64, *driver.MyDecimal:
		var text string
		switch x := x.(type) {
		case uint64:
			text = strconv.FormatUint(x, 10)
		case float64:
			text = strconv.FormatFloat(x, 'g', -1, 64)
		case *driver.MyDecimal:
			text = x.String()
		}
		d, _, err := apd.NewFromString(text)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid numeric literal %s", text)
		}
		return &ConstExpr{T: types.Numeric, V: d}, nil
	case string:
		return &unknownExpr{s: x}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "literal %s is not supported", Restore(v))
}

// LiteralOf compiles a literal of the parser's fast path as literal
// compiles the same literal in TiDB's AST.
func LiteralOf(lit parser.Literal) (Expr, error) {
	switch lit.Kind {
	case parser.LitNull:
		return &ConstExpr{T: types.Unknown}, nil
	case parser.LitString:
		return &unknownExpr{s: lit.Text}, nil
	case parser.LitTrue, parser.LitFalse:
		return &ConstExpr{T: types.Bool, V: lit.Kind == parser.LitTrue}, nil
	case parser.LitInteger:
		i, err := strconv.ParseInt(lit.Text, 10, 64)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid integer literal %s", lit.Text)
		}
		if i >= -1<<31 && i < 1<<31 {
			return &ConstExpr{T: types.Int4, V: i}, nil
		}
		return &ConstExpr{T: types.Int8, V: i}, nil
	case parser.LitDecimal:
		d, _, err := apd.NewFromString(lit.Text)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid numeric literal %s", lit.Text)
		}
		if d.IsZero() {
			d.Negative = false // numeric has no -0: -0.0 is 0.0, as negating 0.0 gives
		}
		return &ConstExpr{T: types.Numeric, V: d}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "DEFAULT is not allowed in this context")
}

// Type families, for PostgreSQL's implicit conversions.
func numRank(o types.Oid) int {
	switch o {
	case types.OidInt2:
		return 1
	case types.OidInt4:
		return 2
	case types.OidInt8:
		return 3
	case types.OidNumeric:
		return 4
	case types.OidFloat4:
		return 5
	case types.OidFloat8:
		return 6
	}
	return 0
}

func IsString(o types.Oid) bool {
	return o == types.OidText || o == types.OidVarchar || o == types.OidBpchar || o == types.OidName || o == types.OidCitext
}

func isJSON(o types.Oid) bool { return o == types.OidJSON || o == types.OidJSONB }

func isInet(o types.Oid) bool { return o == types.OidInet || o == types.OidCidr }

func isMac(o types.Oid) bool { return o == types.OidMacaddr || o == types.OidMacaddr8 }

// isNetwork reports whether o is one of the network address types, whose
// operators sql/builtins has.
func isNetwork(o types.Oid) bool {
	return isInet(o) || isMac(o)
}

func timeRank(o types.Oid) int {
	switch o {
	case types.OidDate:
		return 1
	case types.OidTimestamp:
		return 2
	case types.OidTimestamptz:
		return 3
	}
	return 0
}

// unify picks the type two operands are compared or combined in.
// comparisonType is the type two operands of a comparison meet in: as
// unify, except that char(n) against varchar compares as char(n), trailing
// spaces not counting, since varchar has no operators of its own and
// PostgreSQL picks bpchar's (against text it picks text's).
func comparisonType(a, b types.T) (types.T, bool) {
	if a.Oid == types.OidJSON || b.Oid == types.OidJSON {
		return types.T{}, false // json has no equality, let alone order
	}
	if a.Oid == types.OidRecord && b.Oid == types.OidRecord {
		return recordComparisonType(a, b)
	}
	if a.Oid == types.OidBpchar && b.Oid == types.OidVarchar || a.Oid == types.OidVarchar && b.Oid == types.OidBpchar {
		return types.T{Oid: types.OidBpchar, Mod: -1}, true
	}
	if a.Oid == types.OidTime && b.Oid == types.OidInterval || a.Oid == types.OidInterval && b.Oid == types.OidTime {
		// time converts to interval implicitly, though UNION does not mix them.
		return types.IntervalType, true
	}
	return unify(a, b)
}

// recordComparisonType is the type two records compare in: either's, if
// their fields have the same types, which types.Compare needs to know.
// Records of other shapes do not compare.
func recordComparisonType(a, b types.T) (types.T, bool) {
	fa, okA := a.Fields()
	fb, okB := b.Fields()
	if !okA || !okB || len(fa) != len(fb) {
		return types.T{}, false
	}
	for i := range fa {
		if fa[i].T.Oid != fb[i].T.Oid {
			return types.T{}, false
		}
	}
	return a, true
}

func unify(a, b types.T) (types.T, bool) {
	au, bu := a.Oid == types.OidUnknown, b.Oid == types.OidUnknown
	switch {
	case au && bu:
		return types.Text, true
	case au:
		return types.T{Oid: b.Oid, Mod: -1}, true
	case bu:
		return types.T{Oid: a.Oid, Mod: -1}, true
	case a.Oid == b.Oid:
		return types.T{Oid: a.Oid, Mod: -1}, true
	}
	if ra, rb := numRank(a.Oid), numRank(b.Oid); ra > 0 && rb > 0 {
		t := b
		if ra > rb {
			t = a
		}
		if t.Oid == types.OidFloat4 {
			// float4 meets another type only in float8.
			return types.Float8, true
		}
		return types.T{Oid: t.Oid, Mod: -1}, true
	}
	if IsString(a.Oid) && IsString(b.Oid) {
		return types.Text, true
	}
	if ra, rb := timeRank(a.Oid), timeRank(b.Oid); ra > 0 && rb > 0 {
		if ra > rb {
			return types.T{Oid: a.Oid, Mod: -1}, true
		}
		return types.T{Oid: b.Oid, Mod: -1}, true
	}
	if isInet(a.Oid) && isInet(b.Oid) {
		return types.InetType, true // cidr is an inet
	}
	return unifyOids(a, b)
}

// implicitOK reports whether PostgreSQL converts from to to without an
// explicit cast (assignment or implicit context).
func implicitOK(from, to types.T) bool {
	if from.Oid == to.Oid || from.Oid == types.OidUnknown {
		return true
	}
	if numRank(from.Oid) > 0 && numRank(to.Oid) > 0 {
		return true
	}
	if IsString(from.Oid) && IsString(to.Oid) {
		return true
	}
	if from.Oid == types.OidTime && to.Oid == types.OidInterval {
		return true
	}
	return timeRank(from.Oid) > 0 && timeRank(to.Oid) > 0 || oidCoercible(from, to) || arrayCoercible(from, to) ||
		slices.Contains(implicitCasts[from.Oid], to.Oid)
}

// assignmentOnly reports whether PostgreSQL has a cast from from to to
// that it applies in assignment but not in expressions: to a string type
// through text, between json and jsonb, to time from the types that
// carry a time of day, and from inet to cidr.
func assignmentOnly(from, to types.T) bool {
	switch {
	case to.Oid == types.OidCidr:
		return from.Oid == types.OidInet
	case IsString(to.Oid):
		return from.Oid != types.OidUnknown && !implicitOK(from, to)
	case isJSON(from.Oid) && isJSON(to.Oid):
		return from.Oid != to.Oid
	case to.Oid == types.OidTime:
		return from.Oid == types.OidTimestamp || from.Oid == types.OidTimestamptz || from.Oid == types.OidInterval
	}
	return false
}

// Coerce converts e to t: an unknown literal is parsed as t now, an
// untyped parameter takes t as its type, anything else is cast if PostgreSQL
// would do so implicitly.
func (c *Compiler) Coerce(e Expr, t types.T) (Expr, error) {
	et := e.Type()
	if et.Oid == t.Oid && (t.Mod < 0 || et.Mod == t.Mod) {
		return e, nil
	}
	if types.IsReg(t.Oid) {
		return c.toReg(e, t)
	}
	if types.HasEnum(t) {
		return c.toEnum(e, t, false)
	}
	switch x := e.(type) {
	case *unknownExpr:
		v, err := types.ParseText(t, x.s, c.Host.Location())
		if err != nil {
			return nil, err
		}
		return &ConstExpr{T: t, V: v}, nil
	case *ConstExpr:
		if x.V == nil {
			return &ConstExpr{T: t}, nil
		}
	case *ParamExpr:
		if et.Oid == types.OidUnknown {
			(*c.Params)[x.Index] = types.T{Oid: t.Oid, Mod: -1}
			if t.Mod < 0 {
				return e, nil
			}
			return &castExpr{e: e, from: (*c.Params)[x.Index], to: t}, nil
		}
	}
	if !implicitOK(et, t) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "column is of type %s but expression is of type %s", t, et).
			WithHint("You will need to rewrite or cast the expression.")
	}
	return &castExpr{e: e, from: et, to: t}, nil
}

// Assign converts e to a column's type t for INSERT or UPDATE: as coerce
// does, and also with the casts PostgreSQL allows in assignment only.
func (c *Compiler) Assign(e Expr, t types.T) (Expr, error) {
	if et := e.Type(); assignmentOnly(et, t) {
		return &castExpr{e: e, from: et, to: t}, nil
	}
	return c.Coerce(e, t)
}

// CompileAssign compiles n and converts it to a column's type t.
func (c *Compiler) CompileAssign(n ast.ExprNode, t types.T) (Expr, error) {
	e, err := c.Compile(n)
	if err != nil {
		return nil, err
	}
	return c.Assign(e, t)
}

// ResolveUnknown gives an expression that still has no type the type text,
// as PostgreSQL does for output columns and function arguments.
func (c *Compiler) ResolveUnknown(e Expr) (Expr, error) {
	if e.Type().Oid == types.OidUnknown {
		return c.Coerce(e, types.Text)
	}
	return e, nil
}

func (c *Compiler) unary(n *ast.UnaryOperationExpr) (Expr, error) {
	switch n.Op {
	case opcode.Not, opcode.Not2:
		e, err := c.CompileAs(n.V, types.Bool)
		if err != nil {
			return nil, err
		}
		return &notExpr{e: e}, nil
	case opcode.Minus:
		if v, ok := n.V.(*driver.ValueExpr); ok {
			// Fold -literal so that -2147483648 is an int4, and
			// -9223372036854775808 an int8, as in PostgreSQL.
			switch i := v.GetValue().(type) {
			case int64:
				if -i >= -1<<31 {
					return &ConstExpr{T: types.Int4, V: -i}, nil
				}
				return &ConstExpr{T: types.Int8, V: -i}, nil
			case uint64:
				if i == 1<<63 {
					return &ConstExpr{T: types.Int8, V: int64(math.MinInt64)}, nil
				}
			}
		}
		e, err := c.Compile(n.V)
		if err != nil {
			return nil, err
		}
		switch e.Type().Oid {
		case types.OidUnknown:
			if e, err = c.Coerce(e, types.Numeric); err != nil {
				return nil, err
			}
		case types.OidTime:
			// -time is -interval, by time's implicit cast.
			e = &castExpr{e: e, from: e.Type(), to: types.IntervalType}
		}
		return &negExpr{e: e}, nil
	case opcode.Plus:
		return c.Compile(n.V)
	case opcode.BitNeg:
		e, err := c.Compile(n.V)
		if err != nil {
			return nil, err
		}
		return c.callOperator("~", e)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "operator %s is not supported", n.Op)
}

var cmpOps = map[opcode.Op]string{
	opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<", opcode.LE: "<=", opcode.GT: ">", opcode.GE: ">=",
}

var arithOps = map[opcode.Op]byte{
	opcode.Plus: '+', opcode.Minus: '-', opcode.Mul: '*', opcode.Div: '/', opcode.Mod: '%', opcode.IntDiv: '/',
}

// bitOps are the bitwise operators, which sql/builtins has, by TiDB's
// opcodes (its ^ is PostgreSQL's #).
var bitOps = map[opcode.Op]string{
	opcode.And: "&", opcode.Or: "|", opcode.Xor: "#", opcode.LeftShift: "<<", opcode.RightShift: ">>",
}

func (c *Compiler) binary(n *ast.BinaryOperationExpr) (Expr, error) {
	switch n.Op {
	case opcode.LogicAnd, opcode.LogicOr:
		l, err := c.CompileAs(n.L, types.Bool)
		if err != nil {
			return nil, err
		}
		r, err := c.CompileAs(n.R, types.Bool)
		if err != nil {
			return nil, err
		}
		return &logicExpr{and: n.Op == opcode.LogicAnd, l: l, r: r}, nil
	}
	if lr, ok := n.L.(*ast.RowExpr); ok {
		if rr, ok := n.R.(*ast.RowExpr); ok {
			if op, ok := cmpOps[n.Op]; ok {
				return c.rowCompare(op, lr, rr)
			}
		}
	}
	l, err := c.Compile(n.L)
	if err != nil {
		return nil, err
	}
	r, err := c.Compile(n.R)
	if err != nil {
		return nil, err
	}
	if op, ok := cmpOps[n.Op]; ok {
		return c.comparison(op, l, r)
	}
	if n.Op == opcode.NullEQ {
		return c.comparison("IS NOT DISTINCT FROM", l, r) // the parser writes it as a <=> b
	}
	if op, ok := arithOps[n.Op]; ok {
		return c.arith(op, l, r)
	}
	if op, ok := bitOps[n.Op]; ok {
		return c.callOperator(op, l, r)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "operator %s is not supported", n.Op)
}

// comparison compiles l op r for the comparison operators and IS NOT
// DISTINCT FROM: both sides in the type they compare in.
func (c *Compiler) comparison(op string, l, r Expr) (Expr, error) {
	t, ok := c.citextOps(comparisonType(l.Type(), r.Type()))
	if !ok {
		lt, rt := l.Type(), r.Type()
		if isMac(lt.Oid) && isMac(rt.Oid) {
			// Each converts to the other implicitly, so both types'
			// operators match equally well.
			return nil, pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s %s %s", lt, op, rt).
				WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
		}
		return nil, noOperator(op, lt, rt)
	}
	var err error
	if l, err = c.Coerce(l, t); err != nil {
		return nil, err
	}
	if r, err = c.Coerce(r, t); err != nil {
		return nil, err
	}
	if op == "IS NOT DISTINCT FROM" {
		return &notDistinctExpr{t: t, l: l, r: r}, nil
	}
	return &cmpExpr{op: op, t: t, l: l, r: r}, nil
}

// arith compiles l op r for + - * / %: the numbers' arithmetic here, and
// those of the date and time types, the network types and jsonb's - by sql/builtins'
// operators, which an untyped literal beside one resolves against too.
func (c *Compiler) arith(op byte, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	// % of strings is pg_trgm's, or no operator; of two untyped strings
	// too, once pg_trgm has one, which takes the string category first.
	bothUnknown := lt.Oid == types.OidUnknown && rt.Oid == types.OidUnknown
	if op == '%' && (IsString(lt.Oid) || IsString(rt.Oid) || bothUnknown && c.installed("pg_trgm", "")) {
		return c.callOperator("%", l, r)
	}
	if datetimeOperand(lt) || datetimeOperand(rt) || op == '-' && lt.Oid == types.OidJSONB || isNetwork(lt.Oid) || isNetwork(rt.Oid) {
		e, err := c.callOperator(string(op), l, r)
		if f, ok := e.(*FuncExpr); ok {
			f.op = op // deparsed as arithmetic, not as a function
		}
		return e, err
	}
	t, ok := unify(lt, rt)
	if !ok || numRank(t.Oid) == 0 {
		if t.Oid == types.OidText && lt.Oid == types.OidUnknown && rt.Oid == types.OidUnknown {
			t, ok = types.Numeric, true
		} else {
			return nil, noOperator(string(op), lt, rt)
		}
	}
	var err error
	if l, err = c.Coerce(l, t); err != nil {
		return nil, err
	}
	if r, err = c.Coerce(r, t); err != nil {
		return nil, err
	}
	return &arithExpr{op: op, t: t, l: l, r: r}, nil
}

// datetimeOperand reports whether t is a date or time type, whose
// arithmetic sql/builtins has.
func datetimeOperand(t types.T) bool {
	return timeRank(t.Oid) > 0 || t.Oid == types.OidTime || t.Oid == types.OidInterval
}

func noOperator(op string, l, r types.T) error {
	return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", l, op, r).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

func (c *Compiler) between(n *ast.BetweenExpr) (Expr, error) {
	e, err := c.Compile(n.Expr)
	if err != nil {
		return nil, err
	}
	lo, err := c.Compile(n.Left)
	if err != nil {
		return nil, err
	}
	hi, err := c.Compile(n.Right)
	if err != nil {
		return nil, err
	}
	t, ok := unify(e.Type(), lo.Type())
	if ok {
		t, ok = c.citextOps(unify(t, hi.Type()))
	}
	if !ok {
		return nil, noOperator(">=", e.Type(), lo.Type())
	}
	for _, p := range []*Expr{&e, &lo, &hi} {
		if *p, err = c.Coerce(*p, t); err != nil {
			return nil, err
		}
	}
	if n.Not {
		// As PostgreSQL rewrites it, and prints it.
		return &logicExpr{l: &cmpExpr{op: "<", t: t, l: e, r: lo}, r: &cmpExpr{op: ">", t: t, l: e, r: hi}}, nil
	}
	return &logicExpr{and: true, l: &cmpExpr{op: ">=", t: t, l: e, r: lo}, r: &cmpExpr{op: "<=", t: t, l: e, r: hi}}, nil
}

func (c *Compiler) in(n *ast.PatternInExpr) (Expr, error) {
	if n.Sel != nil {
		// x IN (subquery) is x = ANY (subquery); NOT IN is its negation.
		e, err := c.quantified(n.Expr, "=", false, n.Sel)
		if err != nil || !n.Not {
			return e, err
		}
		return &notExpr{e: e}, nil
	}
	if row, ok := n.Expr.(*ast.RowExpr); ok {
		return c.rowIn(row, n.List, n.Not)
	}
	e, err := c.Compile(n.Expr)
	if err != nil {
		return nil, err
	}
	list := make([]Expr, len(n.List))
	t := e.Type()
	for i, item := range n.List {
		if list[i], err = c.Compile(item); err != nil {
			return nil, err
		}
		var ok bool
		if t, ok = unify(t, list[i].Type()); !ok {
			return nil, noOperator("=", e.Type(), list[i].Type())
		}
	}
	t, _ = c.citextOps(t, true)
	if e, err = c.Coerce(e, t); err != nil {
		return nil, err
	}
	for i := range list {
		if list[i], err = c.Coerce(list[i], t); err != nil {
			return nil, err
		}
	}
	return &inExpr{t: t, e: e, list: list, not: n.Not}, nil
}

func (c *Compiler) like(n *ast.PatternLikeOrIlikeExpr) (Expr, error) {
	e, err := c.Compile(n.Expr)
	if err != nil {
		return nil, err
	}
	p, err := c.Compile(n.Pattern)
	if err != nil {
		return nil, err
	}
	// TiDB's default escape is '\\', which is PostgreSQL's too.
	return c.likeOf(e, p, n.Not, !n.IsLike, rune(n.Escape))
}

// likeOf compiles e [NOT] LIKE p, or with ci ILIKE.
func (c *Compiler) likeOf(e, p Expr, not, ci bool, escape rune) (Expr, error) {
	// citext's ~~ operators, of citext and citext or text, ignore case;
	// an untyped operand beside a citext one is citext.
	var err error
	et, pt := e.Type().Oid, p.Type().Oid
	citext := (et == types.OidCitext || et == types.OidUnknown && pt == types.OidCitext) && c.installed("citext", "")
	as := func(o types.Oid) types.T {
		if citext && (o == types.OidUnknown || o == types.OidCitext) {
			return types.Citext
		}
		return types.Text
	}
	if e, err = c.Coerce(e, as(et)); err != nil {
		return nil, err
	}
	if p, err = c.Coerce(p, as(pt)); err != nil {
		return nil, err
	}
	return &likeExpr{e: e, pattern: p, not: not, ci: ci, fold: citext, escape: escape}, nil
}

func (c *Compiler) caseExpr(n *ast.CaseExpr) (Expr, error) {
	ce := &caseExpr{}
	var err error
	if n.Value != nil {
		if ce.operand, err = c.Compile(n.Value); err != nil {
			return nil, err
		}
		ce.opType = ce.operand.Type()
	}
	results := make([]Expr, 0, len(n.WhenClauses)+1)
	for _, w := range n.WhenClauses {
		var cond Expr
		if ce.operand != nil {
			if cond, err = c.Compile(w.Expr); err != nil {
				return nil, err
			}
			t, ok := unify(ce.opType, cond.Type())
			if !ok {
				return nil, noOperator("=", ce.opType, cond.Type())
			}
			ce.opType = t
		} else if cond, err = c.CompileAs(w.Expr, types.Bool); err != nil {
			return nil, err
		}
		ce.whens = append(ce.whens, cond)
		res, err := c.Compile(w.Result)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	if n.ElseClause != nil {
		els, err := c.Compile(n.ElseClause)
		if err != nil {
			return nil, err
		}
		results = append(results, els)
	}
	if ce.operand != nil {
		ce.opType, _ = c.citextOps(ce.opType, true)
		if ce.operand, err = c.Coerce(ce.operand, ce.opType); err != nil {
			return nil, err
		}
		for i := range ce.whens {
			if ce.whens[i], err = c.Coerce(ce.whens[i], ce.opType); err != nil {
				return nil, err
			}
		}
	}
	// PostgreSQL weighs the ELSE branch first.
	thens := results[:len(n.WhenClauses)]
	ts := make([]types.T, 0, len(results))
	if n.ElseClause != nil {
		ts = append(ts, results[len(results)-1].Type())
	}
	for _, e := range thens {
		ts = append(ts, e.Type())
	}
	if ce.t, err = selectCommonType("CASE", ts); err != nil {
		return nil, err
	}
	if n.ElseClause != nil {
		if err := c.toCommonType("CASE/ELSE", results[len(results)-1:], ce.t); err != nil {
			return nil, err
		}
		ce.els = results[len(results)-1]
	}
	if err := c.toCommonType("CASE/WHEN", thens, ce.t); err != nil {
		return nil, err
	}
	ce.thens = thens
	return ce, nil
}

// commonType resolves a list of branches (COALESCE, GREATEST, ARRAY[...],
// VALUES columns) to their common type and converts each to it, in place.
func (c *Compiler) commonType(what string, es []Expr) (types.T, error) {
	ts := make([]types.T, len(es))
	for i, e := range es {
		ts[i] = e.Type()
	}
	t, err := selectCommonType(what, ts)
	if err != nil {
		return types.T{}, err
	}
	return t, c.toCommonType(what, es, t)
}

// Restore prints an AST node back as SQL; it keys GROUP BY matching and
// default expressions. A string literal prints without TiDB's charset
// introducer, which the literal only carries when it comes from DDL.
func Restore(n ast.Node) string {
	var sb strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreStringWithoutCharset|
		format.RestoreKeyWordLowercase|format.RestoreNameDoubleQuotes, &sb)
	if err := n.Restore(ctx); err != nil {
		return "?"
	}
	return sb.String()
}

func columnText(n *ast.ColumnName) string {
	if n.Table.O != "" {
		return n.Table.O + "." + n.Name.O
	}
	return n.Name.O
}
