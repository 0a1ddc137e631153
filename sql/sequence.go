package sql

import (
	"math"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// seqTypeBounds are the values a sequence of integer type t can take.
func seqTypeBounds(t types.Oid) (lo, hi int64) {
	switch t {
	case types.OidInt2:
		return math.MinInt16, math.MaxInt16
	case types.OidInt4:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// seqRestart is what ALTER SEQUENCE's RESTART asked for: whether to
// restart, and at what value (nil: the start).
type seqRestart struct {
	restart bool
	with    *int64
}

// applySeqOptions applies CREATE SEQUENCE's options (create) or ALTER
// SEQUENCE's to seq, with PostgreSQL's defaults and checks (its
// init_params): a bound not given takes its default on CREATE, or with NO
// MINVALUE or NO MAXVALUE; the start must lie within the bounds, as must a
// RESTART value.
func applySeqOptions(seq *catalog.Sequence, opts []*ast.SequenceOption, create bool) (seqRestart, error) {
	typ := pgcatalog.SequenceType(seq)
	typeMin, typeMax := seqTypeBounds(typ.Oid)
	var r seqRestart
	minSet, maxSet, startSet := false, false, false
	resetMin, resetMax := create, create
	for _, o := range opts {
		switch o.Tp {
		case ast.SequenceOptionIncrementBy:
			seq.Increment = o.IntValue
		case ast.SequenceStartWith:
			seq.Start, startSet = o.IntValue, true
		case ast.SequenceMinValue:
			seq.Min, minSet = o.IntValue, true
		case ast.SequenceNoMinValue:
			resetMin = true
		case ast.SequenceMaxValue:
			seq.Max, maxSet = o.IntValue, true
		case ast.SequenceNoMaxValue:
			resetMax = true
		case ast.SequenceCache:
			if o.IntValue <= 0 {
				return r, pgerr.New(pgerr.InvalidParameterValue, "CACHE (%d) must be greater than zero", o.IntValue)
			}
			seq.Cache = o.IntValue
		case ast.SequenceNoCache:
			seq.Cache = 1
		case ast.SequenceCycle:
			seq.Cycle = true
		case ast.SequenceNoCycle:
			seq.Cycle = false
		case ast.SequenceRestart:
			r.restart = true
		case ast.SequenceRestartWith:
			v := o.IntValue
			r.restart, r.with = true, &v
		default:
			return r, pgerr.New(pgerr.FeatureNotSupported, "this sequence option is not supported")
		}
	}
	if seq.Increment == 0 {
		return r, pgerr.New(pgerr.InvalidParameterValue, "INCREMENT must not be zero")
	}
	if resetMax && !maxSet {
		seq.Max = typeMax
		if seq.Increment < 0 {
			seq.Max = -1
		}
	}
	if resetMin && !minSet {
		seq.Min = 1
		if seq.Increment < 0 {
			seq.Min = typeMin
		}
	}
	if seq.Max < typeMin || seq.Max > typeMax {
		return r, pgerr.New(pgerr.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", seq.Max, typ)
	}
	if seq.Min < typeMin || seq.Min > typeMax {
		return r, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", seq.Min, typ)
	}
	if seq.Min >= seq.Max {
		return r, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", seq.Min, seq.Max)
	}
	if create && !startSet {
		seq.Start = seq.Min
		if seq.Increment < 0 {
			seq.Start = seq.Max
		}
	}
	if seq.Start < seq.Min {
		return r, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", seq.Start, seq.Min)
	}
	if seq.Start > seq.Max {
		return r, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", seq.Start, seq.Max)
	}
	if r.with != nil {
		if err := checkRestart(seq, *r.with); err != nil {
			return r, err
		}
	}
	// Values are reserved durably in blocks of at least seqBlock; a
	// larger CACHE makes the blocks larger.
	if seq.Cache > catalog.SeqBlock {
		seq.Block = seq.Cache
	}
	return r, nil
}

// The sequence functions read and move the session's sequences.
func init() {
	for name, f := range map[string]plan.Builtin{
		"nextval": seqFunc(nil, func(e *plan.Env, q *catalog.Sequence, _ []any) (any, error) {
			s := sessionOf(e.Host)
			v, err := s.e.seqs.Nextval(e.Ctx, q)
			if err == nil {
				s.currvals[q.ID] = v
			}
			return v, err
		}),
		"currval": seqFunc(nil, func(e *plan.Env, s *catalog.Sequence, _ []any) (any, error) {
			v, ok := sessionOf(e.Host).currvals[s.ID]
			if !ok {
				return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", s.Name)
			}
			return v, nil
		}),
		"setval": func(c *plan.Compiler, n *ast.FuncCallExpr) (plan.Expr, error) {
			if len(n.Args) == 3 {
				return seqFunc([]types.T{types.Int8, types.Bool}, setval)(c, n)
			}
			return seqFunc([]types.T{types.Int8}, setval)(c, n)
		},
	} {
		plan.FuncCompilers[name] = f
	}
}

// seqFunc compiles a sequence function: the first argument names the
// sequence, as text or regclass; params are the types of the others.
func seqFunc(params []types.T, f func(e *plan.Env, s *catalog.Sequence, args []any) (any, error)) plan.Builtin {
	return func(c *plan.Compiler, n *ast.FuncCallExpr) (plan.Expr, error) {
		if len(n.Args) != 1+len(params) {
			return nil, plan.ArgCountErr(n, nil)
		}
		args := make([]plan.Expr, len(n.Args))
		for i, a := range n.Args {
			var err error
			if args[i], err = c.Compile(a); err != nil {
				return nil, err
			}
			switch {
			case i > 0:
				args[i], err = c.Coerce(args[i], params[i-1])
			case args[0].Type().Oid != types.OidRegclass:
				args[0], err = c.Coerce(args[0], types.Text)
			}
			if err != nil {
				return nil, err
			}
		}
		return &plan.FuncExpr{Name: n.FnName.L, T: types.Int8, Args: args, Strict: true, Fn: func(e *plan.Env, a []any) (any, error) {
			cat := e.Host.Catalog()
			var s *catalog.Sequence
			switch seq := a[0].(type) {
			case string:
				// A name as regclass reads it: pg_dump qualifies its own.
				r, err := pgcatalog.RegByName(e.Host.(pgcatalog.Host), types.Regclass, seq)
				if err != nil {
					return nil, err
				}
				if s = cat.SequenceByID[uint32(r.Oid)]; s == nil {
					return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", r.Name)
				}
			case types.Reg:
				if s = cat.SequenceByID[uint32(seq.Oid)]; s == nil {
					return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", seq.Name)
				}
			}
			return f(e, s, a[1:])
		}}, nil
	}
}

// setval is setval(seq, v [, is_called]): with is_called (the default) v
// counts as taken, and nextval goes on after it; without, nextval returns v.
func setval(e *plan.Env, s *catalog.Sequence, a []any) (any, error) {
	v := a[0].(int64)
	called := len(a) < 2 || a[1].(bool)
	if v < s.Min || v > s.Max {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, s.Name, s.Min, s.Max)
	}
	next := v
	if called {
		if next += s.Increment; (next < v) != (s.Increment < 0) {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d leaves no next value for sequence \"%s\"", v, s.Name)
		}
	}
	sess := sessionOf(e.Host)
	if err := sess.e.seqs.Setval(e.Ctx, s, next, called); err != nil {
		return nil, err
	}
	if called {
		sess.currvals[s.ID] = v
	}
	return v, nil
}
