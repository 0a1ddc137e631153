package plan

import (
	"bytes"
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
)

// A fused aggregate computes SELECT aggregates FROM t [WHERE ...] inside
// the table scan's loop. Each row's columns that the query reads are
// decoded unboxed (types.RowPicker), the WHERE clause and the aggregates'
// arguments run as kernels over int64 and float64, and the aggregates'
// states take the values through builtins.IntAdder. The general path
// (TableScan, FilterIter, aggPass) decodes and boxes every column of every
// row and hands it through three iterators: over a million rows that is
// most of the query's time, and most of its garbage.
//
// A query is fused only if every expression in it compiles to a kernel,
// and a kernel computes exactly what Eval does: the same operators with
// the same checks (intOp, floatOp, CompareFloat), in the same order, with
// the same short circuits of AND and OR, so that even the first error a
// query meets is the same. Anything else, and EXPLAIN ANALYZE, which
// counts rows per plan node, takes the general path.

// A kernel computes an expression over one row: its value, whether it is
// NULL, and an error.
type kernel[T any] func(r *types.Picked) (T, bool, error)

type (
	intKernel   = kernel[int64]
	floatKernel = kernel[float64]
	boolKernel  = kernel[bool]
)

// strict2 applies op to l's and r's values, evaluating l first and r not at
// all if l is NULL or fails, as a strict operator's Eval does.
func strict2[T, R any](l, r kernel[T], op func(a, b T) (R, error)) kernel[R] {
	return func(row *types.Picked) (R, bool, error) {
		var zero R
		a, null, err := l(row)
		if err != nil || null {
			return zero, true, err
		}
		b, null, err := r(row)
		if err != nil || null {
			return zero, true, err
		}
		v, err := op(a, b)
		return v, false, err
	}
}

// withConstant is strict2 with a non-NULL constant right operand, x op 1,
// the common shape, in one call rather than two.
func withConstant[T, R any](l kernel[T], b T, op func(a, b T) (R, error)) kernel[R] {
	return func(row *types.Picked) (R, bool, error) {
		var zero R
		a, null, err := l(row)
		if err != nil || null {
			return zero, true, err
		}
		v, err := op(a, b)
		return v, false, err
	}
}

// strict1 applies op to in's value, NULL to NULL.
func strict1[T, R any](in kernel[T], op func(a T) (R, error)) kernel[R] {
	return func(row *types.Picked) (R, bool, error) {
		var zero R
		a, null, err := in(row)
		if err != nil || null {
			return zero, true, err
		}
		v, err := op(a)
		return v, false, err
	}
}

// fixed compiles an expression fixed for the execution, a constant or
// a bound parameter, whose value is a T or NULL.
func fixed[T any](fu *fuser, e Expr) (kernel[T], bool) {
	v, ok := fu.constant(e)
	if !ok {
		return nil, false
	}
	c, isT := v.(T)
	if v != nil && !isT {
		return nil, false
	}
	null := v == nil
	return func(*types.Picked) (T, bool, error) { return c, null, nil }, true
}

// arith compiles l op r, with the right operand folded in if it is a
// non-NULL constant.
func arith[T any](fu *fuser, e *arithExpr, side func(Expr) (kernel[T], bool), op func(a, b T) (T, error)) (kernel[T], bool) {
	l, ok1 := side(e.l)
	r, ok2 := side(e.r)
	if !ok1 || !ok2 {
		return nil, false
	}
	if v, ok := fu.constant(e.r); ok && v != nil {
		return withConstant(l, v.(T), op), true
	}
	return strict2(l, r, op), true
}

// fusedAgg is a fused aggregate made for one execution.
type fusedAgg struct {
	t      *catalog.Table
	picker *types.RowPicker
	slots  int
	where  boolKernel // nil: every row
	calls  []fusedCall
}

