package sql

import (
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// The bitwise operators on integers: & | # (TiDB's ^) and the shifts, and
// the prefix ~. pgjdbc's getIndexInfo tests index options with
// indoption[i] & 1.

var bitOps = map[opcode.Op]string{
	opcode.And: "&", opcode.Or: "|", opcode.Xor: "#", opcode.LeftShift: "<<", opcode.RightShift: ">>",
}

// bitwise compiles l op r: both operands in their common integer type,
// except that a shift count is an int4 and the result has l's type.
func (c *compiler) bitwise(op string, l, r expr) (expr, error) {
	lt, rt := l.typ(), r.typ()
	t, ok := unify(lt, rt)
	if op == "<<" || op == ">>" {
		t, ok = types.T{Oid: lt.Oid, Mod: -1}, isInt(rt.Oid) || rt.Oid == types.OidUnknown
		if lt.Oid == types.OidUnknown {
			t = types.Int4
		}
	}
	if !ok || !isInt(t.Oid) && t.Oid != types.OidText {
		return nil, noOperator(op, lt, rt)
	}
	if t.Oid == types.OidText {
		t = types.Int4 // two untyped literals
	}
	var err error
	if l, err = c.coerce(l, t); err != nil {
		return nil, err
	}
	rType := t
	if op == "<<" || op == ">>" {
		rType = types.Int4
	}
	if r, err = c.coerce(r, rType); err != nil {
		return nil, err
	}
	bits := map[types.Oid]int64{types.OidInt2: 16, types.OidInt4: 32, types.OidInt8: 64}[t.Oid]
	return &funcExpr{name: op, t: t, args: []expr{l, r}, strict: true, fn: func(_ *env, a []any) (any, error) {
		x, y := a[0].(int64), a[1].(int64)
		var v int64
		switch op {
		case "&":
			v = x & y
		case "|":
			v = x | y
		case "#":
			v = x ^ y
		case "<<":
			v = x << (uint64(y) % uint64(bits))
		default:
			v = x >> (uint64(y) % uint64(bits))
		}
		// Wrap to the type's width, as C's integer arithmetic does.
		switch bits {
		case 16:
			v = int64(int16(v))
		case 32:
			v = int64(int32(v))
		}
		return v, nil
	}}, nil
}

// bitNot is the prefix ~ on an integer.
func (c *compiler) bitNot(e expr) (expr, error) {
	t := e.typ()
	if t.Oid == types.OidUnknown {
		t = types.Int4
	}
	if !isInt(t.Oid) {
		return nil, noOperator("~", types.T{}, e.typ())
	}
	e, err := c.coerce(e, types.T{Oid: t.Oid, Mod: -1})
	if err != nil {
		return nil, err
	}
	return &funcExpr{name: "~", t: e.typ(), args: []expr{e}, strict: true, fn: func(_ *env, a []any) (any, error) {
		return ^a[0].(int64), nil
	}}, nil
}
