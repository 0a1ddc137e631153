package parser

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/epochdb/epochdb/sql/pgerr"
	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// ExplainOptions are the options of EXPLAIN (ANALYZE, COSTS, TIMING,
// SUMMARY, FORMAT), with PostgreSQL's defaults: COSTS and TIMING on,
// SUMMARY on with ANALYZE.
type ExplainOptions struct {
	Analyze, Costs, Timing bool
	Summary                *bool // unset: on with ANALYZE
	Format                 string
}

// Statement is one parsed statement of a query.
type Statement struct {
	// SQL is the statement's original text, trimmed, without the ';'.
	SQL string
	// Explain holds an EXPLAIN's options; nil for other statements.
	Explain *ExplainOptions
	// Pos is the byte offset of SQL within the query.
	Pos int
	// NumParams is the highest $n the statement references, or 0.
	NumParams int
	// ParamOrder[i] is the 0-based parameter index ($n-1) of the i-th '?'
	// marker: ast.ParamMarkerExpr.Order == i. The markers of With come
	// first, then those of AST, then those of OnConflict, then those of
	// Returning, each in text order.
	ParamOrder []int
	// AST is set for statements TiDB parses.
	AST ast.StmtNode
	// Cmd is set instead of AST for the statements this package parses
	// itself: *Begin, *Commit, *Copy and the other command types.
	Cmd any
	// Returning is the RETURNING list of INSERT, UPDATE or DELETE.
	Returning *ast.FieldList
	// OnConflict is the ON CONFLICT clause of INSERT.
	OnConflict *OnConflict
	// Options are CREATE TABLE's WITH (name = value) storage options.
	Options []Option
	// Temp is CREATE TEMPORARY TABLE's, SEQUENCE's or VIEW's TEMPORARY
	// (or TEMP).
	Temp bool
	// OnCommit is CREATE TABLE's ON COMMIT clause.
	OnCommit OnCommit
	// ColumnTypes are the PostgreSQL types of CREATE TABLE's column
	// definitions, or of ALTER TABLE's added columns, in order, normalized
	// to lower case and single spaces ("varchar(10)", "bigserial",
	// "timestamp with time zone"). TiDB sees each as TEXT.
	ColumnTypes []string
	// DeferrableFKs are the statement's DEFERRABLE foreign keys, which
	// TiDB's grammar cannot say, by their columns and referenced table.
	DeferrableFKs []DeferrableFK
	// IdentityColumns are the options of the statement's identity columns
	// that have any.
	IdentityColumns []IdentityColumn
	// Cascade is DROP's CASCADE, or TRUNCATE's.
	Cascade bool
	// OwnedBy is CREATE SEQUENCE's OWNED BY, its Name unset.
	OwnedBy *SequenceOwnedBy
	// InsertAlias is INSERT INTO table AS alias's alias, or "".
	InsertAlias string
	// Overriding is INSERT's OVERRIDING { SYSTEM | USER } VALUE, or "".
	Overriding Overriding
	// IndexNameParts, for a CREATE INDEX that names no index, are the
	// parts PostgreSQL's ChooseRelationName builds its name from (table,
	// columns, "idx"); the AST has the first choice, which the SQL layer
	// numbers (t_a_idx1, ...) while a relation has that name.
	IndexNameParts []string
	// IndexPredicate is a partial index's WHERE clause, as the select list
	// of a SELECT: CREATE INDEX ... WHERE pred reads as SELECT pred.
	IndexPredicate *Statement
	// With is INSERT's leading WITH clause, which TiDB's INSERT cannot
	// have; the other statements' ASTs hold theirs.
	With *ast.WithClause
	// WithDML are the data-modifying statements (INSERT, UPDATE, DELETE)
	// of the statement's own WITH clause, in order. TiDB sees the body of
	// the i-th as SELECT epochdb_dml_cte(i) (see DMLIndex). Each has its
	// own ParamOrder.
	WithDML []*Statement

	// tidbSQL is the text given to TiDB: the statement, then ON CONFLICT's
	// UPDATE, then RETURNING's SELECT. Tests print it.
	tidbSQL []string
}