// fusedCall is one aggregate call: its state, its FILTER, and its
// argument's kernel (none for count(*)).
type fusedCall struct {
	st        *aggState
	filter    boolKernel
	ints      intKernel
	floats    floatKernel
	bools     boolKernel
	intAdd    builtins.IntAdder
	fltAdd    builtins.FloatAdder
	nulls     bool  // the aggregate takes NULL inputs (KeepsNulls)
	boxed     []any // the argument, for an aggregate without an unboxed Add
	countStar bool  // count(*)
}

// setState makes st the call's state, with its unboxed ways in.
func (c *fusedCall) setState(st *aggState) {
	c.st, c.boxed = st, make([]any, 1)
	c.intAdd, _ = st.acc.(builtins.IntAdder)
	c.fltAdd, _ = st.acc.(builtins.FloatAdder)
}

// fuser compiles expressions over one table's rows into kernels,
// collecting the columns they read.
type fuser struct {
	x    *ExecCtx
	t    *catalog.Table
	cols []int // table columns read, by slot
}

// fuseAggregate returns p's aggregation fused with its scan for execution
// x, or nil if p cannot be fused.
func (p *SelectPlan) fuseAggregate(x *ExecCtx) *fusedAgg {
	ts, ok := p.src.(*TableScan)
	if !ok || p.agg == nil || len(p.agg.groupExprs) > 0 || ts.Access.Kind != "seq" || ts.lookup ||
		p.Locking != nil || x.analysis != nil || x.Tx == nil {
		return nil
	}
	fu := &fuser{x: x, t: ts.Table}
	f := &fusedAgg{t: ts.Table}
	if p.where != nil {
		if f.where, ok = fu.bools(p.where); !ok {
			return nil
		}
	}
	for _, c := range p.agg.calls {
		fc, ok := fu.call(c)
		if !ok {
			return nil
		}
		f.calls = append(f.calls, fc)
	}
	f.picker = types.NewRowPicker(ts.Table.ColumnTypes(), fu.cols)
	f.slots = len(fu.cols)
	return f
}

func (fu *fuser) call(c *aggCall) (fusedCall, bool) {
	if c.distinct || len(c.order) > 0 || c.agg == nil || c.agg.NewOrderedSet != nil {
		return fusedCall{}, false
	}
	fc := fusedCall{nulls: c.agg.KeepsNulls}
	fc.setState(newAggState(fu.x, c))
	if c.filter != nil {
		var ok bool
		if fc.filter, ok = fu.bools(c.filter); !ok {
			return fusedCall{}, false
		}
	}
	if c.args == nil {
		fc.countStar = true
		return fc, true
	}
	if c.nargs != 1 || len(c.args) != 1 {
		return fusedCall{}, false
	}
	arg := c.args[0]
	var ok bool
	switch {
	case isIntType(arg.Type()):
		fc.ints, ok = fu.ints(arg)
	case arg.Type().Oid == types.OidFloat8:
		fc.floats, ok = fu.floats(arg)
	case arg.Type().Oid == types.OidBool:
		fc.bools, ok = fu.bools(arg)
	}
	return fc, ok
}

func isIntType(t types.T) bool {
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8:
		return true
	}
	return false
}

// column is the slot of the table's column i, if a kernel can read it as
// type t.
func (fu *fuser) column(e Expr) (int, bool) {
	c, ok := e.(*ColExpr)
	if !ok || c.Index >= len(fu.t.Columns) {
		return 0, false
	}
	ct := fu.t.Columns[c.Index].Type
	if ct.Oid != c.T.Oid || !types.Pickable(ct) {
		return 0, false
	}
	for s, col := range fu.cols {
		if col == c.Index {
			return s, true
		}
	}
	fu.cols = append(fu.cols, c.Index)
	return len(fu.cols) - 1, true
}

// constant is the value of an expression fixed for the execution: a
// constant or a bound parameter.
func (fu *fuser) constant(e Expr) (any, bool) {
	switch c := e.(type) {
	case *ConstExpr:
		return c.V, true
	case *ParamExpr:
		if c.Index < len(fu.x.Params) {
			return fu.x.Params[c.Index], true
		}
	}
	return nil, false
}

