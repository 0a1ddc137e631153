package builtins

import (
	"math"
	mrand "math/rand/v2"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// This file holds the math functions, in the float8 and numeric overloads
// PostgreSQL has, and the rules for the scale of numeric results, which
// the arithmetic operators and the aggregates share.
//
// Numeric results that cannot be exact (a quotient, a root, a logarithm)
// are rounded to a scale that PostgreSQL chooses for each operation: enough
// digits after the point for at least 16 significant digits, estimated from
// the operands, and never fewer than an operand displays. The estimates work
// on PostgreSQL's representation, base-10000 digits grouped from the
// point, so they are reproduced here digit for digit: the scale is part of
// the answer a client sees (1.0/3 is 0.33333333333333333333, not
// 0.3333333333333333).

// NumericContext is wide enough for exact sums and products; division
// picks its own scale as PostgreSQL does (NumericDivScale).
var NumericContext = apd.Context{Precision: 1000, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Rounding: apd.RoundHalfUp}

const (
	minSigDigits    = 16   // NUMERIC_MIN_SIG_DIGITS
	maxDisplayScale = 1000 // NUMERIC_MAX_DISPLAY_SCALE
)

// nbase returns d's weight and leading digits in PostgreSQL's base-10000
// representation (at most two, trailing zero digits stripped); zero has
// weight 0 and no digits.
func nbase(d *apd.Decimal) (weight int64, digits []int64) {
	if d.IsZero() {
		return 0, nil
	}
	s := new(apd.BigInt).Abs(&d.Coeff).String()
	exp := int64(len(s)) + int64(d.Exponent) - 1 // of the leading decimal digit
	weight = exp / 4
	if exp < 0 && exp%4 != 0 {
		weight--
	}
	n := int(exp - 4*weight + 1) // decimal digits in the leading group
	for len(s) < n+4 {
		s += "0"
	}
	first, _ := strconv.ParseInt(s[:n], 10, 64)
	second, _ := strconv.ParseInt(s[n:n+4], 10, 64)
	digits = []int64{first}
	if second != 0 || len(trimZeros(s[n:])) > 4 {
		digits = append(digits, second)
	}
	return weight, digits
}

func trimZeros(s string) string {
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return s
}

// OwnNumeric puts a numeric that an operation has just made, and that
// nothing else shares, in the form numeric datums keep: apd leaves a
// negative zero (0 * -1.5, ceil(-0.5)) and a positive exponent (a
// negative rounding scale), and PostgreSQL's numeric has neither.
func OwnNumeric(d *apd.Decimal) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	if d.Exponent > 0 {
		var p apd.BigInt
		p.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(d.Exponent)), nil)
		d.Coeff.Mul(&d.Coeff, &p)
		d.Exponent = 0
	}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
	return d
}

// dscale is a numeric's display scale: the digits it shows after the point.
func dscale(d *apd.Decimal) int64 { return int64(max(-d.Exponent, 0)) }

// resultScale clamps a chosen scale to PostgreSQL's limits, and to at least
// the display scales of the operands.
func resultScale(scale int64, operands ...*apd.Decimal) int32 {
	for _, d := range operands {
		scale = max(scale, dscale(d))
	}
	return int32(min(max(scale, 0), maxDisplayScale))
}

// NumericDiv is l / r rounded, half away from zero, to scale digits after
// the point, computed exactly on the coefficients:
//
//	l/r * 10^scale = Cl * 10^(El-Er+scale) / Cr
func NumericDiv(l, r *apd.Decimal, scale int32) *apd.Decimal {
	var num, den, q, rem apd.BigInt
	num.Abs(&l.Coeff)
	den.Abs(&r.Coeff)
	if k := int64(l.Exponent) - int64(r.Exponent) + int64(scale); k >= 0 {
		num.Mul(&num, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(k), nil))
	} else {
		den.Mul(&den, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(-k), nil))
	}
	q.QuoRem(&num, &den, &rem)
	if rem.Mul(&rem, apd.NewBigInt(2)).Cmp(&den) >= 0 {
		q.Add(&q, apd.NewBigInt(1))
	}
	d := &apd.Decimal{Coeff: q, Exponent: -scale, Negative: l.Negative != r.Negative}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
	return d
}

