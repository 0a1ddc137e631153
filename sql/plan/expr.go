package plan

import (
	"context"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// Expr is a typed, compiled scalar expression. Compilation resolves names,
// infers types the way PostgreSQL does (including parameter types), and
// inserts implicit casts, so Eval only computes.
type Expr interface {
	Type() types.T
	Eval(env *Env) (any, error)
}

// Env is what an expression reads while it runs: the current row, the
// bound parameters, and the session; x is the execution the row belongs
// to, through which a subquery reaches the rows of enclosing queries.
type Env struct {
	Ctx    context.Context
	Row    []any
	params []any
	Host   Host
	x      *ExecCtx
}

// ConstExpr is a constant.
type ConstExpr struct {
	T types.T
	V any
}

func (c *ConstExpr) Type() types.T { return c.T }

func (c *ConstExpr) Eval(*Env) (any, error) { return c.V, nil }

// unknownExpr is a string literal whose type the context decides, as with
// PostgreSQL's "unknown" literals: '5' compared with an int4 column is 5.
type unknownExpr struct{ s string }

func (u *unknownExpr) Type() types.T { return types.Unknown }

func (u *unknownExpr) Eval(*Env) (any, error) { return u.s, nil }

// ColExpr reads column idx of the current row.
type ColExpr struct {
	T     types.T
	Index int
}

func (c *ColExpr) Type() types.T { return c.T }

func (c *ColExpr) Eval(e *Env) (any, error) { return e.Row[c.Index], nil }

// ParamExpr reads a bound parameter. Its type is shared with the planner's
// parameter list, so inference that happens after it was compiled (the
// other side of a comparison) is seen.
type ParamExpr struct {
	Index int
	types *[]types.T
}

func (p *ParamExpr) Type() types.T {
	t := (*p.types)[p.Index]
	if t.Oid == 0 {
		return types.Unknown
	}
	return t
}

func (p *ParamExpr) Eval(e *Env) (any, error) { return e.params[p.Index], nil }

// castExpr converts between types: explicitly (CAST, ::), or implicitly,
// as PostgreSQL does when it converts an operand or an assigned value.
type castExpr struct {
	e        Expr
	from, to types.T
	explicit bool
}

func (c *castExpr) Type() types.T { return c.to }

func (c *castExpr) Eval(e *Env) (any, error) {
	v, err := c.e.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	from := c.from
	if from.Oid == types.OidUnknown {
		from = types.Text
	}
	if c.explicit {
		return types.Cast(v, from, c.to, e.Host.Location())
	}
	return types.CastImplicit(v, from, c.to, e.Host.Location())
}

// FuncExpr calls a built-in scalar function. Unless lazy, NULL arguments
// are evaluated first and, for strict functions, give NULL.
type FuncExpr struct {
	Name   string
	op     byte   // for an operator computed by a function (date + interval): how it prints
	ext    string // the extension whose function it is, which names it with its schema
	T      types.T
	Args   []Expr
	Strict bool
	Fn     func(e *Env, args []any) (any, error)
}

func (f *FuncExpr) Type() types.T { return f.T }

func (f *FuncExpr) Eval(e *Env) (any, error) {
	vals := make([]any, len(f.Args))
	for i, a := range f.Args {
		v, err := a.Eval(e)
		if err != nil {
			return nil, err
		}
		if v == nil && f.Strict {
			return nil, nil
		}
		vals[i] = v
	}
	return f.Fn(e, vals)
}

// cmpExpr compares two values of one type; NULL in gives NULL out.
type cmpExpr struct {
	op   string
	t    types.T
	l, r Expr
}

func (c *cmpExpr) Type() types.T { return types.Bool }

func (c *cmpExpr) Eval(e *Env) (any, error) {
	l, err := c.l.Eval(e)
	if err != nil || l == nil {
		return nil, err
	}
	r, err := c.r.Eval(e)
	if err != nil || r == nil {
		return nil, err
	}
	return cmpResult(c.op, types.Compare(c.t, l, r)), nil
}

func cmpResult(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	default: // ">="
		return c >= 0
	}
}

