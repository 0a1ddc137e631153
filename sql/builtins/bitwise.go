package builtins

import "github.com/epochdb/epochdb/sql/types"

// The bitwise operators on integers: & | # and the shifts << and >>, of
// two operands of one integer type (a shift count is an int4), and the
// prefix ~. Results wrap to the operand's width, as C's integer
// arithmetic does. pgjdbc's getIndexInfo tests index options with
// indoption[i] & 1.

var intTypes = []types.T{types.Int2, types.Int4, types.Int8}

// bitOp is the operator op over each integer type.
func bitOp(op string) []Overload {
	var ovs []Overload
	for _, t := range intTypes {
		right := t
		if op == "<<" || op == ">>" {
			right = types.Int4
		}
		bits := map[types.Oid]int64{types.OidInt2: 16, types.OidInt4: 32, types.OidInt8: 64}[t.Oid]
		ovs = append(ovs, Overload{Args: []types.T{t, right}, Ret: t, Fn: func(_ Env, a []any) (any, error) {
			return wrapInt(bits, bitwise(op, bits, a[0].(int64), a[1].(int64))), nil
		}})
	}
	return ovs
}

func bitwise(op string, bits, x, y int64) int64 {
	switch op {
	case "&":
		return x & y
	case "|":
		return x | y
	case "#":
		return x ^ y
	case "<<":
		return x << (uint64(y) % uint64(bits))
	}
	return x >> (uint64(y) % uint64(bits))
}

// wrapInt wraps v to an integer of bits bits.
func wrapInt(bits, v int64) int64 {
	switch bits {
	case 16:
		return int64(int16(v))
	case 32:
		return int64(int32(v))
	}
	return v
}

// bitNot is the prefix ~ over each integer type.
func bitNot() []Overload {
	var ovs []Overload
	for _, t := range intTypes {
		ovs = append(ovs, Overload{Args: []types.T{t}, Ret: t, Fn: func(_ Env, a []any) (any, error) { return ^a[0].(int64), nil }})
	}
	return ovs
}