func (fu *fuser) ints(e Expr) (intKernel, bool) {
	if !isIntType(e.Type()) {
		return nil, false
	}
	if k, ok := fixed[int64](fu, e); ok {
		return k, true
	}
	switch e := e.(type) {
	case *ColExpr:
		s, ok := fu.column(e)
		if !ok {
			return nil, false
		}
		return func(r *types.Picked) (int64, bool, error) { return r.Ints[s], r.Null[s], nil }, true
	case *arithExpr:
		op, t := e.op, e.t
		return arith(fu, e, fu.ints, func(a, b int64) (int64, error) { return intOp(op, t, a, b) })
	case *negExpr:
		in, ok := fu.ints(e.e)
		t := e.Type()
		return strict1(in, func(a int64) (int64, error) { return intOp('-', t, 0, a) }), ok
	case *castExpr:
		// Widening only: a narrowing cast checks the range with its own
		// message.
		_, fromHi, _ := intRange(e.e.Type())
		_, toHi, _ := intRange(e.to)
		if !isIntType(e.e.Type()) || fromHi > toHi {
			return nil, false
		}
		return fu.ints(e.e)
	}
	return nil, false
}

func (fu *fuser) floats(e Expr) (floatKernel, bool) {
	if e.Type().Oid != types.OidFloat8 {
		return nil, false
	}
	if k, ok := fixed[float64](fu, e); ok {
		return k, true
	}
	switch e := e.(type) {
	case *ColExpr:
		s, ok := fu.column(e)
		if !ok {
			return nil, false
		}
		return func(r *types.Picked) (float64, bool, error) { return r.Floats[s], r.Null[s], nil }, true
	case *arithExpr:
		op, t := e.op, e.t
		return arith(fu, e, fu.floats, func(a, b float64) (float64, error) { return floatOp(op, t, a, b) })
	case *negExpr:
		in, ok := fu.floats(e.e)
		return strict1(in, func(a float64) (float64, error) { return -a, nil }), ok
	case *castExpr:
		if !isIntType(e.e.Type()) {
			return nil, false
		}
		in, ok := fu.ints(e.e)
		return strict1(in, func(a int64) (float64, error) { return float64(a), nil }), ok
	}
	return nil, false
}

func (fu *fuser) bools(e Expr) (boolKernel, bool) {
	if e.Type().Oid != types.OidBool {
		return nil, false
	}
	if k, ok := fixed[bool](fu, e); ok {
		return k, true
	}
	switch e := e.(type) {
	case *ColExpr:
		s, ok := fu.column(e)
		if !ok {
			return nil, false
		}
		return func(r *types.Picked) (bool, bool, error) { return r.Ints[s] != 0, r.Null[s], nil }, true
	case *cmpExpr:
		return fu.compare(e)
	case *logicExpr:
		l, ok1 := fu.bools(e.l)
		r, ok2 := fu.bools(e.r)
		if !ok1 || !ok2 {
			return nil, false
		}
		and := e.and
		return func(row *types.Picked) (bool, bool, error) {
			a, an, err := l(row)
			if err != nil {
				return false, false, err
			}
			if !an && a != and { // FALSE AND x, TRUE OR x
				return a, false, nil
			}
			b, bn, err := r(row)
			if err != nil {
				return false, false, err
			}
			if !bn && b != and {
				return b, false, nil
			}
			return and, an || bn, nil
		}, true
	case *notExpr:
		in, ok := fu.bools(e.e)
		return strict1(in, func(a bool) (bool, error) { return !a, nil }), ok
	case *isNullExpr:
		null, ok := fu.nullness(e.e)
		if !ok {
			return nil, false
		}
		not := e.not
		return func(row *types.Picked) (bool, bool, error) {
			isNull, err := null(row)
			return isNull != not, false, err
		}, true
	}
	return nil, false
}

