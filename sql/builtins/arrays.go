package builtins

import (
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The array functions. An array datum is a []any of its elements' datums,
// one-dimensional; it indexes from 1, except the catalogs' int2vector and
// oidvector, which index from 0 (types.LowerBound, which reads it from the
// array's type). Those that take elements take them as PostgreSQL 14 and
// later do, anycompatible: array_append(int[], 2.5) is a numeric[].

// arrayOf is a function of an array and arguments of fixed types that
// reads the array's type (its bounds, its elements' type).
func arrayOf(ret types.T, args []types.T, f func(t types.T, a []any, args []any) (any, error)) Overload {
	return Overload{Args: append([]types.T{AnyArray}, args...), Ret: ret,
		Typed: func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
			return func(_ Env, a []any) (any, error) { return f(ts[0], a[0].([]any), a[1:]) }
		}}
}

// dimension1 is a function of an array and a dimension, of which the
// array has one: f gives the answer for it, and any other is NULL, as is
// an empty array's.
func dimension1(f func(t types.T, a []any) int) []Overload {
	return []Overload{arrayOf(types.Int4, []types.T{types.Int4}, func(t types.T, a []any, args []any) (any, error) {
		if len(a) == 0 || args[0].(int64) != 1 {
			return nil, nil
		}
		return int64(f(t, a)), nil
	})}
}

func arrayNdims(_ types.T, a []any, _ []any) (any, error) {
	if len(a) == 0 {
		return nil, nil
	}
	return int64(1), nil
}

func cardinality(_ types.T, a []any, _ []any) (any, error) { return int64(len(a)), nil }

// arrayDims is array_dims: the bounds as text, [1:3].
func arrayDims(t types.T, a []any, _ []any) (any, error) {
	if len(a) == 0 {
		return nil, nil
	}
	lower := types.LowerBound(t)
	return "[" + strconv.Itoa(lower) + ":" + strconv.Itoa(lower+len(a)-1) + "]", nil
}

// trimArray is trim_array(array, n): the array without its last n
// elements.
func trimArray(_ types.T, a []any, args []any) (any, error) {
	k := args[0].(int64)
	if k < 0 || k > int64(len(a)) {
		return nil, pgerr.New(pgerr.InvalidParameterValueArray, "number of elements to trim must be between 0 and %d", len(a))
	}
	return a[:int64(len(a))-k], nil
}

// arrayToString is array_to_string(array, sep [, null]): the elements'
// text joined by sep, NULLs left out or, given null (not NULL itself),
// written as it.
func arrayToString() []Overload {
	join := func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
		elem, _ := ts[0].Elem()
		return func(e Env, a []any) (any, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			null, withNull := "", len(a) == 3 && a[2] != nil
			if withNull {
				null = a[2].(string)
			}
			var sb strings.Builder
			first := true
			for _, v := range a[0].([]any) {
				if v == nil && !withNull {
					continue
				}
				if !first {
					sb.WriteString(a[1].(string))
				}
				first = false
				if v == nil {
					sb.WriteString(null)
				} else {
					sb.Write(types.AppendText(nil, elem, v, e.Location()))
				}
			}
			return sb.String(), nil
		}
	}
	return []Overload{
		{Args: []types.T{AnyArray, types.Text}, Ret: types.Text, Volatility: Stable, Typed: join},
		{Args: []types.T{AnyArray, types.Text, types.Text}, Ret: types.Text, Volatility: Stable, Typed: join, CalledOnNull: true},
	}
}

// stringToArray is string_to_array(s, sep): s split at each sep; an empty
// sep leaves s whole, and an empty s has no elements.
func stringToArray(_ Env, a []any) (any, error) {
	s, sep := a[0].(string), a[1].(string)
	out := []any{}
	switch {
	case s == "":
	case sep == "":
		out = append(out, s)
	default:
		for _, f := range strings.Split(s, sep) {
			out = append(out, f)
		}
	}
	return out, nil
}

// elems is an array argument's elements; NULL has none.
func elems(v any) []any {
	if v == nil {
		return nil
	}
	return v.([]any)
}

// compatible is a function of anycompatible arguments, not strict, whose
// implementation compares elements as the resolved element type.
func compatible(args []types.T, ret types.T, f func(elem types.T, lower int, a []any) (any, error)) Overload {
	return Overload{Args: args, Ret: ret, CalledOnNull: true, Typed: func(ts []types.T, rt types.T) func(Env, []any) (any, error) {
		at := ts[0]
		if !at.IsArray() {
			at = ts[1]
		}
		elem, _ := at.Elem()
		lower := types.LowerBound(ts[0])
		return func(_ Env, a []any) (any, error) { return f(elem, lower, a) }
	}}
}

func arrayAppend(_ types.T, _ int, a []any) (any, error) {
	return append(append([]any{}, elems(a[0])...), a[1]), nil
}

func arrayPrepend(_ types.T, _ int, a []any) (any, error) {
	return append([]any{a[0]}, elems(a[1])...), nil
}

func arrayCat(_ types.T, _ int, a []any) (any, error) {
	if a[0] == nil && a[1] == nil {
		return nil, nil
	}
	return append(append([]any{}, elems(a[0])...), elems(a[1])...), nil
}

// sameElem is IS NOT DISTINCT FROM between two elements of type t.
func sameElem(t types.T, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return types.Compare(t, a, b) == 0
}

func arrayRemove(elem types.T, _ int, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	out := []any{}
	for _, v := range a[0].([]any) {
		if !sameElem(elem, v, a[1]) {
			out = append(out, v)
		}
	}
	return out, nil
}

func arrayReplace(elem types.T, _ int, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	out := append([]any{}, a[0].([]any)...)
	for i, v := range out {
		if sameElem(elem, v, a[1]) {
			out[i] = a[2]
		}
	}
	return out, nil
}

// arrayPosition is array_position(array, elem [, start]): the subscript
// of the first element not distinct from elem, or NULL.
func arrayPosition(elem types.T, lower int, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	from := 0
	if len(a) == 3 {
		if a[2] == nil {
			return nil, pgerr.New(pgerr.NullValueNotAllowed, "initial position must not be null")
		}
		from = int(max(a[2].(int64)-int64(lower), 0))
	}
	vals := a[0].([]any)
	for i := from; i < len(vals); i++ {
		if sameElem(elem, vals[i], a[1]) {
			return int64(i + lower), nil
		}
	}
	return nil, nil
}

// arrayPositions is array_positions(array, elem): the subscripts of the
// elements not distinct from elem.
func arrayPositions(elem types.T, lower int, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	out := []any{}
	for i, v := range a[0].([]any) {
		if sameElem(elem, v, a[1]) {
			out = append(out, int64(i+lower))
		}
	}
	return out, nil
}
