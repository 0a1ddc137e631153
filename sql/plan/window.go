package plan

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Window functions run after WHERE, on the rows it kept: each call adds a
// column to every row, which the select list reads by the call's text.
//
//   - row_number, rank and dense_rank number the rows of a partition in the
//     window's order (pgjdbc's getColumns uses them).
//   - ntile, percent_rank and cume_dist place the row among its
//     partition's rows in the window's order.
//   - lag and lead read the value of a row before or after, in that order.
//   - first_value, last_value, nth_value and the aggregates (count, sum,
//     avg, min, max, the bitwise ones and those of stddev and variance that
//     TiDB's grammar takes with OVER; the parser refuses the others), with
//     or without FILTER, read the window frame: by
//     default, with ORDER BY, the partition's rows up to the current row and
//     its peers; without ORDER BY, the whole partition. ROWS frames may
//     bound either end by UNBOUNDED, CURRENT ROW or a constant offset; RANGE
//     frames by those or by an offset from the one ORDER BY value.
//     winagg.go follows a frame as it moves from row to row.
//
// In a grouped query they run after grouping and HAVING, on the groups.
// Named windows and DISTINCT are not supported.

// winPlan is a query's window step.
type winPlan struct {
	base  int // the first added column's index in the row
	calls []*winCall
	refs  []*ColExpr // the reads of the added columns, which place moves
	// clauseErrs are the ungrouped columns of the windows' clauses, which
	// planSelect reports once the select list and ORDER BY are planned.
	clauseErrs []error
}

type winCall struct {
	key       string // the call as SQL, as the select list names it
	argErr    error  // an ungrouped column in the arguments, reported where read
	fn        string
	t         types.T // the result type
	args      []Expr
	agg       *aggCall // the aggregate, for an aggregate over a window
	filter    Expr     // the aggregate's FILTER, or nil
	partition []Expr
	order     []rowexec.SortKey // over the values of orderBy
	orderBy   []Expr
	frame     winFrame
}

// winFrame is a window frame. An offset bound counts rows (ROWS only).
type winFrame struct {
	rows       bool // ROWS, not RANGE
	start, end frameBound
}

type frameBound struct {
	kind   int // boundUnbounded, boundCurrent or boundOffset
	offset int64
	ahead  bool // FOLLOWING, not PRECEDING
	// A RANGE offset bound: limit computes, from the current row's ORDER
	// BY value, the value where the frame ends (value - offset, say), and
	// conv turns any row's value into limit's type to compare with it.
	// Both read the value as the only column of their row.
	limit, conv Expr
}

const (
	boundUnbounded = iota
	boundCurrent
	boundOffset
)

// planWindows plans the window calls of n's select list and ORDER BY, and
// returns the compiler that compiles those over the rows they extend.
//
// In a grouped query the windows run after grouping and HAVING, over the
// grouped rows, as in PostgreSQL: their arguments and clauses compile with
// out, over what the query groups by and its aggregates (sum(count(*))
// OVER () sums a count of each group). The grouped row's width is known
// only once every aggregate of the query is planned, so the columns the
// windows add are placed then (see place).
func (p *SelectPlan) planWindows(out, in *Compiler, n *ast.SelectStmt) (*Compiler, error) {
	var found []*ast.WindowFuncExpr
	finder := &windowFinder{found: &found}
	for _, f := range n.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(finder)
		}
	}
	if n.OrderBy != nil {
		for _, item := range n.OrderBy.Items {
			item.Expr.Accept(finder)
		}
	}
	if len(found) == 0 {
		return out, nil
	}
	over := in
	if p.agg != nil {
		over = out
	}
	w := &winPlan{base: len(in.Scope.Cols)}
	// PostgreSQL reports a column a grouped query reads ungrouped after any
	// other error, in the order of the select list (where a call stands
	// for its arguments) and ORDER BY, then of the windows' clauses. Such
	// errors wait here until the select list or the end of planning.
	deferred := func(err error) bool { return p.agg != nil && pgerr.Code(err) == pgerr.GroupingError }
	for _, wf := range found {
		key := Restore(wf)
		if slices.ContainsFunc(w.calls, func(c *winCall) bool { return c.key == key }) {
			continue
		}
		call, err := planWindowCall(over, wf)
		switch {
		case deferred(err):
			call = &winCall{argErr: err}
		case err != nil:
			return nil, err
		default:
			if err := call.planSpec(over, &wf.Spec); deferred(err) {
				w.clauseErrs = append(w.clauseErrs, err)
			} else if err != nil {
				return nil, err
			}
		}
		call.key = key
		w.calls = append(w.calls, call)
	}
	if p.agg != nil {
		// Until placed, the columns have indexes no other column has.
		w.base = -len(w.calls)
	} else {
		// The added columns have no names: only the calls read them.
		for _, call := range w.calls {
			in.Scope.Cols = append(in.Scope.Cols, ScopeCol{T: call.t})
		}
	}
	p.windows = w
	cc := *out
	cc.win = w
	return &cc, nil
}