// notDistinctExpr is IS NOT DISTINCT FROM: equality that treats NULLs as
// equal to each other, and is never NULL itself.
type notDistinctExpr struct {
	t    types.T
	l, r Expr
}

func (n *notDistinctExpr) Type() types.T { return types.Bool }

func (n *notDistinctExpr) Eval(e *Env) (any, error) {
	l, err := n.l.Eval(e)
	if err != nil {
		return nil, err
	}
	r, err := n.r.Eval(e)
	if err != nil {
		return nil, err
	}
	if l == nil || r == nil {
		return l == nil && r == nil, nil
	}
	return types.Compare(n.t, l, r) == 0, nil
}

// logicExpr is AND or OR with SQL's three-valued logic.
type logicExpr struct {
	and  bool
	l, r Expr
}

func (l *logicExpr) Type() types.T { return types.Bool }

func (l *logicExpr) Eval(e *Env) (any, error) {
	a, err := l.l.Eval(e)
	if err != nil {
		return nil, err
	}
	// Short-circuit: FALSE AND x is FALSE, TRUE OR x is TRUE.
	if a != nil && a.(bool) != l.and {
		return a, nil
	}
	b, err := l.r.Eval(e)
	if err != nil {
		return nil, err
	}
	if b != nil && b.(bool) != l.and {
		return b, nil
	}
	if a == nil || b == nil {
		return nil, nil
	}
	return l.and, nil
}

type notExpr struct{ e Expr }

func (n *notExpr) Type() types.T { return types.Bool }

func (n *notExpr) Eval(e *Env) (any, error) {
	v, err := n.e.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	return !v.(bool), nil
}

type isNullExpr struct {
	e   Expr
	not bool
}

func (n *isNullExpr) Type() types.T { return types.Bool }

func (n *isNullExpr) Eval(e *Env) (any, error) {
	v, err := n.e.Eval(e)
	if err != nil {
		return nil, err
	}
	if fields, ok := v.([]any); ok && n.e.Type().Oid == types.OidRecord {
		// A row IS NULL if all its fields are, and IS NOT NULL if none
		// is: (1, NULL) is neither.
		for _, f := range fields {
			if (f == nil) == n.not {
				return false, nil
			}
		}
		return true, nil
	}
	return (v == nil) != n.not, nil
}

// isTruthExpr is IS [NOT] TRUE / FALSE: never NULL.
type isTruthExpr struct {
	e     Expr
	truth bool
	not   bool
}

func (n *isTruthExpr) Type() types.T { return types.Bool }

func (n *isTruthExpr) Eval(e *Env) (any, error) {
	v, err := n.e.Eval(e)
	if err != nil {
		return nil, err
	}
	is := v != nil && v.(bool) == n.truth
	return is != n.not, nil
}

// inExpr is x [NOT] IN (list): NULL when no element matches and x or some
// element is NULL.
type inExpr struct {
	t    types.T
	e    Expr
	list []Expr
	not  bool
}

func (n *inExpr) Type() types.T { return types.Bool }

