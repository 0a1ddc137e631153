package plan

import (
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// Enum values in expressions: casts to an enum type, and the labels a
// query writes as text taken as its values.

// enumInputExpr converts labels, strings or input's unresolved values, to
// values of an enum type, or of its array type: PostgreSQL's enum_in,
// with the type's labels as the statement's catalog has them.
type enumInputExpr struct {
	e     Expr
	enum  *catalog.EnumType
	array bool
}

func (x *enumInputExpr) Type() types.T {
	if x.array {
		at, _ := types.ArrayOf(x.enum.T())
		return at
	}
	return x.enum.T()
}

func (x *enumInputExpr) Eval(env *Env) (any, error) {
	v, err := x.e.Eval(env)
	if err != nil || v == nil {
		return v, err
	}
	if x.array {
		return x.enum.ResolveArray(v)
	}
	return x.enum.Resolve(v)
}

// toEnum converts e to the enum type t, as coerce does: a literal now, a
// parameter or a string expression (explicit casts only) as it runs.
func (c *Compiler) toEnum(e Expr, t types.T, explicit bool) (Expr, error) {
	elem, array := t.Elem()
	if !array {
		elem = t
	}
	et := c.Host.Catalog().EnumByOid(elem.Oid)
	if et == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "type with OID %d does not exist", elem.Oid)
	}
	input := &enumInputExpr{e: e, enum: et, array: array}
	from := e.Type()
	switch x := e.(type) {
	case *unknownExpr:
		if array {
			v, err := types.ParseText(t, x.s, c.Host.Location())
			if err != nil {
				return nil, err
			}
			if v, err = et.ResolveArray(v); err != nil {
				return nil, err
			}
			return &ConstExpr{T: t, V: v}, nil
		}
		v, err := et.Value(x.s)
		if err != nil {
			return nil, err
		}
		return &ConstExpr{T: t, V: v}, nil
	case *ConstExpr:
		if x.V == nil {
			return &ConstExpr{T: t}, nil
		}
	case *ParamExpr:
		if from.Oid == types.OidUnknown {
			(*c.Params)[x.Index] = t
			return input, nil
		}
	}
	fromElem, _ := from.Elem()
	switch {
	case from.Oid == t.Oid:
		// A parameter of the type reads its labels without the catalog.
		return input, nil
	case from.Oid == types.OidUnknown:
		// An untyped value, as a set operation's literal branch gives.
		return input, nil
	case explicit && !array && IsString(from.Oid), explicit && array && from.IsArray() && IsString(fromElem.Oid):
		return input, nil
	case explicit:
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, t)
	}
	return nil, pgerr.New(pgerr.DatatypeMismatch, "column is of type %s but expression is of type %s", t, from).
		WithHint("You will need to rewrite or cast the expression.")
}