// place moves the columns the windows add to base: in a grouped query,
// past the group values and every aggregate.
func (w *winPlan) place(base int) {
	for _, ref := range w.refs {
		ref.Index += base - w.base
	}
	w.base = base
}

// deferredErr returns the first ungrouped column error that planWindows
// held back and no read of a call has reported.
func (w *winPlan) deferredErr() error {
	for _, call := range w.calls {
		if call.argErr != nil {
			return call.argErr
		}
	}
	if len(w.clauseErrs) > 0 {
		return w.clauseErrs[0]
	}
	return nil
}

// noWindows returns PostgreSQL's error for a window call in n, an
// expression of a clause that cannot have them.
func noWindows(n ast.Node, clause string) error {
	if n == nil || !hasWindow(n) {
		return nil
	}
	return pgerr.New(pgerr.WindowingError, "window functions are not allowed in %s", clause)
}

// hasWindow reports whether n calls a window function, outside its
// subqueries.
func hasWindow(n ast.Node) bool {
	var found []*ast.WindowFuncExpr
	n.Accept(&windowFinder{found: &found})
	return len(found) > 0
}

// planWindowCall plans one call: its function and arguments, its window and
// its frame.
func planWindowCall(in *Compiler, wf *ast.WindowFuncExpr) (*winCall, error) {
	call := &winCall{fn: strings.ToLower(wf.Name), t: types.Int8}
	if wf.Distinct {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions")
	}
	argNodes := wf.Args
	if fn, args, ok := windowAgg(wf); ok {
		call.fn, argNodes = fn, args
	}
	if len(argNodes) == 1 {
		// The parser's packing of lag and lead arguments TiDB would refuse.
		if f, ok := argNodes[0].(*ast.FuncCallExpr); ok && f.FnName.L == "epochdb_args" {
			argNodes = f.Args
		}
	}
	argNodes, cond := aggFilter(argNodes)
	for _, a := range argNodes {
		if hasWindow(a) {
			return nil, pgerr.New(pgerr.WindowingError, "window function calls cannot be nested")
		}
	}
	if err := noWindows(cond, "FILTER"); err != nil {
		return nil, err
	}
	if cond != nil && hasAggregateIn(cond) {
		return nil, pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in FILTER")
	}
	if hasWindow(&wf.Spec) {
		return nil, pgerr.New(pgerr.WindowingError, "window functions are not allowed in window definitions")
	}
	args := make([]Expr, len(argNodes))
	for i, a := range argNodes {
		var err error
		if args[i], err = in.Compile(a); err != nil {
			return nil, err
		}
	}
	switch call.fn {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist":
		if len(args) > 0 {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s with arguments does not exist", call.fn)
		}
		if call.fn == "percent_rank" || call.fn == "cume_dist" {
			call.t = types.Float8
		}
	case "ntile":
		if len(args) != 1 {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function ntile with %d arguments does not exist", len(args))
		}
		var err error
		if args[0], err = in.Coerce(args[0], types.Int4); err != nil {
			return nil, err
		}
		call.t = types.Int4
	case "nth_value":
		if len(args) != 2 {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function nth_value with %d arguments does not exist", len(args))
		}
		var err error
		if args[0], err = in.ResolveUnknown(args[0]); err != nil {
			return nil, err
		}
		if args[1], err = in.Coerce(args[1], types.Int4); err != nil {
			return nil, err
		}
		call.t = args[0].Type()
	case "lag", "lead":
		if len(args) < 1 || len(args) > 3 {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", call.fn, len(args))
		}
		var err error
		if len(args) > 1 {
			if args[1], err = in.Coerce(args[1], types.Int4); err != nil {
				return nil, err
			}
		}
		if len(args) > 2 {
			// The value and the default meet in their common type, as
			// PostgreSQL's anycompatible arguments do.
			pair := []Expr{args[0], args[2]}
			if call.t, err = in.commonType(call.fn, pair); err != nil {
				return nil, err
			}
			args[0], args[2] = pair[0], pair[1]
		} else {
			if args[0], err = in.ResolveUnknown(args[0]); err != nil {
				return nil, err
			}
			call.t = args[0].Type()
		}
	case "first_value", "last_value":
		if len(args) != 1 {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", call.fn, len(args))
		}
		var err error
		if args[0], err = in.ResolveUnknown(args[0]); err != nil {
			return nil, err
		}
		call.t = args[0].Type()
	default:
		if builtins.LookupAggregate(call.fn) == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "window function %s is not supported", call.fn)
		}
		agg := &aggCall{fn: call.fn, args: args}
		if call.fn == "count" && (len(argNodes) == 0 || len(argNodes) == 1 && isConstOne(argNodes[0])) {
			agg.args = nil // count(*)
		}
		if err := agg.typeCheck(in); err != nil {
			return nil, err
		}
		if agg.args != nil {
			args = agg.args // converted to the overload's parameters
		}
		agg.nargs, agg.argTypes = len(agg.args), argTypesOf(agg.args)
		call.agg, call.t = agg, agg.t
	}
	call.args = args
	if cond != nil {
		if call.agg == nil {
			return nil, pgerr.New(pgerr.WrongObjectType, "FILTER is not implemented for non-aggregate window functions")
		}
		var err error
		if call.filter, err = in.Compile(cond); err != nil {
			return nil, err
		}
		if t := call.filter.Type(); t.Oid != types.OidBool && t.Oid != types.OidUnknown {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of FILTER must be type boolean, not type %s", t)
		}
		if call.filter, err = in.Coerce(call.filter, types.Bool); err != nil {
			return nil, err
		}
	}
	return call, nil
}

