package sql

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

func init() {
	funcCompilers["width_bucket"] = compileWidthBucket
}

// compileWidthBucket is width_bucket(operand, low, high, count), the
// bucket operand falls in among count equal ones between low and high (0
// below, count+1 above; with low > high they count down), in float8 or
// numeric; and width_bucket(operand, thresholds), the number of sorted
// thresholds at or below operand. The float8 overload wins unless a
// numeric argument and no float one is given, as PostgreSQL's preference
// for float8 decides.
func compileWidthBucket(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	if len(args) != 2 && len(args) != 4 {
		return nil, noFunction("width_bucket", args)
	}
	if len(args) == 2 {
		return c.widthBucketArray(args)
	}
	hasFloat, hasNumeric := false, false
	for _, a := range args[:3] {
		switch o := a.typ().Oid; {
		case o == types.OidFloat4 || o == types.OidFloat8:
			hasFloat = true
		case o == types.OidNumeric:
			hasNumeric = true
		}
	}
	t := types.Float8
	fn := widthBucketFloat
	if hasNumeric && !hasFloat {
		t, fn = types.Numeric, widthBucketNumeric
	}
	params := []types.T{t, t, t, types.Int4}
	for i, p := range params {
		if !castsImplicitly(args[i].typ(), p) {
			return nil, noFunction("width_bucket", args)
		}
	}
	if err := c.coerceArgs("width_bucket", args, params); err != nil {
		return nil, err
	}
	return &funcExpr{name: "width_bucket", t: types.Int4, args: args, strict: true, fn: fn}, nil
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
func widthBucketFloat(_ *env, a []any) (any, error) {
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
func widthBucketNumeric(_ *env, a []any) (any, error) {
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
		_, _ = builtins.NumericContext.Sub(num, op, lo)
		_, _ = builtins.NumericContext.Sub(den, hi, lo)
	} else {
		_, _ = builtins.NumericContext.Sub(num, lo, op)
		_, _ = builtins.NumericContext.Sub(den, lo, hi)
	}
	_, _ = builtins.NumericContext.Mul(num, num, apd.New(count, 0))
	// Both are positive: the quotient's integer part is its floor.
	q := builtins.NumericDiv(num, den, 0) // rounded: one too many if it rounded up
	var back apd.Decimal
	if _, _ = builtins.NumericContext.Mul(&back, q, den); back.Cmp(num) > 0 {
		_, _ = builtins.NumericContext.Sub(q, q, apd.New(1, 0))
	}
	b, err := q.Int64()
	if err != nil || b+1 > math.MaxInt32 {
		return nil, errIntRange
	}
	return b + 1, nil
}

// widthBucketArray is width_bucket(operand, thresholds): PostgreSQL's
// binary search, which for sorted thresholds counts those at or below
// operand. Operand and elements meet in their common type.
func (c *compiler) widthBucketArray(args []expr) (expr, error) {
	at := args[1].typ()
	elem, ok := at.Elem()
	if !ok || !at.IsArray() {
		return nil, noFunction("width_bucket", args)
	}
	t, err := selectCommonType("width_bucket", []types.T{args[0].typ(), elem})
	if err != nil || !castsImplicitly(args[0].typ(), t) || !castsImplicitly(elem, t) {
		return nil, noFunction("width_bucket", args)
	}
	t.Mod = -1
	arr, _ := types.ArrayOf(t)
	if args[0], err = c.coerce(args[0], t); err != nil {
		return nil, err
	}
	if args[1], err = c.coerce(args[1], arr); err != nil {
		return nil, err
	}
	return &funcExpr{name: "width_bucket", t: types.Int4, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
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
	}}, nil
}
