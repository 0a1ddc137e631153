package plan

import (
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The object identifier types in expressions: oid and the reg types
// (regclass, regtype, regproc, ...), which compare as oids with each
// other and with integers, and cast from text by looking the name up in
// the session (Host's RegByName).

// isOidLike reports whether values of o are object identifiers.
func isOidLike(o types.Oid) bool { return o == types.OidOid || types.IsReg(o) }

func isInt(o types.Oid) bool {
	return o == types.OidInt2 || o == types.OidInt4 || o == types.OidInt8
}

// unifyOids is where an object identifier meets another or an integer:
// PostgreSQL compares them as oids.
func unifyOids(a, b types.T) (types.T, bool) {
	if isOidLike(a.Oid) && (isOidLike(b.Oid) || isInt(b.Oid)) || isOidLike(b.Oid) && isInt(a.Oid) {
		return types.OidType, true
	}
	return types.T{}, false
}

// oidCoercible reports whether PostgreSQL converts from to to implicitly
// among the integers and object identifiers.
func oidCoercible(from, to types.T) bool {
	return isOidLike(to.Oid) && (isOidLike(from.Oid) || isInt(from.Oid))
}

// toReg converts e to the reg* type t: a name or a number, looked up now if
// it is a literal and when evaluated otherwise. An untyped parameter is
// text, the name.
func (c *Compiler) toReg(e Expr, t types.T) (Expr, error) {
	switch x := e.(type) {
	case *unknownExpr:
		r, err := c.Host.RegByName(t, x.s)
		if err != nil {
			return nil, err
		}
		return &ConstExpr{T: t, V: r}, nil
	case *ConstExpr:
		if x.V == nil {
			return &ConstExpr{T: t}, nil
		}
	case *ParamExpr:
		if e.Type().Oid == types.OidUnknown {
			(*c.Params)[x.Index] = types.Text
		}
	}
	from := e.Type()
	if !IsString(from.Oid) && !isOidLike(from.Oid) && !isInt(from.Oid) {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, t)
	}
	return &regCastExpr{e: e, to: t}, nil
}

// regCastExpr makes a reg* value of a name or an oid.
type regCastExpr struct {
	e  Expr
	to types.T
}

func (r *regCastExpr) Type() types.T { return r.to }

func (r *regCastExpr) Eval(e *Env) (any, error) {
	v, err := r.e.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	switch x := v.(type) {
	case string:
		return e.Host.RegByName(r.to, x)
	case int64:
		return e.Host.RegByOID(r.to, types.Oid(uint32(x))), nil
	case types.Reg:
		return e.Host.RegByOID(r.to, x.Oid), nil
	}
	return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast %T to %s", v, r.to)
}
