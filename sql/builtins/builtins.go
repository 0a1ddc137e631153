package builtins

import (
	"context"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/types"
)

// Env is what a function may ask of the statement that calls it.
type Env interface {
	// Context is the statement's: a function that may run long checks it.
	Context() context.Context
	// Location is the session's TimeZone.
	Location() *time.Location
	// TransactionTime is when the transaction began: now().
	TransactionTime() time.Time
	// StatementTime is when the statement began.
	StatementTime() time.Time
	// Setting is the session's value of a run-time parameter, as SHOW
	// and current_setting read it; SetSetting changes it for the session
	// or, with local, the transaction, as SET and set_config do.
	Setting(name string) (string, error)
	SetSetting(name, value string, local bool) error
	// Session is who the session is and where.
	Session() Session
}

// Session is what the session functions (current_user, version(), ...)
// report.
type Session struct {
	User, Database string
	PID            int
	// Version is version()'s text.
	Version string
}

// Volatility is PostgreSQL's provolatile: whether a call's result depends
// on its arguments alone (immutable: it may key an index or compute a
// generated column), also on the snapshot, the session's settings or the
// statement's time (stable), or may change from one call to the next
// (volatile).
type Volatility uint8

const (
	Immutable Volatility = iota
	Stable
	Volatile
)

// Overload is one signature of a function and its implementation.
type Overload struct {
	Args       []types.T
	Ret        types.T
	Volatility Volatility
	// Fn computes the result from the arguments, already converted to
	// Args. A NULL argument gives NULL without a call, unless
	// CalledOnNull (PostgreSQL's CALLED ON NULL INPUT, against STRICT).
	Fn           func(env Env, args []any) (any, error)
	CalledOnNull bool
	// Params names the parameters, for calls in named notation
	// (make_interval(days => 3)), as pg_proc's proargnames does.
	Params []string
	// Defaults are the values of the last len(Defaults) parameters,
	// which a call may leave out (pg_proc's proargdefaults).
	Defaults []any
	// Variadic makes the last parameter take one or more arguments
	// (VARIADIC), each of its type; Fn receives them one by one.
	Variadic bool
	// Typed, in place of Fn, makes the implementation of one call from
	// its parameter types and result type, once a polymorphic signature
	// has been resolved: what array_remove compares elements as, the
	// types format prints its "any" arguments from.
	Typed func(args []types.T, ret types.T) func(Env, []any) (any, error)
	// Rows, in place of Fn, makes a set-returning function (proretset):
	// it returns the values of one call, one at a time, each Ret. A NULL
	// argument gives no rows.
	Rows func(env Env, args []any) (next func() (any, bool, error), err error)
	// TypedRows, in place of Rows, makes the Rows of one call from its
	// parameter types: generate_subscripts reads an int2vector's lower
	// bound, 0, from its type.
	TypedRows func(args []types.T) func(env Env, args []any) (next func() (any, bool, error), err error)
	// Extension, when set, is the extension that provides the function
	// (pgcrypto, uuid-ossp): calls resolve to it only while the extension
	// is installed, as PostgreSQL's functions exist only then.
	Extension string
	// Column names the one column of a set-returning function of scalar
	// results that has a name of its own, an OUT parameter's
	// (jsonb_array_elements's value); others take the FROM item's alias.
	Column string
	// Function, on the overload of a user-defined function, is its
	// pg_proc oid, by which the planner may inline its body.
	Function uint32
}

// LookupOperator returns the overloads of the operator op, nil if there
// is none. The planner chooses among them by PostgreSQL's rules for
// operators.
func LookupOperator(op string) []Overload { return operators[op] }

// ReturnsSet reports whether the function called name returns a set.
func ReturnsSet(name string) bool {
	ovs := table[name]
	return len(ovs) > 0 && (ovs[0].Rows != nil || ovs[0].TypedRows != nil)
}

// sliceRows returns the values of vs one at a time, as Rows does.
func sliceRows(vs []any) func() (any, bool, error) {
	return func() (any, bool, error) {
		if len(vs) == 0 {
			return nil, false, nil
		}
		v := vs[0]
		vs = vs[1:]
		return v, true, nil
	}
}

// optArg is argument i, or nil if the call has fewer.
func optArg(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

// The polymorphic pseudo-types of signatures, as PostgreSQL's: Any takes
// an argument of any type as it is; AnyElement, AnyArray and AnyNonArray
// take arguments that agree on one element type exactly; AnyCompatible
// and AnyCompatibleArray take arguments that convert to a common one.
var (
	Any                = types.T{Oid: types.OidAny, Mod: -1}
	AnyElement         = types.T{Oid: types.OidAnyElement, Mod: -1}
	AnyArray           = types.T{Oid: types.OidAnyArray, Mod: -1}
	AnyNonArray        = types.T{Oid: types.OidAnyNonArray, Mod: -1}
	AnyCompatible      = types.T{Oid: types.OidAnyCompatible, Mod: -1}
	AnyCompatibleArray = types.T{Oid: types.OidAnyCompatibleArray, Mod: -1}
	// AnyEnum takes a value of any enum type, and is AnyElement besides.
	AnyEnum = types.T{Oid: types.OidAnyEnum, Mod: -1}
	// Record takes a row of any row type.
	Record = types.T{Oid: types.OidRecord, Mod: -1}
)

// IsPolymorphic reports whether t is one of these pseudo-types, which a
// call's arguments resolve.
func IsPolymorphic(t types.T) bool {
	switch t.Oid {
	case types.OidAny, types.OidAnyElement, types.OidAnyArray, types.OidAnyNonArray, types.OidAnyEnum,
		types.OidAnyCompatible, types.OidAnyCompatibleArray, types.OidRecord:
		return true
	}
	return false
}

// Lookup returns the overloads of the function called name (lower case),
// nil if there is none. The planner chooses among them by PostgreSQL's
// rules for function calls.
func Lookup(name string) []Overload { return table[name] }

// one is a function with one signature.
func one(ret types.T, args []types.T, fn func(Env, []any) (any, error)) []Overload {
	return []Overload{{Args: args, Ret: ret, Fn: fn}}
}

// numeric1 is a function of one argument with a float8 and a numeric
// overload, as PostgreSQL's math functions have.
func numeric1(ff func(float64) (float64, error), nf func(*apd.Decimal) (*apd.Decimal, error)) []Overload {
	return []Overload{
		{Args: []types.T{types.Float8}, Ret: types.Float8, Fn: func(_ Env, a []any) (any, error) { return ff(a[0].(float64)) }},
		{Args: []types.T{types.Numeric}, Ret: types.Numeric, Fn: func(_ Env, a []any) (any, error) { return nf(a[0].(*apd.Decimal)) }},
	}
}

// numeric2 is numeric1 for two arguments.
func numeric2(ff func(x, y float64) (float64, error), nf func(x, y *apd.Decimal) (*apd.Decimal, error)) []Overload {
	return []Overload{
		{Args: []types.T{types.Float8, types.Float8}, Ret: types.Float8, Fn: func(_ Env, a []any) (any, error) {
			return ff(a[0].(float64), a[1].(float64))
		}},
		{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Fn: func(_ Env, a []any) (any, error) {
			return nf(a[0].(*apd.Decimal), a[1].(*apd.Decimal))
		}},
	}
}