// compare compiles a comparison of two integers or two float8s.
func (fu *fuser) compare(e *cmpExpr) (boolKernel, bool) {
	op := e.op
	switch {
	case isIntType(e.t):
		l, ok1 := fu.ints(e.l)
		r, ok2 := fu.ints(e.r)
		return strict2(l, r, func(a, b int64) (bool, error) { return cmpResult(op, cmp.Compare(a, b)), nil }), ok1 && ok2
	case e.t.Oid == types.OidFloat8:
		l, ok1 := fu.floats(e.l)
		r, ok2 := fu.floats(e.r)
		return strict2(l, r, func(a, b float64) (bool, error) { return cmpResult(op, types.CompareFloat(a, b)), nil }), ok1 && ok2
	}
	return nil, false
}

// nullness compiles whether e is NULL, for IS [NOT] NULL.
func (fu *fuser) nullness(e Expr) (func(*types.Picked) (bool, error), bool) {
	switch {
	case isIntType(e.Type()):
		return isNull(fu.ints(e))
	case e.Type().Oid == types.OidFloat8:
		return isNull(fu.floats(e))
	case e.Type().Oid == types.OidBool:
		return isNull(fu.bools(e))
	}
	return nil, false
}

func isNull[T any](k kernel[T], ok bool) (func(*types.Picked) (bool, error), bool) {
	return func(r *types.Picked) (bool, error) { _, null, err := k(r); return null, err }, ok
}

// fusedBatch is how many rows' values the scan hands over at a time.
const fusedBatch = 4096

// run scans the table and returns the aggregates' one row.
//
// The first batch of rows is aggregated in the scan's loop. A longer scan
// then uses the second core one of two ways. If every aggregate merges
// (builtins.Merger), the rest of the table is cut into chunks that
// several goroutines scan and aggregate apart (txn.ScanChunks), and their
// states are merged at the end. Otherwise, if every aggregate takes its
// input unboxed, the scan goes on here and hands batches of values to a
// second goroutine that aggregates them in scan order (fusedPipe): the
// storage's loop and the evaluation overlap. Aggregates that neither merge
// nor take unboxed inputs run in the scan's loop alone: their states may
// call into the session.
func (f *fusedAgg) run(x *ExecCtx) (rowexec.RowIter, error) {
	prefix := catalog.IndexPrefix(f.t.DataID, catalog.PrimaryIndexID)
	end := catalog.PrefixEnd(prefix)
	row := types.NewPicked(f.slots)
	batch := make([][]byte, 0, fusedBatch)
	chunked := runtime.GOMAXPROCS(0) > 1 && f.mergeable()
	var (
		p      *fusedPipe
		failed error
		resume []byte // where the chunked scan takes over
	)
	defer func() { p.abandon() }()
	rows := 0
	err := x.Tx.Scan(prefix, end, func(k, v []byte) bool {
		if rows++; rows%512 == 0 {
			if failed = x.Ctx.Err(); failed != nil { // a CancelRequest or statement_timeout
				return false
			}
		}
		if batch = append(batch, v); len(batch) < fusedBatch {
			return true
		}
		switch {
		case p != nil:
			batch, failed = p.hand(batch)
		case chunked:
			failed = f.addAll(f.calls, batch, row)
			batch, resume = batch[:0], append(bytes.Clone(k), 0)
			return false
		case rows > fusedBatch && f.pipelined():
			p = f.startPipe(x)
			batch, failed = p.hand(batch)
		default:
			failed = f.addAll(f.calls, batch, row)
			batch = batch[:0]
		}
		return failed == nil
	})
	if err == nil {
		err = failed
	}
	switch {
	case p != nil:
		// The rows it took come before any the scan failed at.
		if perr := p.finish(batch, err == nil); perr != nil {
			err = perr
		}
	case err == nil && resume != nil:
		err = f.runChunks(x, resume, end)
	case err == nil:
		err = f.addAll(f.calls, batch, row)
	}
	if err != nil {
		return nil, pgerr.Convert(err)
	}
	out := make([]any, len(f.calls))
	for i, c := range f.calls {
		if out[i], err = c.st.result(x); err != nil {
			return nil, err
		}
	}
	return &rowexec.SliceIter{Rows: [][]any{out}}, nil
}

