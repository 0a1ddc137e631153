package builtins

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The statistical aggregates: stddev and variance (sample and
// population) over numbers, and the aggregates of (Y, X) pairs of
// float8s (corr, covar_*, regr_*), as PostgreSQL's numeric.c and float.c
// compute them.

// moments are the overloads of stddev or variance: sample or population,
// and with sqrt the deviation. Integers and numerics are summed exactly.
func moments(sample, sqrt bool) []Aggregate {
	var aggs []Aggregate
	for _, t := range []types.T{types.Int2, types.Int4, types.Int8, types.Numeric, types.Float4, types.Float8} {
		ret := types.Numeric
		if t.Oid == types.OidFloat4 || t.Oid == types.OidFloat8 {
			ret = types.Float8
		}
		aggs = append(aggs, Aggregate{Overload: Overload{Args: []types.T{t}, Ret: ret},
			New: func(Env, []types.T, types.T) Accumulator { return &momentsState{sample: sample, sqrt: sqrt} }})
	}
	return aggs
}

// momentsState is the state of one of moments' aggregates.
type momentsState struct {
	sample, sqrt bool
	float        *floatMoments
	numeric      *numericMoments
}

func (m *momentsState) Add(a []any) error {
	switch v := a[0].(type) {
	case float64:
		if m.float == nil {
			m.float = &floatMoments{}
		}
		return m.float.add(v)
	case int64:
		return m.addNumeric(apd.New(v, 0))
	case *apd.Decimal:
		return m.addNumeric(v)
	}
	return nil
}

func (m *momentsState) addNumeric(d *apd.Decimal) error {
	if m.numeric == nil {
		m.numeric = &numericMoments{sum: new(apd.Decimal), sumSq: new(apd.Decimal)}
	}
	n := m.numeric
	n.n++
	if d.Form != apd.Finite {
		n.nonFinite = true
		return nil
	}
	sq := new(apd.Decimal)
	if _, err := NumericContext.Mul(sq, d, d); err != nil {
		return errNumericOverflow()
	}
	if _, err := NumericContext.Add(n.sum, n.sum, d); err != nil {
		return errNumericOverflow()
	}
	if _, err := NumericContext.Add(n.sumSq, n.sumSq, sq); err != nil {
		return errNumericOverflow()
	}
	return nil
}

func (m *momentsState) Result() (any, error) {
	switch {
	case m.float != nil:
		f := m.float
		var v float64
		switch {
		case m.sample && f.n <= 1:
			return nil, nil
		case m.sample:
			v = f.sxx / (f.n - 1)
		default:
			v = f.sxx / f.n
		}
		if m.sqrt {
			v = math.Sqrt(v)
		}
		return v, nil
	case m.numeric != nil:
		return m.numeric.result(m.sample, m.sqrt)
	}
	return nil, nil
}

// regression is the aggregate fn of (Y, X) pairs: a pair with a NULL is
// skipped.
func regression(fn string) []Aggregate {
	ret := types.Float8
	if fn == "regr_count" {
		ret = types.Int8
	}
	return []Aggregate{{Overload: Overload{Args: []types.T{types.Float8, types.Float8}, Ret: ret},
		New: func(Env, []types.T, types.T) Accumulator { return &regressionAgg{fn: fn} }}}
}

type regressionAgg struct {
	fn string
	regressionState
}

func (r *regressionAgg) Add(a []any) error {
	if a[1] == nil {
		return nil
	}
	return r.add(a[0].(float64), a[1].(float64))
}

func (r *regressionAgg) Result() (any, error) { return r.result(r.fn), nil }

// numericMoments is the state of stddev and variance over integers and
// numerics: exact sums.
type numericMoments struct {
	n          int64
	sum, sumSq *apd.Decimal
	nonFinite  bool // a NaN or an infinity makes the result NaN
}

// floatMoments is the state of stddev and variance over floats, and
// regressionState that of the (Y, X) aggregates: float8_accum's and
// float8_regr_accum's N, Sx, Sxx and so on.
type floatMoments struct{ n, sx, sxx float64 }

type regressionState struct{ n, sx, sy, sxx, syy, sxy float64 }

func errFloatOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
}

func isInfOrNaN(f float64) bool { return math.IsInf(f, 0) || math.IsNaN(f) }

// add is float8_accum.
func (m *floatMoments) add(x float64) error {
	prevN, prevSx := m.n, m.sx
	m.n++
	m.sx += x
	if prevN > 0 {
		tmp := x*m.n - m.sx
		m.sxx += tmp * tmp / (m.n * prevN)
		if math.IsInf(m.sx, 0) || math.IsInf(m.sxx, 0) {
			if !math.IsInf(prevSx, 0) && !math.IsInf(x, 0) {
				return errFloatOverflow()
			}
			m.sxx = math.NaN()
		}
	} else if isInfOrNaN(x) {
		m.sxx = math.NaN()
	}
	return nil
}