// DeferrableFK is a foreign key declared DEFERRABLE: the columns of the
// FOREIGN KEY (or the one column of a REFERENCES), as written, and the
// table it references.
type DeferrableFK struct {
	Columns           []string
	Table             string
	InitiallyDeferred bool
}

// Option is one CREATE TABLE storage option.
type Option struct{ Name, Value string }

// OnConflict is INSERT's ON CONFLICT clause.
type OnConflict struct {
	// Columns are the conflict target's columns. An expression in the
	// target, ((lower(email))) or lower(email), is in Exprs at the same
	// place, its column ""; Exprs is nil if there is none, and may be
	// shorter than Columns.
	Columns   []string
	Exprs     []ast.ExprNode
	DoNothing bool
	Set       []*ast.Assignment // DO UPDATE SET
	Where     ast.ExprNode      // DO UPDATE ... WHERE, or nil
}

// Parse splits query into statements at the semicolons outside strings,
// comments and parentheses, and parses each. A query with no statements
// yields none. Errors are *pgerr.Error; like PostgreSQL, a syntax error in
// any statement fails the whole query.
func Parse(query string) ([]*Statement, error) {
	if st, ok := fastInsert(query); ok {
		return []*Statement{st}, nil
	}
	return parse(query)
}

// parse is Parse without the fast path.
func parse(query string) ([]*Statement, error) {
	toks, err := lex(query)
	if err != nil {
		return nil, err
	}
	var stmts []*Statement
	// atomic counts the BEGIN ATOMIC ... END body being read and the CASE
	// ... END inside it: a routine's SQL-standard body holds semicolons.
	depth, start, atomic := 0, 0, 0
	for i := 0; i <= len(toks); i++ {
		var semi *token
		if i < len(toks) {
			t := &toks[i]
			if t.kind == tkWord {
				switch {
				case t.val == "atomic" && i > start && isWord(&toks[i-1], "begin") && isWord(&toks[start], "create"):
					atomic++
				case atomic > 0 && t.val == "case":
					atomic++
				case atomic > 0 && t.val == "end":
					atomic--
				}
				continue
			}
			if t.kind != tkPunct || atomic > 0 {
				continue
			}
			switch t.val {
			case "(", "[":
				depth++
				continue
			case ")", "]":
				depth = max(depth-1, 0)
				continue
			case ";":
				if depth > 0 {
					continue
				}
				semi = t
			default:
				continue
			}
		}
		if i > start {
			p := &stmtParser{q: query, toks: toks[start:i], after: semi}
			if err := p.parse(); err != nil {
				return nil, err
			}
			stmts = append(stmts, p.st)
		}
		start = i + 1
	}
	return stmts, nil
}

// stmtParser parses one statement.
type stmtParser struct {
	q     string
	toks  []token
	after *token // the ';' that ends the statement, or nil at the end of the query
	st    *Statement
	// nested says the statement is part of another: a data-modifying
	// WITH query's, which may not have data-modifying WITH queries of its
	// own.
	nested bool
}

func (p *stmtParser) parse() error {
	first, last := p.toks[0], p.toks[len(p.toks)-1]
	p.st = &Statement{SQL: p.q[first.pos:last.end], Pos: first.pos}
	for _, t := range p.toks {
		if t.kind == tkParam {
			p.st.NumParams = max(p.st.NumParams, t.num)
		}
	}
	if first.kind == tkPunct && first.val == "(" {
		return p.query()
	}
	if first.kind != tkWord {
		return p.syntaxError(&p.toks[0])
	}
	switch first.val {
	case "select", "with", "values", "table":
		return p.query()
	case "insert", "update", "delete":
		return p.dml()
	case "create":
		return p.create()
	case "drop":
		return p.drop()
	case "alter":
		return p.alter()
	case "explain":
		return p.explain()
	}
	if parse := command(first.val); parse != nil {
		c := &cursor{p: p, toks: p.toks, i: 1}
		cmd, err := parse(c)
		if err != nil {
			return err
		}
		p.st.Cmd = cmd
		return nil
	}
	if unsupportedStatements[first.val] {
		return p.unsupported(&p.toks[0], "%s is not supported", upper(first.val))
	}
	return p.syntaxError(&p.toks[0])
}

