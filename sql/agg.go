package sql

import (
	"slices"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// aggPlan is the grouping step of a query. Its output row is the GROUP BY
// values followed by one value per aggregate call; expressions above it
// (select list, HAVING, ORDER BY) compile against that row.
type aggPlan struct {
	input      *compiler // compiles aggregate arguments in the input scope
	groupExprs []expr
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
	args     []expr // nil for count(*); then the ORDER BY keys, if any
	nargs    int    // the arguments proper, before the keys
	order    []sortKey
	t        types.T
	loc      *time.Location // the session's, in which json aggregates write times
	filter   expr           // FILTER (WHERE ...), over the input row, or nil
	// An ordered-set aggregate's fraction (or array of them), evaluated
	// when planned, or the error that evaluation gave.
	frac    any
	fracErr error
}

func (a *aggPlan) groupIndex(n ast.ExprNode) (int, bool) {
	if len(a.groupKeys) == 0 {
		return 0, false
	}
	key := restore(n)
	for i, k := range a.groupKeys {
		if k == key {
			return i, true
		}
	}
	// A bare column also matches a qualified GROUP BY column, and the
	// reverse.
	if cn, ok := n.(*ast.ColumnNameExpr); ok {
		for i, g := range a.groupExprs {
			if ce, ok := g.(*colExpr); ok {
				if idx, _, err := a.input.scope.resolve(cn.Name.Table.O, cn.Name.Name.O); err == nil && idx == ce.idx {
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
func (a *aggPlan) groupDependents(sc *scope, cat *catalog.Catalog) {
	grouped := make(map[int]bool)
	for _, ge := range a.groupExprs {
		if ce, ok := ge.(*colExpr); ok {
			grouped[ce.idx] = true
		}
	}
	for end, col := range sc.cols {
		if col.name != hiddenKey || col.tableOID == 0 {
			continue
		}
		t := cat.TableByID[col.tableOID]
		pk := (*catalog.Index)(nil)
		if t != nil && len(t.Columns) <= end {
			pk = t.PrimaryKey()
		}
		if pk == nil {
			continue
		}
		// The table's columns are the len(t.Columns) before its row key.
		first := end - len(t.Columns)
		if sc.cols[first].table != col.table || sc.cols[first].tableOID != col.tableOID {
			continue
		}
		if !slices.ContainsFunc(pk.Columns, func(i int) bool { return !grouped[first+i] }) {
			for i, tc := range t.Columns {
				if idx := first + i; tc.Visible() && !grouped[idx] {
					a.groupExprs = append(a.groupExprs, &colExpr{t: sc.cols[idx].t, idx: idx})
					a.groupKeys = append(a.groupKeys, "") // matched by groupIndex's column lookup
					a.groupTypes = append(a.groupTypes, sc.cols[idx].t)
				}
			}
		}
	}
}

func (a *aggPlan) add(c *compiler, n *ast.AggregateFuncExpr) (expr, error) {
	call := &aggCall{fn: strings.ToLower(n.F), distinct: n.Distinct, loc: c.s.loc()}
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
		if call.filter, err = a.input.compile(cond); err != nil {
			return nil, err
		}
		if t := call.filter.typ(); t.Oid != types.OidBool && t.Oid != types.OidUnknown {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of FILTER must be type boolean, not type %s", t)
		}
		if call.filter, err = a.input.coerce(call.filter, types.Bool); err != nil {
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
		return &colExpr{t: call.t, idx: len(a.groupExprs) + len(a.calls) - 1}, nil
	}
	star := call.fn == "count" && len(nodes) == 1 && !call.distinct && isConstOne(nodes[0])
	args, keys := orderKeys(unkeyed(nodes))
	if !star {
		outer, err := a.input.readsOnlyOuter(func() error {
			for _, arg := range args {
				e, err := a.input.compile(arg)
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
			if err := checkComparable(arg.typ(), false); err != nil {
				return nil, err
			}
		}
	}
	if err := call.planOrder(a.input, keys); err != nil {
		return nil, err
	}
	a.calls = append(a.calls, call)
	return &colExpr{t: call.t, idx: len(a.groupExprs) + len(a.calls) - 1}, nil
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
func argTypes(args []expr) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.typ().String()
	}
	return strings.Join(names, ", ")
}

// planOrder compiles an ordered aggregate's keys, which follow its
// arguments proper in call.args. A DISTINCT string_agg or array_agg
// without keys is ordered by its value, as PostgreSQL's sort-based
// DISTINCT leaves it.
func (call *aggCall) planOrder(c *compiler, keys []ast.ExprNode) error {
	call.nargs = len(call.args)
	if call.distinct && len(keys) == 0 && orderedAgg(call.fn) {
		call.order = []sortKey{{idx: call.nargs, t: call.args[0].typ()}}
		call.args = append(call.args, call.args[0])
		return nil
	}
	for i := 0; i+2 < len(keys); i += 3 {
		key, err := c.compile(keys[i])
		if err != nil {
			return err
		}
		if key, err = c.resolveUnknown(key); err != nil {
			return err
		}
		dir := keys[i+1].(*driver.ValueExpr).GetString()
		nulls := keys[i+2].(*driver.ValueExpr).GetString()
		k := sortKey{idx: len(call.args), t: key.typ(), desc: dir == "desc"}
		k.nullsFirst = nulls == "first" || nulls == "default" && k.desc
		if err := checkComparable(k.t, true); err != nil {
			return err
		}
		call.order = append(call.order, k)
		call.args = append(call.args, key)
	}
	if !orderedAgg(call.fn) {
		// Compiled only to check them: the result ignores the order.
		call.args, call.order = call.args[:call.nargs], nil
	}
	return nil
}

// oneArgAgg are the aggregates of one argument whose calls typeCheck
// checks no further.
var oneArgAgg = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "bool_and": true, "bool_or": true,
	"every": true, "json_agg": true, "jsonb_agg": true,
}

// orderedAgg reports whether an aggregate's result depends on the order of
// its input.
func orderedAgg(fn string) bool {
	switch fn {
	case "string_agg", "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		return true
	}
	return false
}

// typeCheck resolves the aggregate's result type, PostgreSQL's way.
func (call *aggCall) typeCheck(c *compiler) error {
	switch {
	case call.args == nil && call.fn == "count":
		call.t = types.Int8 // count(*)
		return nil
	case call.args == nil && !orderedSetAgg(call.fn):
		return noFunction(call.fn, nil)
	case len(call.args) != 1 && oneArgAgg[call.fn]:
		return noFunction(call.fn, call.args)
	}
	if statAgg(call.fn) {
		return call.typeCheckStat(c)
	}
	arg := call.args[0]
	var err error
	if arg, err = c.resolveUnknown(arg); err != nil {
		return err
	}
	if arg.typ().Oid == types.OidTime && (call.fn == "sum" || call.fn == "avg") {
		// There is no sum(time): it is sum(interval), by time's implicit cast.
		if arg, err = c.coerce(arg, types.IntervalType); err != nil {
			return err
		}
	}
	call.args[0] = arg
	at := arg.typ()
	switch call.fn {
	case "count":
		call.t = types.Int8
	case "sum":
		switch at.Oid {
		case types.OidInt2, types.OidInt4:
			call.t = types.Int8
		case types.OidInt8, types.OidNumeric:
			call.t = types.Numeric
		case types.OidFloat4, types.OidFloat8, types.OidInterval:
			call.t = types.T{Oid: at.Oid, Mod: -1}
		default:
			return pgerr.New(pgerr.UndefinedFunction, "function sum(%s) does not exist", at)
		}
	case "avg":
		switch {
		case at.Oid == types.OidFloat4 || at.Oid == types.OidFloat8:
			call.t = types.Float8
		case at.Oid == types.OidInterval:
			call.t = types.IntervalType
		case numRank(at.Oid) > 0:
			call.t = types.Numeric
		default:
			return pgerr.New(pgerr.UndefinedFunction, "function avg(%s) does not exist", at)
		}
	case "min", "max":
		switch {
		case at.Oid == types.OidVarchar || at.Oid == types.OidName:
			call.t = types.Text // they have no min and max of their own
		case numRank(at.Oid) > 0, timeRank(at.Oid) > 0, isString(at.Oid), at.Oid == types.OidInterval, at.Oid == types.OidOid,
			at.Oid == types.OidTime,
			types.IsEnum(at.Oid):
			call.t = types.T{Oid: at.Oid, Mod: at.Mod}
		default:
			return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", call.fn, at)
		}
	case "bool_and", "bool_or", "every":
		if call.args[0], err = c.coerce(arg, types.Bool); err != nil {
			return err
		}
		call.t = types.Bool
	case "string_agg", "group_concat":
		if len(call.args) != 2 {
			return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", call.fn, argTypes(call.args))
		}
		for i := range call.args {
			et := call.args[i].typ()
			if !isString(et.Oid) && et.Oid != types.OidUnknown {
				return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", call.fn, argTypes(call.args))
			}
			if call.args[i], err = c.coerce(call.args[i], types.Text); err != nil {
				return err
			}
		}
		call.t = types.Text
	case "array_agg":
		if len(call.args) != 1 {
			return pgerr.New(pgerr.UndefinedFunction, "function array_agg(%s) does not exist", argTypes(call.args))
		}
		t, ok := types.ArrayOf(at)
		if !ok {
			return pgerr.New(pgerr.UndefinedFunction, "function array_agg(%s) does not exist", at)
		}
		call.t = t
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		want := 1
		if strings.HasSuffix(call.fn, "object_agg") {
			want = 2
		}
		if len(call.args) != want {
			return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", call.fn, argTypes(call.args))
		}
		for i := range call.args {
			if call.args[i], err = c.resolveUnknown(call.args[i]); err != nil {
				return err
			}
		}
		call.t = types.JSONType
		if strings.HasPrefix(call.fn, "jsonb") {
			call.t = types.JSONBType
		}
	default:
		return pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", call.fn)
	}
	return nil
}

// aggState accumulates one aggregate call over one group.
type aggState struct {
	call    *aggCall
	count   int64
	acc     any // running sum / min / max / and / or / string / array
	seen    map[string]struct{}
	ordered [][]any // an ordered aggregate's inputs, sorted at the end
	// sorted takes an ordered aggregate's inputs instead, sorting them
	// within work_mem, when x, the execution grouping them, is set.
	x      *execCtx
	sorted *sorter
}

func (st *aggState) add(vals []any) error {
	c := st.call
	if c.args == nil {
		st.count++
		return nil
	}
	v := vals[0]
	if v == nil && !keepsNulls(c.fn) {
		return nil
	}
	if c.distinct {
		// Distinct over all the arguments proper: string_agg(DISTINCT x, sep)
		// keeps x twice for two separators, as PostgreSQL does.
		var kb []byte
		for i, a := range c.args[:c.nargs] {
			kb = types.AppendKey(kb, a.typ(), vals[i], false)
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
			st.sorted = newSorter(st.x, byKeys(c.order))
		}
		return st.sorted.add(slices.Clone(vals))
	}
	return st.accumulate(vals)
}

// foldSorted accumulates the inputs sorted took, in their order.
func (st *aggState) foldSorted() error {
	it, err := st.sorted.finish()
	st.sorted = nil
	if err != nil {
		return err
	}
	defer it.close()
	for {
		vals, err := it.next()
		if err != nil || vals == nil {
			return err
		}
		if err := st.accumulate(vals); err != nil {
			return err
		}
	}
}

// accumulate folds one input into the state.
func (st *aggState) accumulate(vals []any) error {
	c := st.call
	v := vals[0]
	st.count++
	switch c.fn {
	case "count":
		// The count is all it keeps: no moments, whose squares of large
		// floats would overflow.
	case "sum", "avg":
		return st.addSum(v)
	case "min", "max":
		if st.acc == nil || c.replacesExtreme(v, st.acc) {
			st.acc = v
		}
	case "bool_and", "every":
		st.acc = (st.acc == nil || st.acc.(bool)) && v.(bool)
	case "bool_or":
		st.acc = (st.acc != nil && st.acc.(bool)) || v.(bool)
	case "string_agg", "group_concat":
		// A builder, not a string: appending to a string copies it, which
		// made the aggregate quadratic in its input.
		b, _ := st.acc.(*strings.Builder)
		if b == nil {
			b = new(strings.Builder)
			st.acc = b
		} else if len(vals) > 1 && vals[1] != nil {
			b.WriteString(vals[1].(string))
		}
		b.WriteString(v.(string))
	case "array_agg":
		arr, _ := st.acc.([]any)
		st.acc = append(arr, v)
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		// The inputs, gathered for builtins.JSONAgg to write.
		if c.nargs == 2 && vals[0] == nil {
			return pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
		}
		inputs, _ := st.acc.([][]any)
		st.acc = append(inputs, slices.Clone(vals[:c.nargs]))
	default:
		return st.accumulateStat(vals)
	}
	return nil
}

// replacesExtreme reports whether v, a later input than acc, takes its
// place as min or max. Of two equal inputs both take the later, as
// PostgreSQL's numeric_smaller and the like do, which shows when equal
// values print differently (1.0 and 1.00, '1 day' and '24 hours').
func (c *aggCall) replacesExtreme(v, acc any) bool {
	cmp := types.Compare(c.t, v, acc)
	if c.fn == "min" {
		return cmp <= 0
	}
	return cmp >= 0
}

// keepsNulls reports whether an aggregate takes NULL inputs in.
func keepsNulls(fn string) bool {
	switch fn {
	case "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		return true
	}
	return false
}

// addSum keeps integer sums in numeric (exact, no overflow) and float
// sums in float64.
func (st *aggState) addSum(v any) error {
	switch x := v.(type) {
	case int64:
		d := apd.New(x, 0)
		if st.acc != nil {
			if _, err := builtins.NumericContext.Add(d, st.acc.(*apd.Decimal), d); err != nil {
				return err
			}
		}
		st.acc = d
	case *apd.Decimal:
		d := new(apd.Decimal).Set(x)
		if st.acc != nil {
			if _, err := builtins.NumericContext.Add(d, st.acc.(*apd.Decimal), x); err != nil {
				return err
			}
		}
		st.acc = d
	case float64:
		if st.acc == nil {
			st.acc = x
		} else {
			st.acc = st.acc.(float64) + x
		}
	case types.Interval:
		if st.acc == nil {
			st.acc = x
		} else {
			a := st.acc.(types.Interval)
			st.acc = types.Interval{Months: a.Months + x.Months, Days: a.Days + x.Days, Micros: a.Micros + x.Micros}
		}
	}
	return nil
}

// result is the aggregate's value over what it took in so far. One
// without ORDER BY may take more input after, as a window's running
// aggregate does. x's cancellation stops an ordered one's sort and fold.
func (st *aggState) result(x *execCtx) (any, error) {
	c := st.call
	if st.ordered != nil {
		if err := sortRowsCanceling(x, st.ordered, c.order); err != nil {
			return nil, err
		}
		for _, vals := range st.ordered {
			if err := x.canceled(); err != nil {
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
	switch c.fn {
	case "string_agg", "group_concat":
		if b, ok := st.acc.(*strings.Builder); ok {
			return b.String(), nil
		}
		return nil, nil
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		inputs, _ := st.acc.([][]any)
		return builtins.JSONAgg(c.t, argTypesOf(c.args[:c.nargs]), inputs, c.loc)
	case "count":
		return st.count, nil
	case "avg":
		if st.count == 0 {
			return nil, nil
		}
		switch acc := st.acc.(type) {
		case float64:
			return acc / float64(st.count), nil
		case types.Interval:
			return types.ScaleInterval(acc, float64(st.count), true)
		}
		return numericArith('/', st.acc.(*apd.Decimal), apd.New(st.count, 0))
	case "sum":
		if st.acc == nil {
			return nil, nil
		}
		if d, ok := st.acc.(*apd.Decimal); ok && c.t.Oid == types.OidInt8 {
			i, err := d.Int64()
			if err != nil {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
			}
			return i, nil
		}
		return st.acc, nil
	}
	if statAgg(c.fn) {
		return st.statResult()
	}
	return st.acc, nil
}
