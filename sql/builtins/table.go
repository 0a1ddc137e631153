package builtins

import (
	"slices"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/types"
)

// table is every function this package has, by name, with its overloads.
// A new function goes in its family's file and here.
var table = map[string][]Overload{
	// math.go
	"sqrt":  numeric1(floatSqrt, numericSqrt),
	"exp":   numeric1(floatExp, numericExp),
	"ln":    numeric1(floatLn, numericLn),
	"log10": numeric1(floatLog10, numericLog10),
	// log(x) is the base-10 logarithm; log(b, x) PostgreSQL has for
	// numeric only.
	"log": slices.Concat(numeric1(floatLog10, numericLog10), []Overload{{
		Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric,
		Fn: func(_ Env, a []any) (any, error) { return numericLog(a[0].(*apd.Decimal), a[1].(*apd.Decimal)) },
	}}),
	"sign":  numeric1(floatSign, numericSign),
	"power": numeric2(floatPow, numericPower),
	"pow":   numeric2(floatPow, numericPower),
}
