package parser

import (
	"errors"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// rewrite turns a PostgreSQL item sequence into one TiDB reads the same way:
// first casts are folded into epochdb_cast calls, then expressions are
// re-parsed with PostgreSQL's precedence and their PostgreSQL-only operators
// rewritten.
func (p *stmtParser) rewrite(seq []item) ([]item, error) {
	seq, err := p.fold(seq)
	if err != nil {
		return nil, err
	}
	return p.exprs(seq)
}

// castItem renders a cast as epochdb_cast(operand, 'type'). The planner
// reads the type name with PostgreSQL's rules; TiDB's CAST knows only
// MySQL's types.
func castItem(anchor *token, operand []item, typ string) *synth {
	return &synth{anchor: anchor, space: leadingSpace(operand[0]),
		parts: []any{"epochdb_cast(", operand, ", " + quoteString(typ) + ")"}}
}

// fold rewrites expr::type, CAST(expr AS type) and typed literals such as
// date '2020-01-02' into epochdb_cast calls, in seq and every group in it.
func (p *stmtParser) fold(seq []item) ([]item, error) {
	out := make([]item, 0, len(seq))
	for i := 0; i < len(seq); i++ {
		it := seq[i]
		if err := p.foldInside(it); err != nil {
			return nil, err
		}
		t := tokOf(it)
		switch {
		case isPunct(it, "::"):
			start, ok := primaryStart(out)
			if !ok {
				return nil, p.syntaxError(t)
			}
			typ, next, ok := parseType(seq, i+1)
			if !ok {
				return nil, p.errorAt(seq, i+1)
			}
			cast := castItem(t, append([]item(nil), out[start:]...), typ)
			out = append(out[:start], cast)
			i = next - 1
		case isWord(it, "cast") && parenGroup(at(seq, i+1)) != nil:
			g := seq[i+1].(*group)
			if err := p.foldInside(g); err != nil {
				return nil, err
			}
			as := -1
			for k, kid := range g.kids {
				if isWord(kid, "as") {
					as = k
					break
				}
			}
			if as <= 0 {
				return nil, p.errorAt(g.kids, len(g.kids), g.close)
			}
			typ, next, ok := parseType(g.kids, as+1)
			if !ok || next != len(g.kids) {
				return nil, p.errorAt(g.kids, max(next, as+1), g.close)
			}
			cast := castItem(t, g.kids[:as], typ)
			cast.space = t.space
			out = append(out, cast)
			i++
		case isWord(it, "extract") && t.call && parenGroup(at(seq, i+1)) != nil:
			g := seq[i+1].(*group)
			if err := p.foldInside(g); err != nil {
				return nil, err
			}
			field := tokOf(at(g.kids, 0))
			if field == nil || field.kind != tkWord && field.kind != tkString || !isWord(at(g.kids, 1), "from") || len(g.kids) < 3 {
				return nil, p.errorAt(g.kids, 1, g.close)
			}
			// TiDB's EXTRACT knows MySQL's units, with MySQL's meaning.
			out = append(out, &synth{anchor: t, space: t.space,
				parts: []any{"epochdb_extract(" + quoteString(field.val) + ", ", g.kids[2:], ")"}})
			i++
		case isWord(it, "overlay") && t.call && parenGroup(at(seq, i+1)) != nil:
			g := seq[i+1].(*group)
			if err := p.foldInside(g); err != nil {
				return nil, err
			}
			out = append(out, overlayItem(t, g))
			i++
		case isWord(it, "substring") && t.call && parenGroup(at(seq, i+1)) != nil:
			g := seq[i+1].(*group)
			if err := p.foldInside(g); err != nil {
				return nil, err
			}
			out = append(out, substringItem(t, g))
			i++
		case t != nil && (t.kind == tkQIdent || t.kind == tkWord && !t.keyword && typeHead(t.val)) &&
			!isWord(at(seq, i-1), "fetch"): // FETCH FIRST '3' ROWS: not a type named first
			typ, next, ok := parseType(seq, i)
			if s := tokOf(at(seq, next)); ok && s != nil && s.kind == tkString {
				next++
				if typ == "interval" {
					if fields, n := intervalFields(seq, next); n >= 0 {
						typ += fields
						next = n
					}
				}
				cast := castItem(t, []item{s}, typ)
				cast.space = t.space
				out = append(out, cast)
				i = next - 1
				continue
			}
			out = append(out, it)
		default:
			out = append(out, it)
		}
	}
	return out, nil
}

// overlayItem rewrites overlay(s PLACING r FROM n [FOR k]), which TiDB
// cannot parse, as overlay(s, r, n[, k]); a call with commas stays.
func overlayItem(t *token, g *group) item {
	cuts := []int{}
	for k, kid := range g.kids {
		if isWord(kid, "placing", "from", "for") {
			cuts = append(cuts, k)
		}
	}
	if len(cuts) < 2 || !isWord(g.kids[cuts[0]], "placing") || !isWord(g.kids[cuts[1]], "from") ||
		len(cuts) == 3 && !isWord(g.kids[cuts[2]], "for") || len(cuts) > 3 {
		return &synth{anchor: t, space: t.space, parts: []any{"overlay", g}}
	}
	parts := []any{"overlay(", g.kids[:cuts[0]]}
	cuts = append(cuts, len(g.kids))
	for k := 0; k+1 < len(cuts); k++ {
		parts = append(parts, ", ", g.kids[cuts[k]+1:cuts[k+1]])
	}
	return &synth{anchor: t, space: t.space, parts: append(parts, ")")}
}

// substringItem rewrites substring(s SIMILAR p ESCAPE e), which TiDB
// cannot parse, as substring(s, p, e); other forms stay.
func substringItem(t *token, g *group) item {
	sim, esc := -1, -1
	for k, kid := range g.kids {
		switch {
		case isWord(kid, "similar") && sim < 0:
			sim = k
		case isWord(kid, "escape") && sim >= 0 && esc < 0:
			esc = k
		}
	}
	if sim <= 0 || esc < 0 || isWord(at(g.kids, sim+1), "to") {
		return &synth{anchor: t, space: t.space, parts: []any{"substring", g}}
	}
	return &synth{anchor: t, space: t.space, parts: []any{"substring(", g.kids[:sim], ", ",
		g.kids[sim+1 : esc], ", ", g.kids[esc+1:], ")"}}
}

// foldInside folds the groups and synthesized runs inside it.
func (p *stmtParser) foldInside(it item) error {
	var err error
	switch v := it.(type) {
	case *group:
		v.kids, err = p.fold(v.kids)
	case *synth:
		for i, part := range v.parts {
			if err != nil {
				break
			}
			if run, ok := part.([]item); ok {
				v.parts[i], err = p.fold(run)
			} else {
				err = p.foldInside(part)
			}
		}
	}
	return err
}

// typeHead reports whether a word may start a typed literal (gram.y's
// AexprConst: a generic type name or a ConstTypename, then a string). Words
// that take a string operand in the grammar are excluded.
func typeHead(w string) bool {
	switch pgKeywords[w] {
	case reserved, typeFuncName:
		return false
	case colName:
		return constTypeWords[w]
	}
	switch w {
	case "escape", "zone", "uescape":
		return false
	}
	return true
}

// primaryKeywords are reserved words that are values by themselves.
var primaryKeywords = map[string]bool{
	"null": true, "true": true, "false": true, "default": true, "current_date": true,
	"current_time": true, "current_timestamp": true, "localtime": true, "localtimestamp": true,
	"current_user": true, "session_user": true, "user": true, "current_role": true,
	"current_catalog": true, "system_user": true,
}

// primaryStart finds where the primary expression ending out begins: the
// operand of a following ::, which binds tighter than any operator.
func primaryStart(out []item) (int, bool) {
	k := len(out) - 1
	if k < 0 {
		return 0, false
	}
	// The clauses after a call's arguments, WITHIN GROUP (...), FILTER
	// (...) and OVER, belong to it.
	j := k
	if j >= 3 && isWord(out[j-1], "over") && (parenGroup(out[j]) != nil || isName(out[j])) {
		j -= 2
	}
	if j >= 3 && isWord(out[j-1], "filter") && parenGroup(out[j]) != nil && parenGroup(out[j-2]) != nil {
		j -= 2
	}
	if j >= 4 && wordsAt(out, j-2, "within", "group") && parenGroup(out[j]) != nil {
		j -= 3
	}
	if j < k {
		if parenGroup(out[j]) == nil || !isFuncName(tokOf(out[j-1])) || !tokOf(out[j-1]).call {
			return 0, false
		}
		return nameStart(out, j-1), true
	}
	switch v := out[k].(type) {
	case *group:
		if v.open.val == "[" {
			// ARRAY[...], or a subscript of the primary before it.
			if k > 0 && isWord(out[k-1], "array") {
				return k - 1, true
			}
			return primaryStart(out[:k])
		}
		if v.paren() && k > 0 && isFuncName(tokOf(out[k-1])) && tokOf(out[k-1]).call {
			return nameStart(out, k-1), true
		}
		if v.paren() && k > 0 && isWord(out[k-1], "array") {
			return k - 1, true
		}
		return k, true
	case *synth:
		return k, true
	case *token:
		switch v.kind {
		case tkString, tkNumber, tkParam:
			return k, true
		case tkQIdent:
			return nameStart(out, k), true
		case tkWord:
			if v.keyword || pgKeywords[v.val] == reserved && !primaryKeywords[v.val] {
				return 0, false
			}
			return nameStart(out, k), true
		}
	}
	return 0, false
}

// nameStart extends a name ending at out[k] back over its dotted qualifiers.
func nameStart(out []item, k int) int {
	for k >= 2 && isPunct(out[k-1], ".") && tokOf(out[k-2]) != nil &&
		(tokOf(out[k-2]).kind == tkWord || tokOf(out[k-2]).kind == tkQIdent) {
		k -= 2
	}
	return k
}

// isFuncName reports whether t can name a function in a call.
func isFuncName(t *token) bool {
	if t == nil {
		return false
	}
	switch t.kind {
	case tkQIdent:
		return true
	case tkWord:
		switch pgKeywords[t.val] {
		case reserved:
			return primaryKeywords[t.val]
		case typeFuncName:
			return t.val == "left" || t.val == "right" || t.val == "current_schema"
		case colName:
			return t.val != "between" && t.val != "values"
		}
		return true
	}
	return false
}

// PostgreSQL's operator precedence, loosest first (the table in the
// "Operator Precedence" section of the manual).
const (
	precOr = 1 + iota
	precAnd
	precNot
	precIs
	precCmp
	precPred // BETWEEN IN LIKE ILIKE SIMILAR
	precOther
	precAdd
	precMul
	precExp
	precAt // AT TIME ZONE
	precUnary
	precCollate
)

// TiDB's binding strengths, loosest first: the levels of its grammar
// (Expression, BoolPri, PredicateExpr, BitExpr, SimpleExpr) and of the
// operators within BitExpr.
const (
	lvOr = 1 + iota
	lvXor
	lvAnd
	lvNot
	lvCmp  // BoolPri: comparisons and IS NULL
	lvPred // PredicateExpr: IN, LIKE, BETWEEN
	lvBitOr
	lvBitAnd
	lvShift
	lvAdd
	lvMul
	lvBitXor
	lvUnary // SimpleExpr
	lvPrimary
)

// exprNode is an expression parsed with PostgreSQL's precedence. When TiDB
// would group its source items the same way and no operator needs
// rewriting, the node is written as its source items; otherwise it is
// written from parts, with parentheses wherever TiDB's grammar needs them to
// keep PostgreSQL's grouping.
type exprNode struct {
	seq       []item
	lo, hi    int   // the node's source items are seq[lo:hi]
	parts     []any // string (synthetic text), []item, or kid
	kids      []*exprNode
	need      []int // need[i] is the binding strength TiDB requires of kids[i]
	level     int   // the binding strength of the node as written
	rewritten bool  // parts differ from the source items
	anchor    *token
	cmp       bool // a comparison a < b, which no comparison may extend
}

// kid refers to exprNode.kids[kid] in exprNode.parts.
type kid int

func (n *exprNode) dirty() bool {
	if n.rewritten {
		return true
	}
	for i, k := range n.kids {
		if k.level < n.need[i] || k.dirty() {
			return true
		}
	}
	return false
}

func (n *exprNode) emit(w *writer) {
	if !n.dirty() {
		w.emitAll(n.seq[n.lo:n.hi])
		return
	}
	for i, part := range n.parts {
		switch v := part.(type) {
		case string:
			w.text(v, n.anchor, i == 0 && leadingSpace(n.seq[n.lo]))
		case []item:
			w.emitAll(v)
		case kid:
			k := n.kids[v]
			if k.level < n.need[v] {
				first := firstTok(k.seq[k.lo])
				w.text("(", first, leadingSpace(k.seq[k.lo]))
				k.emit(w)
				w.text(")", first, false)
			} else {
				k.emit(w)
			}
		}
	}
}

// structuralError means the items are not an expression this parser
// understands, such as the special syntax of EXTRACT or a window frame.
// Such items are passed to TiDB as written.
type structuralError struct{}

func (structuralError) Error() string { return "not an expression" }

// exprParser parses one expression from seq[i:] by precedence climbing.
type exprParser struct {
	p   *stmtParser
	seq []item
	i   int
}

func (e *exprParser) cur() item { return at(e.seq, e.i) }

func (e *exprParser) parse(minPrec int) (*exprNode, error) {
	lo := e.i
	left, err := e.prefix()
	if err != nil {
		return nil, err
	}
	for e.i < len(e.seq) {
		n, err := e.infix(lo, left, minPrec)
		if err != nil {
			return nil, err
		}
		if n == nil {
			break
		}
		left = n
	}
	return left, nil
}

func (e *exprParser) node(lo int, level int, anchor *token, parts []any, kids []*exprNode, need ...int) *exprNode {
	return &exprNode{seq: e.seq, lo: lo, hi: e.i, parts: parts, kids: kids, need: need, level: level, anchor: anchor}
}

func (e *exprParser) prefix() (*exprNode, error) {
	lo := e.i
	it := e.cur()
	t := tokOf(it)
	switch {
	case t == nil:
	case t.kind == tkOp && (t.val == "-" || t.val == "+"):
		e.i++
		arg, err := e.parse(precUnary)
		if err != nil {
			return nil, err
		}
		return e.node(lo, lvUnary, t, []any{e.seq[lo : lo+1], kid(0)}, []*exprNode{arg}, lvUnary), nil
	case t.kind == tkOp && t.val == "~":
		// A prefix operator takes everything that binds tighter than the
		// "other operator" level: ~ a + b is ~(a + b).
		e.i++
		arg, err := e.parse(precOther + 1)
		if err != nil {
			return nil, err
		}
		n := e.node(lo, lvUnary, t, []any{"~", kid(0)}, []*exprNode{arg}, lvUnary)
		n.rewritten = true
		return n, nil
	case t.kind == tkOp && t.val != "*":
		return nil, e.p.unsupported(t, "operator %s is not supported", t.val)
	case isWord(t, "not"):
		e.i++
		arg, err := e.parse(precNot)
		if err != nil {
			return nil, err
		}
		return e.node(lo, lvNot, t, []any{e.seq[lo : lo+1], kid(0)}, []*exprNode{arg}, lvNot), nil
	}
	return e.primary()
}

// exprOpWords are non-reserved keywords that continue or join expressions
// rather than start them.
var exprOpWords = map[string]bool{
	"is": true, "isnull": true, "notnull": true, "like": true, "ilike": true, "similar": true,
	"overlaps": true, "between": true, "join": true, "cross": true, "full": true, "inner": true,
	"natural": true, "outer": true, "binary": true, "collation": true, "concurrently": true,
	"freeze": true, "tablesample": true, "verbose": true, "authorization": true,
}

func (e *exprParser) primary() (*exprNode, error) {
	lo := e.i
	switch v := e.cur().(type) {
	case *group:
		if !v.paren() && !v.isCase() {
			return nil, e.p.syntaxError(v.open)
		}
		e.i++
		// (composite).field is epochdb_field((composite), 'field').
		n := e.node(lo, lvPrimary, v.open, nil, nil)
		for isPunct(e.cur(), ".") && isName(at(e.seq, e.i+1)) {
			field := tokOf(at(e.seq, e.i+1))
			e.i += 2
			n = e.node(lo, lvPrimary, field, []any{"epochdb_field(", kid(0), ", " + quoteString(field.val) + ")"}, []*exprNode{n}, lvOr)
			n.rewritten = true
		}
		return e.subscripts(lo, n)
	case *synth, *exprNode:
		e.i++
	case *token:
		switch v.kind {
		case tkString, tkNumber:
			// A constant takes no subscript: 'x'[1] is a syntax error.
			e.i++
			return e.node(lo, lvPrimary, v, nil, nil), nil
		case tkParam:
			e.i++
		case tkBits:
			return nil, e.p.unsupported(v, "bit-string constants are not supported")
		case tkOp:
			if v.val != "*" {
				return nil, structuralError{}
			}
			e.i++
		case tkQIdent:
			return e.call(lo)
		case tkWord:
			w := v.val
			switch {
			case w == "array":
				return e.array(v)
			case primaryKeywords[w]:
				e.i++
				if v.call {
					e.i++
				}
			case pgKeywords[w] == reserved, exprOpWords[w]:
				return nil, structuralError{}
			default:
				return e.call(lo)
			}
		default:
			return nil, structuralError{}
		}
	default:
		return nil, structuralError{}
	}
	return e.subscripts(lo, e.node(lo, lvPrimary, firstTok(e.seq[lo]), nil, nil))
}

// call parses a name, and the call that may follow it, as a primary
// expression.
func (e *exprParser) call(lo int) (*exprNode, error) {
	parts, err := e.name()
	if err != nil {
		return nil, err
	}
	n := e.node(lo, lvPrimary, firstTok(e.seq[lo]), parts, nil)
	n.rewritten = parts != nil
	return e.subscripts(lo, n)
}

// array rewrites ARRAY[a, b] to epochdb_array(a, b), and ARRAY(subquery)
// to epochdb_array_query((subquery)).
func (e *exprParser) array(t *token) (*exprNode, error) {
	lo := e.i
	g, ok := at(e.seq, e.i+1).(*group)
	if !ok || g.isCase() {
		return nil, e.p.syntaxError(t)
	}
	e.i += 2
	var n *exprNode
	if g.paren() {
		n = e.node(lo, lvPrimary, t, []any{"epochdb_array_query(", []item{g}, ")"}, nil)
	} else {
		n = e.node(lo, lvPrimary, t, []any{"epochdb_array(", g.kids, ")"}, nil)
	}
	n.rewritten = true
	return e.subscripts(lo, n)
}

// subscripts rewrites the subscripts that follow a primary expression:
// x[i] is epochdb_subscript(x, i).
func (e *exprParser) subscripts(lo int, n *exprNode) (*exprNode, error) {
	for {
		g, ok := e.cur().(*group)
		if !ok || g.open.val != "[" {
			return n, nil
		}
		for _, kid := range g.kids {
			if isPunct(kid, ":") {
				return nil, e.p.unsupported(tokOf(kid), "array slices are not supported")
			}
		}
		if len(g.kids) == 0 {
			return nil, e.p.syntaxError(g.close)
		}
		e.i++
		n = e.node(lo, lvPrimary, g.open, []any{"epochdb_subscript(", kid(0), ", ", g.kids, ")"}, []*exprNode{n}, lvOr)
		n.rewritten = true
	}
}

// name consumes a possibly qualified name, and the call and the clauses
// that may follow it. It returns what to write instead of the source
// items when a clause TiDB lacks (WITHIN GROUP, FILTER) has gone into the
// call's arguments, or the call is an aggregate TiDB takes no OVER after,
// else nil.
func (e *exprParser) name() ([]any, error) {
	lo := e.i
	last := tokOf(e.cur())
	e.i++
	for isPunct(e.cur(), ".") {
		next := tokOf(at(e.seq, e.i+1))
		if next == nil || next.kind != tkWord && next.kind != tkQIdent && !(next.kind == tkOp && next.val == "*") {
			break
		}
		last = next
		e.i += 2
	}
	g := parenGroup(e.cur())
	if !last.call || g == nil {
		return nil, nil
	}
	callEnd := e.i + 1
	// The clauses after a call, in gram.y's order: WITHIN GROUP, FILTER,
	// OVER.
	j := callEnd
	var within, filter *group
	var withinTok, filterTok *token
	if wordsAt(e.seq, j, "within", "group") {
		withinTok = tokOf(e.seq[j])
		if within = parenGroup(at(e.seq, j+2)); within == nil {
			return nil, e.p.errorAt(e.seq, j+2)
		}
		if !wordsAt(within.kids, 0, "order", "by") {
			return nil, e.p.errorAt(within.kids, 0, within.close)
		}
		j += 3
	}
	if isWord(at(e.seq, j), "filter") && parenGroup(at(e.seq, j+1)) != nil {
		filterTok, filter = tokOf(e.seq[j]), e.seq[j+1].(*group)
		if !isWord(at(filter.kids, 0), "where") {
			return nil, e.p.errorAt(filter.kids, 0, filter.close)
		}
		if len(filter.kids) == 1 {
			return nil, e.p.syntaxError(filter.close)
		}
		j += 2
	}
	over := isWord(at(e.seq, j), "over") && (parenGroup(at(e.seq, j+1)) != nil || isName(at(e.seq, j+1)))
	// The parentheses of EXISTS hold a query, whose ORDER BY is its own:
	// EXISTS ((SELECT a) UNION (SELECT b) ORDER BY 1). Any other call's
	// arguments are expressions, even one in parentheses: f((a) ORDER BY a).
	query := isWord(at(g.kids, 0), "select", "with", "values", "table") || isWord(last, "exists")
	for i, kid := range g.kids {
		if isWord(kid, "order") && !query {
			if over {
				return nil, e.p.unsupported(last, "aggregate ORDER BY is not implemented for window functions")
			}
			if within != nil {
				return nil, e.p.syntaxMsg(withinTok, "cannot use multiple ORDER BY clauses with WITHIN GROUP")
			}
			kids, err := e.p.argumentOrder(last, g, i)
			if err != nil {
				return nil, err
			}
			g.kids = kids
			break
		}
	}
	switch {
	case within != nil && over:
		return nil, e.p.unsupported(withinTok, "OVER is not supported for ordered-set aggregate %s", last.val)
	case filter != nil && over && tidbCallable[last.val]:
		return nil, e.p.unsupported(filterTok, "FILTER is not implemented for non-aggregate window functions")
	case within != nil && isWord(at(g.kids, 0), "distinct"):
		return nil, e.p.syntaxMsg(withinTok, "cannot use DISTINCT with WITHIN GROUP")
	case within != nil:
		// The arguments and the sort keys, as argumentOrder writes them,
		// become the one argument epochdb_within(argument, ...,
		// epochdb_order(...)), which TiDB's grammar takes for any
		// aggregate.
		prefix := "epochdb_order("
		if len(g.kids) > 0 {
			prefix = ", " + prefix
		}
		keys, err := e.p.sortKeys(withinTok, prefix, within.kids[2:])
		if err != nil {
			return nil, err
		}
		g.kids = []item{&synth{anchor: withinTok, parts: []any{"epochdb_within(", g.kids, keys, ")"}}}
	}
	if filter != nil {
		// The condition and the arguments become the one argument
		// epochdb_filter(condition, argument, ...), which TiDB's grammar
		// takes for any aggregate; count(*) counts the constant 1.
		lead := 0
		if isWord(at(g.kids, 0), "distinct", "all") {
			lead = 1
		}
		inner := g.kids[lead:]
		if t := tokOf(at(inner, 0)); len(inner) == 1 && t != nil && t.kind == tkOp && t.val == "*" {
			inner = []item{&synth{anchor: t, parts: []any{"1"}}}
		}
		parts := []any{"epochdb_filter(", filter.kids[1:]}
		if len(inner) > 0 {
			parts = append(parts, ", ", inner)
		}
		parts = append(parts, ")")
		g.kids = append(g.kids[:lead:lead], &synth{anchor: filterTok, parts: parts})
	}
	if isWord(at(g.kids, 0), "distinct") && (noTiDBWindow[last.val] || noTiDBDistinct[last.val]) && !over {
		// TiDB takes DISTINCT only in the aggregates it knows: mark the
		// first argument instead.
		end := 1 // the first argument ends at a comma, or at argumentOrder's keys
		for end < len(g.kids) && !isPunct(g.kids[end], ",") && !isOrderKeys(g.kids[end]) {
			end++
		}
		if end == 1 {
			return nil, e.p.syntaxError(g.close) // DISTINCT with no argument
		}
		kids := []item{&synth{anchor: tokOf(g.kids[0]), parts: []any{"epochdb_distinct(", g.kids[1:end], ")"}}}
		g.kids = append(kids, g.kids[end:]...)
	}
	e.i = j
	if over {
		if isWord(at(g.kids, 0), "distinct") {
			return nil, e.p.unsupported(tokOf(g.kids[0]), "DISTINCT is not implemented for window functions")
		}
		if noTiDBWindow[last.val] && !windowAggs[last.val] {
			return nil, e.p.unsupported(last, "window function %s is not supported", last.val)
		}
		if w := parenGroup(at(e.seq, e.i+1)); w != nil {
			w.kids = frameOffsets(w.kids)
		}
		switch args := splitCommas(g.kids); {
		case last.val == "lag" || last.val == "lead":
			// TiDB takes only a plain number as the offset: pass the
			// arguments packed as one, which the planner unpacks.
			if len(args) > 1 {
				if t := tokOf(at(args[1], 0)); len(args[1]) != 1 || t == nil || t.kind != tkNumber {
					g.kids = []item{&synth{anchor: firstTok(g.kids[0]), parts: []any{"epochdb_args(", g.kids, ")"}}}
				}
			}
		case last.val == "ntile":
			// TiDB takes one simple expression.
			g.kids = []item{&synth{anchor: g.open, parts: []any{"epochdb_args(", g.kids, ")"}}}
		case last.val == "nth_value" && len(args) == 2:
			g.kids = []item{&synth{anchor: g.open, parts: []any{args[0], ", (", args[1], ")"}}}
		}
		e.i += 2
		if windowAggs[last.val] {
			// An aggregate TiDB does not take before OVER goes as the
			// one it does: max(epochdb_window_agg('name', argument, ...)).
			parts := []any{"max(epochdb_window_agg(" + quoteString(last.val)}
			if len(g.kids) > 0 {
				parts = append(parts, ", ", g.kids)
			}
			return append(parts, "))", e.seq[j:e.i]), nil
		}
	}
	if within == nil && filter == nil {
		return nil, nil
	}
	// The clauses' words go: what they said is in the arguments now.
	return []any{e.seq[lo:callEnd], e.seq[j:e.i]}, nil
}

// argumentOrder rewrites an aggregate's ORDER BY, at g.kids[i], which TiDB
// lacks. For string_agg and array_agg, whose result it orders, the sort
// keys become a last argument, epochdb_order(key, 'asc' or 'desc', 'first',
// 'last' or 'default', ...); the other aggregates' results do not depend on
// their input's order, so it goes.
func (p *stmtParser) argumentOrder(fn *token, g *group, i int) ([]item, error) {
	if !isWord(at(g.kids, i+1), "by") {
		return nil, p.errorAt(g.kids, i+1, g.close)
	}
	if i+2 == len(g.kids) {
		return nil, p.syntaxError(g.close)
	}
	args := g.kids[:i:i]
	if isWord(at(args, 0), "distinct") {
		// PostgreSQL sorts a DISTINCT aggregate's input by its arguments,
		// so the keys must be among them.
		argTexts := map[string]bool{}
		for _, a := range splitCommas(args[1:]) {
			argTexts[itemsText(a)] = true
		}
		for _, key := range splitCommas(g.kids[i+2:]) {
			if sy, ok := at(key, 0).(*synth); ok && len(key) == 1 && len(sy.parts) == 4 && sy.parts[0] == "epochdb_nulls(" {
				key = []item{sy.parts[1]} // NULLS FIRST/LAST, rewritten already
			}
			for len(key) > 1 && isWord(key[len(key)-1], "asc", "desc", "first", "last", "nulls") {
				key = key[:len(key)-1]
			}
			if !argTexts[itemsText(key)] {
				t := g.close
				if len(key) > 0 {
					t = firstTok(key[0])
				}
				return nil, pgerr.New(pgerr.InvalidColumnReference,
					"in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list").WithPosition(charPos(p.q, t.pos))
			}
		}
	}
	ordered := false
	switch fn.val {
	case "count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "stddev", "stddev_samp",
		"stddev_pop", "variance", "var_samp", "var_pop", "corr", "covar_pop", "covar_samp", "regr_slope",
		"regr_intercept", "regr_count", "regr_r2", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy",
		"regr_sxy", "bit_and", "bit_or", "bit_xor":
	case "string_agg", "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		ordered = true
	default:
		return nil, p.unsupported(tokOf(g.kids[i]), "ORDER BY in the arguments of %s is not supported", fn.val)
	}
	t := tokOf(g.kids[i])
	if a := tokOf(at(args, 0)); len(args) == 0 || a != nil && a.kind == tkOp && a.val == "*" {
		return nil, p.syntaxError(t) // count(* ORDER BY x), f(ORDER BY x)
	}
	keys, err := p.sortKeys(t, ", epochdb_order(", g.kids[i+2:])
	if err != nil {
		return nil, err
	}
	if ordered {
		return append(args, keys), nil
	}
	// The other aggregates' results do not depend on their input's order,
	// but the keys must still name what exists: they travel inside the
	// argument, epochdb_keyed(argument, epochdb_order(...)), for the
	// planner to check and drop, since TiDB's grammar takes one argument.
	lead := 0
	if isWord(at(args, 0), "distinct", "all") {
		lead = 1
	}
	if lead == len(args) {
		return nil, p.syntaxError(t)
	}
	keyed := &synth{anchor: firstTok(args[lead]), parts: []any{"epochdb_keyed(", args[lead:], keys, ")"}}
	return append(args[:lead:lead], keyed), nil
}

// sortKeys writes the sort keys of an aggregate's ORDER BY or WITHIN GROUP
// as the marker call prefix + "key, 'asc' or 'desc', 'first', 'last' or
// 'default', ...)", which the planner reads as sort keys.
func (p *stmtParser) sortKeys(t *token, prefix string, items []item) (*synth, error) {
	parts := []any{prefix}
	for n, key := range splitCommas(items) {
		dir, nulls := "asc", "default"
		if sy, ok := at(key, 0).(*synth); ok && len(key) == 1 && len(sy.parts) == 4 && sy.parts[0] == "epochdb_nulls(" {
			// The ORDER BY rewrite has been here: epochdb_nulls(key,
			// 'first'), then [ASC|DESC].
			nulls = strings.Trim(sy.parts[2].(string), ", ')")
			if run, _ := sy.parts[3].([]item); len(run) == 1 && isWord(run[0], "asc", "desc") {
				dir = tokOf(run[0]).val
			}
			key = []item{sy.parts[1]}
		}
		if isWord(at(key, len(key)-2), "nulls") && isWord(at(key, len(key)-1), "first", "last") {
			nulls = tokOf(key[len(key)-1]).val
			key = key[:len(key)-2]
		}
		if isWord(at(key, len(key)-1), "asc", "desc") {
			dir = tokOf(key[len(key)-1]).val
			key = key[:len(key)-1]
		}
		if len(key) == 0 {
			return nil, p.syntaxError(t)
		}
		if n > 0 {
			parts = append(parts, ", ")
		}
		parts = append(parts, key, ", '"+dir+"', '"+nulls+"'")
	}
	return &synth{anchor: t, parts: append(parts, ")")}, nil
}

// columnAliases rewrites the FROM item that ends out, aliased alias with a
// column list, which TiDB lacks, into a derived table whose first column
// names the columns: (SELECT epochdb_columns('a', 'b'), * FROM item AS
// alias) AS alias. The planner drops that column and renames the rest.
func (p *stmtParser) columnAliases(out []item, alias item, cols *group) ([]item, error) {
	start := len(out) - 1
	switch {
	case start < 0:
		return nil, p.syntaxError(tokOf(alias))
	case parenGroup(out[start]) != nil:
	case isName(out[start]):
		for start >= 2 && isPunct(out[start-1], ".") && isName(out[start-2]) {
			start -= 2
		}
	default:
		return nil, p.unsupported(tokOf(alias), "column alias lists are not supported here")
	}
	var names []string
	for _, c := range splitCommas(cols.kids) {
		if len(c) != 1 || !isColID(c[0]) {
			return nil, p.errorAt(c, 0, cols.close)
		}
		names = append(names, quoteString(tokOf(c[0]).val))
	}
	name := quoteIdent(tokOf(alias).val)
	item := append([]item(nil), out[start:]...)
	t := firstTok(out[start])
	wrapped := &synth{anchor: t, space: t.space, parts: []any{
		"(SELECT epochdb_columns(" + strings.Join(names, ", ") + "), * FROM ", item,
		" AS " + name + ") AS " + name}}
	return append(out[:start], wrapped), nil
}

// itemsText is the tokens of items, spaced alike, to compare expressions
// as written.
func itemsText(items []item) string {
	var b strings.Builder
	var walk func(it item)
	walk = func(it item) {
		switch v := it.(type) {
		case *token:
			b.WriteString(v.val + " ")
		case *group:
			b.WriteString(v.open.val + " ")
			for _, k := range v.kids {
				walk(k)
			}
			b.WriteString(v.close.val + " ")
		case *exprNode:
			for _, k := range v.seq[v.lo:v.hi] {
				walk(k)
			}
		default:
			b.WriteString("? ")
		}
	}
	for _, it := range items {
		walk(it)
	}
	return b.String()
}

// isOrderKeys reports whether it is the keys argumentOrder made.
func isOrderKeys(it item) bool {
	sy, ok := it.(*synth)
	return ok && len(sy.parts) > 0 && sy.parts[0] == ", epochdb_order("
}

// frameOffsets rewrites a window frame's offsets that are not plain
// numbers ('1 day'::interval, -1, 2 + 3), which TiDB's grammar takes only
// as INTERVAL expr unit: the planner reads the expression and ignores the
// unit.
func frameOffsets(kids []item) []item {
	out := make([]item, 0, len(kids))
	start := -1 // where the current bound's expression begins in out
	for _, it := range kids {
		switch {
		case isWord(it, "rows", "range", "between", "and"):
			out = append(out, it)
			start = len(out)
			continue
		case start >= 0 && isWord(it, "preceding", "following") && len(out) > start:
			bound := out[start:]
			if t := tokOf(bound[0]); !(len(bound) == 1 && t != nil && t.kind == tkNumber) && !isWord(bound[0], "unbounded") {
				wrapped := &synth{anchor: firstTok(bound[0]), space: true, parts: []any{"INTERVAL ", append([]item(nil), bound...), " MICROSECOND"}}
				out = append(out[:start], wrapped)
			}
		}
		out = append(out, it)
	}
	return out
}

// noTiDBWindow are aggregates TiDB's grammar does not take before OVER:
// those it does not know, and stddev and variance, which it reads as
// MySQL's population aggregates.
var noTiDBWindow = map[string]bool{
	"string_agg": true, "bool_and": true, "bool_or": true, "every": true, "array_agg": true,
	"json_agg": true, "jsonb_agg": true, "json_object_agg": true, "jsonb_object_agg": true,
	"stddev": true, "variance": true, "corr": true, "covar_pop": true, "covar_samp": true,
	"regr_slope": true, "regr_intercept": true, "regr_count": true, "regr_r2": true, "regr_avgx": true,
	"regr_avgy": true, "regr_sxx": true, "regr_syy": true, "regr_sxy": true,
	"percentile_cont": true, "percentile_disc": true, "mode": true,
}

// windowAggs are the aggregates of noTiDBWindow that the planner takes
// over a window: all but the ordered-set ones.
var windowAggs = map[string]bool{
	"string_agg": true, "bool_and": true, "bool_or": true, "every": true, "array_agg": true,
	"json_agg": true, "jsonb_agg": true, "json_object_agg": true, "jsonb_object_agg": true,
	"stddev": true, "variance": true, "corr": true, "covar_pop": true, "covar_samp": true,
	"regr_slope": true, "regr_intercept": true, "regr_count": true, "regr_r2": true, "regr_avgx": true,
	"regr_avgy": true, "regr_sxx": true, "regr_syy": true, "regr_sxy": true,
}

// noTiDBDistinct are aggregates TiDB knows but takes no DISTINCT in.
var noTiDBDistinct = map[string]bool{"bit_and": true, "bit_or": true, "bit_xor": true}

// rewrittenOps maps PostgreSQL operators that TiDB lacks or reads with
// another meaning or precedence to the text around their two operands, and
// the binding strength TiDB needs of each operand there.
var rewrittenOps = map[string]struct {
	prec               int
	pre, mid, post     string
	needLeft, needRght int
}{
	"||":   {precOther, "epochdb_concat_op(", ", ", ")", lvOr, lvOr},
	"&":    {precOther, "(", " & ", ")", lvBitAnd, lvBitAnd + 1},
	"|":    {precOther, "(", " | ", ")", lvBitOr, lvBitOr + 1},
	"<<":   {precOther, "(", " << ", ")", lvShift, lvShift + 1},
	">>":   {precOther, "(", " >> ", ")", lvShift, lvShift + 1},
	"#":    {precOther, "(", " ^ ", ")", lvBitXor, lvBitXor + 1},
	"~":    {precOther, "epochdb_match(", ", ", ")", lvOr, lvOr},
	"~*":   {precOther, "epochdb_match(", ", ", ", 'i')", lvOr, lvOr},
	"!~":   {precOther, "(NOT epochdb_match(", ", ", "))", lvOr, lvOr},
	"!~*":  {precOther, "(NOT epochdb_match(", ", ", ", 'i'))", lvOr, lvOr},
	"~~":   {precOther, "(", " LIKE ", ")", lvPred + 1, lvUnary},
	"!~~":  {precOther, "(", " NOT LIKE ", ")", lvPred + 1, lvUnary},
	"~~*":  {precOther, "(", " ILIKE ", ")", lvPred + 1, lvUnary},
	"!~~*": {precOther, "(", " NOT ILIKE ", ")", lvPred + 1, lvUnary},
	"^":    {precExp, "power(", ", ", ")", lvOr, lvOr},
	// json, jsonb and array operators, which the planner resolves by type.
	"->":  {precOther, "epochdb_arrow(", ", ", ")", lvOr, lvOr},
	"->>": {precOther, "epochdb_arrow_text(", ", ", ")", lvOr, lvOr},
	"#>":  {precOther, "epochdb_path(", ", ", ")", lvOr, lvOr},
	"#>>": {precOther, "epochdb_path_text(", ", ", ")", lvOr, lvOr},
	"#-":  {precOther, "epochdb_delete_path(", ", ", ")", lvOr, lvOr},
	"@>":  {precOther, "epochdb_contains(", ", ", ")", lvOr, lvOr},
	"<@":  {precOther, "epochdb_contained(", ", ", ")", lvOr, lvOr},
	"?":   {precOther, "epochdb_exists(", ", ", ")", lvOr, lvOr},
	"?|":  {precOther, "epochdb_exists_any(", ", ", ")", lvOr, lvOr},
	"?&":  {precOther, "epochdb_exists_all(", ", ", ")", lvOr, lvOr},
	"&&":  {precOther, "epochdb_overlap(", ", ", ")", lvOr, lvOr},
	// inet's containment: << and >> are the shifts above, which the
	// planner resolves by type too.
	"<<=": {precOther, "epochdb_op('<<=', ", ", ", ")", lvOr, lvOr},
	">>=": {precOther, "epochdb_op('>>=', ", ", ", ")", lvOr, lvOr},
	// pg_trgm's, which the planner resolves against the extension's.
	"<%":    {precOther, "epochdb_op('<%', ", ", ", ")", lvOr, lvOr},
	"%>":    {precOther, "epochdb_op('%>', ", ", ", ")", lvOr, lvOr},
	"<<%":   {precOther, "epochdb_op('<<%', ", ", ", ")", lvOr, lvOr},
	"%>>":   {precOther, "epochdb_op('%>>', ", ", ", ")", lvOr, lvOr},
	"<->":   {precOther, "epochdb_op('<->', ", ", ", ")", lvOr, lvOr},
	"<<->":  {precOther, "epochdb_op('<<->', ", ", ", ")", lvOr, lvOr},
	"<->>":  {precOther, "epochdb_op('<->>', ", ", ", ")", lvOr, lvOr},
	"<<<->": {precOther, "epochdb_op('<<<->', ", ", ", ")", lvOr, lvOr},
	"<->>>": {precOther, "epochdb_op('<->>>', ", ", ", ")", lvOr, lvOr},
}

// infix extends left by the operator at e.i if it binds at least as tightly
// as minPrec. It returns nil if there is none.
func (e *exprParser) infix(lo int, left *exprNode, minPrec int) (*exprNode, error) {
	opLo := e.i
	t := tokOf(e.cur())
	if t == nil {
		return nil, nil
	}
	binary := func(prec, level, needL, needR int) (*exprNode, error) {
		e.i++
		right, err := e.parse(prec + 1)
		if err != nil {
			return nil, err
		}
		return e.node(lo, level, t, []any{kid(0), e.seq[opLo : opLo+1], kid(1)}, []*exprNode{left, right}, needL, needR), nil
	}
	switch t.kind {
	case tkOp:
		switch t.val {
		case "+", "-":
			if precAdd < minPrec {
				return nil, nil
			}
			return binary(precAdd, lvAdd, lvAdd, lvAdd+1)
		case "*", "/", "%":
			if precMul < minPrec {
				return nil, nil
			}
			return binary(precMul, lvMul, lvMul, lvMul+1)
		case "=", "<", ">", "<=", ">=", "<>", "!=":
			if precCmp < minPrec {
				return nil, nil
			}
			if left.cmp {
				// The comparison operators do not associate: a < b < c
				// is a syntax error, as in gram.y.
				return nil, e.p.syntaxError(t)
			}
			if isWord(at(e.seq, e.i+1), "any", "all", "some") {
				return e.quantified(lo, left, t)
			}
			n, err := binary(precCmp, lvCmp, lvCmp, lvPred)
			if n != nil {
				n.cmp = true
			}
			return n, err
		case "=>":
			return e.named(lo, left, t)
		}
		op, ok := rewrittenOps[t.val]
		if !ok {
			return nil, e.p.unsupported(t, "operator %s is not supported", t.val)
		}
		if op.prec < minPrec {
			return nil, nil
		}
		e.i++
		return e.rewritten(lo, left, t, op.prec, op.pre, op.mid, op.post, op.needLeft, op.needRght)
	case tkPunct:
		if t.val == ":=" {
			return nil, e.p.unsupported(t, "named function arguments are not supported")
		}
		return nil, nil
	case tkWord:
	default:
		return nil, nil
	}
	switch t.val {
	case "or":
		if precOr < minPrec {
			return nil, nil
		}
		return binary(precOr, lvOr, lvOr, lvOr+1)
	case "and":
		if precAnd < minPrec {
			return nil, nil
		}
		return binary(precAnd, lvAnd, lvAnd, lvAnd+1)
	case "is", "isnull", "notnull":
		if precIs < minPrec {
			return nil, nil
		}
		return e.is(lo, left, t)
	case "not":
		if !isWord(at(e.seq, e.i+1), "between", "in", "like", "ilike", "similar") {
			return nil, nil
		}
		fallthrough
	case "between", "in", "like", "ilike", "similar":
		if precPred < minPrec {
			return nil, nil
		}
		return e.predicate(lo, left)
	case "at":
		switch {
		case wordsAt(e.seq, e.i, "at", "time", "zone"):
			if precAt < minPrec {
				return nil, nil
			}
			return e.atTimeZone(lo, left, t)
		case wordsAt(e.seq, e.i, "at", "local"):
			return nil, e.p.unsupported(t, "AT LOCAL is not supported")
		}
	case "operator":
		return e.operator(lo, left, minPrec)
	case "collate":
		if precCollate < minPrec {
			return nil, nil
		}
		j := e.i + 1
		if isWord(at(e.seq, j), "pg_catalog") && isPunct(at(e.seq, j+1), ".") {
			j += 2
		}
		if d := tokOf(at(e.seq, j)); d == nil || d.val != "default" || d.kind != tkWord && d.kind != tkQIdent {
			return nil, e.p.unsupported(t, "COLLATE is not supported")
		}
		// The default collation changes nothing.
		e.i = j + 1
		n := e.node(lo, left.level, t, []any{kid(0)}, []*exprNode{left}, left.level)
		n.rewritten = true
		return n, nil
	case "overlaps":
		return nil, e.p.unsupported(t, "OVERLAPS is not supported")
	}
	return nil, nil
}

// atTimeZone rewrites x AT TIME ZONE zone to timezone(zone, x). It binds
// tighter than any binary operator and looser than unary minus, and
// repeats left to right: x AT TIME ZONE a AT TIME ZONE b converts twice.
func (e *exprParser) atTimeZone(lo int, left *exprNode, t *token) (*exprNode, error) {
	e.i += 3
	zone, err := e.parse(precAt + 1)
	if err != nil {
		return nil, err
	}
	n := e.node(lo, lvPrimary, t, []any{"timezone(", kid(1), ", ", kid(0), ")"}, []*exprNode{left, zone}, lvOr, lvOr)
	n.rewritten = true
	return n, nil
}

// rewritten finishes a binary operator that is written as pre left mid
// right post.
func (e *exprParser) rewritten(lo int, left *exprNode, t *token, prec int, pre, mid, post string, needL, needR int) (*exprNode, error) {
	right, err := e.parse(prec + 1)
	if err != nil {
		return nil, err
	}
	n := e.node(lo, lvPrimary, t, []any{pre, kid(0), mid, kid(1), post}, []*exprNode{left, right}, needL, needR)
	n.rewritten = true
	return n, nil
}

// named parses a named function argument, name => value, which becomes
// epochdb_named('name', value) for the planner to match by name. It binds
// more loosely than anything, so it only ever stands alone as an argument.
func (e *exprParser) named(lo int, left *exprNode, t *token) (*exprNode, error) {
	name := tokOf(at(e.seq, left.lo))
	if left.hi-left.lo != 1 || left.rewritten || name == nil || name.kind != tkWord {
		return nil, e.p.syntaxError(t)
	}
	e.i++
	value, err := e.parse(precOr)
	if err != nil {
		return nil, err
	}
	if value == nil {
		return nil, e.p.syntaxError(t)
	}
	n := e.node(lo, lvPrimary, t, []any{"epochdb_named(" + quoteString(name.val) + ", ", kid(0), ")"}, []*exprNode{value}, lvOr)
	n.rewritten = true
	return n, nil
}

// operator parses left OPERATOR([schema.]op) right, which psql uses to
// name pg_catalog's operators. It has the precedence of an "other"
// operator whatever op is.
func (e *exprParser) operator(lo int, left *exprNode, minPrec int) (*exprNode, error) {
	g := parenGroup(at(e.seq, e.i+1))
	if g == nil {
		return nil, nil
	}
	op := tokOf(at(g.kids, len(g.kids)-1))
	schema := ""
	switch {
	case op == nil || op.kind != tkOp:
		return nil, e.p.syntaxError(g.open)
	case len(g.kids) == 3 && isWord(g.kids[0], "pg_catalog") && isPunct(g.kids[1], "."), len(g.kids) == 1:
	case len(g.kids) == 3 && isName(g.kids[0]) && isPunct(g.kids[1], ".") && extensionOps[op.val]:
		// An extension's operator in its schema, as ruleutils prints
		// one the search path would not find: the planner resolves it.
		schema = tokOf(g.kids[0]).val
	default:
		return nil, e.p.unsupported(firstTok(g.kids[0]), "OPERATOR(%s) is not supported", e.p.q[g.open.end:g.close.pos])
	}
	if precOther < minPrec {
		return nil, nil
	}
	e.i += 2
	if schema != "" {
		return e.rewritten(lo, left, op, precOther, "epochdb_op("+quoteString(op.val)+", ", ", ", ", "+quoteString(schema)+")", lvOr, lvOr)
	}
	if r, ok := rewrittenOps[op.val]; ok {
		return e.rewritten(lo, left, op, precOther, r.pre, r.mid, r.post, r.needLeft, r.needRght)
	}
	if !tidbSafeOps[op.val] {
		return nil, e.p.unsupported(op, "operator %s is not supported", op.val)
	}
	return e.rewritten(lo, left, op, precOther, "(", " "+op.val+" ", ")", lvPrimary, lvPrimary)
}

// extensionOps are the operators the extensions epochdb has define
// (citext's, pg_trgm's), which OPERATOR(schema.op) may name.
var extensionOps = map[string]bool{
	"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
	"~~": true, "!~~": true, "~~*": true, "!~~*": true, "~": true, "!~": true, "~*": true, "!~*": true,
	"%": true, "<%": true, "%>": true, "<<%": true, "%>>": true,
	"<->": true, "<<->": true, "<->>": true, "<<<->": true, "<->>>": true,
}

// quantified parses "left op ANY|ALL|SOME (subquery)", which TiDB reads,
// and "left op ANY|ALL|SOME (array)", which becomes
// epochdb_any(left, 'op', array) or epochdb_all(left, 'op', array).
func (e *exprParser) quantified(lo int, left *exprNode, op *token) (*exprNode, error) {
	opLo := e.i
	e.i++
	q := tokOf(e.cur())
	g := parenGroup(at(e.seq, e.i+1))
	if g == nil {
		return nil, structuralError{}
	}
	if first := at(g.kids, 0); !isWord(first, "select", "with", "values", "table") && parenGroup(first) == nil {
		e.i += 2
		fn, sym := "epochdb_any(", op.val
		if q.val == "all" {
			fn = "epochdb_all("
		}
		if sym == "!=" {
			sym = "<>"
		}
		n := e.node(lo, lvPrimary, op, []any{fn, kid(0), ", " + quoteString(sym) + ", ", g.kids, ")"}, []*exprNode{left}, lvOr)
		n.rewritten = true
		return n, nil
	}
	e.i += 2
	right := &exprNode{seq: e.seq, lo: opLo + 1, hi: e.i, level: lvPrimary, anchor: q}
	return e.node(lo, lvCmp, op, []any{kid(0), e.seq[opLo : opLo+1], kid(1)}, []*exprNode{left, right}, lvCmp, lvPred), nil
}

// is parses the IS family of postfix operators and ISNULL/NOTNULL.
func (e *exprParser) is(lo int, left *exprNode, t *token) (*exprNode, error) {
	opLo := e.i
	e.i++
	switch t.val {
	case "isnull":
		n := e.node(lo, lvPrimary, t, []any{"(", kid(0), " IS NULL)"}, []*exprNode{left}, lvCmp)
		n.rewritten = true
		return n, nil
	case "notnull":
		n := e.node(lo, lvPrimary, t, []any{"(", kid(0), " IS NOT NULL)"}, []*exprNode{left}, lvCmp)
		n.rewritten = true
		return n, nil
	}
	not := isWord(e.cur(), "not")
	if not {
		e.i++
	}
	w := tokOf(e.cur())
	switch {
	case isWord(w, "null"):
		e.i++
		return e.node(lo, lvCmp, t, []any{kid(0), e.seq[opLo:e.i]}, []*exprNode{left}, lvCmp), nil
	case isWord(w, "true", "false", "unknown"):
		// TiDB takes IS TRUE at its Expression level, looser than comparisons.
		e.i++
		return e.node(lo, lvNot, t, []any{kid(0), e.seq[opLo:e.i]}, []*exprNode{left}, lvCmp), nil
	case isWord(w, "distinct") && isWord(at(e.seq, e.i+1), "from"):
		e.i += 2
		right, err := e.parse(precIs + 1)
		if err != nil {
			return nil, err
		}
		parts := []any{"(NOT (", kid(0), " <=> ", kid(1), "))"}
		if not {
			parts = []any{"(", kid(0), " <=> ", kid(1), ")"}
		}
		n := e.node(lo, lvPrimary, t, parts, []*exprNode{left, right}, lvCmp, lvPred)
		n.rewritten = true
		return n, nil
	case w != nil:
		return nil, e.p.unsupported(w, "IS %s is not supported", upper(e.p.q[w.pos:w.end]))
	}
	return nil, structuralError{}
}

// predicate parses [NOT] BETWEEN, IN, LIKE and ILIKE.
func (e *exprParser) predicate(lo int, left *exprNode) (*exprNode, error) {
	opLo := e.i
	if isWord(e.cur(), "not") {
		e.i++
	}
	op := tokOf(e.cur())
	e.i++
	opItems := e.seq[opLo:e.i]
	switch op.val {
	case "similar":
		return e.similar(lo, left, op, opLo)
	case "in":
		if parenGroup(e.cur()) == nil {
			return nil, structuralError{}
		}
		e.i++
		return e.node(lo, lvPred, op, []any{kid(0), e.seq[opLo:e.i]}, []*exprNode{left}, lvPred+1), nil
	case "between":
		rewritten, symmetric := false, false
		if isWord(e.cur(), "symmetric", "asymmetric") {
			// ASYMMETRIC is the default; TiDB knows neither word.
			rewritten, symmetric = true, isWord(e.cur(), "symmetric")
			e.i++
		}
		low, err := e.parse(precPred + 1)
		if err != nil {
			return nil, err
		}
		if !isWord(e.cur(), "and") {
			return nil, structuralError{}
		}
		and := e.i
		e.i++
		high, err := e.parse(precPred + 1)
		if err != nil {
			return nil, err
		}
		if symmetric {
			// As PostgreSQL expands it: x BETWEEN low AND high, or between
			// high and low.
			not := ""
			if isWord(e.seq[opLo], "not") {
				not = "NOT "
			}
			n := e.node(lo, lvPrimary, op, []any{"(" + not + "((", kid(0), " BETWEEN ", kid(1), " AND ", kid(2),
				") OR (", kid(0), " BETWEEN ", kid(2), " AND ", kid(1), ")))"},
				[]*exprNode{left, low, high}, lvPred+1, lvPred+1, lvPred+1)
			n.rewritten = true
			return n, nil
		}
		n := e.node(lo, lvPred, op, []any{kid(0), opItems, kid(1), e.seq[and : and+1], kid(2)},
			[]*exprNode{left, low, high}, lvPred+1, lvPred+1, lvPred)
		n.rewritten = rewritten
		return n, nil
	}
	pattern, err := e.parse(precPred + 1)
	if err != nil {
		return nil, err
	}
	if !isWord(e.cur(), "escape") {
		return e.node(lo, lvPred, op, []any{kid(0), opItems, kid(1)}, []*exprNode{left, pattern}, lvPred+1, lvUnary), nil
	}
	esc := e.i
	e.i++
	escape, err := e.parse(precPred + 1)
	if err != nil {
		return nil, err
	}
	return e.node(lo, lvPred, op, []any{kid(0), opItems, kid(1), e.seq[esc : esc+1], kid(2)},
		[]*exprNode{left, pattern, escape}, lvPred+1, lvUnary, lvPrimary), nil
}

// similar rewrites [NOT] SIMILAR TO pattern [ESCAPE e] as PostgreSQL
// does, into a regular expression match:
// epochdb_match(left, similar_to_escape(pattern[, e])).
func (e *exprParser) similar(lo int, left *exprNode, op *token, opLo int) (*exprNode, error) {
	if !isWord(e.cur(), "to") {
		return nil, e.p.errorAt(e.seq, e.i)
	}
	e.i++
	pattern, err := e.parse(precPred + 1)
	if err != nil {
		return nil, err
	}
	parts := []any{"epochdb_match(", kid(0), ", similar_to_escape(", kid(1)}
	kids := []*exprNode{left, pattern}
	if isWord(e.cur(), "escape") {
		e.i++
		escape, err := e.parse(precPred + 1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, ", ", kid(2))
		kids = append(kids, escape)
	}
	parts = append(parts, "))")
	if isWord(e.seq[opLo], "not") {
		parts = append(append([]any{"(NOT "}, parts...), ")")
	}
	need := []int{lvOr, lvOr, lvOr}[:len(kids)]
	n := e.node(lo, lvPrimary, op, parts, kids, need...)
	n.rewritten = true
	return n, nil
}

// startsExpr reports whether an expression may start at it.
func startsExpr(it item) bool {
	switch v := it.(type) {
	case *group:
		return true
	case *synth, *exprNode:
		return true
	case *token:
		switch v.kind {
		case tkWord:
			if v.val == "not" || primaryKeywords[v.val] || v.val == "array" {
				return true
			}
			return pgKeywords[v.val] != reserved && !exprOpWords[v.val] && !v.keyword
		case tkPunct:
			return false
		case tkOp:
			return !tidbSafeOps[v.val] || v.val == "-" || v.val == "+" || v.val == "*"
		}
		return true
	}
	return false
}

// exprs rewrites the expressions in seq, and first in every group inside
// it. It also rewrites the clause-level syntax that depends on knowing where
// an expression ends: NULLS FIRST/LAST, LIMIT/OFFSET/FETCH.
func (p *stmtParser) exprs(seq []item) ([]item, error) {
	for i, it := range seq {
		if isWord(at(seq, i-1), "operator") {
			continue // OPERATOR(schema.op) names an operator
		}
		if g, ok := it.(*group); ok && g.open.val == "[" && isWord(at(seq, i-1), "array") {
			for _, kid := range g.kids {
				if inner, ok := kid.(*group); ok && inner.open.val == "[" {
					return nil, p.unsupported(inner.open, "multidimensional arrays are not supported")
				}
			}
		}
		if err := p.exprsInside(it); err != nil {
			return nil, err
		}
	}
	out := make([]item, 0, len(seq))
	inSelect, inFrom := false, false
	for i := 0; i < len(seq); {
		it := seq[i]
		t := tokOf(it)
		switch {
		case isWord(it, "select"):
			inSelect, inFrom = true, false
		case isWord(it, "from") && inSelect && !isWord(at(seq, i-1), "distinct"):
			inFrom = true
		case isWord(it, "update") && !isWord(at(seq, i-1), "for", "key", "do"):
			// UPDATE t, items SET: the dml rewrite moved FROM's items here.
			inSelect, inFrom = false, true
		case isWord(it, "set") && inFrom && !inSelect:
			inFrom = false
		case isWord(it, "using") && isWord(at(seq, 0), "delete") && !inSelect:
			inFrom = true // DELETE FROM t USING items
		case isWord(it, "where", "group", "having", "window", "order", "limit", "offset", "fetch", "for",
			"union", "intersect", "except"):
			inFrom = false
		}
		if wordsAt(seq, i, "group", "by") {
			if err := p.groupingSets(seq, i+2); err != nil {
				return nil, err
			}
		}
		switch {
		case inFrom && tableFuncAt(seq, i):
			items, next, err := p.tableFunc(seq, i)
			if err != nil {
				return nil, err
			}
			out = append(out, items...)
			i = next
			continue
		case isWord(it, "limit", "offset") || wordsAt(seq, i, "fetch", "first") || wordsAt(seq, i, "fetch", "next"):
			items, next, err := p.limit(seq, i)
			if err != nil {
				return nil, err
			}
			out = append(out, items...)
			i = next
			continue
		case inFrom && isWord(it, "as") && isColID(at(seq, i+1)) && parenGroup(at(seq, i+2)) != nil:
			var err error
			if out, err = p.columnAliases(out, seq[i+1], parenGroup(seq[i+2])); err != nil {
				return nil, err
			}
			i += 3
			continue
		case inFrom && len(out) > 0 && isColID(it) && !isWord(it, "as") && parenGroup(at(seq, i+1)) != nil &&
			(parenGroup(out[len(out)-1]) != nil || isName(out[len(out)-1]) && isWord(at(out, len(out)-2), "from", "join") ||
				isName(out[len(out)-1]) && isPunct(at(out, len(out)-2), ",")):
			// The same without AS: (SELECT ...) s(a, b), or t x(a).
			var err error
			if out, err = p.columnAliases(out, it, parenGroup(seq[i+1])); err != nil {
				return nil, err
			}
			i += 2
			continue
		case wordsAt(seq, i, "distinct", "on"):
			// DISTINCT ON (a, b) becomes a first select-list item,
			// epochdb_distinct_on(a, b), which the planner takes off.
			g := parenGroup(at(seq, i+2))
			switch {
			case g == nil:
				return nil, p.errorAt(seq, i+2)
			case len(g.kids) == 0:
				return nil, p.syntaxError(g.close)
			}
			out = append(out, &synth{anchor: t, space: t.space, parts: []any{"epochdb_distinct_on(", g.kids, "),"}})
			i += 3
			continue
		case wordsAt(seq, i, "natural", "full"):
			// NATURAL FULL JOIN t: STRAIGHT_JOIN, as below, with a USING
			// list of one made-up column that the planner reads as NATURAL.
			j := i + 2
			if isWord(at(seq, j), "outer") {
				j++
			}
			if !isWord(at(seq, j), "join") {
				return nil, p.errorAt(seq, j)
			}
			end := j + 1
			for end < len(seq) && !isWord(seq[end], "on", "using", "where", "group", "having", "window", "order", "limit",
				"offset", "fetch", "for", "union", "intersect", "except", "join", "inner", "left", "right", "full", "cross",
				"natural") && !isPunct(seq[end], ",") {
				end++
			}
			right, err := p.rewrite(seq[j+1 : end])
			if err != nil {
				return nil, err
			}
			out = append(out, &synth{anchor: t, space: t.space, parts: []any{"STRAIGHT_JOIN ", right, " USING (" + NaturalFullMarker + ")"}})
			i = end
			continue
		case isWord(it, "exclude") && (isWord(at(seq, i-1), "preceding", "following") ||
			isWord(at(seq, i-1), "row") && isWord(at(seq, i-2), "current")):
			// A window frame's exclusion, which TiDB lacks.
			switch {
			case wordsAt(seq, i+1, "no", "others"):
				// The default: nothing is excluded.
				i += 3
				continue
			case wordsAt(seq, i+1, "current", "row"):
				return nil, p.unsupported(t, "EXCLUDE CURRENT ROW is not supported")
			case isWord(at(seq, i+1), "group", "ties"):
				return nil, p.unsupported(t, "EXCLUDE %s is not supported", upper(tokOf(seq[i+1]).val))
			}
		case wordsAt(seq, i, "natural", "inner"):
			// TiDB has no NATURAL INNER JOIN; INNER is the default.
			out = append(out, it)
			i += 2
			continue
		case isWord(it, "full") && isWord(at(seq, i+1), "join", "outer"):
			// TiDB has no FULL JOIN (it would read FULL as a table alias);
			// its STRAIGHT_JOIN, which PostgreSQL has not, stands in for it.
			j := i + 1
			if isWord(at(seq, j), "outer") {
				j++
			}
			if !isWord(at(seq, j), "join") {
				return nil, p.errorAt(seq, j)
			}
			out = append(out, &synth{anchor: t, space: t.space, parts: []any{"STRAIGHT_JOIN"}})
			i = j + 1
			continue
		case wordsAt(seq, i, "for", "no", "key", "update"):
			// The stronger lock gives the same results; it only blocks more.
			out = append(out, &synth{anchor: t, space: t.space, parts: []any{"FOR UPDATE"}})
			i += 4
			continue
		case wordsAt(seq, i, "for", "key", "share"):
			out = append(out, &synth{anchor: t, space: t.space, parts: []any{"FOR SHARE"}})
			i += 3
			continue
		case isWord(it, "values") && (i == 0 || isWord(seq[i-1], "union", "intersect", "except", "all", "distinct")):
			// A VALUES list as a query is a table value constructor in TiDB.
			out = append(out, it)
			i++
			for g := parenGroup(at(seq, i)); g != nil; g = parenGroup(at(seq, i)) {
				out = append(out, &synth{anchor: g.open, space: g.open.space, parts: []any{"ROW", g}})
				i++
				if !isPunct(at(seq, i), ",") {
					break
				}
				out = append(out, seq[i])
				i++
			}
			continue
		case startsExpr(it):
			e := &exprParser{p: p, seq: seq, i: i}
			n, err := e.parse(0)
			if errors.As(err, new(structuralError)) {
				out = append(out, it)
				i++
				continue
			}
			if err != nil {
				return nil, err
			}
			j := e.i
			k := j
			if isWord(at(seq, k), "asc", "desc") {
				k++
			}
			if isWord(at(seq, k), "using") && tokOf(at(seq, k+1)) != nil && tokOf(at(seq, k+1)).kind == tkOp {
				return nil, p.unsupported(tokOf(seq[k]), "ORDER BY ... USING is not supported")
			}
			if isWord(at(seq, k), "nulls") && isWord(at(seq, k+1), "first", "last") {
				// TiDB has no NULLS FIRST/LAST; the planner sorts by epochdb_nulls.
				which := tokOf(seq[k+1]).val
				out = append(out, &synth{anchor: tokOf(seq[k]), space: leadingSpace(it),
					parts: []any{"epochdb_nulls(", n, ", '" + which + "')", seq[j:k]}})
				i = k + 2
				continue
			}
			if n.dirty() {
				out = append(out, n)
			} else {
				out = append(out, seq[i:j]...)
			}
			i = j
			continue
		}
		out = append(out, it)
		i++
	}
	return out, nil
}

// groupingSets refuses the grouping sets in a GROUP BY list starting at
// seq[i]: ROLLUP, CUBE, GROUPING SETS and the empty set (), which TiDB
// cannot parse and epochdb does not implement.
func (p *stmtParser) groupingSets(seq []item, i int) error {
	if isWord(at(seq, i), "distinct", "all") {
		i++
	}
	end := i
	for end < len(seq) && !isWord(seq[end], "having", "window", "order", "limit", "offset", "fetch", "for",
		"union", "intersect", "except") {
		end++
	}
	for _, key := range splitCommas(seq[i:end]) {
		first := tokOf(at(key, 0))
		switch {
		case isWord(first, "rollup", "cube") && len(key) == 2 && parenGroup(key[1]) != nil:
			return p.unsupported(first, "%s is not supported", upper(first.val))
		case wordsAt(key, 0, "grouping", "sets") && parenGroup(at(key, 2)) != nil:
			return p.unsupported(first, "GROUPING SETS is not supported")
		case len(key) == 1 && parenGroup(key[0]) != nil && len(parenGroup(key[0]).kids) == 0:
			return p.unsupported(parenGroup(key[0]).open, "empty grouping sets are not supported")
		}
	}
	return nil
}

// tableFuncAt reports whether a function call starts a FROM item at seq[i].
func tableFuncAt(seq []item, i int) bool {
	if i == 0 || !(isWord(seq[i-1], "from", "join", "lateral") || isPunct(seq[i-1], ",")) {
		return false
	}
	if rowsFromAt(seq, i) {
		return true
	}
	j := skipNameAt(seq, i)
	return j > 0 && tokOf(seq[j-1]).call && parenGroup(at(seq, j)) != nil
}

// rowsFromAt reports whether ROWS FROM (...) starts at seq[i].
func rowsFromAt(seq []item, i int) bool {
	return isWord(at(seq, i), "rows") && isWord(at(seq, i+1), "from") && parenGroup(at(seq, i+2)) != nil
}

// tableFunc rewrites a function call in FROM, which TiDB cannot parse, into
// the derived table (SELECT epochdb_table(call)) AS alias. The planner reads
// that as the rows the call returns; the alias defaults to the function's
// name, as in PostgreSQL. WITH ORDINALITY makes the marker
// epochdb_table_ordinality.
//
// ROWS FROM (f(...), g(...)) is the call epochdb_rows_from(f(...), g(...)),
// named after its first function.
func (p *stmtParser) tableFunc(seq []item, i int) ([]item, int, error) {
	var name *token
	var call any
	j := 0
	if rowsFromAt(seq, i) {
		g := seq[i+2].(*group)
		if len(g.kids) == 0 {
			return nil, 0, p.syntaxError(g.close)
		}
		for _, kid := range g.kids {
			if isWord(kid, "as") {
				return nil, 0, p.unsupported(tokOf(kid), "column definition lists in ROWS FROM are not supported")
			}
		}
		name = firstTok(g.kids[0])
		call = &synth{anchor: tokOf(seq[i]), parts: []any{"epochdb_rows_from(", g.kids, ")"}}
		j = i + 3
	} else {
		j = skipNameAt(seq, i) + 1
		name = tokOf(seq[j-2])
		call = seq[i:j]
	}
	parts := []any{"(SELECT epochdb_table(", call, "))"}
	if wordsAt(seq, j, "with", "ordinality") {
		parts[0] = "(SELECT epochdb_table_ordinality("
		j += 2
	}
	switch {
	case isWord(at(seq, j), "as") && isColID(at(seq, j+1)):
		parts = append(parts, seq[j:j+2])
		j += 2
	case isColID(at(seq, j)):
		parts = append(parts, seq[j:j+1])
		j++
	default:
		parts = append(parts, " AS "+quoteIdent(name.val))
	}
	// Column aliases, AS s(a, b), follow the call as strings:
	// epochdb_table(f(...), 'a', 'b').
	if g := parenGroup(at(seq, j)); g != nil {
		var names string
		for k, kid := range g.kids {
			if k%2 == 1 && !isPunct(kid, ",") || k%2 == 0 && !isColID(kid) {
				return nil, 0, p.syntaxError(firstTok(kid))
			}
			if k%2 == 0 {
				names += ", " + quoteString(tokOf(kid).val)
			}
		}
		if names == "" || len(g.kids)%2 == 0 {
			return nil, 0, p.syntaxError(g.close)
		}
		parts = append(parts[:2], names, "))", parts[3])
		j++
	}
	return []item{&synth{anchor: tokOf(seq[i]), space: leadingSpace(seq[i]), parts: parts}}, j, nil
}

// isColID reports whether it can be an alias (gram.y's ColId).
func isColID(it item) bool {
	t := tokOf(it)
	if t == nil {
		return false
	}
	c := pgKeywords[t.val]
	return t.kind == tkQIdent || t.kind == tkWord && (c == notKeyword || c == unreserved || c == colName)
}

// exprsInside rewrites the groups and synthesized runs inside it.
func (p *stmtParser) exprsInside(it item) error {
	var err error
	switch v := it.(type) {
	case *group:
		v.kids, err = p.exprs(v.kids)
	case *synth:
		for i, part := range v.parts {
			if err != nil {
				break
			}
			if run, ok := part.([]item); ok {
				v.parts[i], err = p.exprs(run)
			} else {
				err = p.exprsInside(part)
			}
		}
	}
	return err
}

// limit rewrites a run of LIMIT, OFFSET and FETCH FIRST clauses, in any
// order, into the LIMIT count OFFSET start that TiDB reads.
func (p *stmtParser) limit(seq []item, i int) ([]item, int, error) {
	var limitTok, offsetTok, fetchTok *token
	var count, offset []item
	for {
		t := tokOf(at(seq, i))
		switch {
		case isWord(t, "limit"):
			if limitTok != nil || fetchTok != nil {
				return nil, 0, p.syntaxMsg(t, "multiple LIMIT clauses not allowed")
			}
			limitTok = t
			i++
			if isWord(at(seq, i), "all") {
				// LIMIT ALL is no limit: there is nothing to write.
				i++
				continue
			}
			var err error
			if count, i, err = p.expr(seq, i, 0); err != nil {
				return nil, 0, err
			}
			if isPunct(at(seq, i), ",") {
				e := p.syntaxMsg(t, "LIMIT #,# syntax is not supported")
				e.Hint = "Use separate LIMIT and OFFSET clauses."
				return nil, 0, e
			}
		case isWord(t, "offset"):
			if offsetTok != nil {
				return nil, 0, p.syntaxMsg(t, "multiple OFFSET clauses not allowed")
			}
			offsetTok = t
			var err error
			if offset, i, err = p.expr(seq, i+1, 0); err != nil {
				return nil, 0, err
			}
			if isWord(at(seq, i), "row", "rows") {
				i++
			}
		case isWord(t, "fetch") && isWord(at(seq, i+1), "first", "next"):
			if limitTok != nil || fetchTok != nil {
				return nil, 0, p.syntaxMsg(t, "multiple LIMIT clauses not allowed")
			}
			fetchTok = t
			i += 2
			if isWord(at(seq, i), "row", "rows") {
				count = []item{&token{kind: tkNumber, pos: t.pos, end: t.end, val: "1", space: true}}
			} else {
				var err error
				if count, i, err = p.expr(seq, i, precUnary+1); err != nil {
					return nil, 0, err
				}
			}
			if !isWord(at(seq, i), "row", "rows") {
				return nil, 0, p.errorAt(seq, i)
			}
			i++
			switch {
			case isWord(at(seq, i), "only"):
				i++
			case wordsAt(seq, i, "with", "ties"):
				return nil, 0, p.unsupported(t, "FETCH FIRST ... WITH TIES is not supported")
			default:
				return nil, 0, p.errorAt(seq, i)
			}
		default:
			var out []item
			switch {
			case count != nil:
				if limitTok != nil {
					out = append(out, limitTok)
				} else {
					out = append(out, &synth{anchor: fetchTok, space: fetchTok.space, parts: []any{"LIMIT"}})
				}
				out = append(out, hoistCount(count)...)
			case offsetTok != nil:
				// OFFSET alone: TiDB needs a count, and this one is no limit.
				out = append(out, &synth{anchor: offsetTok, space: offsetTok.space, parts: []any{"LIMIT 18446744073709551615"}})
			}
			if offsetTok != nil {
				out = append(out, offsetTok)
				out = append(out, hoistCount(offset)...)
			}
			return out, i, nil
		}
	}
}

// hoistCount returns LIMIT's or OFFSET's expression as TiDB can read it:
// TiDB's grammar takes only a number or a parameter there, PostgreSQL's any
// expression that reads no column ('3', $1::int, 2 * 5, (SELECT n FROM t)).
func hoistCount(expr []item) []item {
	if len(expr) == 1 {
		if t := tokOf(expr[0]); t != nil && (t.kind == tkNumber && strings.IndexFunc(t.val, func(c rune) bool { return c < '0' || c > '9' }) < 0 || t.kind == tkParam) {
			return expr
		}
	}
	return []item{&hoisted{expr: expr}}
}

// expr parses one expression at seq[i:] and returns its items as they are
// to be written.
func (p *stmtParser) expr(seq []item, i, minPrec int) ([]item, int, error) {
	e := &exprParser{p: p, seq: seq, i: i}
	n, err := e.parse(minPrec)
	if errors.As(err, new(structuralError)) {
		return nil, 0, p.errorAt(seq, e.i)
	}
	if err != nil {
		return nil, 0, err
	}
	if n.dirty() {
		return []item{n}, e.i, nil
	}
	return seq[i:e.i], e.i, nil
}
