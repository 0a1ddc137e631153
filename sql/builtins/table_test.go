package builtins

import (
	"slices"
	"testing"

	"github.com/epochdb/epochdb/sql/types"
)

// Every row of the tables is one the planner can call: one
// implementation, parameter names and defaults that fit the parameters,
// a polymorphic result only where an argument decides it, and overloads
// of one name that all return sets or none does.
func TestTableRows(t *testing.T) {
	check := func(kind, name string, ovs []Overload) {
		for i, o := range ovs {
			impls := 0
			for _, set := range []bool{o.Fn != nil, o.Typed != nil, o.Rows != nil, o.TypedRows != nil} {
				impls += btoi(set)
			}
			where := kind + " " + name
			switch {
			case impls != 1:
				t.Errorf("%s overload %d: %d implementations, want one of Fn, Typed, Rows and TypedRows", where, i, impls)
			case o.Params != nil && len(o.Params) != len(o.Args):
				t.Errorf("%s overload %d: %d parameter names for %d parameters", where, i, len(o.Params), len(o.Args))
			case len(o.Defaults) > len(o.Args):
				t.Errorf("%s overload %d: more defaults than parameters", where, i)
			case o.Variadic && (len(o.Args) == 0 || len(o.Defaults) > 0):
				t.Errorf("%s overload %d: variadic without a last parameter, or with defaults", where, i)
			case IsPolymorphic(o.Ret) && o.Ret.Oid != types.OidRecord && !slices.ContainsFunc(o.Args, IsPolymorphic):
				t.Errorf("%s overload %d: returns %v, which no argument decides", where, i, o.Ret.Oid)
			case (o.Rows != nil || o.TypedRows != nil) != (ovs[0].Rows != nil || ovs[0].TypedRows != nil):
				t.Errorf("%s overload %d: returns a set where overload 0 does not, or the other way", where, i)
			case kind == "operator" && len(o.Args) != 1 && len(o.Args) != 2:
				t.Errorf("%s overload %d: %d operands", where, i, len(o.Args))
			}
		}
	}
	for name, ovs := range table {
		check("function", name, ovs)
	}
	for op, ovs := range operators {
		check("operator", op, ovs)
	}
	for name, aggs := range aggregates {
		for i, a := range aggs {
			switch {
			case (a.New == nil) == (a.NewOrderedSet == nil):
				t.Errorf("aggregate %s overload %d: not one of New and NewOrderedSet", name, i)
			case a.NewOrderedSet == nil && a.Direct > 0, a.Direct >= len(a.Args) && a.NewOrderedSet != nil:
				t.Errorf("aggregate %s overload %d: %d direct arguments of %d", name, i, a.Direct, len(a.Args))
			case a.Fn != nil || a.Typed != nil || a.Rows != nil:
				t.Errorf("aggregate %s overload %d: an implementation of a function's", name, i)
			case a.Extreme != 0 && a.NewMoving != nil:
				t.Errorf("aggregate %s overload %d: an extreme with a moving state", name, i)
			case IsPolymorphic(a.Ret) && !slices.ContainsFunc(a.Args, IsPolymorphic):
				t.Errorf("aggregate %s overload %d: returns %v, which no argument decides", name, i, a.Ret.Oid)
			}
			if a.NewMoving != nil {
				if _, ok := a.NewMoving(nil, a.Args, a.Ret).(Remover); !ok {
					t.Errorf("aggregate %s overload %d: its moving state cannot take inputs back out", name, i)
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