// unsupportedStatements are PostgreSQL statements epochdb does not run.
var unsupportedStatements = map[string]bool{
	"grant": true, "revoke": true,
	"reindex": true, "cluster": true, "refresh": true, "import": true, "load": true,
	"security": true, "reassign": true, "merge": true,
}

// query parses SELECT, VALUES, TABLE and WITH ... SELECT.
func (p *stmtParser) query() error {
	seq, err := p.buildTree(p.toks)
	if err != nil {
		return err
	}
	seq, main, err := p.with(seq)
	if err != nil {
		return err
	}
	if err := p.noNestedDML(seq); err != nil {
		return err
	}
	if main < len(seq) && isWord(seq[main], "insert", "update", "delete") {
		return p.dmlTree(seq, main)
	}
	items, err := p.queryItems(seq, main)
	if err != nil {
		return err
	}
	return p.finish(items, isQuery)
}

// queryItems rewrites a query whose main SELECT starts at seq[main].
func (p *stmtParser) queryItems(seq []item, main int) ([]item, error) {
	if main < len(seq) && !isWord(seq[main], "select", "values", "table") && parenGroup(seq[main]) == nil {
		return nil, p.errorAt(seq, main)
	}
	for _, it := range seq[main:] {
		if isWord(it, "into") {
			return nil, p.unsupported(tokOf(it), "SELECT INTO is not supported")
		}
	}
	return p.rewrite(seq)
}

// with strips what TiDB does not know from a leading WITH clause and
// returns the index of the statement it prefixes.
func (p *stmtParser) with(seq []item) ([]item, int, error) {
	if !isWord(at(seq, 0), "with") {
		return seq, 0, nil
	}
	out := []item{seq[0]}
	i := 1
	if isWord(at(seq, i), "recursive") {
		out = append(out, seq[i])
		i++
	}
	for {
		if !isName(at(seq, i)) {
			return nil, 0, p.errorAt(seq, i)
		}
		out = append(out, seq[i])
		i++
		if parenGroup(at(seq, i)) != nil {
			out = append(out, seq[i])
			i++
		}
		if !isWord(at(seq, i), "as") {
			return nil, 0, p.errorAt(seq, i)
		}
		out = append(out, seq[i])
		i++
		// [NOT] MATERIALIZED only advises the planner.
		switch {
		case wordsAt(seq, i, "not", "materialized"):
			i += 2
		case isWord(at(seq, i), "materialized"):
			i++
		}
		g := parenGroup(at(seq, i))
		if g == nil {
			return nil, 0, p.errorAt(seq, i)
		}
		if p.dmlBody(g.kids) {
			body, err := p.withDML(g, &out)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, body)
		} else {
			out = append(out, g)
		}
		i++
		if isWord(at(seq, i), "search", "cycle") {
			return nil, 0, p.unsupported(tokOf(seq[i]), "%s in WITH is not supported", upper(tokOf(seq[i]).val))
		}
		if !isPunct(at(seq, i), ",") {
			break
		}
		out = append(out, seq[i])
		i++
	}
	main := len(out)
	return append(out, seq[i:]...), main, nil
}