// planSpec plans call's window: PARTITION BY, ORDER BY and the frame.
func (call *winCall) planSpec(in *Compiler, spec *ast.WindowSpec) error {
	if spec.Name.L != "" || spec.Ref.L != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "named windows are not supported")
	}
	if spec.PartitionBy != nil {
		for _, item := range spec.PartitionBy.Items {
			e, err := in.Compile(windowKey(item.Expr))
			if err != nil {
				return err
			}
			call.partition = append(call.partition, e)
		}
	}
	if spec.OrderBy != nil {
		for _, item := range spec.OrderBy.Items {
			e := windowKey(item.Expr)
			k := rowexec.SortKey{Desc: item.Desc, NullsFirst: item.Desc}
			if f, ok := e.(*ast.FuncCallExpr); ok && f.FnName.L == "epochdb_nulls" {
				e = f.Args[0]
				k.NullsFirst = f.Args[1].(*driver.ValueExpr).GetString() == "first"
			}
			oe, err := in.Compile(e)
			if err != nil {
				return err
			}
			if oe, err = in.ResolveUnknown(oe); err != nil {
				return err
			}
			k.Idx, k.T = len(call.partition)+len(call.orderBy), oe.Type()
			call.order = append(call.order, k)
			call.orderBy = append(call.orderBy, oe)
		}
	}
	// The default frame: RANGE UNBOUNDED PRECEDING to CURRENT ROW, whose
	// peers, without ORDER BY, are the whole partition.
	call.frame = winFrame{start: frameBound{kind: boundUnbounded}, end: frameBound{kind: boundCurrent}}
	if spec.Frame != nil {
		var err error
		if call.frame, err = planFrame(in, spec.Frame, call); err != nil {
			return err
		}
	}
	return nil
}

// windowKey undoes TiDB's reading of a bare integer in a BY list as a
// column position: in a window's PARTITION BY and ORDER BY it is a constant.
func windowKey(e ast.ExprNode) ast.ExprNode {
	if p, ok := e.(*ast.PositionExpr); ok && p.P == nil {
		return ast.NewValueExpr(int64(p.N), "", "")
	}
	return e
}