// NumericDivScale is select_div_scale: the quotient's weight is estimated
// from the operands' leading base-10000 digits.
func NumericDivScale(l, r *apd.Decimal) int32 {
	w1, d1 := nbase(l)
	w2, d2 := nbase(r)
	qweight := w1 - w2
	if first(d1) <= first(d2) {
		qweight--
	}
	return resultScale(minSigDigits-qweight*4, l, r)
}

func first(digits []int64) int64 {
	if len(digits) == 0 {
		return 0
	}
	return digits[0]
}

// lnWeight is estimate_ln_dweight: the decimal weight of ln(d), from d's
// leading digits, or from d-1 when d is near 1 and ln(d) near 0.
func lnWeight(d *apd.Decimal) int64 {
	if d.Negative || d.IsZero() {
		return 0
	}
	if d.Cmp(apd.New(9, -1)) >= 0 && d.Cmp(apd.New(11, -1)) <= 0 {
		x := new(apd.Decimal)
		_, _ = NumericContext.Sub(x, d, apd.New(1, 0))
		if x.IsZero() {
			return 0
		}
		w, digits := nbase(x)
		return w*4 + int64(math.Log10(float64(digits[0])))
	}
	w, digits := nbase(d)
	v, dweight := digits[0], w*4
	if len(digits) > 1 {
		v, dweight = v*10000+digits[1], dweight-4
	}
	ln := math.Log(float64(v)) + float64(dweight)*2.302585092994046
	return int64(math.Log10(math.Abs(ln)))
}

// approxWeight is how PostgreSQL turns a double estimate of log10 of a
// result into a weight: C's truncating conversion.
func approxWeight(log10 float64) int64 {
	return int64(max(min(log10, 2000), -2000))
}

// evalRounded computes f to scale digits after the point, rounded half
// away from zero. mag is about log10 of the result, so that the working
// precision covers every digit up to scale with guard digits to spare.
func evalRounded(scale int32, mag int64, f func(c *apd.Context, d *apd.Decimal) (apd.Condition, error)) (*apd.Decimal, error) {
	c := NumericContext
	c.Precision = uint32(max(mag+int64(scale), 0) + 20)
	d := new(apd.Decimal)
	if _, err := f(&c, d); err != nil {
		return nil, errNumericOverflow()
	}
	if _, err := c.Quantize(d, d, -scale); err != nil {
		return nil, errNumericOverflow()
	}
	if d.IsZero() {
		d.Negative = false
	}
	return d, nil
}

func errNumericOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

func numericSqrt(x *apd.Decimal) (*apd.Decimal, error) {
	if x.Negative && !x.IsZero() {
		return nil, pgerr.New(pgerr.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
	}
	if x.Form != apd.Finite {
		return x, nil // NaN, Infinity
	}
	w, _ := nbase(x)
	sweight := (w+1)*4/2 - 1
	return evalRounded(resultScale(minSigDigits-sweight, x), sweight, func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
		return c.Sqrt(d, x)
	})
}

func numericExp(x *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case x.Form == apd.Infinite && x.Negative:
		return apd.New(0, 0), nil
	case x.Form != apd.Finite:
		return x, nil
	}
	f, _ := x.Float64()
	if math.Abs(f) > 6000 {
		return nil, errNumericOverflow()
	}
	mag := approxWeight(f * 0.434294481903252)
	return evalRounded(resultScale(minSigDigits-mag, x), mag, func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
		return c.Exp(d, x)
	})
}