// dmlBody reports whether the body of a WITH query, or any parenthesized
// query, is an INSERT, UPDATE or DELETE, with a WITH clause of its own or
// without.
func (p *stmtParser) dmlBody(kids []item) bool {
	if isWord(at(kids, 0), "with") {
		scan := &stmtParser{q: p.q, toks: p.toks, nested: true, st: &Statement{}}
		if _, main, err := scan.with(kids); err == nil {
			return isWord(at(kids, main), "insert", "update", "delete")
		}
		return false
	}
	return isWord(at(kids, 0), "insert", "update", "delete")
}

// withDML parses the data-modifying statement of a top-level WITH query,
// whose name and AS end out, into WithDML, and returns the body TiDB is
// given instead: SELECT epochdb_dml_cte(i). PostgreSQL allows such a WITH
// query only in the WITH clause of the statement itself.
func (p *stmtParser) withDML(g *group, out *[]item) (item, error) {
	name := tokOf((*out)[len(*out)-2])
	if p.nested {
		return nil, p.unsupported(name, "WITH clause containing a data-modifying statement must be at the top level")
	}
	lo, hi := tokenIndex(p.toks, g.open)+1, tokenIndex(p.toks, g.close)
	sub := &stmtParser{q: p.q, toks: p.toks[lo:hi], nested: true}
	first, last := sub.toks[0], sub.toks[len(sub.toks)-1]
	sub.st = &Statement{SQL: p.q[first.pos:last.end], Pos: first.pos}
	seq, main, err := sub.with(g.kids)
	if err != nil {
		return nil, err
	}
	if err := sub.noNestedDML(seq); err != nil {
		return nil, err
	}
	if err := sub.dmlTree(seq, main); err != nil {
		return nil, err
	}
	p.st.WithDML = append(p.st.WithDML, sub.st)
	return &synth{anchor: g.open, space: g.open.space,
		parts: []any{fmt.Sprintf("(SELECT %s(%d))", DMLMarker, len(p.st.WithDML)-1)}}, nil
}

// noNestedDML fails on a data-modifying WITH query anywhere in seq: in a
// subquery, or a WITH query's own WITH clause. The statement's own WITH
// clause has had its data-modifying queries taken out.
func (p *stmtParser) noNestedDML(seq []item) error {
	for i, it := range seq {
		g, ok := it.(*group)
		if !ok {
			continue
		}
		if g.paren() && isWord(at(seq, i-1), "as", "materialized") && p.dmlBody(g.kids) {
			name := tokOf(at(seq, i-1))
			for j := i - 1; j >= 0 && isWord(seq[j], "as", "not", "materialized"); j-- {
				name = tokOf(at(seq, j-1))
			}
			if name == nil {
				name = g.open
			}
			return p.unsupported(name, "WITH clause containing a data-modifying statement must be at the top level")
		}
		if err := p.noNestedDML(g.kids); err != nil {
			return err
		}
	}
	return nil
}

// tokenIndex returns the index of t in toks.
func tokenIndex(toks []token, t *token) int {
	for i := range toks {
		if &toks[i] == t {
			return i
		}
	}
	return -1
}

// DMLMarker names the function whose call, SELECT epochdb_dml_cte(i), is
// the body TiDB sees of the statement's i-th data-modifying WITH query
// (Statement.WithDML[i]).
const DMLMarker = "epochdb_dml_cte"

// DMLIndex returns i if n is the body SELECT epochdb_dml_cte(i).
func DMLIndex(n ast.Node) (int, bool) {
	sel, ok := n.(*ast.SelectStmt)
	if !ok || sel.From != nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return 0, false
	}
	call, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !ok || call.FnName.L != DMLMarker || len(call.Args) != 1 {
		return 0, false
	}
	v, ok := call.Args[0].(*driver.ValueExpr)
	if !ok {
		return 0, false
	}
	i, ok := v.GetValue().(int64)
	return int(i), ok
}

// The kinds of AST a statement may produce; TiDB parsing a PostgreSQL
// statement into anything else would be a mis-parse.
type stmtKind func(ast.StmtNode) bool

