package builtins

import (
	"math/big"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The functions and operators of the network address types. Those of
// inet take cidr values too, by cidr's implicit conversion to inet, and
// return inet unless they are cidr's own (abbrev, set_masklen) or make a
// network (network, inet_merge). The containment operators << <<= >> >>=
// and && are false for addresses of different families; the bitwise and
// arithmetic ones fail on them.

var (
	inetArg  = []types.T{types.InetType}
	inet2    = []types.T{types.InetType, types.InetType}
	macArg   = []types.T{types.MacaddrType}
	mac2     = []types.T{types.MacaddrType, types.MacaddrType}
	mac8Arg  = []types.T{types.Macaddr8Type}
	mac8Args = []types.T{types.Macaddr8Type, types.Macaddr8Type}
)

func inet1(ret types.T, f func(types.Inet) (any, error)) []Overload {
	return one(ret, inetArg, inetFn(f))
}

func inetText(f func([]byte, types.Inet) []byte) func(types.Inet) (any, error) {
	return func(a types.Inet) (any, error) { return string(f(nil, a)), nil }
}

// inetAbbrev is abbrev: inet's text, but a cidr's with only the groups
// its prefix covers.
var inetAbbrev = []Overload{
	{Args: inetArg, Ret: types.Text, Fn: inetFn(inetText(func(b []byte, a types.Inet) []byte { return types.AppendInet(b, a, false) }))},
	{Args: []types.T{types.CidrType}, Ret: types.Text, Fn: inetFn(inetText(types.AppendCidrAbbrev))},
}

// inetShow is text(inet): the text with the prefix length even when it
// is full, as the casts to the string types give it.
var inetShow = inet1(types.Text, inetText(func(b []byte, a types.Inet) []byte { return types.AppendInet(b, a, true) }))

func broadcast(a types.Inet) (any, error) {
	m := a.Netmask()
	bytewise(a.Addr[:a.Size()], m.Addr[:], func(x, y byte) byte { return x | ^y })
	return a, nil
}

func hostmask(a types.Inet) (any, error) {
	m := a.Netmask()
	bytewise(m.Addr[:m.Size()], m.Addr[:], complement)
	return m, nil
}

func network(a types.Inet) (any, error) { return a.Masked(), nil }

// setMasklen is set_masklen: -1 for the full length; a cidr loses the
// bits past its new prefix.
func setMasklen(cidr bool) func(Env, []any) (any, error) {
	return func(_ Env, args []any) (any, error) {
		a, n := args[0].(types.Inet), args[1].(int64)
		if n == -1 {
			n = int64(a.MaxBits())
		}
		if n < 0 || n > int64(a.MaxBits()) {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid mask length: %d", n)
		}
		a.Bits = uint8(n)
		if cidr {
			return a.Masked(), nil
		}
		return a, nil
	}
}

// inetMerge is the smallest network that holds both a and b.
func inetMerge(a, b types.Inet) (any, error) {
	if a.IPv6 != b.IPv6 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot merge addresses from different families")
	}
	n := int(min(a.Bits, b.Bits))
	for n > 0 && types.CompareBits(a, b, n) != 0 {
		n--
	}
	a.Bits = uint8(n)
	return a.Masked(), nil
}

func macaddr8Set7bit(_ Env, a []any) (any, error) {
	m := a[0].(types.Macaddr8)
	m[0] |= 0x02 // the universal/local bit
	return m, nil
}

// macTrunc is trunc of a MAC address: the manufacturer's part, its first
// three bytes, and the rest zero.
var macTrunc = []Overload{
	{Args: macArg, Ret: types.MacaddrType, Fn: func(_ Env, a []any) (any, error) {
		m := a[0].(types.Macaddr)
		clear(m[3:])
		return m, nil
	}},
	{Args: mac8Arg, Ret: types.Macaddr8Type, Fn: func(_ Env, a []any) (any, error) {
		m := a[0].(types.Macaddr8)
		clear(m[3:])
		return m, nil
	}},
}

func inetFn(f func(types.Inet) (any, error)) func(Env, []any) (any, error) {
	return func(_ Env, a []any) (any, error) { return f(a[0].(types.Inet)) }
}

func inetFn2(f func(a, b types.Inet) (any, error)) func(Env, []any) (any, error) {
	return func(_ Env, a []any) (any, error) { return f(a[0].(types.Inet), a[1].(types.Inet)) }
}

// inetContainment is a containment operator of two inets, false for
// addresses of different families.
func inetContainment(f func(a, b types.Inet) bool) []Overload {
	return one(types.Bool, inet2, inetFn2(func(a, b types.Inet) (any, error) { return a.IPv6 == b.IPv6 && f(a, b), nil }))
}

// within reports whether a's network lies in b's; strictly, a smaller
// part of it.
func within(a, b types.Inet, strict bool) bool {
	return (b.Bits < a.Bits || !strict && b.Bits == a.Bits) && types.CompareBits(a, b, int(b.Bits)) == 0
}