// add is float8_regr_accum.
func (r *regressionState) add(y, x float64) error {
	prevN, prevSx, prevSy := r.n, r.sx, r.sy
	r.n++
	r.sx += x
	r.sy += y
	if prevN > 0 {
		tmpX, tmpY := x*r.n-r.sx, y*r.n-r.sy
		scale := 1.0 / (r.n * prevN)
		r.sxx += tmpX * tmpX * scale
		r.syy += tmpY * tmpY * scale
		r.sxy += tmpX * tmpY * scale
		if math.IsInf(r.sx, 0) || math.IsInf(r.sxx, 0) {
			if !math.IsInf(prevSx, 0) && !math.IsInf(x, 0) {
				return errFloatOverflow()
			}
			r.sxx = math.NaN()
		}
		if math.IsInf(r.sy, 0) || math.IsInf(r.syy, 0) {
			if !math.IsInf(prevSy, 0) && !math.IsInf(y, 0) {
				return errFloatOverflow()
			}
			r.syy = math.NaN()
		}
		if math.IsInf(r.sxy, 0) {
			if !math.IsInf(prevSx, 0) && !math.IsInf(x, 0) && !math.IsInf(prevSy, 0) && !math.IsInf(y, 0) {
				return errFloatOverflow()
			}
			r.sxy = math.NaN()
		}
		return nil
	}
	if isInfOrNaN(x) {
		r.sxx, r.sxy = math.NaN(), math.NaN()
	}
	if isInfOrNaN(y) {
		r.syy, r.sxy = math.NaN(), math.NaN()
	}
	return nil
}

// result is numeric_stddev_internal: the numerator N*sum(x²) - sum(x)² is
// exact; the quotient takes select_div_scale's scale, and the square root
// the same.
func (m *numericMoments) result(sample, sqrt bool) (any, error) {
	switch {
	case m.nonFinite:
		return &apd.Decimal{Form: apd.NaN}, nil
	case m.n == 0 || sample && m.n == 1:
		return nil, nil
	}
	n := apd.New(m.n, 0)
	num, sq := new(apd.Decimal), new(apd.Decimal)
	if _, err := NumericContext.Mul(num, n, m.sumSq); err != nil {
		return nil, errNumericOverflow()
	}
	if _, err := NumericContext.Mul(sq, m.sum, m.sum); err != nil {
		return nil, errNumericOverflow()
	}
	if _, err := NumericContext.Sub(num, num, sq); err != nil {
		return nil, errNumericOverflow()
	}
	if num.Sign() <= 0 {
		return apd.New(0, 0), nil // roundoff cannot make it negative; zero is zero
	}
	den := apd.New(m.n-1, 0)
	if !sample {
		den = apd.New(m.n, 0)
	}
	if _, err := NumericContext.Mul(den, den, n); err != nil {
		return nil, errNumericOverflow()
	}
	scale := NumericDivScale(num, den)
	v := NumericDiv(num, den, scale)
	if !sqrt {
		return v, nil
	}
	w, _ := nbase(v)
	return evalRounded(scale, (w+1)*4/2-1, func(c *apd.Context, d *apd.Decimal) (apd.Condition, error) {
		return c.Sqrt(d, v)
	})
}

// result is the final functions of float.c's regression aggregates.
func (r *regressionState) result(fn string) any {
	if fn == "regr_count" {
		return int64(r.n)
	}
	if r.n < 1 || fn == "covar_samp" && r.n < 2 {
		return nil
	}
	switch fn {
	case "regr_sxx":
		return r.sxx
	case "regr_syy":
		return r.syy
	case "regr_sxy":
		return r.sxy
	case "regr_avgx":
		return r.sx / r.n
	case "regr_avgy":
		return r.sy / r.n
	case "covar_pop":
		return r.sxy / r.n
	case "covar_samp":
		return r.sxy / (r.n - 1)
	case "corr":
		if r.sxx == 0 || r.syy == 0 {
			return nil
		}
		return r.sxy / math.Sqrt(r.sxx*r.syy)
	case "regr_r2":
		switch {
		case r.sxx == 0:
			return nil
		case r.syy == 0:
			return 1.0
		}
		return r.sxy * r.sxy / (r.sxx * r.syy)
	case "regr_slope":
		if r.sxx == 0 {
			return nil
		}
		return r.sxy / r.sxx
	case "regr_intercept":
		if r.sxx == 0 {
			return nil
		}
		return (r.sy - r.sx*r.sxy/r.sxx) / r.n
	}
	return nil
}