func checkLogArg(x *apd.Decimal) error {
	switch {
	case x.IsZero():
		return pgerr.New(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
	case x.Negative:
		return pgerr.New(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
	}
	return nil
}

func numericLn(x *apd.Decimal) (*apd.Decimal, error) {
	if err := checkLogArg(x); err != nil {
		return nil, err
	}
	if x.Form != apd.Finite {
		return x, nil
	}
	mag := lnWeight(x)
	return evalRounded(resultScale(minSigDigits-mag, x), mag, func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
		return c.Ln(d, x)
	})
}

// numericLog is log(base, x); log(x) is log(10, x).
func numericLog(base, x *apd.Decimal) (*apd.Decimal, error) {
	if err := checkLogArg(base); err != nil {
		return nil, err
	}
	if err := checkLogArg(x); err != nil {
		return nil, err
	}
	if base.Form == apd.NaN || x.Form == apd.NaN {
		return numericNaN(), nil
	}
	if base.Form != apd.Finite || x.Form != apd.Finite {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "log of infinity is not supported")
	}
	if base.Cmp(apd.New(1, 0)) == 0 {
		return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	mag := lnWeight(x) - lnWeight(base)
	return evalRounded(resultScale(minSigDigits-mag, base, x), mag, func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
		c.Precision += 10
		var lb apd.Decimal
		if _, err := c.Ln(&lb, base); err != nil {
			return 0, err
		}
		if _, err := c.Ln(d, x); err != nil {
			return 0, err
		}
		return c.Quo(d, d, &lb)
	})
}

// numericPower is power(b, e), b ^ e. An integral exponent is raised by
// multiplication, at the scale of 16 digits after the point (or b's);
// otherwise the scale comes from an estimate of the result's weight,
// computed as PostgreSQL computes it, through a rounded ln(b).
func numericPower(b, e *apd.Decimal) (*apd.Decimal, error) {
	one := apd.New(1, 0)
	switch {
	case b.Form == apd.NaN || e.Form == apd.NaN:
		// NaN ^ 0 and 1 ^ NaN are 1, as in PostgreSQL.
		if e.IsZero() || b.Cmp(one) == 0 {
			return one, nil
		}
		return numericNaN(), nil
	case b.Form != apd.Finite || e.Form != apd.Finite:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "power of infinity is not supported")
	}
	integral := isIntegral(e)
	switch {
	case b.IsZero() && e.Negative && !e.IsZero():
		return nil, pgerr.New(pgerr.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
	case b.Negative && !b.IsZero() && !integral:
		return nil, pgerr.New(pgerr.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
	}
	if integral {
		if n, err := e.Int64(); err == nil && n >= math.MinInt32 && n <= math.MaxInt32 {
			scale := resultScale(minSigDigits, b)
			if n == 0 || b.IsZero() {
				// 0 ^ 0 is 1, as SQL:2003 and most languages have it.
				v := apd.New(0, 0)
				if n == 0 {
					v = apd.New(1, 0)
				}
				_, err := NumericContext.Quantize(v, v, -scale)
				return v, err
			}
			f, _ := b.Float64()
			mag := float64(n) * math.Log10(math.Abs(f))
			if mag > 4*32768 {
				return nil, errNumericOverflow()
			}
			return evalRounded(scale, approxWeight(mag), func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
				return c.Pow(d, b, apd.New(n, 0))
			})
		}
	}
	if b.IsZero() {
		return &apd.Decimal{Exponent: -minSigDigits}, nil
	}
	// val approximates ln(b^e) as PostgreSQL's power_var does: ln(b) and
	// its product with e, each rounded to a few digits past its weight.
	local := int32(min(max(8-lnWeight(b), 0), maxDisplayScale))
	var lnb, prod apd.Decimal
	// The estimate needs local digits after the point and the few before
	// it (ln of the largest numeric is about 3·10^5), not the context's
	// 1000: ln at that precision takes tens of milliseconds.
	c := NumericContext
	c.Precision = uint32(local) + 20
	if _, err := c.Ln(&lnb, b); err != nil {
		return nil, errNumericOverflow()
	}
	_, _ = NumericContext.Quantize(&lnb, &lnb, -local)
	_, _ = NumericContext.Mul(&prod, &lnb, e)
	_, _ = NumericContext.Quantize(&prod, &prod, -local)
	val, _ := prod.Float64()
	if math.Abs(val) > 6000 {
		return nil, errNumericOverflow()
	}
	mag := approxWeight(val * 0.434294481903252)
	return evalRounded(resultScale(minSigDigits-mag, b, e), mag, func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
		return c.Pow(d, b, e)
	})
}

func numericNaN() *apd.Decimal { return &apd.Decimal{Form: apd.NaN} }

// isIntegral reports whether d has no nonzero digits after the point.
func isIntegral(d *apd.Decimal) bool {
	if d.Exponent >= 0 {
		return true
	}
	var q, r apd.BigInt
	q.QuoRem(&d.Coeff, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(-d.Exponent)), nil), &r)
	return r.Sign() == 0
}

