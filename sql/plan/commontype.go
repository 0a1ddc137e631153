package plan

import (
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// This file resolves the common type of CASE, COALESCE, GREATEST, LEAST,
// ARRAY[...], VALUES and set operation branches as PostgreSQL's
// select_common_type does. It differs from unify, which picks the type an
// operator's two operands meet in: here the first branch's type stands
// unless a later one of the same category is reachable from it by an
// implicit cast but not back (and the standing type is not the category's
// preferred one). So varchar and text give varchar, text and varchar text,
// and int4[] and int8[] give int8[], since arrays form one category and
// cast element by element.

// typeCategory is a type's typcategory and typispreferred.
func typeCategory(t types.T) (byte, bool) {
	switch {
	case types.IsEnum(t.Oid):
		return 'E', false
	case t.IsArray():
		return 'A', false
	}
	if in, ok := types.Lookup(t.Oid); ok {
		return in.Category, in.Preferred
	}
	return 'U', false
}

// implicitCasts are pg_cast's implicit casts among the built-in types and citext,
// besides those into the object identifier types (see oidCoercible).
var implicitCasts = map[types.Oid][]types.Oid{
	types.OidInt2:      {types.OidInt4, types.OidInt8, types.OidNumeric, types.OidFloat4, types.OidFloat8},
	types.OidInt4:      {types.OidInt8, types.OidNumeric, types.OidFloat4, types.OidFloat8},
	types.OidInt8:      {types.OidNumeric, types.OidFloat4, types.OidFloat8},
	types.OidNumeric:   {types.OidFloat4, types.OidFloat8},
	types.OidFloat4:    {types.OidFloat8},
	types.OidText:      {types.OidName, types.OidBpchar, types.OidVarchar},
	types.OidVarchar:   {types.OidName, types.OidText, types.OidBpchar},
	types.OidBpchar:    {types.OidName, types.OidText, types.OidVarchar},
	types.OidName:      {types.OidText},
	types.OidCitext:    {types.OidText, types.OidVarchar},
	types.OidDate:      {types.OidTimestamp, types.OidTimestamptz},
	types.OidTimestamp: {types.OidTimestamptz},
	types.OidTime:      {types.OidInterval},
	types.OidCidr:      {types.OidInet},
	types.OidMacaddr:   {types.OidMacaddr8},
	types.OidMacaddr8:  {types.OidMacaddr},
}

// castsImplicitly reports whether PostgreSQL converts from to to in an
// implicit context (can_coerce_type with COERCION_IMPLICIT): an unknown
// literal goes anywhere, an array goes to another array when its elements
// do.
func castsImplicitly(from, to types.T) bool {
	switch {
	case from.Oid == to.Oid, from.Oid == types.OidUnknown:
		return true
	case from.IsArray() && to.IsArray():
		fe, _ := from.Elem()
		te, _ := to.Elem()
		return castsImplicitly(fe, te)
	case oidCoercible(from, to), types.IsReg(from.Oid) && to.Oid == types.OidOid:
		return true
	}
	for _, o := range implicitCasts[from.Oid] {
		if o == to.Oid {
			return true
		}
	}
	return false
}

// selectCommonType is the type branches of the given types resolve to, the
// untyped (unknown) ones taking the others' type, text if all are. It
// fails with PostgreSQL's error for two branches of different categories,
// naming the construct what. A modifier all branches share is kept.
func selectCommonType(what string, ts []types.T) (types.T, error) {
	p := types.Unknown
	var pcat byte
	var ppref bool
	for _, t := range ts {
		if t.Oid == types.OidUnknown || t.Oid == p.Oid {
			continue
		}
		cat, pref := typeCategory(t)
		switch {
		case p.Oid == types.OidUnknown:
		case cat != pcat:
			return types.T{}, pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched",
				what, types.T{Oid: p.Oid, Mod: -1}, types.T{Oid: t.Oid, Mod: -1})
		case ppref || !castsImplicitly(p, t) || castsImplicitly(t, p):
			continue
		}
		p, pcat, ppref = t, cat, pref
	}
	if p.Oid == types.OidUnknown {
		return types.Text, nil
	}
	// select_common_typmod: the modifier stays only if every branch has
	// the common type with that very modifier.
	mod := ts[0].Mod
	for _, t := range ts {
		if t.Oid != p.Oid || t.Mod != mod {
			mod = -1
			break
		}
	}
	return types.T{Oid: p.Oid, Mod: mod}, nil
}

// toCommonType converts each of es to t, the common type selectCommonType
// chose for them, failing as PostgreSQL's coerce_to_common_type does for a
// branch that does not convert to it implicitly.
func (c *Compiler) toCommonType(what string, es []Expr, t types.T) error {
	for i, e := range es {
		if et := e.Type(); !castsImplicitly(et, t) {
			return pgerr.New(pgerr.CannotCoerce, "%s could not convert type %s to %s",
				what, types.T{Oid: et.Oid, Mod: -1}, types.T{Oid: t.Oid, Mod: -1})
		}
		var err error
		if es[i], err = c.Coerce(e, t); err != nil {
			return err
		}
	}
	return nil
}

// nullifType is the type of NULLIF(l, r), which PostgreSQL gives the left
// operand type of the = operator it picks, cmp being the type they
// compare in: integers, floats, and dates and timestamps have operators
// across their types, which keep l's; name = text keeps name, and char(n)
// compares with varchar as char(n).
func nullifType(l, r, cmp types.T) types.T {
	lr, rr := numRank(l.Oid), numRank(r.Oid)
	switch {
	case l.Oid == types.OidUnknown || r.Oid == types.OidUnknown:
		return cmp
	case lr > 0 && lr <= 3 && rr > 0 && rr <= 3, lr >= 5 && rr > 0, timeRank(l.Oid) > 0 && timeRank(r.Oid) > 0:
		return l
	case rr == 5 && lr > 0:
		return types.Float8 // float8 = float4 wins over float4 = float4
	case l.Oid == types.OidName && IsString(r.Oid):
		return l
	}
	return cmp
}

// checkComparable fails as PostgreSQL does where a value of t must be
// compared (DISTINCT, GROUP BY, set operations) or, with ordering, sorted:
// json has neither equality nor order.
func checkComparable(t types.T, ordering bool) error {
	if elem, ok := t.Elem(); ok {
		t = elem
	}
	switch {
	case t.Oid != types.OidJSON:
		return nil
	case ordering:
		return pgerr.New(pgerr.UndefinedFunction, "could not identify an ordering operator for type json").
			WithHint("Use an explicit ordering operator or modify the query.")
	}
	return pgerr.New(pgerr.UndefinedFunction, "could not identify an equality operator for type json")
}
