package builtins

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// width_bucket(operand, low, high, count): the bucket operand falls in
// among count equal ones between low and high (0 below, count+1 above;
// with low > high they count down), in float8 or numeric; and
// width_bucket(operand, thresholds), the number of sorted thresholds at
// or below operand, operand and elements meeting in their common type.
func widthBucket() []Overload {
	return []Overload{
		{Args: []types.T{types.Float8, types.Float8, types.Float8, types.Int4}, Ret: types.Int4, Fn: widthBucketFloat},
		{Args: []types.T{types.Numeric, types.Numeric, types.Numeric, types.Int4}, Ret: types.Int4, Fn: widthBucketNumeric},
		{Args: []types.T{AnyCompatible, AnyCompatibleArray}, Ret: types.Int4, Typed: widthBucketArray},
	}
}

var (
	errBucketCount = pgerr.New(pgerr.InvalidArgumentForWidthBucket, "count must be greater than zero")
	errBucketNaN   = pgerr.New(pgerr.InvalidArgumentForWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
	errBucketInf   = pgerr.New(pgerr.InvalidArgumentForWidthBucket, "lower and upper bounds must be finite")
	errBucketEqual = pgerr.New(pgerr.InvalidArgumentForWidthBucket, "lower bound cannot equal upper bound")
	errIntRange    = pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
)

// widthBucketFloat is width_bucket_float8, its quotient computed in the
// same order and converted to int4 as PostgreSQL's C code is on x86-64,
// where a NaN or out-of-range quotient (from bounds whose difference
// overflows) becomes the smallest int4.
func widthBucketFloat(_ Env, a []any) (any, error) {
	op, lo, hi, count := a[0].(float64), a[1].(float64), a[2].(float64), a[3].(int64)
	switch {
	case count <= 0:
		return nil, errBucketCount
	case math.IsNaN(op) || math.IsNaN(lo) || math.IsNaN(hi):
		return nil, errBucketNaN
	case math.IsInf(lo, 0) || math.IsInf(hi, 0):
		return nil, errBucketInf
	case lo == hi:
		return nil, errBucketEqual
	}
	if lo > hi {
		// Counting down is counting up in the mirror image.
		op, lo, hi = -op, -lo, -hi
	}
	switch {
	case op < lo:
		return int64(0), nil
	case op >= hi:
		if count == math.MaxInt32 {
			return nil, errIntRange
		}
		return count + 1, nil
	}
	q := float64(count)*(op-lo)/(hi-lo) + 1
	if math.IsNaN(q) || q >= 1<<31 || q < -1<<31 {
		return int64(math.MinInt32), nil
	}
	return int64(int32(q)), nil
}

// widthBucketNumeric is width_bucket_numeric: the bucket is computed
// exactly, floor((operand - low) * count / (high - low)) + 1.
func widthBucketNumeric(_ Env, a []any) (any, error) {
	op, lo, hi, count := a[0].(*apd.Decimal), a[1].(*apd.Decimal), a[2].(*apd.Decimal), a[3].(int64)
	switch {
	case count <= 0:
		return nil, errBucketCount
	case op.Form == apd.NaN || lo.Form == apd.NaN || hi.Form == apd.NaN:
		return nil, errBucketNaN
	case lo.Form == apd.Infinite || hi.Form == apd.Infinite:
		return nil, errBucketInf
	}
	order := types.Compare(types.Numeric, lo, hi)
	if order == 0 {
		return nil, errBucketEqual
	}
	below, above := types.Compare(types.Numeric, op, lo) < 0, types.Compare(types.Numeric, op, hi) >= 0
	if order > 0 {
		below, above = types.Compare(types.Numeric, op, lo) > 0, types.Compare(types.Numeric, op, hi) <= 0
	}
	switch {
	case below:
		return int64(0), nil
	case above:
		if count == math.MaxInt32 {
			return nil, errIntRange
		}
		return count + 1, nil
	}
	num, den := new(apd.Decimal), new(apd.Decimal)
	if order < 0 {
		_, _ = NumericContext.Sub(num, op, lo)
		_, _ = NumericContext.Sub(den, hi, lo)
	} else {
		_, _ = NumericContext.Sub(num, lo, op)
		_, _ = NumericContext.Sub(den, lo, hi)
	}
	_, _ = NumericContext.Mul(num, num, apd.New(count, 0))
	// Both are positive: the quotient's integer part is its floor.
	q := NumericDiv(num, den, 0) // rounded: one too many if it rounded up
	var back apd.Decimal
	if _, _ = NumericContext.Mul(&back, q, den); back.Cmp(num) > 0 {
		_, _ = NumericContext.Sub(q, q, apd.New(1, 0))
	}
	b, err := q.Int64()
	if err != nil || b+1 > math.MaxInt32 {
		return nil, errIntRange
	}
	return b + 1, nil
}

// widthBucketArray is width_bucket(operand, thresholds): PostgreSQL's
// binary search, which for sorted thresholds counts those at or below
// operand.
func widthBucketArray(ts []types.T, _ types.T) func(Env, []any) (any, error) {
	t := ts[0]
	return func(_ Env, a []any) (any, error) {
		th := a[1].([]any)
		for _, v := range th {
			if v == nil {
				return nil, pgerr.New(pgerr.NullValueNotAllowed, "thresholds array must not contain NULLs")
			}
		}
		left, right := 0, len(th)
		for left < right {
			mid := (left + right) / 2
			if types.Compare(t, a[0], th[mid]) < 0 {
				right = mid
			} else {
				left = mid + 1
			}
		}
		return int64(left), nil
	}
}
