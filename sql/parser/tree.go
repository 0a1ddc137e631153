package parser

import (
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// An item is one element of a statement's token tree: a *token, a *group,
// a *synth, or an *exprNode. The rewrite replaces items; the writer turns the
// final tree into the SQL text that TiDB parses.
type item any

// group is a bracketed run of items: ( ), [ ], or CASE ... END. Grouping
// first means that every later step sees a subquery, an argument list or a
// CASE expression as one operand.
type group struct {
	open, close *token
	kids        []item
}

func (g *group) paren() bool  { return g.open.val == "(" }
func (g *group) isCase() bool { return g.open.kind == tkWord }

// synth is text the rewrite made up, such as epochdb_cast(x, 'int4').
// Errors TiDB reports inside it point at anchor.
type synth struct {
	anchor *token
	space  bool  // whether the text it replaces followed whitespace
	parts  []any // string (synthetic text), item, or []item
}

// hoisted is an expression where TiDB's grammar takes only a number or a
// parameter, such as LIMIT's count: the writer leaves a '?' marker in its
// place, and the parser parses the expression alone and puts it there.
type hoisted struct {
	expr []item
}

// hoistedParam is the parameter index the writer records for a hoisted
// expression's marker.
const hoistedParam = -1

// buildTree groups the tokens of one statement by brackets and CASE ... END.
func (p *stmtParser) buildTree(toks []token) ([]item, error) {
	markNames(toks)
	type frame struct {
		g     *group
		items []item
	}
	var stack []frame
	var cur []item
	for i := range toks {
		t := &toks[i]
		switch {
		case t.kind == tkPunct && (t.val == "(" || t.val == "["),
			t.kind == tkWord && t.val == "case" && !t.name:
			if t.val == "(" && len(cur) > 0 {
				if prev, ok := cur[len(cur)-1].(*token); ok && (prev.kind == tkWord || prev.kind == tkQIdent) && !prev.keyword {
					prev.call = true
					c := pgKeywords[prev.val]
					if _, ok := tidbKeywords[prev.val]; ok && prev.kind == tkWord &&
						(c == notKeyword || c == colName && prev.val != "values" || primaryKeywords[prev.val] || prev.val == "left" || prev.val == "right") {
						// TiDB takes a built-in function's name followed by a
						// space for a column name.
						t.space = false
					}
				}
			}
			stack = append(stack, frame{g: &group{open: t}, items: cur})
			cur = nil
		case t.kind == tkPunct && (t.val == ")" || t.val == "]"),
			t.kind == tkWord && t.val == "end" && !t.name:
			want := map[string]string{")": "(", "]": "[", "end": "case"}[t.val]
			if len(stack) == 0 || stack[len(stack)-1].g.open.val != want {
				return nil, p.syntaxError(t)
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			f.g.close = t
			f.g.kids = cur
			cur = append(f.items, f.g)
		default:
			cur = append(cur, t)
		}
	}
	if len(stack) > 0 {
		return nil, p.syntaxErrorAtEnd()
	}
	return cur, nil
}

// markNames finds the PostgreSQL keywords that the statement uses as names
// but that TiDB reserves, such as the column in SELECT key FROM kv. Which
// use a word has follows from its neighbours: key is a keyword only after
// PRIMARY or FOREIGN. A column label after AS may be any word at all.
func markNames(toks []token) {
	at := func(i int) *token {
		if i >= 0 && i < len(toks) {
			return &toks[i]
		}
		return nil
	}
	for i := range toks {
		t := &toks[i]
		if t.kind != tkWord {
			continue
		}
		prev, next, next2 := at(i-1), at(i+1), at(i+2)
		// Some words are keywords by where they stand, even before a
		// parenthesis: ORDER BY (a)::text, AT TIME ZONE (z)::text.
		switch t.val {
		case "by":
			t.keyword = isWord(prev, "group", "order", "partition")
		case "zone":
			t.keyword = isWord(prev, "time") && isWord(at(i-2), "at")
		}
		switch {
		case isPunct(prev, "."):
			// Any word may follow a qualifier: t.end is a column.
			t.name = pgKeywords[t.val] != notKeyword
		case isWord(prev, "as") && !isWord(t, "identity", "materialized", "not") &&
			(!isWord(t, "select", "values", "table", "with") || next == nil || isPunct(next, ",") || isPunct(next, ")") || isWord(next, "from")):
			// A label, unless it starts the query of CREATE TABLE ... AS.
			t.name = true
		case !tidbKeywords[t.val] || pgKeywords[t.val] == reserved || isPunct(next, "("):
		case t.val == "key":
			t.name = !isWord(prev, "primary", "foreign", "no", "for")
		case t.val == "index":
			t.name = !isWord(prev, "create", "unique", "drop")
		case t.val == "range", t.val == "rows", t.val == "groups":
			t.name = !isWord(next, "between", "unbounded", "current") && !isWord(next2, "preceding", "following")
		case t.val == "row":
			t.name = !isWord(prev, "current", "first", "next") && !isWord(next, "only")
		case t.val == "over", t.val == "stored", t.val == "virtual":
			t.name = !isPunct(prev, ")")
		case t.val == "of":
			t.name = !isWord(prev, "update", "share", "current")
		case t.val == "partition":
			t.name = !isWord(next, "by")
		case t.val == "match":
			t.name = !isWord(next, "full", "simple", "partial")
		case t.val == "recursive":
			t.name = !isWord(prev, "with")
		case t.val == "if":
			t.name = !isWord(next, "not", "exists")
		case t.val == "exists":
			t.name = !isWord(prev, "if", "not")
		case t.val == "maxvalue":
			t.name = !isWord(prev, "no") && (next == nil || next.kind != tkNumber && !isOp(next, "-"))
		default:
			t.name = onlyNames[t.val]
		}
	}
}

// onlyNames are words TiDB reserves that PostgreSQL uses as keywords only in
// statements this package parses itself, or as type names it folds away: in
// what reaches TiDB they are names.
var onlyNames = map[string]bool{
	"keys": true, "read": true, "write": true, "database": true, "sql": true, "lock": true,
	"load": true, "cursor": true, "option": true, "until": true, "trigger": true,
	"procedure": true, "force": true, "release": true, "interval": true, "varying": true,
}

// tokOf returns it as a token, or nil.
func tokOf(it item) *token {
	t, _ := it.(*token)
	return t
}

// isWord reports whether it is an unquoted word, one of words if any are given.
func isWord(it item, words ...string) bool {
	t := tokOf(it)
	if t == nil || t.kind != tkWord {
		return false
	}
	if len(words) == 0 {
		return true
	}
	for _, w := range words {
		if t.val == w {
			return true
		}
	}
	return false
}

func isPunct(it item, p string) bool {
	t := tokOf(it)
	return t != nil && t.kind == tkPunct && t.val == p
}

func isOp(it item, op string) bool {
	t := tokOf(it)
	return t != nil && t.kind == tkOp && t.val == op
}

// isName reports whether it can name something: a quoted identifier or a word
// that is not a reserved keyword.
func isName(it item) bool {
	t := tokOf(it)
	return t != nil && (t.kind == tkQIdent || t.kind == tkWord && pgKeywords[t.val] != reserved)
}

func parenGroup(it item) *group {
	g, _ := it.(*group)
	if g != nil && g.paren() {
		return g
	}
	return nil
}

// wordAt reports whether seq[i:] starts with the given words.
func wordsAt(seq []item, i int, words ...string) bool {
	if i+len(words) > len(seq) {
		return false
	}
	for j, w := range words {
		if !isWord(seq[i+j], w) {
			return false
		}
	}
	return true
}

// firstTok returns the first source token of an item, for error positions.
// itemEnd is the offset in the query just past it, a token or a group.
func itemEnd(it item) int {
	switch v := it.(type) {
	case *token:
		return v.end
	case *group:
		return v.close.end
	}
	return firstTok(it).end
}

func firstTok(it item) *token {
	switch v := it.(type) {
	case *token:
		return v
	case *group:
		return v.open
	case *synth:
		return v.anchor
	case *exprNode:
		return firstTok(v.seq[v.lo])
	case *hoisted:
		return firstTok(v.expr[0])
	}
	return nil
}

// leadingSpace reports whether whitespace came before it in the query.
func leadingSpace(it item) bool {
	switch v := it.(type) {
	case *token:
		return v.space
	case *group:
		return v.open.space
	case *synth:
		return v.space
	case *exprNode:
		return leadingSpace(v.seq[v.lo])
	}
	return false
}

// splitCommas splits a run of items at its top-level commas.
func splitCommas(seq []item) [][]item {
	var out [][]item
	start := 0
	for i, it := range seq {
		if isPunct(it, ",") {
			out = append(out, seq[start:i])
			start = i + 1
		}
	}
	return append(out, seq[start:])
}

// writer renders items as TiDB SQL and remembers where each piece of its
// output came from, so that TiDB's error offsets map back to the query.
type writer struct {
	p      *stmtParser
	b      strings.Builder
	pieces []piece
	params []int // 0-based parameter index of each '?' written, in order, or hoistedParam
	// hoisted are the hoisted expressions written, in order.
	hoisted []*hoisted
	err     error
	str     bool // the last thing written was a string constant
}

type piece struct {
	out int    // offset in the output
	tok *token // where it came from
}

func (w *writer) emit(it item) {
	switch v := it.(type) {
	case *token:
		w.token(v)
	case *group:
		w.token(v.open)
		w.emitAll(v.kids)
		w.token(v.close)
	case *synth:
		for i, part := range v.parts {
			switch part := part.(type) {
			case string:
				w.text(part, v.anchor, i == 0 && v.space)
			case []item:
				w.emitAll(part)
			default:
				w.emit(part)
			}
		}
	case *exprNode:
		v.emit(w)
	case *hoisted:
		w.params = append(w.params, hoistedParam)
		w.hoisted = append(w.hoisted, v)
		w.text("?", firstTok(v.expr[0]), true)
	}
}

func (w *writer) emitAll(items []item) {
	for _, it := range items {
		w.emit(it)
	}
}

// token writes one token in the form TiDB reads with PostgreSQL's meaning.
func (w *writer) token(t *token) {
	switch t.kind {
	case tkWord:
		w.text(tidbWord(t), t, t.space)
	case tkQIdent:
		w.text(quoteIdent(t.val), t, t.space)
	case tkString:
		if w.str {
			// TiDB joins adjacent constants; PostgreSQL does so only across
			// a newline, which the lexer has done already.
			w.fail(w.p.syntaxError(t))
			return
		}
		w.text(quoteString(t.val), t, t.space)
		w.str = true
		return
	case tkNumber:
		if tidbNumber(t.val) {
			w.text(t.val, t, t.space)
			return
		}
		// TiDB reads an exponent as a double and keeps at most 65 digits
		// of a decimal; PostgreSQL's numeric constants have neither limit.
		w.text("epochdb_numeric("+quoteString(t.val)+")", t, t.space)
	case tkParam:
		w.params = append(w.params, t.num-1)
		w.text("?", t, t.space)
	case tkOp:
		if !tidbSafeOps[t.val] {
			w.fail(w.p.unsupported(t, "operator %s is not supported", t.val))
			return
		}
		w.text(t.val, t, t.space)
	case tkPunct:
		switch t.val {
		case "(", ")", ",", ".":
			w.text(t.val, t, t.space)
		case "[", "]":
			// Brackets that the rewrite did not read as an array or a
			// subscript are misplaced.
			w.fail(w.p.syntaxError(t))
		default:
			w.fail(w.p.syntaxError(t))
		}
	case tkBits:
		w.fail(w.p.unsupported(t, "bit-string constants are not supported"))
	}
}

// tidbNumber reports whether TiDB reads the numeric constant s exactly:
// one without an exponent, of few enough digits for its decimals.
func tidbNumber(s string) bool {
	mantissa, _, exp := strings.Cut(strings.ToLower(s), "e")
	if !exp {
		return len(s) <= 60
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f != 0 && len(strings.Trim(strings.ReplaceAll(mantissa, ".", ""), "0")) <= 15
}

// tidbSafeOps are the operators TiDB reads with PostgreSQL's meaning and
// precedence. Every other operator is rewritten or rejected.
var tidbSafeOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true,
	"=": true, "<": true, ">": true, "<=": true, ">=": true, "<>": true, "!=": true,
}

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// text appends s, separated from the previous output by a space if the query
// had one there or if TiDB's lexer would otherwise join the two.
func (w *writer) text(s string, from *token, space bool) {
	if s == "" {
		return
	}
	if n := w.b.Len(); n > 0 {
		last := w.b.String()[n-1]
		if space && last != '(' && s[0] != ')' && s[0] != ',' && last != ' ' || mustSeparate(last, s[0]) {
			w.b.WriteByte(' ')
		}
	}
	w.pieces = append(w.pieces, piece{out: w.b.Len(), tok: from})
	w.b.WriteString(s)
	w.str = false
}

// mustSeparate reports whether TiDB would lex a and b as one token.
func mustSeparate(a, b byte) bool {
	word := func(c byte) bool { return isIdentCont(c) || c == '?' }
	switch {
	case word(a) && (word(b) || b == '\'' || b == '"'):
		return true
	case isOpChar(a) && isOpChar(b):
		return true
	case a == '\'' && b == '\'', a == '"' && b == '"':
		return true
	case a == '.' && isDigit(b), isDigit(a) && b == '.':
		return true
	}
	return false
}

// origin maps an offset in the writer's output to the token it came from.
func (w *writer) origin(off int) *token {
	var t *token
	for _, pc := range w.pieces {
		if pc.out > off {
			break
		}
		t = pc.tok
	}
	return t
}

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteIdent is PostgreSQL's quote_ident: s as it must be written to be
// read back as the name s, quoted unless it is a lower-case identifier that
// is no keyword (or an unreserved one).
func QuoteIdent(s string) string {
	safe := s != "" && (s[0] == '_' || s[0] >= 'a' && s[0] <= 'z')
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	if safe {
		if c, ok := pgKeywords[s]; !ok || c == unreserved {
			return s
		}
	}
	return quoteIdent(s)
}

// QuoteLiteral writes s as a string literal: quotes doubled, and in an
// E” literal, backslashes too.
func QuoteLiteral(s string) string {
	q := quoteString(s)
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// tidbWord renders an unquoted word. A PostgreSQL keyword stays a bare word
// for TiDB's grammar to read; any other word is a name in PostgreSQL, so it
// is quoted wherever TiDB would take it for one of its own keywords.
func tidbWord(t *token) string {
	w := t.val
	if t.name {
		return quoteIdent(w)
	}
	if !t.call {
		switch w {
		case "user", "session_user", "current_role":
			// Without SET ROLE these are all the session's user.
			return "current_user"
		case "current_schema", "current_catalog":
			// TiDB would read the bare word as a column name.
			return w + "()"
		}
	} else if quotedCalls[w] {
		return quoteIdent(w)
	}
	if pgKeywords[w] != notKeyword {
		return w
	}
	if !plainIdent(w) {
		return quoteIdent(w)
	}
	if res, ok := tidbKeywords[w]; ok {
		if t.call && (!res || tidbCallable[w]) {
			return w
		}
		return quoteIdent(w)
	}
	return w
}

// plainIdent reports whether s is a name TiDB reads unquoted as itself. A
// leading underscore could make a charset introducer such as _utf8mb4.
func plainIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || i > 0 && (c == '_' || isDigit(c) || c == '$')) {
			return false
		}
	}
	return s != ""
}

// syntaxError reports a syntax error at t, in PostgreSQL's words.
func (p *stmtParser) syntaxError(t *token) *pgerr.Error {
	return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", p.q[t.pos:t.end]).
		WithPosition(charPos(p.q, t.pos))
}

// syntaxErrorAtEnd reports a statement that ended too early: at its ';', or
// at the end of the query.
func (p *stmtParser) syntaxErrorAtEnd() *pgerr.Error {
	if p.after != nil {
		return p.syntaxError(p.after)
	}
	return pgerr.New(pgerr.SyntaxError, "syntax error at end of input").WithPosition(charPos(p.q, len(p.q)))
}

// unsupported reports valid PostgreSQL that epochdb does not implement.
func (p *stmtParser) unsupported(t *token, format string, args ...any) *pgerr.Error {
	e := pgerr.New(pgerr.FeatureNotSupported, format, args...)
	if t != nil {
		e.Position = charPos(p.q, t.pos)
	}
	return e
}
