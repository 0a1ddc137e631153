package plan

import (
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// aggPlan is the grouping step of a query. Its output row is the GROUP BY
// values followed by one value per aggregate call; expressions above it
// (select list, HAVING, ORDER BY) compile against that row.
type aggPlan struct {
	input      *Compiler // compiles aggregate arguments in the input scope
	groupExprs []Expr
	groupKeys  []string // GROUP BY expressions as SQL, to recognise them above
	groupTypes []types.T
	// keyed counts the groupExprs that make a group's key: the GROUP BY
	// items, without the columns groupDependents adds, which they
	// determine (and which may be of types without a key encoding).
	keyed int
	calls []*aggCall
}

type aggCall struct {
	fn       string
	distinct bool
	args     []Expr // nil for count(*); then the ORDER BY keys, if any
	nargs    int    // the arguments proper, before the keys
	order    []rowexec.SortKey
	t        types.T
	filter   Expr // FILTER (WHERE ...), over the input row, or nil
	// agg is the overload of sql/builtins the call resolved to, and
	// argTypes its arguments' types, which each group's state is made for.
	agg      *builtins.Aggregate
	argTypes []types.T
	// An ordered-set aggregate's direct arguments (its fraction, or array
	// of them), evaluated when planned, and the error that gave, if any.
	direct    []any
	directErr error
}

func (a *aggPlan) groupIndex(n ast.ExprNode) (int, bool) {
	if len(a.groupKeys) == 0 {
		return 0, false
	}
	key := Restore(n)
	for i, k := range a.groupKeys {
		if k == key {
			return i, true
		}
	}
	// A bare column also matches a qualified GROUP BY column, and the
	// reverse.
	if cn, ok := n.(*ast.ColumnNameExpr); ok {
		for i, g := range a.groupExprs {
			if ce, ok := g.(*ColExpr); ok {
				if idx, _, err := a.input.Scope.resolve(cn.Name.Table.O, cn.Name.Name.O); err == nil && idx == ce.Index {
					return i, true
				}
			}
		}
	}
	return 0, false
}

// groupDependents adds, as group keys no GROUP BY item names, the columns
// of each table in FROM whose primary key the query groups by: they are
// functionally dependent on it, so PostgreSQL lets the query read them,
// and grouping by them too splits no group.
//
// As in PostgreSQL, this holds for tables read directly, whose scope
// ends in their hidden row-key column, and not through a view or a
// subquery.
func (a *aggPlan) groupDependents(sc *Scope, cat *catalog.Catalog) {
	grouped := make(map[int]bool)
	for _, ge := range a.groupExprs {
		if ce, ok := ge.(*ColExpr); ok {
			grouped[ce.Index] = true
		}
	}
	for end, col := range sc.Cols {
		if col.Name != HiddenKey || col.TableOID == 0 {
			continue
		}
		t := cat.TableByID[col.TableOID]
		pk := (*catalog.Index)(nil)
		if t != nil && len(t.Columns) <= end {
			pk = t.PrimaryKey()
		}
		if pk == nil {
			continue
		}
		// The table's columns are the len(t.Columns) before its row key.
		first := end - len(t.Columns)
		if sc.Cols[first].Table != col.Table || sc.Cols[first].TableOID != col.TableOID {
			continue
		}
		if !slices.ContainsFunc(pk.Columns, func(i int) bool { return !grouped[first+i] }) {
			for i, tc := range t.Columns {
				if idx := first + i; tc.Visible() && !grouped[idx] {
					a.groupExprs = append(a.groupExprs, &ColExpr{T: sc.Cols[idx].T, Index: idx})
					a.groupKeys = append(a.groupKeys, "") // matched by groupIndex's column lookup
					a.groupTypes = append(a.groupTypes, sc.Cols[idx].T)
				}
			}
		}
	}
}

func (a *aggPlan) add(c *Compiler, n *ast.AggregateFuncExpr) (Expr, error) {
	call := &aggCall{fn: strings.ToLower(n.F), distinct: n.Distinct}
	nodes := n.Args
	if d, ok := markerCall(at0(nodes), "epochdb_distinct"); ok && len(d.Args) == 1 {
		// The parser's DISTINCT of an aggregate TiDB knows but takes no
		// DISTINCT in (bit_and).
		call.distinct = true
		nodes = append([]ast.ExprNode{d.Args[0]}, nodes[1:]...)
	}
	nodes, cond := aggFilter(nodes)
	if err := nestedInAggregate(nodes, cond); err != nil {
		return nil, err
	}
	if cond != nil {
		var err error
		if call.filter, err = a.input.Compile(cond); err != nil {
			return nil, err
		}
		if t := call.filter.Type(); t.Oid != types.OidBool && t.Oid != types.OidUnknown {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of FILTER must be type boolean, not type %s", t)
		}
		if call.filter, err = a.input.Coerce(call.filter, types.Bool); err != nil {
			return nil, err
		}
	}
	if direct, within, ok := withinKeys(nodes); ok || orderedSetAgg(call.fn) {
		if !orderedSetAgg(call.fn) {
			return nil, a.input.noWithinGroup(call.fn, direct, within, aggArity(call.fn))
		}
		if err := call.planOrderedSet(a.input, direct, within); err != nil {
			return nil, err
		}
		a.calls = append(a.calls, call)
		return &ColExpr{T: call.t, Index: len(a.groupExprs) + len(a.calls) - 1}, nil
	}
	star := call.fn == "count" && len(nodes) == 1 && !call.distinct && isConstOne(nodes[0])
	args, keys := orderKeys(unkeyed(nodes))
	if !star {
		outer, err := a.input.readsOnlyOuter(func() error {
			for _, arg := range args {
				e, err := a.input.Compile(arg)
				if err != nil {
					return err
				}
				call.args = append(call.args, e)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if outer {
			// PostgreSQL makes it an aggregate of the enclosing query.
			return nil, pgerr.New(pgerr.FeatureNotSupported, "aggregate functions over only columns of an enclosing query are not supported")
		}
	}
	if err := call.typeCheck(a.input); err != nil {
		return nil, err
	}
	if call.distinct {
		for _, arg := range call.args {
			if err := checkComparable(arg.Type(), false); err != nil {
				return nil, err
			}
		}
	}
	if err := call.planOrder(a.input, keys); err != nil {
		return nil, err
	}
	a.calls = append(a.calls, call)
	return &ColExpr{T: call.t, Index: len(a.groupExprs) + len(a.calls) - 1}, nil
}

// nestedInAggregate returns PostgreSQL's error for an aggregate's
// arguments or FILTER that call a window function or an aggregate of the
// same query: its arguments are read row by row, before either exists.
func nestedInAggregate(args []ast.ExprNode, cond ast.ExprNode) error {
	for _, a := range append(slices.Clip(args), cond) {
		if a != nil && hasWindow(a) {
			return pgerr.New(pgerr.GroupingError, "aggregate function calls cannot contain window function calls")
		}
	}
	if cond != nil && hasAggregateIn(cond) {
		return pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in FILTER")
	}
	for _, a := range args {
		if hasAggregateIn(a) {
			return pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested")
		}
	}
	return nil
}

// asAggregate turns a call of an aggregate TiDB does not know, and so
// parses as an ordinary function, into the aggregate.
func asAggregate(n ast.Node) (*ast.AggregateFuncExpr, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok {
		return nil, false
	}
	switch f.FnName.L {
	case "bool_and", "bool_or", "every", "string_agg", "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg",
		"stddev", "variance", "corr", "covar_pop", "covar_samp", "regr_slope", "regr_intercept", "regr_count", "regr_r2",
		"regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy", "percentile_cont", "percentile_disc", "mode":
		agg := &ast.AggregateFuncExpr{F: f.FnName.L, Args: f.Args}
		// The parser marks DISTINCT, which TiDB takes only in its own
		// aggregates, as epochdb_distinct(first argument).
		if d, ok := at0(f.Args).(*ast.FuncCallExpr); ok && d.FnName.L == "epochdb_distinct" && len(d.Args) == 1 {
			agg.Distinct = true
			agg.Args = append([]ast.ExprNode{d.Args[0]}, f.Args[1:]...)
		}
		return agg, true
	}
	return nil, false
}

func at0(args []ast.ExprNode) ast.ExprNode {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

func isConstOne(n ast.ExprNode) bool {
	v, ok := n.(interface{ GetValue() any })
	if !ok {
		return false
	}
	i, ok := v.GetValue().(int64)
	return ok && i == 1
}

// orderKeys splits the ORDER BY keys of string_agg or array_agg off their
// arguments, where the parser put them as a last argument
// epochdb_order(key, 'asc' or 'desc', 'first', 'last' or 'default', ...).
func orderKeys(args []ast.ExprNode) ([]ast.ExprNode, []ast.ExprNode) {
	if len(args) == 0 {
		return args, nil
	}
	if f, ok := args[len(args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == "epochdb_order" {
		return args[:len(args)-1], f.Args
	}
	return args, nil
}

// unkeyed unwraps the argument of an aggregate whose result does not
// depend on its input's order, where the parser put that ORDER BY's keys:
// epochdb_keyed(argument, epochdb_order(...)) becomes the argument and
// the keys, which planOrder checks and drops.
func unkeyed(args []ast.ExprNode) []ast.ExprNode {
	if f, ok := at0(args).(*ast.FuncCallExpr); ok && len(args) == 1 && f.FnName.L == "epochdb_keyed" {
		return f.Args
	}
	return args
}

// argTypes lists argument types as a function signature names them.
func argTypes(args []Expr) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Type().String()
	}
	return strings.Join(names, ", ")
}

// planOrder compiles an ordered aggregate's keys, which follow its
// arguments proper in call.args. A DISTINCT string_agg or array_agg
// without keys is ordered by its value, as PostgreSQL's sort-based
// DISTINCT leaves it.
func (call *aggCall) planOrder(c *Compiler, keys []ast.ExprNode) error {
	call.nargs = len(call.args)
	if call.distinct && len(keys) == 0 && call.agg.Ordered {
		call.order = []rowexec.SortKey{{Idx: call.nargs, T: call.args[0].Type()}}
		call.args = append(call.args, call.args[0])
		call.argTypes = argTypesOf(call.args[:call.nargs])
		return nil
	}
	for i := 0; i+2 < len(keys); i += 3 {
		key, err := c.Compile(keys[i])
		if err != nil {
			return err
		}
		if key, err = c.ResolveUnknown(key); err != nil {
			return err
		}
		dir := keys[i+1].(*driver.ValueExpr).GetString()
		nulls := keys[i+2].(*driver.ValueExpr).GetString()
		k := rowexec.SortKey{Idx: len(call.args), T: key.Type(), Desc: dir == "desc"}
		k.NullsFirst = nulls == "first" || nulls == "default" && k.Desc
		if err := checkComparable(k.T, true); err != nil {
			return err
		}
		call.order = append(call.order, k)
		call.args = append(call.args, key)
	}
	if !call.agg.Ordered {
		// Compiled only to check them: the result ignores the order.
		call.args, call.order = call.args[:call.nargs], nil
	}
	call.argTypes = argTypesOf(call.args[:call.nargs])
	return nil
}

// typeCheck resolves the call against the aggregate's overloads in
// sql/builtins, as PostgreSQL resolves a function call, converting its
// arguments to the chosen overload's parameters.
func (call *aggCall) typeCheck(c *Compiler) error {
	aggs := builtins.LookupAggregate(call.fn)
	if aggs == nil {
		return pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", call.fn)
	}
	var ovs []builtins.Overload
	var of []int // of[i] is the aggregate ovs[i] is the signature of
	for i := range aggs {
		if c.installed(aggs[i].Extension, "") {
			ovs, of = append(ovs, aggs[i].Overload), append(of, i)
		}
	}
	cand, err := ChooseOverload(call.fn, call.args, make([]string, len(call.args)), ovs)
	if err != nil {
		return err
	}
	resolved, err := c.applyCandidate(call.fn, cand, call.args)
	if err != nil {
		return err
	}
	for i := range ovs {
		if cand.Overload == &ovs[i] {
			call.agg = &aggs[of[i]]
		}
	}
	call.args, call.t = resolved.args, resolved.ret
	if len(call.args) == 0 {
		call.args = nil // count(*)
	}
	return nil
}

// aggState accumulates one aggregate call over one group: the inputs
// DISTINCT has seen and ORDER BY sorts are this package's; what they
// fold into is acc, sql/builtins' (or an ordered-set aggregate's state).
type aggState struct {
	call    *aggCall
	acc     builtins.Accumulator
	seen    map[string]struct{}
	ordered [][]any // an ordered aggregate's inputs, sorted at the end
	// sorted takes an ordered aggregate's inputs instead, sorting them
	// within work_mem, when x, the execution grouping them, is set.
	x      *ExecCtx
	sorted *rowexec.Sorter
}

// newAggState is the state of one group of call, in execution x.
func newAggState(x *ExecCtx, call *aggCall) *aggState {
	st := &aggState{call: call, x: x}
	st.acc = call.newAccumulator(x, false)
	return st
}

// newAccumulator makes a state of call's aggregate, with moving one that
// takes inputs back out, if the aggregate has one.
func (call *aggCall) newAccumulator(x *ExecCtx, moving bool) builtins.Accumulator {
	ts := call.argTypes
	if call.agg.NewOrderedSet != nil {
		if call.directErr != nil {
			return failedState{call.directErr}
		}
		return call.agg.NewOrderedSet(x.funcEnv(), call.direct, ts, call.t)
	}
	if moving && call.agg.NewMoving != nil {
		return call.agg.NewMoving(x.funcEnv(), ts, call.t)
	}
	return call.agg.New(x.funcEnv(), ts, call.t)
}

func (st *aggState) add(vals []any) error {
	c := st.call
	if c.args == nil {
		return st.acc.Add(nil) // count(*)
	}
	if vals[0] == nil && (c.agg == nil || !c.agg.KeepsNulls) {
		return nil
	}
	if c.distinct {
		// Distinct over all the arguments proper: string_agg(DISTINCT x, sep)
		// keeps x twice for two separators, as PostgreSQL does.
		var kb []byte
		for i, a := range c.args[:c.nargs] {
			kb = types.AppendKey(kb, a.Type(), vals[i], false)
		}
		k := string(kb)
		if _, dup := st.seen[k]; dup {
			return nil
		}
		if st.seen == nil {
			st.seen = make(map[string]struct{})
		}
		st.seen[k] = struct{}{}
	}
	if len(c.order) > 0 {
		if st.x == nil {
			st.ordered = append(st.ordered, slices.Clone(vals))
			return nil
		}
		if st.sorted == nil {
			st.sorted = rowexec.NewSorter(st.x, rowexec.ByKeys(c.order))
		}
		return st.sorted.Add(slices.Clone(vals))
	}
	return st.accumulate(vals)
}

// foldSorted accumulates the inputs sorted took, in their order.
func (st *aggState) foldSorted() error {
	it, err := st.sorted.Finish()
	st.sorted = nil
	if err != nil {
		return err
	}
	defer it.Close()
	for {
		vals, err := it.Next()
		if err != nil || vals == nil {
			return err
		}
		if err := st.accumulate(vals); err != nil {
			return err
		}
	}
}

// accumulate folds one input into the state.
func (st *aggState) accumulate(vals []any) error { return st.acc.Add(vals) }

// result is the aggregate's value over what it took in so far. One
// without ORDER BY may take more input after, as a window's running
// aggregate does. x's cancellation stops an ordered one's sort and fold.
func (st *aggState) result(x *ExecCtx) (any, error) {
	c := st.call
	if st.ordered != nil {
		if err := rowexec.SortRows(x, st.ordered, c.order); err != nil {
			return nil, err
		}
		for _, vals := range st.ordered {
			if err := x.Canceled(); err != nil {
				return nil, err
			}
			if err := st.accumulate(vals); err != nil {
				return nil, err
			}
		}
		st.ordered = nil
	}
	if st.sorted != nil {
		if err := st.foldSorted(); err != nil {
			return nil, err
		}
	}
	return st.acc.Result()
}
