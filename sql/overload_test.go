package sql

import (
	"errors"
	"testing"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// chooseOverload follows PostgreSQL's function type resolution on
// overload sets that no built-in has (yet), down to its errors.
func TestChooseOverload(t *testing.T) {
	sig := func(args ...types.T) builtins.Overload { return builtins.Overload{Args: args, Ret: args[0]} }
	textOrInt := []builtins.Overload{sig(types.Int4), sig(types.Text)}
	int4OrInt8 := []builtins.Overload{sig(types.Int4), sig(types.Int8)}
	unknown := &constExpr{t: types.Unknown}
	for _, c := range []struct {
		name string
		ovs  []builtins.Overload
		args []expr
		want types.T // zero: an error
		code string
	}{
		// An unknown literal goes to the string category if a candidate
		// takes one there.
		{"string category wins", textOrInt, []expr{unknown}, types.Text, ""},
		{"exact match", textOrInt, []expr{&constExpr{t: types.Int4}}, types.Int4, ""},
		// int2 converts to both; neither is preferred, so the exact-match
		// and preferred-type rules leave two.
		{"ambiguous", int4OrInt8, []expr{&constExpr{t: types.Int2}}, types.T{}, pgerr.AmbiguousFunction},
		{"unknown, one category, none preferred", int4OrInt8, []expr{unknown}, types.T{}, pgerr.AmbiguousFunction},
		// int8 does not convert to int4 implicitly.
		{"no downward conversion", []builtins.Overload{sig(types.Int4)}, []expr{&constExpr{t: types.Int8}}, types.T{}, pgerr.UndefinedFunction},
		{"wrong count", textOrInt, []expr{unknown, unknown}, types.T{}, pgerr.UndefinedFunction},
	} {
		o, err := chooseOverload("f", c.args, c.ovs)
		var pe *pgerr.Error
		switch {
		case c.code != "" && (!errors.As(err, &pe) || pe.Code != c.code):
			t.Errorf("%s: got %v, %v; want error %s", c.name, o, err, c.code)
		case c.code == "" && (err != nil || o.Ret.Oid != c.want.Oid):
			t.Errorf("%s: got %v, %v; want the %s overload", c.name, o, err, c.want)
		}
	}
}