func isQuery(n ast.StmtNode) bool {
	switch n.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		return true
	}
	return false
}

// finish gives the rewritten statement to TiDB and records the result.
func (p *stmtParser) finish(items []item, kind stmtKind) error {
	n, err := p.tidb(items, kind)
	if err != nil {
		return err
	}
	p.st.AST = n
	return nil
}

// tidbPool holds TiDB parsers, which are not safe for concurrent use.
var tidbPool = sync.Pool{New: func() any {
	tp := tidb.New()
	tp.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	return tp
}}

// tidb writes items as SQL, parses it with TiDB and numbers its parameter
// markers, appending them to ParamOrder.
func (p *stmtParser) tidb(items []item, kind stmtKind) (ast.StmtNode, error) {
	w := &writer{p: p}
	w.emitAll(items)
	if w.err != nil {
		return nil, w.err
	}
	sql := w.b.String()
	p.st.tidbSQL = append(p.st.tidbSQL, sql)
	tp := tidbPool.Get().(*tidb.Parser)
	stmts, _, err := tp.Parse(sql, "", "")
	// Parse returns a slice the parser reuses: read it before the next
	// user of the parser can.
	var stmt ast.StmtNode
	if err == nil && len(stmts) == 1 {
		stmt = stmts[0]
	}
	tidbPool.Put(tp)
	if err != nil {
		return nil, p.tidbError(w, sql, err)
	}
	if stmt == nil || !kind(stmt) {
		return nil, p.syntaxError(&p.toks[0])
	}
	if err := p.orderMarkers(w, stmt, sql); err != nil {
		return nil, err
	}
	return stmt, nil
}

// orderMarkers numbers the '?' markers of n, which w wrote, appending their
// parameters to ParamOrder, and puts each hoisted expression w wrote as a
// marker in its place.
func (p *stmtParser) orderMarkers(w *writer, n ast.Node, sql string) error {
	var v markerVisitor
	n.Accept(&v)
	if len(v.markers) != len(w.params) {
		return pgerr.New(pgerr.InternalError, "parameter markers lost in %q", sql)
	}
	slices.SortFunc(v.markers, func(a, b *driver.ParamMarkerExpr) int { return a.Offset - b.Offset })
	var holes []*driver.ParamMarkerExpr
	for i, m := range v.markers {
		if w.params[i] == hoistedParam {
			holes = append(holes, m)
			continue
		}
		m.SetOrder(len(p.st.ParamOrder))
		p.st.ParamOrder = append(p.st.ParamOrder, w.params[i])
	}
	if len(holes) == 0 {
		return nil
	}
	fill := fillVisitor{with: make(map[*driver.ParamMarkerExpr]ast.ExprNode, len(holes))}
	for k, m := range holes {
		e, err := p.tidbExpr(w.hoisted[k].expr)
		if err != nil {
			return err
		}
		fill.with[m] = e
	}
	n.Accept(&fill)
	return nil
}

// tidbExpr parses one expression through TiDB, as the only item of a
// select list.
func (p *stmtParser) tidbExpr(items []item) (ast.ExprNode, error) {
	w := &writer{p: p}
	w.text("SELECT", firstTok(items[0]), false)
	w.emitAll(items)
	if w.err != nil {
		return nil, w.err
	}
	sql := w.b.String()
	tp := tidbPool.Get().(*tidb.Parser)
	stmts, _, err := tp.Parse(sql, "", "")
	var sel *ast.SelectStmt
	if err == nil && len(stmts) == 1 {
		sel, _ = stmts[0].(*ast.SelectStmt)
	}
	tidbPool.Put(tp)
	if err != nil {
		return nil, p.tidbError(w, sql, err)
	}
	if sel == nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From != nil {
		return nil, p.syntaxError(firstTok(items[0]))
	}
	if err := p.orderMarkers(w, sel, sql); err != nil {
		return nil, err
	}
	return sel.Fields.Fields[0].Expr, nil
}

