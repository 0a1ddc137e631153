package sql

import (
	"context"
	"time"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// callOverloaded compiles a call of a function of sql/builtins: it
// compiles the arguments, chooses the overload as PostgreSQL's function
// type resolution does (the "Functions" section of its chapter on type
// conversion), converts the arguments to the chosen signature, and makes
// the call.
func (c *compiler) callOverloaded(n *ast.FuncCallExpr, ovs []builtins.Overload) (expr, error) {
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	o, err := chooseOverload(n.FnName.L, args, ovs)
	if err != nil {
		return nil, err
	}
	for i := range args {
		if args[i], err = c.coerce(args[i], o.Args[i]); err != nil {
			return nil, err
		}
	}
	fn := o.Fn
	return &funcExpr{name: n.FnName.L, t: o.Ret, args: args, strict: !o.CalledOnNull,
		fn: func(e *env, a []any) (any, error) { return fn(e, a) }}, nil
}

// chooseOverload picks the overload of a call with arguments args, or
// fails as PostgreSQL does: 42883 if none accepts them, 42725 if the
// rules leave more than one.
func chooseOverload(name string, args []expr, ovs []builtins.Overload) (*builtins.Overload, error) {
	in := make([]types.T, len(args))
	for i, a := range args {
		in[i] = a.typ()
	}
	// The candidates: the right number of arguments, each of which is
	// the parameter's type, unknown, or converts to it implicitly.
	var cands []*builtins.Overload
	for i := range ovs {
		if o := &ovs[i]; len(o.Args) == len(in) && acceptsAll(o, in) {
			cands = append(cands, o)
		}
	}
	// Keep those with the most exact matches; then those with the most
	// preferred types where a conversion is needed.
	cands = keepMost(cands, func(o *builtins.Overload) (n int) {
		for i, t := range in {
			if t.Oid == o.Args[i].Oid {
				n++
			}
		}
		return n
	})
	cands = keepMost(cands, func(o *builtins.Overload) (n int) {
		for i, t := range in {
			if _, pref := typeCategory(o.Args[i]); t.Oid != o.Args[i].Oid && pref {
				n++
			}
		}
		return n
	})
	// Unknown arguments: at each, the string category if a candidate
	// takes one there, else the one category all candidates take, and
	// then its preferred type if a candidate takes it.
	for i, t := range in {
		if len(cands) <= 1 || t.Oid != types.OidUnknown {
			continue
		}
		cat, ok := unknownCategory(cands, i)
		if !ok {
			break
		}
		cands = keepMost(cands, func(o *builtins.Overload) int {
			c, pref := typeCategory(o.Args[i])
			return btoi(c == cat) * (1 + btoi(pref))
		})
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, argTypes(args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	return nil, pgerr.New(pgerr.AmbiguousFunction, "function %s(%s) is not unique", name, argTypes(args)).
		WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
}

// acceptsAll reports whether every argument converts to its parameter
// implicitly. Among the numeric types PostgreSQL converts implicitly only
// upwards, int2 → int4 → int8 → numeric → float4 → float8 (float4 to
// numeric is an assignment cast), which decides power(2.0, 3::float4).
func acceptsAll(o *builtins.Overload, in []types.T) bool {
	for i, t := range in {
		from, to := numRank(t.Oid), numRank(o.Args[i].Oid)
		if from > 0 && to > 0 && from > to || !implicitOK(t, o.Args[i]) {
			return false
		}
	}
	return true
}

// keepMost keeps the candidates that score highest.
func keepMost(cands []*builtins.Overload, score func(*builtins.Overload) int) []*builtins.Overload {
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
func unknownCategory(cands []*builtins.Overload, i int) (byte, bool) {
	var cat byte
	for _, o := range cands {
		c, _ := typeCategory(o.Args[i])
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

// env gives the functions of sql/builtins what they may ask.
var _ builtins.Env = (*env)(nil)

func (e *env) Context() context.Context { return e.ctx }

func (e *env) Location() *time.Location { return e.s.loc() }

func (e *env) TransactionTime() time.Time { return e.s.txnTime() }

func (e *env) StatementTime() time.Time { return e.s.stmtStart }