func floatResult(v, x float64) (float64, error) {
	switch {
	case math.IsInf(v, 0) && !math.IsInf(x, 0):
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	case v == 0 && x != 0 && !math.IsInf(x, 0):
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return v, nil
}

func floatSqrt(x float64) (float64, error) {
	if x < 0 {
		return 0, pgerr.New(pgerr.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
	}
	return math.Sqrt(x), nil
}

func floatExp(x float64) (float64, error) {
	v := math.Exp(x)
	if v == 0 && !math.IsInf(x, -1) {
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return floatResult(v, x)
}

func floatLogArg(x float64) error {
	switch {
	case x == 0:
		return pgerr.New(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
	case x < 0:
		return pgerr.New(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
	}
	return nil
}

func floatLn(x float64) (float64, error)    { return math.Log(x), floatLogArg(x) }
func floatLog10(x float64) (float64, error) { return math.Log10(x), floatLogArg(x) }

func floatSign(x float64) (float64, error) {
	switch {
	case x > 0:
		return 1, nil
	case x < 0:
		return -1, nil
	}
	return 0, nil
}

func floatPow(x, y float64) (float64, error) {
	switch {
	case x == 0 && y < 0:
		return 0, pgerr.New(pgerr.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
	case x < 0 && y != math.Floor(y):
		return 0, pgerr.New(pgerr.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
	}
	v := math.Pow(x, y)
	if math.IsInf(v, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if v == 0 && x != 0 {
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return v, nil
}

func numericLog10(x *apd.Decimal) (*apd.Decimal, error) { return numericLog(apd.New(10, 0), x) }

func numericSign(x *apd.Decimal) (*apd.Decimal, error) {
	return apd.New(int64(x.Sign()), 0), nil
}

func pi(Env, []any) (any, error) { return math.Pi, nil }

func random(Env, []any) (any, error) { return mrand.Float64(), nil }

// absInt is abs of an integer type, whose minimum has no absolute value
// in the type.
func absInt(t types.T, name string, minimum int64) Overload {
	return Overload{Args: []types.T{t}, Ret: t, Fn: func(_ Env, a []any) (any, error) {
		switch x := a[0].(int64); {
		case x == minimum:
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", name)
		case x < 0:
			return -x, nil
		default:
			return x, nil
		}
	}}
}

// floatOf is a function of one float4 or float8 argument, of its type.
func floatOf(t types.T, f func(float64) float64) Overload {
	return Overload{Args: []types.T{t}, Ret: t, Fn: func(_ Env, a []any) (any, error) { return f(a[0].(float64)), nil }}
}

// numericOf is a function of one numeric argument that apd computes.
func numericOf(f func(*apd.Context, *apd.Decimal, *apd.Decimal) (apd.Condition, error)) Overload {
	return Overload{Args: []types.T{types.Numeric}, Ret: types.Numeric, Fn: func(_ Env, a []any) (any, error) {
		r := new(apd.Decimal)
		if _, err := f(&NumericContext, r, a[0].(*apd.Decimal)); err != nil {
			return nil, err
		}
		return OwnNumeric(r), nil
	}}
}

// round is round and, with trunc, trunc: of float8, to a whole number
// (round is C's rint, halves to even); of numeric, to a scale (none is 0)
// that may be negative, round taking halves away from zero.
func round(trunc bool) []Overload {
	float := math.RoundToEven
	if trunc {
		float = math.Trunc
	}
	numeric := func(_ Env, a []any) (any, error) {
		scale := int64(0)
		if len(a) == 2 {
			scale = a[1].(int64)
		}
		ctx := NumericContext
		if trunc {
			ctx.Rounding = apd.RoundDown
		}
		r := new(apd.Decimal)
		if _, err := ctx.Quantize(r, a[0].(*apd.Decimal), int32(-scale)); err != nil {
			return nil, err
		}
		return OwnNumeric(r), nil
	}
	return []Overload{
		floatOf(types.Float8, float),
		{Args: []types.T{types.Numeric}, Ret: types.Numeric, Fn: numeric},
		{Args: []types.T{types.Numeric, types.Int4}, Ret: types.Numeric, Fn: numeric},
	}
}