// fillVisitor puts expressions in place of the markers that hold their place.
type fillVisitor struct {
	with map[*driver.ParamMarkerExpr]ast.ExprNode
}

func (v *fillVisitor) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (v *fillVisitor) Leave(n ast.Node) (ast.Node, bool) {
	if m, ok := n.(*driver.ParamMarkerExpr); ok {
		if e := v.with[m]; e != nil {
			return e, true
		}
	}
	return n, true
}

// markerVisitor collects the parameter markers of an AST.
type markerVisitor struct{ markers []*driver.ParamMarkerExpr }

func (v *markerVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if m, ok := n.(*driver.ParamMarkerExpr); ok {
		v.markers = append(v.markers, m)
	}
	return n, false
}

func (v *markerVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// tidbSyntax matches TiDB's syntax errors: line L column C near "rest".
var (
	tidbSyntax = regexp.MustCompile(`^line \d+ column \d+ near "`)
	tidbTotal  = regexp.MustCompile(`\(total length (\d+)\)$`)
	tidbCode   = regexp.MustCompile(`^\[[a-z:0-9]+\]`)
)

// tidbError turns a TiDB parse error into a PostgreSQL syntax error that
// points into the original query. TiDB reports the rest of its input from
// the offending token on; its length gives the offset in the rewritten text,
// and the writer's pieces map that back.
func (p *stmtParser) tidbError(w *writer, sql string, err error) error {
	msg := err.Error()
	loc := tidbSyntax.FindStringIndex(msg)
	if loc == nil {
		return pgerr.New(pgerr.SyntaxError, "%s", strings.TrimSpace(tidbCode.ReplaceAllString(msg, "")))
	}
	rest := msg[loc[1]:]
	off := -1
	if m := tidbTotal.FindStringSubmatch(rest); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			off = len(sql) - n
		}
	} else {
		for i := max(0, len(sql)-2048); i <= len(sql); i++ {
			if strings.HasPrefix(rest, sql[i:]+`"`) {
				off = i
				break
			}
		}
	}
	if off < 0 || off >= len(strings.TrimRight(sql, " ")) {
		return p.syntaxErrorAtEnd()
	}
	return p.syntaxError(w.origin(off))
}

// errorAt reports a syntax error at seq[i], or, past the end of seq, at the
// first of the fallbacks or the end of the statement.
func (p *stmtParser) errorAt(seq []item, i int, fallback ...*token) *pgerr.Error {
	if t := firstTok(at(seq, i)); t != nil {
		return p.syntaxError(t)
	}
	if len(fallback) > 0 {
		return p.syntaxError(fallback[0])
	}
	return p.syntaxErrorAtEnd()
}

// syntaxMsg reports a syntax error with a message of its own.
func (p *stmtParser) syntaxMsg(t *token, format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.SyntaxError, format, args...).WithPosition(charPos(p.q, t.pos))
}

// invalidParam reports an option value of the wrong kind.
func (p *stmtParser) invalidParam(t *token, format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.InvalidParameterValue, format, args...).WithPosition(charPos(p.q, t.pos))
}

// parseBool reads a Boolean option value the way PostgreSQL's defGetBoolean
// does.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "on", "1":
		return true, true
	case "false", "off", "0":
		return false, true
	}
	return false, false
}

func upper(s string) string { return strings.ToUpper(s) }

// NaturalFullMarker is the one column of the USING list the parser gives
// NATURAL FULL JOIN, which TiDB cannot say: the planner reads a join
// USING it as NATURAL.
const NaturalFullMarker = "epochdb_natural_full"

// Overriding says what INSERT does with values given for identity
// columns.
type Overriding string

const (
	// OverridingSystem takes them, even for GENERATED ALWAYS columns.
	OverridingSystem Overriding = "system"
	// OverridingUser ignores them, and the columns' sequences fill in.
	OverridingUser Overriding = "user"
)