// planFrame reads a frame clause of call.
func planFrame(in *Compiler, f *ast.FrameClause, call *winCall) (winFrame, error) {
	fr := winFrame{rows: f.Type == ast.Rows}
	if f.Type != ast.Rows && f.Type != ast.Ranges {
		return fr, pgerr.New(pgerr.FeatureNotSupported, "GROUPS frames are not supported")
	}
	bound := func(b ast.FrameBound, start bool) (frameBound, error) {
		switch {
		case b.Type == ast.CurrentRow:
			return frameBound{kind: boundCurrent}, nil
		case b.UnBounded:
			if start == (b.Type == ast.Following) {
				which := "start"
				if !start {
					which = "end"
				}
				return frameBound{}, pgerr.New(pgerr.WindowingError, "frame %s cannot be UNBOUNDED %s", which,
					map[bool]string{true: "FOLLOWING", false: "PRECEDING"}[b.Type == ast.Following])
			}
			return frameBound{kind: boundUnbounded, ahead: b.Type == ast.Following}, nil
		case !fr.rows:
			return rangeBound(in, b, call, start)
		}
		e, err := in.Compile(b.Expr)
		if err != nil {
			return frameBound{}, err
		}
		var n int64
		if k, ok := e.(*ConstExpr); !ok {
			return frameBound{}, pgerr.New(pgerr.FeatureNotSupported, "frame offsets must be integer constants")
		} else if n, ok = k.V.(int64); !ok {
			return frameBound{}, pgerr.New(pgerr.FeatureNotSupported, "frame offsets must be integer constants")
		}
		if n < 0 {
			return frameBound{}, pgerr.New(pgerr.InvalidPrecedingOrFollowingSize, "frame starting offset must not be negative")
		}
		return frameBound{kind: boundOffset, offset: n, ahead: b.Type == ast.Following}, nil
	}
	var err error
	if fr.start, err = bound(f.Extent.Start, true); err != nil {
		return fr, err
	}
	if fr.end, err = bound(f.Extent.End, false); err != nil {
		return fr, err
	}
	// PostgreSQL's checks of a frame that would run backwards.
	startAhead := fr.start.kind == boundOffset && fr.start.ahead
	endBehind := fr.end.kind == boundOffset && !fr.end.ahead
	switch {
	case fr.start.kind == boundCurrent && endBehind:
		return fr, pgerr.New(pgerr.WindowingError, "frame starting from current row cannot have preceding rows")
	case startAhead && (fr.end.kind == boundCurrent || endBehind):
		return fr, pgerr.New(pgerr.WindowingError, "frame starting from following row cannot have preceding rows")
	}
	return fr, nil
}

