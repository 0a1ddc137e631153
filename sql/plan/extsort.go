package plan

import (
	"math"
)

// rowsRead is how many rows of its input a LIMIT and OFFSET read, or 0 if
// that is not known before the input is (either is computed from the
// rows, or is NULL or negative, which window reports) or is every row.
func rowsRead(x *ExecCtx, limit, offset Expr) int64 {
	if limit == nil || !rowIndependent(limit) || offset != nil && !rowIndependent(offset) {
		return 0
	}
	v, err := limit.Eval(x.Env(nil))
	take, ok := v.(int64)
	if err != nil || !ok || take < 0 {
		return 0
	}
	var skip int64
	if offset != nil {
		v, err := offset.Eval(x.Env(nil))
		if err != nil {
			return 0
		}
		if v != nil {
			if skip = v.(int64); skip < 0 {
				return 0
			}
		}
	}
	if take > math.MaxInt64-skip {
		return 0
	}
	return take + skip
}