// mergeable reports whether every call's state merges, and takes its
// input unboxed: count, and integer min, max, sum and avg.
func (f *fusedAgg) mergeable() bool {
	for _, c := range f.calls {
		if _, ok := c.st.acc.(builtins.Merger); !ok {
			return false
		}
		if !c.countStar && (c.ints == nil || c.intAdd == nil) && (c.floats == nil || c.fltAdd == nil || c.st.call.fn != "count") {
			return false
		}
	}
	return true
}

// runChunks aggregates [start, end) of the table on one goroutine per
// core, each into states of its own, and merges them into f's. The error
// is the one of the first failing row in key order: of the lowest chunk
// that failed.
func (f *fusedAgg) runChunks(x *ExecCtx, start, end []byte) error {
	type share struct {
		calls []fusedCall
		row   *types.Picked
		rows  int
	}
	// Each worker makes its share on its own goroutine, so that it comes
	// from the memory of the core it runs on: shares allocated side by
	// side would share cache lines that both cores write on every row.
	shares := make([]*share, runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	failedAt, failed := -1, error(nil)
	fail := func(chunk int, err error) bool {
		mu.Lock()
		if failedAt < 0 || chunk < failedAt {
			failedAt, failed = chunk, err
		}
		mu.Unlock()
		return false
	}
	err := x.Tx.ScanChunks(start, end, len(shares), func(w, chunk int, _, v []byte) bool {
		sh := shares[w]
		if sh == nil {
			sh = &share{calls: f.fork(x), row: types.NewPicked(f.slots)}
			shares[w] = sh
		}
		if sh.rows++; sh.rows%512 == 0 {
			if err := x.Ctx.Err(); err != nil {
				return fail(chunk, err)
			}
		}
		if err := f.pickAndAdd(sh.calls, v, sh.row); err != nil {
			return fail(chunk, err)
		}
		return true
	})
	if failed != nil {
		return failed
	}
	if err != nil {
		return err
	}
	for _, sh := range shares {
		if sh == nil {
			continue // a worker that found no chunk
		}
		for i := range f.calls {
			if err := f.calls[i].st.acc.(builtins.Merger).Merge(sh.calls[i].st.acc); err != nil {
				return err
			}
		}
	}
	return nil
}

// fork returns copies of f's calls with fresh states.
func (f *fusedAgg) fork(x *ExecCtx) []fusedCall {
	calls := slices.Clone(f.calls)
	for i := range calls {
		calls[i].setState(newAggState(x, calls[i].st.call))
	}
	return calls
}

// abandon ends the aggregating goroutine of a scan that panicked, which
// never reached finish.
func (p *fusedPipe) abandon() {
	if p != nil && !p.closed {
		p.closed = true
		close(p.full)
		<-p.done
	}
}

// pipelined reports whether every call's state takes its input unboxed.
func (f *fusedAgg) pipelined() bool {
	for _, c := range f.calls {
		if !c.countStar && (c.ints == nil || c.intAdd == nil) && (c.floats == nil || c.fltAdd == nil) {
			return false
		}
	}
	return true
}

// addAll takes the rows whose values are vals into calls' states.
func (f *fusedAgg) addAll(calls []fusedCall, vals [][]byte, row *types.Picked) error {
	for _, v := range vals {
		if err := f.pickAndAdd(calls, v, row); err != nil {
			return err
		}
	}
	return nil
}

// pickAndAdd decodes the row whose value is v into row and takes it into
// calls' states.
func (f *fusedAgg) pickAndAdd(calls []fusedCall, v []byte, row *types.Picked) error {
	if err := f.picker.Pick(v, row); err != nil {
		return pgerr.New(pgerr.DataCorrupted, "corrupt row in table %q: %v", f.t.Name, err)
	}
	return f.add(calls, row)
}

// fusedPipe carries batches of row values from a scan to the goroutine
// that aggregates them. Three batches circulate: one filling, one in the
// channel, one being aggregated; free holds all three at the end.
type fusedPipe struct {
	full, free chan [][]byte
	done       chan fusedResult
	failed     atomic.Bool // the aggregating goroutine met an error
	closed     bool        // full is closed (finish, or abandon)
}

type fusedResult struct {
	err      error
	panicked any
}

func (f *fusedAgg) startPipe(x *ExecCtx) *fusedPipe {
	p := &fusedPipe{full: make(chan [][]byte, 1), free: make(chan [][]byte, 3), done: make(chan fusedResult, 1)}
	p.free <- make([][]byte, 0, fusedBatch)
	p.free <- make([][]byte, 0, fusedBatch)
	go func() {
		var res fusedResult
		defer func() {
			if r := recover(); r != nil {
				res.panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
				// The scan stops at its next hand; until then it must
				// not wait for a batch back.
				p.failed.Store(true)
				for b := range p.full {
					p.free <- b[:0]
				}
			}
			p.done <- res
		}()
		row := types.NewPicked(f.slots)
		for b := range p.full {
			if res.err == nil {
				if res.err = f.addAll(f.calls, b, row); res.err != nil {
					p.failed.Store(true)
				}
			}
			p.free <- b[:0] // drained even after an error, so that hand never blocks for good
		}
	}()
	return p
}

// hand passes a full batch on and returns an empty one, or the error that
// stopped the aggregating goroutine, which the scan then stops for.
func (p *fusedPipe) hand(b [][]byte) ([][]byte, error) {
	if p.failed.Load() {
		return b[:0], errPipeFailed
	}
	p.full <- b
	return <-p.free, nil
}

// errPipeFailed stops a scan whose aggregating goroutine failed; finish
// returns that goroutine's error instead.
var errPipeFailed = pgerr.New(pgerr.InternalError, "fused aggregate stopped")

// finish hands over the last, partial batch if more is true, waits for the
// aggregating goroutine, and returns its error. A panic there is raised
// again here, on the session's goroutine, which reports it.
func (p *fusedPipe) finish(last [][]byte, more bool) error {
	if more && len(last) > 0 {
		p.full <- last
	}
	p.closed = true
	close(p.full)
	res := <-p.done
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.err
}

// add takes one row into calls' states, if the WHERE clause keeps it.
func (f *fusedAgg) add(calls []fusedCall, row *types.Picked) error {
	if f.where != nil {
		if ok, null, err := f.where(row); err != nil || null || !ok {
			return err
		}
	}
	for i := range calls {
		if err := calls[i].add(row); err != nil {
			return err
		}
	}
	return nil
}

func (c *fusedCall) add(row *types.Picked) error {
	if c.filter != nil {
		if ok, null, err := c.filter(row); err != nil || null || !ok {
			return err
		}
	}
	if c.countStar {
		return c.st.acc.Add(nil)
	}
	var v any
	switch {
	case c.ints != nil:
		n, null, err := c.ints(row)
		if err != nil || (null && !c.nulls) {
			return err
		}
		if !null && c.intAdd != nil {
			return c.intAdd.AddInt(n)
		}
		if !null {
			v = n
		}
	case c.floats != nil:
		n, null, err := c.floats(row)
		if err != nil || (null && !c.nulls) {
			return err
		}
		if !null && c.fltAdd != nil {
			return c.fltAdd.AddFloat(n)
		}
		if !null {
			v = n
		}
	default:
		b, null, err := c.bools(row)
		if err != nil || (null && !c.nulls) {
			return err
		}
		if !null {
			v = b
		}
	}
	c.boxed[0] = v
	return c.st.add(c.boxed)
}