// rangeBound plans a RANGE offset bound, which PostgreSQL allows with one
// ORDER BY column whose type can add the offset: numbers, or dates and
// times with an interval. The limits are computed without overflow:
// integer columns in numeric.
func rangeBound(in *Compiler, b ast.FrameBound, call *winCall, start bool) (frameBound, error) {
	if len(call.orderBy) != 1 {
		return frameBound{}, pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	off, err := in.Compile(b.Expr)
	if err != nil {
		return frameBound{}, err
	}
	if !constant(off) {
		return frameBound{}, pgerr.New(pgerr.InvalidColumnReference, "argument of RANGE must not contain variables")
	}
	ot := call.orderBy[0].Type()
	isTime := timeRank(ot.Oid) > 0 || ot.Oid == types.OidTime
	if numRank(ot.Oid) == 0 && !isTime {
		return frameBound{}, pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", ot)
	}
	if off.Type().Oid == types.OidUnknown {
		want := ot
		if isTime {
			want = types.IntervalType
		}
		if off, err = in.Coerce(off, want); err != nil {
			return frameBound{}, err
		}
	}
	offT := off.Type()
	integer := func(o types.Oid) bool { return o == types.OidInt2 || o == types.OidInt4 || o == types.OidInt8 }
	switch {
	case isTime && offT.Oid == types.OidInterval:
	case integer(ot.Oid) && integer(offT.Oid):
	case (ot.Oid == types.OidNumeric || ot.Oid == types.OidFloat4 || ot.Oid == types.OidFloat8) && numRank(offT.Oid) > 0:
	default:
		return frameBound{}, pgerr.New(pgerr.FeatureNotSupported,
			"RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", ot, offT)
	}
	which := map[bool]string{true: "starting", false: "ending"}[start]
	v, err := off.Eval(&Env{Ctx: context.Background(), Host: in.Host})
	switch {
	case err != nil:
		return frameBound{}, err
	case v == nil:
		return frameBound{}, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
	case isNegativeOrNaN(v):
		return frameBound{}, pgerr.New(pgerr.InvalidPrecedingOrFollowingSize, "invalid preceding or following size in window function")
	}
	// Toward smaller values for PRECEDING in ascending order, and for
	// FOLLOWING in descending order.
	op := byte('+')
	if (b.Type == ast.Preceding) != call.order[0].Desc {
		op = '-'
	}
	var conv Expr = &ColExpr{T: ot, Index: 0}
	offset := Expr(&ConstExpr{T: offT, V: v})
	if ot.Oid == types.OidTime {
		// As in_range_time_interval: the offset's months and days do not
		// count, and the limit does not wrap around midnight, so the
		// comparison is between intervals.
		offset = &ConstExpr{T: offT, V: types.Interval{Micros: v.(types.Interval).Micros}}
		if conv, err = in.Coerce(conv, types.IntervalType); err != nil {
			return frameBound{}, err
		}
	}
	if integer(ot.Oid) {
		// Numeric, so that 2147483647 + 10 is a limit, not an error.
		if conv, err = in.Coerce(conv, types.Numeric); err != nil {
			return frameBound{}, err
		}
		if offset, err = in.Coerce(offset, types.Numeric); err != nil {
			return frameBound{}, err
		}
	}
	limit, err := in.arith(op, conv, offset)
	if err != nil {
		return frameBound{}, err
	}
	if conv, err = in.Coerce(conv, limit.Type()); err != nil {
		return frameBound{}, err
	}
	return frameBound{kind: boundOffset, ahead: b.Type == ast.Following, limit: limit, conv: conv}, nil
}

// constant reports whether e reads no column: constants and what
// operators and functions make of them.
func constant(e Expr) bool {
	switch x := e.(type) {
	case *ConstExpr, *unknownExpr:
		return true
	case *castExpr:
		return constant(x.e)
	case *negExpr:
		return constant(x.e)
	case *arithExpr:
		return constant(x.l) && constant(x.r)
	case *FuncExpr:
		return !slices.ContainsFunc(x.Args, func(a Expr) bool { return !constant(a) })
	}
	return false
}

// isNegativeOrNaN reports whether an offset is below zero, or NaN.
func isNegativeOrNaN(v any) bool {
	switch x := v.(type) {
	case int64:
		return x < 0
	case float64:
		return x < 0 || math.IsNaN(x)
	case *apd.Decimal:
		return x.Negative && !x.IsZero() || x.Form == apd.NaN || x.Form == apd.NaNSignaling
	case types.Interval:
		return types.Compare(types.IntervalType, x, types.Interval{}) < 0
	}
	return false
}

// rangeFrames computes, for each row of a partition, where a RANGE frame's
// offset bounds put its start and end: by binary search over the ORDER BY
// values, which the partition is sorted by. A row whose value is NULL has
// its NULL peers as its frame, as in PostgreSQL.
func (call *winCall) rangeFrames(x *ExecCtx, part [][]any, peers, peerEnd []int) (from, to []int, err error) {
	f := call.frame
	if f.rows || f.start.kind != boundOffset && f.end.kind != boundOffset {
		return nil, nil, nil
	}
	at := len(call.partition)
	desc := call.order[0].Desc
	// The non-NULL values are one run, NULLs sorted before or after it.
	lo, hi := 0, len(part)
	for lo < hi && part[lo][at] == nil {
		lo++
	}
	for hi > lo && part[hi-1][at] == nil {
		hi--
	}
	convert := func(b frameBound) ([]any, error) {
		if b.kind != boundOffset {
			return nil, nil
		}
		out := make([]any, len(part))
		for j := lo; j < hi; j++ {
			if err := x.Canceled(); err != nil {
				return nil, err
			}
			v, err := b.conv.Eval(x.Env([]any{part[j][at]}))
			if err != nil {
				return nil, err
			}
			out[j] = v
		}
		return out, nil
	}
	// first returns the first row of the run whose converted value is past
	// limit: at or beyond it (inclusive) or beyond it (!inclusive), in the
	// window's order.
	first := func(conv []any, t types.T, limit any, inclusive bool) int {
		return lo + sort.Search(hi-lo, func(k int) bool {
			c := types.Compare(t, conv[lo+k], limit)
			if desc {
				c = -c
			}
			return c > 0 || inclusive && c == 0
		})
	}
	bounds := func(b frameBound, start bool) ([]int, error) {
		if b.kind != boundOffset {
			return nil, nil
		}
		conv, err := convert(b)
		if err != nil {
			return nil, err
		}
		out := make([]int, len(part))
		for i, row := range part {
			if err := x.Canceled(); err != nil {
				return nil, err
			}
			if row[at] == nil {
				out[i] = peers[i]
				if !start {
					out[i] = peerEnd[i]
				}
				continue
			}
			limit, err := b.limit.Eval(x.Env([]any{row[at]}))
			if err != nil {
				return nil, err
			}
			// A frame starts at the first value at or past the limit, and
			// ends after the last value at or before it.
			out[i] = first(conv, b.limit.Type(), limit, start)
		}
		return out, nil
	}
	if from, err = bounds(call.frame.start, true); err != nil {
		return nil, nil, err
	}
	to, err = bounds(call.frame.end, false)
	return from, to, err
}

// windowFinder collects the window calls of an expression, not those of
// its subqueries, which are planned with their own queries.
type windowFinder struct{ found *[]*ast.WindowFuncExpr }

func (f *windowFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.WindowFuncExpr:
		*f.found = append(*f.found, n)
		return n, true
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, false
}

func (f *windowFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// windowRef compiles a window call of the select list: the column its step
// added.
func (c *Compiler) windowRef(n *ast.WindowFuncExpr) (Expr, error) {
	if c.win == nil {
		return nil, pgerr.New(pgerr.WindowingError, "window functions are not allowed here")
	}
	key := Restore(n)
	for i, call := range c.win.calls {
		if call.key == key {
			if call.argErr != nil {
				return nil, call.argErr
			}
			ref := &ColExpr{T: call.t, Index: c.win.base + i}
			c.win.refs = append(c.win.refs, ref)
			return ref, nil
		}
	}
	return nil, pgerr.New(pgerr.WindowingError, "window function %s is not allowed here", n.Name)
}

// apply runs the window step: it reads every input row and returns them
// with one column added per call, in their input order. Rows that pass
// work_mem go to applySpilled.
func (w *winPlan) apply(x *ExecCtx, it rowexec.RowIter) (rowexec.RowIter, error) {
	rows, rest, err := rowexec.Gather(x, it)
	if err != nil {
		return nil, err
	}
	if rest != nil {
		return w.applySpilled(x, rowexec.Prepend(rows, rest))
	}
	for i, r := range rows {
		rows[i] = slices.Grow(slices.Clip(r), len(w.calls))
	}
	for _, call := range w.calls {
		vals, err := call.compute(x, rows)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			rows[i] = append(rows[i], vals[i])
		}
	}
	return &rowexec.SliceIter{Rows: rows}, nil
}

// applySpilled is apply for more rows than work_mem holds. The rows go
// to a row store, in their order. Each call then sorts what it reads of
// them (see keyed) externally, computes its values a partition at a time,
// and sorts the values, with the rows' positions, back into input order;
// the rows are read again beside the values.
//
// One partition's keys and arguments are held in memory while its values
// are computed (frames move over them), so a partition that alone does
// not fit in work_mem exceeds it.
func (w *winPlan) applySpilled(x *ExecCtx, in rowexec.RowIter) (rowexec.RowIter, error) {
	store := rowexec.NewRowStore(x)
	if err := store.AddAll(in); err != nil {
		store.Close()
		return nil, err
	}
	vals := make([]rowexec.RowIter, 0, len(w.calls))
	done := func() {
		for _, v := range vals {
			v.Close()
		}
		store.Close()
	}
	for _, call := range w.calls {
		v, err := call.computeSpilled(x, store)
		if err != nil {
			done()
			return nil, err
		}
		vals = append(vals, v)
	}
	cur := store.Cursor()
	return &rowexec.FuncIter{F: func() ([]any, error) {
		row, err := cur.Next()
		if row == nil || err != nil {
			return nil, err
		}
		row = slices.Grow(slices.Clip(row), len(vals))
		for _, v := range vals {
			pv, err := v.Next()
			if err == nil && pv == nil {
				err = pgerr.New(pgerr.InternalError, "a window function has fewer values than rows")
			}
			if err != nil {
				return nil, err
			}
			row = append(row, pv[1])
		}
		return row, nil
	}, Done: done}, nil
}

// keyed returns, for each row of in, the call's partition and order
// values, its arguments (and FILTER), and last the row's input position;
// keys orders them by partition, then by the window's order.
func (call *winCall) keyed(x *ExecCtx, in rowexec.RowIter) (rows rowexec.RowIter, keys []rowexec.SortKey) {
	exprs := append(append(slices.Clip(call.partition), call.orderBy...), call.args...)
	if call.filter != nil {
		exprs = append(exprs, call.filter) // after the arguments
	}
	nk := len(exprs)
	var pos int64
	rows = &rowexec.FuncIter{F: func() ([]any, error) {
		r, err := in.Next()
		if r == nil || err != nil {
			return nil, err
		}
		if err := x.Canceled(); err != nil {
			return nil, err
		}
		e := x.Env(r)
		k := make([]any, nk+1)
		for j, pe := range exprs {
			if k[j], err = pe.Eval(e); err != nil {
				return nil, err
			}
		}
		k[nk] = pos
		pos++
		return k, nil
	}, Done: in.Close}
	keys = make([]rowexec.SortKey, 0, len(call.partition)+len(call.order))
	for j, pe := range call.partition {
		keys = append(keys, rowexec.SortKey{Idx: j, T: pe.Type()})
	}
	return rows, append(keys, call.order...)
}

// keyedWidth is where keyed puts the input position.
func (call *winCall) keyedWidth() int {
	n := len(call.partition) + len(call.orderBy) + len(call.args)
	if call.filter != nil {
		n++
	}
	return n
}

// computeSpilled is compute over a row store: it returns the call's
// values as rows of (input position, value), in input order.
func (call *winCall) computeSpilled(x *ExecCtx, store *rowexec.RowStore) (rowexec.RowIter, error) {
	keyed, keys := call.keyed(x, store.Cursor())
	sorted, err := rowexec.SortIter(x, keyed, rowexec.ByKeys(keys))
	if err != nil {
		return nil, err
	}
	defer sorted.Close()
	nk, argAt := call.keyedWidth(), len(call.partition)+len(call.orderBy)
	out := rowexec.NewSorter(x, func(a, b []any) int { return cmp.Compare(a[0].(int64), b[0].(int64)) })
	var part [][]any
	flush := func() error {
		vals, err := call.partitionValues(x, part, argAt)
		if err != nil {
			return err
		}
		for i, k := range part {
			if err := out.Add([]any{k[nk], vals[i]}); err != nil {
				return err
			}
		}
		part = nil
		return nil
	}
	for {
		k, err := sorted.Next()
		if err == nil && k != nil && len(part) > 0 && !sameKeys(part[0], k, keys[:len(call.partition)]) {
			err = flush()
		}
		if err == nil && k == nil && len(part) > 0 {
			err = flush()
		}
		if err != nil {
			out.Close()
			return nil, err
		}
		if k == nil {
			return out.Finish()
		}
		part = append(part, k)
	}
}

// compute returns the call's value for each row: it orders the rows by
// partition and the window's order, then walks each partition.
func (call *winCall) compute(x *ExecCtx, rows [][]any) ([]any, error) {
	// keyed[i] holds the partition and order values, the arguments, and
	// last the row's input position.
	it, keys := call.keyed(x, &rowexec.SliceIter{Rows: rows})
	keyed, err := rowexec.Drain(it)
	if err != nil {
		return nil, err
	}
	nk := call.keyedWidth()
	if err := rowexec.SortRows(x, keyed, keys); err != nil {
		return nil, err
	}

	vals := make([]any, len(rows))
	argAt := len(call.partition) + len(call.orderBy)
	for lo := 0; lo < len(keyed); {
		hi := lo + 1
		for hi < len(keyed) && sameKeys(keyed[lo], keyed[hi], keys[:len(call.partition)]) {
			hi++
		}
		part := keyed[lo:hi]
		out, err := call.partitionValues(x, part, argAt)
		if err != nil {
			return nil, err
		}
		for i, k := range part {
			vals[k[nk].(int64)] = out[i]
		}
		lo = hi
	}
	return vals, nil
}

// partitionValues computes the call over one partition's rows, in window
// order; args start at argAt in each.
func (call *winCall) partitionValues(x *ExecCtx, part [][]any, argAt int) ([]any, error) {
	out := make([]any, len(part))
	// peers[i] is the first row of i's peer group; peerEnd[i] one past its
	// last. Without ORDER BY, the whole partition is one peer group.
	peers, peerEnd := make([]int, len(part)), make([]int, len(part))
	for i := range part {
		if i > 0 && sameKeys(part[i-1], part[i], call.order) {
			peers[i] = peers[i-1]
		} else {
			peers[i] = i
		}
	}
	for i := len(part) - 1; i >= 0; i-- {
		if i+1 < len(part) && peers[i+1] == peers[i] {
			peerEnd[i] = peerEnd[i+1]
		} else {
			peerEnd[i] = i + 1
		}
	}
	arg := func(i, j int) any { return part[i][argAt+j] }
	switch call.fn {
	case "row_number", "rank", "dense_rank":
		dense := int64(0)
		for i := range part {
			if peers[i] == i {
				dense++
			}
			switch call.fn {
			case "row_number":
				out[i] = int64(i + 1)
			case "rank":
				out[i] = int64(peers[i] + 1)
			default:
				out[i] = dense
			}
		}
		return out, nil
	case "lag", "lead":
		for i := range part {
			offset := int64(1)
			if len(call.args) > 1 {
				if arg(i, 1) == nil {
					continue // a NULL offset gives NULL
				}
				offset = arg(i, 1).(int64)
			}
			if call.fn == "lag" {
				offset = -offset
			}
			if j := int64(i) + offset; j >= 0 && j < int64(len(part)) {
				out[i] = arg(int(j), 0)
			} else if len(call.args) > 2 {
				out[i] = arg(i, 2)
			}
		}
		return out, nil
	case "ntile":
		return call.ntile(part, argAt)
	case "percent_rank", "cume_dist":
		for i := range part {
			switch {
			case call.fn == "cume_dist":
				out[i] = float64(peerEnd[i]) / float64(len(part))
			case len(part) > 1:
				out[i] = float64(peers[i]) / float64(len(part)-1)
			default:
				out[i] = 0.0
			}
		}
		return out, nil
	}
	// The frame functions: each row's frame is [from, to).
	rangeFrom, rangeTo, err := call.rangeFrames(x, part, peers, peerEnd)
	if err != nil {
		return nil, err
	}
	frame := func(i int) (from, to int) {
		f := call.frame
		switch {
		case rangeFrom != nil:
			from = rangeFrom[i]
		case f.start.kind == boundUnbounded:
			from = 0
		case f.start.kind == boundCurrent && f.rows:
			from = i
		case f.start.kind == boundCurrent:
			from = peers[i]
		case f.start.ahead:
			from = i + int(min(f.start.offset, int64(len(part))))
		default:
			from = i - int(min(f.start.offset, int64(i)))
		}
		switch {
		case rangeTo != nil:
			to = rangeTo[i]
		case f.end.kind == boundUnbounded:
			to = len(part)
		case f.end.kind == boundCurrent && f.rows:
			to = i + 1
		case f.end.kind == boundCurrent:
			to = peerEnd[i]
		case f.end.ahead:
			to = i + 1 + int(min(f.end.offset, int64(len(part))))
		default:
			to = i + 1 - int(min(f.end.offset, int64(i+1)))
		}
		return max(from, 0), min(to, len(part))
	}
	if call.agg == nil { // first_value, last_value, nth_value
		for i := range part {
			if err := x.Canceled(); err != nil {
				return nil, err
			}
			from, to := frame(i)
			switch {
			case call.fn == "nth_value":
				n, ok := arg(i, 1).(int64)
				if !ok {
					continue // NULL
				}
				if n <= 0 {
					return nil, pgerr.New(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
				}
				if int64(to-from) >= n {
					out[i] = arg(from+int(n)-1, 0)
				}
			case from >= to:
			case call.fn == "first_value":
				out[i] = arg(from, 0)
			default:
				out[i] = arg(to-1, 0)
			}
		}
		return out, nil
	}
	return call.frameAggregates(x, part, argAt, frame)
}

// ntile is window_ntile: it splits the partition into n buckets as even as
// can be, the first ones a row larger. n is read at the partition's first
// row, or at the next rows while it is NULL.
func (call *winCall) ntile(part [][]any, argAt int) ([]any, error) {
	out := make([]any, len(part))
	var bucket, size, boundary, remainder int64
	for i, row := range part {
		if bucket == 0 {
			n, ok := row[argAt].(int64)
			if !ok {
				continue // NULL
			}
			if n <= 0 {
				return nil, pgerr.New(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
			}
			total := int64(len(part))
			bucket, boundary = 1, total/n
			if boundary <= 0 {
				boundary = 1
			} else if remainder = total % n; remainder != 0 {
				boundary++
			}
		}
		size++
		if boundary < size {
			if remainder != 0 && bucket == remainder {
				remainder = 0
				boundary--
			}
			bucket++
			size = 1
		}
		out[i] = bucket
	}
	return out, nil
}

// sameKeys reports whether two key rows agree on keys, NULL agreeing with
// NULL, as peers in a window do.
func sameKeys(a, b []any, keys []rowexec.SortKey) bool {
	for _, k := range keys {
		x, y := a[k.Idx], b[k.Idx]
		if x == nil || y == nil {
			if x != y {
				return false
			}
			continue
		}
		if types.Compare(k.T, x, y) != 0 {
			return false
		}
	}
	return true
}