// The containment operators: << is within, <<= within or equal, >> and
// >>= contain, && overlaps (either contains the other).
var (
	inetSub     = inetContainment(func(a, b types.Inet) bool { return within(a, b, true) })
	inetSubEq   = inetContainment(func(a, b types.Inet) bool { return within(a, b, false) })
	inetSup     = inetContainment(func(a, b types.Inet) bool { return within(b, a, true) })
	inetSupEq   = inetContainment(func(a, b types.Inet) bool { return within(b, a, false) })
	inetOverlap = inetContainment(func(a, b types.Inet) bool {
		return types.CompareBits(a, b, int(min(a.Bits, b.Bits))) == 0
	})
)

// networkNot is the prefix ~ of the network types.
var networkNot = []Overload{
	{Args: inetArg, Ret: types.InetType, Fn: inetFn(func(a types.Inet) (any, error) {
		bytewise(a.Addr[:a.Size()], a.Addr[:], complement)
		return a, nil
	})},
	{Args: macArg, Ret: types.MacaddrType, Fn: func(_ Env, a []any) (any, error) {
		m := a[0].(types.Macaddr)
		bytewise(m[:], m[:], complement)
		return m, nil
	}},
	{Args: mac8Arg, Ret: types.Macaddr8Type, Fn: func(_ Env, a []any) (any, error) {
		m := a[0].(types.Macaddr8)
		bytewise(m[:], m[:], complement)
		return m, nil
	}},
}

// inetPlusOps and inetMinusOps are inet's arithmetic with bigints, and
// the difference of two inets.
var (
	inetPlusOps = []Overload{
		{Args: []types.T{types.InetType, types.Int8}, Ret: types.InetType, Fn: func(_ Env, a []any) (any, error) {
			return inetPlus(a[0].(types.Inet), a[1].(int64))
		}},
		{Args: []types.T{types.Int8, types.InetType}, Ret: types.InetType, Fn: func(_ Env, a []any) (any, error) {
			return inetPlus(a[1].(types.Inet), a[0].(int64))
		}},
	}
	inetMinusOps = []Overload{
		// As in PostgreSQL, the negation of the smallest bigint wraps.
		{Args: []types.T{types.InetType, types.Int8}, Ret: types.InetType, Fn: func(_ Env, a []any) (any, error) {
			return inetPlus(a[0].(types.Inet), -a[1].(int64))
		}},
		{Args: inet2, Ret: types.Int8, Fn: inetFn2(inetMinus)},
	}
)

// bytewise sets each byte of x to f of it and y's.
func bytewise(x, y []byte, f func(x, y byte) byte) {
	for i := range x {
		x[i] = f(x[i], y[i])
	}
}

func complement(x, _ byte) byte { return ^x }

// bitwiseNetwork is & or | of two inets of one family, which has the
// longer prefix of the two, and of two MAC addresses.
func bitwiseNetwork(name string, f func(x, y byte) byte) []Overload {
	return []Overload{
		{Args: inet2, Ret: types.InetType, Fn: inetFn2(func(a, b types.Inet) (any, error) {
			if a.IPv6 != b.IPv6 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot %s inet values of different sizes", name)
			}
			bytewise(a.Addr[:a.Size()], b.Addr[:], f)
			a.Bits = max(a.Bits, b.Bits)
			return a, nil
		})},
		{Args: mac2, Ret: types.MacaddrType, Fn: func(_ Env, a []any) (any, error) {
			x, y := a[0].(types.Macaddr), a[1].(types.Macaddr)
			bytewise(x[:], y[:], f)
			return x, nil
		}},
		{Args: mac8Args, Ret: types.Macaddr8Type, Fn: func(_ Env, a []any) (any, error) {
			x, y := a[0].(types.Macaddr8), a[1].(types.Macaddr8)
			bytewise(x[:], y[:], f)
			return x, nil
		}},
	}
}

func errInetRange() error { return pgerr.New(pgerr.NumericValueOutOfRange, "result is out of range") }

// inetPlus adds n to a's address, read as an unsigned number; the result
// must be an address of a's family. The prefix length stays.
func inetPlus(a types.Inet, n int64) (any, error) {
	x := new(big.Int).SetBytes(a.Addr[:a.Size()])
	x.Add(x, big.NewInt(n))
	if x.Sign() < 0 || x.BitLen() > a.MaxBits() {
		return nil, errInetRange()
	}
	x.FillBytes(a.Addr[:a.Size()])
	return a, nil
}

// inetMinus is the difference of two addresses of one family, which must
// fit a bigint.
func inetMinus(a, b types.Inet) (any, error) {
	if a.IPv6 != b.IPv6 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot subtract inet values of different sizes")
	}
	x := new(big.Int).SetBytes(a.Addr[:a.Size()])
	x.Sub(x, new(big.Int).SetBytes(b.Addr[:b.Size()]))
	if !x.IsInt64() {
		return nil, errInetRange()
	}
	return x.Int64(), nil
}