func (n *inExpr) Eval(e *Env) (any, error) {
	v, err := n.e.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	sawNull := false
	for _, item := range n.list {
		w, err := item.Eval(e)
		if err != nil {
			return nil, err
		}
		if w == nil {
			sawNull = true
			continue
		}
		if types.Compare(n.t, v, w) == 0 {
			return !n.not, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return n.not, nil
}

// caseExpr is CASE [operand] WHEN ... THEN ... ELSE ... END.
type caseExpr struct {
	t       types.T
	operand Expr    // nil for the searched form
	opType  types.T // comparison type with operand
	whens   []Expr
	thens   []Expr
	els     Expr
}

func (c *caseExpr) Type() types.T { return c.t }

func (c *caseExpr) Eval(e *Env) (any, error) {
	var op any
	if c.operand != nil {
		var err error
		if op, err = c.operand.Eval(e); err != nil {
			return nil, err
		}
	}
	for i, w := range c.whens {
		v, err := w.Eval(e)
		if err != nil {
			return nil, err
		}
		match := false
		if c.operand == nil {
			match = v != nil && v.(bool)
		} else {
			match = op != nil && v != nil && types.Compare(c.opType, op, v) == 0
		}
		if match {
			return c.thens[i].Eval(e)
		}
	}
	if c.els == nil {
		return nil, nil
	}
	return c.els.Eval(e)
}

// coalesceExpr returns its first non-NULL argument, evaluating lazily.
type coalesceExpr struct {
	t    types.T
	args []Expr
}

func (c *coalesceExpr) Type() types.T { return c.t }

func (c *coalesceExpr) Eval(e *Env) (any, error) {
	for _, a := range c.args {
		v, err := a.Eval(e)
		if err != nil || v != nil {
			return v, err
		}
	}
	return nil, nil
}

// likeExpr is [NOT] LIKE / ILIKE with a backslash escape, as in PostgreSQL.
// ILIKE is ci; fold is LIKE of citext, which ignores case as ILIKE does
// but prints as LIKE.
type likeExpr struct {
	e, pattern Expr
	not, ci    bool
	fold       bool
	escape     rune
}

func (l *likeExpr) Type() types.T { return types.Bool }

func (l *likeExpr) Eval(e *Env) (any, error) {
	v, err := l.e.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	p, err := l.pattern.Eval(e)
	if err != nil || p == nil {
		return nil, err
	}
	s, pat := v.(string), p.(string)
	if l.ci || l.fold {
		s, pat = strings.ToLower(s), strings.ToLower(pat)
	}
	m, err := likeMatch(s, pat, l.escape)
	if err != nil {
		return nil, err
	}
	return m != l.not, nil
}

// likeMatch matches s against a LIKE pattern: % any run, _ one character.
func likeMatch(s, p string, escape rune) (bool, error) {
	sr, pr := []rune(s), []rune(p)
	var match func(i, j int) (bool, error)
	match = func(i, j int) (bool, error) {
		for j < len(pr) {
			c := pr[j]
			switch {
			case c == escape && escape != 0:
				if j+1 >= len(pr) {
					return false, pgerr.New(pgerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
				}
				if i >= len(sr) || sr[i] != pr[j+1] {
					return false, nil
				}
				i, j = i+1, j+2
			case c == '%':
				for j < len(pr) && pr[j] == '%' {
					j++
				}
				if j == len(pr) {
					return true, nil
				}
				for k := i; k <= len(sr); k++ {
					if ok, err := match(k, j); ok || err != nil {
						return ok, err
					}
				}
				return false, nil
			case c == '_':
				if i >= len(sr) {
					return false, nil
				}
				i, j = i+1, j+1
			default:
				if i >= len(sr) || sr[i] != c {
					return false, nil
				}
				i, j = i+1, j+1
			}
		}
		return i == len(sr), nil
	}
	return match(0, 0)
}

// arithExpr is + - * / % on one numeric type (after promotion).
type arithExpr struct {
	op   byte
	t    types.T
	l, r Expr
}

func (a *arithExpr) Type() types.T { return a.t }

func (a *arithExpr) Eval(e *Env) (any, error) {
	l, err := a.l.Eval(e)
	if err != nil || l == nil {
		return nil, err
	}
	r, err := a.r.Eval(e)
	if err != nil || r == nil {
		return nil, err
	}
	switch a.t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8:
		return intArith(a.op, a.t, l.(int64), r.(int64))
	case types.OidFloat4, types.OidFloat8:
		return floatArith(a.op, a.t, l.(float64), r.(float64))
	default:
		return numericArith(a.op, l.(*apd.Decimal), r.(*apd.Decimal))
	}
}

func intRange(t types.T) (int64, int64, string) {
	switch t.Oid {
	case types.OidInt2:
		return math.MinInt16, math.MaxInt16, "smallint"
	case types.OidInt4:
		return math.MinInt32, math.MaxInt32, "integer"
	}
	return math.MinInt64, math.MaxInt64, "bigint"
}

func intArith(op byte, t types.T, l, r int64) (any, error) {
	v, err := intOp(op, t, l, r)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// intOp is l op r in integer type t, failing as PostgreSQL does on
// overflow and division by zero. It returns no interface, so that a fused
// scan (fused.go) computes without boxing.
func intOp(op byte, t types.T, l, r int64) (int64, error) {
	lo, hi, name := intRange(t)
	// Made only when returned: arithmetic runs per row.
	overflow := func() error { return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", name) }
	var v int64
	switch op {
	case '+':
		v = l + r
		if (r > 0 && v < l) || (r < 0 && v > l) {
			return 0, overflow()
		}
	case '-':
		v = l - r
		if (r < 0 && v < l) || (r > 0 && v > l) {
			return 0, overflow()
		}
	case '*':
		if l != 0 && r != 0 {
			v = l * r
			if v/r != l || (l == -1 && r == math.MinInt64) || (r == -1 && l == math.MinInt64) {
				return 0, overflow()
			}
		}
	case '/', '%':
		if r == 0 {
			return 0, pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		if r == -1 { // MinInt / -1 overflows; x % -1 is 0
			if op == '%' {
				return 0, nil
			}
			if l == lo {
				return 0, overflow()
			}
			return -l, nil
		}
		if op == '/' {
			v = l / r
		} else {
			v = l % r
		}
	}
	if v < lo || v > hi {
		return 0, overflow()
	}
	return v, nil
}

func floatArith(op byte, t types.T, l, r float64) (any, error) {
	v, err := floatOp(op, t, l, r)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// floatOp is l op r in float type t, as floatArith without the boxing.
func floatOp(op byte, t types.T, l, r float64) (float64, error) {
	var v float64
	switch op {
	case '+':
		v = l + r
	case '-':
		v = l - r
	case '*':
		v = l * r
	case '/':
		if r == 0 {
			return 0, pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		v = l / r
	case '%':
		return 0, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %% %s", t, t)
	}
	if math.IsInf(v, 0) && !math.IsInf(l, 0) && !math.IsInf(r, 0) {
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if t.Oid == types.OidFloat4 {
		v = float64(float32(v))
	}
	return v, nil
}

func numericArith(op byte, l, r *apd.Decimal) (any, error) {
	d := new(apd.Decimal)
	var err error
	switch op {
	case '+':
		_, err = builtins.NumericContext.Add(d, l, r)
	case '-':
		_, err = builtins.NumericContext.Sub(d, l, r)
	case '*':
		_, err = builtins.NumericContext.Mul(d, l, r)
	case '/', '%':
		if r.IsZero() {
			return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		if op == '%' {
			_, err = builtins.NumericContext.Rem(d, l, r)
			break
		}
		if l.Form != apd.Finite || r.Form != apd.Finite {
			_, err = builtins.NumericContext.Quo(d, l, r)
			break
		}
		d = builtins.NumericDiv(l, r, builtins.NumericDivScale(l, r))
	}
	if err != nil {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	return builtins.OwnNumeric(d), nil
}

// negExpr is unary minus.
type negExpr struct{ e Expr }

func (n *negExpr) Type() types.T { return n.e.Type() }

func (n *negExpr) Eval(e *Env) (any, error) {
	v, err := n.e.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	switch x := v.(type) {
	case int64:
		return intArith('-', n.Type(), 0, x)
	case float64:
		return -x, nil
	case *apd.Decimal:
		return builtins.OwnNumeric(new(apd.Decimal).Neg(x)), nil
	case types.Interval:
		return types.Interval{Months: -x.Months, Days: -x.Days, Micros: -x.Micros}, nil
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: - %s", n.Type())
}

// IsTrue is how WHERE, HAVING and CASE read a boolean: NULL is not true.
func IsTrue(v any) bool { b, ok := v.(bool); return ok && b }
