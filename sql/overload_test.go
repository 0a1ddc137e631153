package sql

import (
	"errors"
	"testing"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// ChooseOverload follows PostgreSQL's function type resolution on
// overload sets that no built-in has (yet), down to its errors.
func TestChooseOverload(t *testing.T) {
	sig := func(args ...types.T) builtins.Overload { return builtins.Overload{Args: args, Ret: args[0]} }
	textOrInt := []builtins.Overload{sig(types.Int4), sig(types.Text)}
	int4OrInt8 := []builtins.Overload{sig(types.Int4), sig(types.Int8)}
	unknown := &plan.ConstExpr{T: types.Unknown}
	// defaults(a int4, b text = '', c float8 = 0) returns a float8.
	defaults := []builtins.Overload{{Args: []types.T{types.Int4, types.Text, types.Float8}, Ret: types.Float8,
		Params: []string{"a", "b", "c"}, Defaults: []any{"", 0.0}}}
	int4 := &plan.ConstExpr{T: types.Int4}
	for _, c := range []struct {
		name  string
		ovs   []builtins.Overload
		args  []plan.Expr
		names []string // of the named arguments, "" for positional ones
		want  types.T  // zero: an error
		code  string
	}{
		// An unknown literal goes to the string category if a candidate
		// takes one there.
		{"string category wins", textOrInt, []plan.Expr{unknown}, nil, types.Text, ""},
		{"exact match", textOrInt, []plan.Expr{&plan.ConstExpr{T: types.Int4}}, nil, types.Int4, ""},
		// int2 converts to both; neither is preferred, so the exact-match
		// and preferred-type rules leave two.
		{"ambiguous", int4OrInt8, []plan.Expr{&plan.ConstExpr{T: types.Int2}}, nil, types.T{}, pgerr.AmbiguousFunction},
		{"unknown, one category, none preferred", int4OrInt8, []plan.Expr{unknown}, nil, types.T{}, pgerr.AmbiguousFunction},
		// int8 does not convert to int4 implicitly.
		{"no downward conversion", []builtins.Overload{sig(types.Int4)}, []plan.Expr{&plan.ConstExpr{T: types.Int8}}, nil, types.T{}, pgerr.UndefinedFunction},
		{"wrong count", textOrInt, []plan.Expr{unknown, unknown}, nil, types.T{}, pgerr.UndefinedFunction},
		// A preferred type counts where an argument of its category
		// converts to it; an unknown argument counts for none, so age's
		// timestamptz does not beat its other candidates ('...' could be
		// an xid).
		{"preferred in the argument's category", []builtins.Overload{sig(types.Int4), sig(types.Float8)},
			[]plan.Expr{&plan.ConstExpr{T: types.Int2}}, nil, types.Float8, ""},
		{"no preferred type for unknown", []builtins.Overload{sig(types.Timestamp), sig(types.Timestamptz), sig(types.T{Oid: 28})},
			[]plan.Expr{unknown}, nil, types.T{}, pgerr.AmbiguousFunction},
		// Parameters with defaults may be left out, by position or by
		// naming the ones given; one without a default may not.
		{"defaults left out", defaults, []plan.Expr{int4}, nil, types.Float8, ""},
		{"named, out of order", defaults, []plan.Expr{int4, int4}, []string{"c", "a"}, types.Float8, ""},
		{"named skips a default", defaults, []plan.Expr{int4, int4}, []string{"", "c"}, types.Float8, ""},
		{"required left out", defaults, []plan.Expr{unknown}, []string{"b"}, types.T{}, pgerr.UndefinedFunction},
		{"no such name", defaults, []plan.Expr{int4, int4}, []string{"", "d"}, types.T{}, pgerr.UndefinedFunction},
		{"too many", defaults, []plan.Expr{int4, int4, int4, int4}, nil, types.T{}, pgerr.UndefinedFunction},
	} {
		names := c.names
		if names == nil {
			names = make([]string, len(c.args))
		}
		cand, err := plan.ChooseOverload("f", c.args, names, c.ovs)
		o := cand.Overload
		var pe *pgerr.Error
		switch {
		case c.code != "" && (!errors.As(err, &pe) || pe.Code != c.code):
			t.Errorf("%s: got %v, %v; want error %s", c.name, o, err, c.code)
		case c.code == "" && (err != nil || o == nil || o.Ret.Oid != c.want.Oid):
			t.Errorf("%s: got %v, %v; want the %s overload", c.name, o, err, c.want)
		}
	}
}

// A function is compiled in one place: a name in sql/builtins' table is
// not also one of FuncCompilers, which would win and leave the table's
// row dead.
func TestFunctionsRegisteredOnce(t *testing.T) {
	for name := range plan.FuncCompilers {
		if builtins.Lookup(name) != nil {
			t.Errorf("%s is in funcCompilers and in sql/builtins", name)
		}
	}
}

// MutableFuncs lists only functions outside sql/builtins, whose overloads
// carry their own volatility.
func TestMutableFuncsOutsideBuiltins(t *testing.T) {
	for name := range plan.MutableFuncs {
		if builtins.Lookup(name) != nil {
			t.Errorf("%s is in mutableFuncs and in sql/builtins, whose volatility decides", name)
		}
	}
}
