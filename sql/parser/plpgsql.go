package parser

import (
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// PL/pgSQL. ParsePL reads a function body or a DO block into a tree of
// statements whose expressions and SQL are kept as source text: the
// session's interpreter compiles each through Parse when it first runs
// it, with the block's variables as parameters, as PostgreSQL's PL/pgSQL
// prepares its expressions. Line numbers count from the body's first line,
// as PostgreSQL's CONTEXT lines do.

// PLBlock is [<<label>>] [DECLARE ...] BEGIN ... [EXCEPTION ...] END.
type PLBlock struct {
	Label    string
	Decls    []PLDecl
	Body     []PLStmt
	Handlers []PLHandler
	Line     int
}

// PLDecl declares a variable: Type as written and normalized, Default the
// expression as written. Alias, set instead, is ALIAS FOR's name or $n.
type PLDecl struct {
	Name, Type, Default, Alias string
	Constant, NotNull          bool
	Line                       int
}

// PLHandler is EXCEPTION's WHEN conditions THEN statements. A condition
// is a name in lower case, or "sqlstate XXXXX".
type PLHandler struct {
	Conditions []string
	Body       []PLStmt
}

// PLStmt is a statement of a block: one of the PL* statement types.
type PLStmt interface{ StmtLine() int }

// PLPos is a statement's line.
type PLPos struct{ Line int }

func (p PLPos) StmtLine() int { return p.Line }

type (
	// PLAssign is target := expr; Target may name a field: rec.f.
	PLAssign struct {
		PLPos
		Target, Expr string
		Text         string // the statement as written, for CONTEXT
	}
	// PLIf is IF ... THEN ... [ELSIF ...] [ELSE ...] END IF.
	PLIf struct {
		PLPos
		Conds []string
		Thens [][]PLStmt
		Else  []PLStmt
	}
	// PLCase is CASE [expr] WHEN ... THEN ... [ELSE ...] END CASE. Without
	// Expr, each Whens entry is a condition; with it, a list of values.
	PLCase struct {
		PLPos
		Expr    string
		Whens   []string
		Thens   [][]PLStmt
		Else    []PLStmt
		HasElse bool
	}
	// PLLoop is LOOP, WHILE, FOR and FOREACH. Kind is "loop", "while",
	// "int" (FOR i IN a..b), "query" (FOR r IN query), "execute" (FOR r
	// IN EXECUTE), or "foreach".
	PLLoop struct {
		PLPos
		Label, Kind string
		Var         string   // the loop variable, or for a query the targets joined by ","
		Cond        string   // WHILE's
		Lo, Hi, By  string   // FOR's integer range
		Reverse     bool     // FOR ... REVERSE
		Query       string   // FOR over a query; FOREACH's array
		Using       []string // FOR ... EXECUTE ... USING
		Slice       int      // FOREACH ... SLICE
		Body        []PLStmt
	}
	// PLExit is EXIT or CONTINUE [label] [WHEN cond].
	PLExit struct {
		PLPos
		Continue    bool
		Label, When string
	}
	// PLReturn is RETURN [expr], RETURN NEXT [expr], RETURN QUERY query
	// and RETURN QUERY EXECUTE expr [USING ...].
	PLReturn struct {
		PLPos
		Expr        string
		Next, Query bool
		Execute     bool
		Using       []string
	}
	// PLPerform is PERFORM query: the query with SELECT for PERFORM.
	PLPerform struct {
		PLPos
		Query string
	}
	// PLSQL is any other statement, run as SQL; Into are the targets of
	// its INTO clause, which SQL no longer holds.
	PLSQL struct {
		PLPos
		SQL    string
		Into   []string
		Strict bool
	}
	// PLExecute is EXECUTE expr [INTO [STRICT] targets] [USING exprs].
	PLExecute struct {
		PLPos
		Expr   string
		Into   []string
		Strict bool
		Using  []string
	}
	// PLRaise is RAISE [level] ['format' [, args]] [USING opt = expr, ...],
	// RAISE [level] condition [USING ...], or RAISE alone (Reraise).
	PLRaise struct {
		PLPos
		Level     string
		Condition string // a condition name or "sqlstate XXXXX"
		Format    string
		HasFormat bool
		Args      []string
		Options   [][2]string
		Reraise   bool
	}
	// PLGetDiag is GET [CURRENT | STACKED] DIAGNOSTICS var = item, ...
	PLGetDiag struct {
		PLPos
		Stacked bool
		Items   [][2]string
	}
	// PLAssert is ASSERT cond [, message].
	PLAssert struct {
		PLPos
		Cond, Message string
	}
	// PLNull is NULL.
	PLNull struct{ PLPos }
	// PLBlockStmt is a nested block.
	PLBlockStmt struct {
		PLPos
		Block *PLBlock
	}
)

// plParser walks the tokens of a PL/pgSQL body.
type plParser struct {
	src  string
	toks []token
	i    int
}

// ParsePL parses a PL/pgSQL body: one block, optionally followed by a
// semicolon. Its errors say where, in a CONTEXT line naming the function
// name.
func ParsePL(src, name string) (*PLBlock, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &plParser{src: src, toks: toks}
	b, err := p.block()
	if err == nil {
		p.accept(";")
		if p.i < len(p.toks) {
			err = p.errAt(p.i)
		}
	}
	if err != nil {
		line := 1
		if t := p.at(min(p.i, len(p.toks)-1)); t != nil {
			line = p.line(t.pos)
		}
		return nil, pgerr.Convert(err).WithContext("compilation of PL/pgSQL function %q near line %d", name, line)
	}
	return b, nil
}

func (p *plParser) line(pos int) int { return 1 + strings.Count(p.src[:pos], "\n") }

func (p *plParser) peek() *token {
	if p.i < len(p.toks) {
		return &p.toks[p.i]
	}
	return nil
}

func (p *plParser) at(k int) *token {
	if k >= 0 && k < len(p.toks) {
		return &p.toks[k]
	}
	return nil
}

func (p *plParser) is(words ...string) bool { return isWord(p.peek(), words...) }

// accept consumes the next token if it is one of the words, or the
// punctuation or operator given.
func (p *plParser) accept(words ...string) bool {
	t := p.peek()
	if t == nil {
		return false
	}
	for _, w := range words {
		if t.kind == tkWord && t.val == w || (t.kind == tkPunct || t.kind == tkOp) && t.val == w {
			p.i++
			return true
		}
	}
	return false
}

func (p *plParser) expect(words ...string) error {
	if !p.accept(words...) {
		return p.errAt(p.i)
	}
	return nil
}

// errAt is a syntax error at token k, or at the end.
func (p *plParser) errAt(k int) error {
	if t := p.at(k); t != nil {
		near := p.src[t.pos:t.end]
		return pgerr.New(pgerr.SyntaxError, "syntax error at or near %q", near)
	}
	return pgerr.New(pgerr.SyntaxError, "syntax error at end of input")
}

// label reads <<label>>, or returns "".
func (p *plParser) label() (string, error) {
	if t := p.peek(); t == nil || t.kind != tkOp || t.val != "<<" {
		return "", nil
	}
	p.i++
	t := p.peek()
	if !isName(t) {
		return "", p.errAt(p.i)
	}
	p.i++
	if err := p.expect(">>"); err != nil {
		return "", err
	}
	return t.val, nil
}

// block reads [<<label>>] [DECLARE ...] BEGIN ... END [label].
func (p *plParser) block() (*PLBlock, error) {
	b := &PLBlock{}
	var err error
	if b.Label, err = p.label(); err != nil {
		return nil, err
	}
	if t := p.peek(); t != nil {
		b.Line = p.line(t.pos)
	}
	for p.accept("declare") {
		for !p.is("begin") && !p.is("declare") {
			d, err := p.decl()
			if err != nil {
				return nil, err
			}
			b.Decls = append(b.Decls, d)
		}
	}
	if t := p.peek(); t != nil && b.Line == 0 {
		b.Line = p.line(t.pos)
	}
	if err := p.expect("begin"); err != nil {
		return nil, err
	}
	if b.Body, err = p.stmts("exception", "end"); err != nil {
		return nil, err
	}
	if p.accept("exception") {
		for p.accept("when") {
			h := PLHandler{}
			for {
				t := p.peek()
				switch {
				case isWord(t, "sqlstate"):
					p.i++
					s := p.peek()
					if s == nil || s.kind != tkString {
						return nil, p.errAt(p.i)
					}
					p.i++
					h.Conditions = append(h.Conditions, "sqlstate "+s.val)
				case isName(t):
					p.i++
					h.Conditions = append(h.Conditions, t.val)
				default:
					return nil, p.errAt(p.i)
				}
				if !p.accept("or") {
					break
				}
			}
			if err := p.expect("then"); err != nil {
				return nil, err
			}
			if h.Body, err = p.stmts("when", "end"); err != nil {
				return nil, err
			}
			b.Handlers = append(b.Handlers, h)
		}
		if len(b.Handlers) == 0 {
			return nil, p.errAt(p.i)
		}
	}
	if err := p.expect("end"); err != nil {
		return nil, err
	}
	if t := p.peek(); isName(t) && !isPunct(t, ";") {
		if t.val != b.Label {
			return nil, pgerr.New(pgerr.SyntaxError, "end label %q differs from block's label %q", t.val, b.Label)
		}
		p.i++
	}
	return b, nil
}

// decl reads one declaration, through its semicolon.
func (p *plParser) decl() (PLDecl, error) {
	t := p.peek()
	if !isName(t) {
		return PLDecl{}, p.errAt(p.i)
	}
	d := PLDecl{Name: t.val, Line: p.line(t.pos)}
	p.i++
	if p.accept("alias") {
		if err := p.expect("for"); err != nil {
			return d, err
		}
		a := p.peek()
		if a == nil || a.kind != tkParam && !isName(a) {
			return d, p.errAt(p.i)
		}
		d.Alias = p.src[a.pos:a.end]
		p.i++
		return d, p.expect(";")
	}
	d.Constant = p.accept("constant")
	// The type runs to COLLATE, NOT NULL, DEFAULT, := or =, or the ';'.
	start := p.i
	end := p.scan(func(k int, t *token) bool {
		return isWord(t, "default", "collate") || isWord(t, "not") && isWord(p.at(k+1), "null") ||
			isPunct(t, ":=") || isOp(t, "=") || isPunct(t, ";")
	})
	if end == start {
		return d, p.errAt(p.i)
	}
	d.Type = normalizeType(p.src[p.toks[start].pos:p.toks[end-1].end])
	p.i = end
	if p.accept("collate") {
		p.i++
	}
	if p.is("not") {
		p.i += 2
		d.NotNull = true
	}
	if p.accept("default", ":=", "=") {
		e, err := p.exprTo(";")
		if err != nil {
			return d, err
		}
		d.Default = e
	}
	return d, p.expect(";")
}

// normalizeType folds a declared type as written to the form column types
// take: lower case outside quotes, single spaces.
func normalizeType(s string) string {
	toks, err := lex(s)
	if err != nil || len(toks) == 0 {
		return strings.ToLower(strings.TrimSpace(s))
	}
	seq := make([]item, len(toks))
	for i := range toks {
		seq[i] = &toks[i]
	}
	var parts []string
	typ, next, ok := parseType(seq, 0)
	if ok && next == len(seq) {
		return typ
	}
	for _, t := range toks {
		switch t.kind {
		case tkQIdent:
			parts = append(parts, quoteIdent(t.val))
		default:
			parts = append(parts, strings.ToLower(s[t.pos:t.end]))
		}
	}
	return strings.Join(parts, "")
}

// scan returns the index of the first token from p.i on, outside
// parentheses and CASE ... END, for which stop is true, or len(toks).
func (p *plParser) scan(stop func(k int, t *token) bool) int {
	depth, cases := 0, 0
	for k := p.i; k < len(p.toks); k++ {
		t := &p.toks[k]
		switch {
		case isPunct(t, "(") || isPunct(t, "["):
			depth++
			continue
		case isPunct(t, ")") || isPunct(t, "]"):
			depth--
			continue
		}
		if depth > 0 {
			continue
		}
		if isWord(t, "case") {
			cases++
			continue
		}
		if cases > 0 {
			if isWord(t, "end") {
				cases--
			}
			continue
		}
		if stop(k, t) {
			return k
		}
	}
	return len(p.toks)
}

// exprTo reads the text up to the first of the words or punctuation
// given, at depth 0, which it leaves unread.
func (p *plParser) exprTo(ends ...string) (string, error) {
	end := p.scan(func(_ int, t *token) bool {
		for _, e := range ends {
			if isWord(t, e) || (t.kind == tkPunct || t.kind == tkOp) && t.val == e {
				return true
			}
		}
		return false
	})
	if end == p.i {
		return "", p.errAt(p.i)
	}
	if end == len(p.toks) {
		return "", pgerr.New(pgerr.SyntaxError, "syntax error at end of input")
	}
	text := p.src[p.toks[p.i].pos:p.toks[end-1].end]
	p.i = end
	return text, nil
}

// stmts reads statements until one of the words ends them.
func (p *plParser) stmts(ends ...string) ([]PLStmt, error) {
	var out []PLStmt
	for {
		t := p.peek()
		if t == nil {
			return nil, pgerr.New(pgerr.SyntaxError, "syntax error at end of input")
		}
		if isWord(t, ends...) {
			return out, nil
		}
		s, err := p.stmt()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// stmt reads one statement, through its semicolon.
func (p *plParser) stmt() (PLStmt, error) {
	start := p.i
	label, err := p.label()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t == nil {
		return nil, p.errAt(p.i)
	}
	pos := PLPos{Line: p.line(t.pos)}
	if label != "" && !isWord(t, "declare", "begin", "loop", "while", "for", "foreach") {
		return nil, p.errAt(p.i)
	}
	var s PLStmt
	switch {
	case isWord(t, "declare", "begin"):
		p.i = start
		b, err := p.block()
		if err != nil {
			return nil, err
		}
		s = &PLBlockStmt{PLPos: pos, Block: b}
	case isWord(t, "if"):
		s, err = p.ifStmt(pos)
	case isWord(t, "case"):
		s, err = p.caseStmt(pos)
	case isWord(t, "loop", "while", "for", "foreach"):
		s, err = p.loop(pos, label)
	case isWord(t, "exit", "continue"):
		p.i++
		x := &PLExit{PLPos: pos, Continue: t.val == "continue"}
		if l := p.peek(); isName(l) && !isWord(l, "when") {
			x.Label = l.val
			p.i++
		}
		if p.accept("when") {
			if x.When, err = p.exprTo(";"); err != nil {
				return nil, err
			}
		}
		s = x
	case isWord(t, "return"):
		s, err = p.returnStmt(pos)
	case isWord(t, "perform"):
		p.i++
		q, err := p.exprTo(";")
		if err != nil {
			return nil, err
		}
		s = &PLPerform{PLPos: pos, Query: "SELECT " + q}
	case isWord(t, "execute"):
		s, err = p.execute(pos)
	case isWord(t, "raise"):
		s, err = p.raise(pos)
	case isWord(t, "get"):
		s, err = p.getDiag(pos)
	case isWord(t, "assert"):
		p.i++
		a := &PLAssert{PLPos: pos}
		if a.Cond, err = p.exprTo(",", ";"); err != nil {
			return nil, err
		}
		if p.accept(",") {
			if a.Message, err = p.exprTo(";"); err != nil {
				return nil, err
			}
		}
		s = a
	case isWord(t, "null") && isPunct(p.at(p.i+1), ";"):
		p.i++
		s = &PLNull{PLPos: pos}
	case isWord(t, "open", "fetch", "move", "close") && !isPunct(p.at(p.i+1), ":=") || isWord(t, "commit", "rollback") && p.i+1 < len(p.toks) && isPunct(p.at(p.i+1), ";"):
		return nil, pgerr.New(pgerr.FeatureNotSupported, "PL/pgSQL %s is not supported", strings.ToUpper(t.val))
	default:
		if a, ok, err := p.assignment(pos); ok || err != nil {
			if err != nil {
				return nil, err
			}
			s = a
		} else {
			s, err = p.sqlStmt(pos)
		}
	}
	if err != nil {
		return nil, err
	}
	return s, p.expect(";")
}

// assignment reads target := expr, if the statement is one.
func (p *plParser) assignment(pos PLPos) (*PLAssign, bool, error) {
	start, k := p.i, p.i
	if !isName(p.at(k)) {
		return nil, false, nil
	}
	k++
	for isPunct(p.at(k), ".") && isName(p.at(k+1)) {
		k += 2
	}
	if t := p.at(k); !isPunct(t, ":=") && !isOp(t, "=") {
		return nil, false, nil
	}
	target := p.src[p.toks[p.i].pos:p.toks[k-1].end]
	p.i = k + 1
	e, err := p.exprTo(";")
	if err != nil {
		return nil, true, err
	}
	text := p.src[p.toks[start].pos:p.toks[p.i-1].end]
	return &PLAssign{PLPos: pos, Target: foldTarget(target), Expr: e, Text: text}, true, nil
}

// foldTarget folds a target's unquoted parts to lower case.
func foldTarget(s string) string {
	toks, err := lex(s)
	if err != nil {
		return s
	}
	var parts []string
	for _, t := range toks {
		if t.kind == tkWord || t.kind == tkQIdent {
			parts = append(parts, t.val)
		}
	}
	return strings.Join(parts, ".")
}

func (p *plParser) ifStmt(pos PLPos) (PLStmt, error) {
	s := &PLIf{PLPos: pos}
	p.i++
	for {
		cond, err := p.exprTo("then")
		if err != nil {
			return nil, err
		}
		p.i++
		body, err := p.stmts("elsif", "elseif", "else", "end")
		if err != nil {
			return nil, err
		}
		s.Conds, s.Thens = append(s.Conds, cond), append(s.Thens, body)
		if !p.accept("elsif", "elseif") {
			break
		}
	}
	if p.accept("else") {
		var err error
		if s.Else, err = p.stmts("end"); err != nil {
			return nil, err
		}
	}
	if err := p.expect("end"); err != nil {
		return nil, err
	}
	return s, p.expect("if")
}

func (p *plParser) caseStmt(pos PLPos) (PLStmt, error) {
	s := &PLCase{PLPos: pos}
	p.i++
	var err error
	if !p.is("when") {
		if s.Expr, err = p.exprTo("when"); err != nil {
			return nil, err
		}
	}
	for p.accept("when") {
		w, err := p.exprTo("then")
		if err != nil {
			return nil, err
		}
		p.i++
		body, err := p.stmts("when", "else", "end")
		if err != nil {
			return nil, err
		}
		s.Whens, s.Thens = append(s.Whens, w), append(s.Thens, body)
	}
	if p.accept("else") {
		s.HasElse = true
		if s.Else, err = p.stmts("end"); err != nil {
			return nil, err
		}
	}
	if err := p.expect("end"); err != nil {
		return nil, err
	}
	return s, p.expect("case")
}

// loop reads LOOP, WHILE, FOR and FOREACH, through END LOOP [label].
func (p *plParser) loop(pos PLPos, label string) (PLStmt, error) {
	l := &PLLoop{PLPos: pos, Label: label, Kind: "loop"}
	var err error
	switch {
	case p.accept("while"):
		l.Kind = "while"
		if l.Cond, err = p.exprTo("loop"); err != nil {
			return nil, err
		}
	case p.accept("for"):
		if err := p.forHead(l); err != nil {
			return nil, err
		}
	case p.accept("foreach"):
		l.Kind = "foreach"
		t := p.peek()
		if !isName(t) {
			return nil, p.errAt(p.i)
		}
		l.Var = t.val
		p.i++
		if p.accept("slice") {
			n := p.peek()
			if n == nil || n.kind != tkNumber {
				return nil, p.errAt(p.i)
			}
			l.Slice, _ = strconv.Atoi(n.val)
			p.i++
		}
		if err := p.expect("in"); err != nil {
			return nil, err
		}
		if err := p.expect("array"); err != nil {
			return nil, err
		}
		if l.Query, err = p.exprTo("loop"); err != nil {
			return nil, err
		}
	}
	if err := p.expect("loop"); err != nil {
		return nil, err
	}
	if l.Body, err = p.stmts("end"); err != nil {
		return nil, err
	}
	p.i++
	if err := p.expect("loop"); err != nil {
		return nil, err
	}
	if t := p.peek(); isName(t) {
		if t.val != label {
			return nil, pgerr.New(pgerr.SyntaxError, "end label %q differs from block's label %q", t.val, label)
		}
		p.i++
	}
	return l, nil
}

// forHead reads FOR's target and what it loops over, up to LOOP.
func (p *plParser) forHead(l *PLLoop) error {
	var targets []string
	for {
		t := p.peek()
		if !isName(t) {
			return p.errAt(p.i)
		}
		targets = append(targets, t.val)
		p.i++
		if !p.accept(",") {
			break
		}
	}
	l.Var = strings.Join(targets, ",")
	if err := p.expect("in"); err != nil {
		return err
	}
	if p.accept("execute") {
		l.Kind = "execute"
		var err error
		if l.Query, err = p.exprTo("using", "loop"); err != nil {
			return err
		}
		if p.accept("using") {
			for {
				u, err := p.exprTo(",", "loop")
				if err != nil {
					return err
				}
				l.Using = append(l.Using, u)
				if !p.accept(",") {
					break
				}
			}
		}
		return nil
	}
	l.Reverse = p.accept("reverse")
	if p.is("select", "with", "values", "table") || isPunct(p.peek(), "(") && isWord(p.at(p.i+1), "select") {
		l.Kind = "query"
		var err error
		l.Query, err = p.exprTo("loop")
		return err
	}
	// An integer range: lo .. hi [BY step]. The lexer may have read "1.."
	// as a number, so the range is split in the text.
	end := p.scan(func(_ int, t *token) bool { return isWord(t, "loop") })
	if end == len(p.toks) || end == p.i {
		return p.errAt(end)
	}
	text := p.src[p.toks[p.i].pos:p.toks[end-1].end]
	dots := rangeDots(text)
	if dots < 0 {
		if len(targets) > 1 {
			return p.errAt(p.i)
		}
		l.Kind = "query" // a query in parentheses, or a cursor
		l.Query = text
		p.i = end
		return nil
	}
	l.Kind = "int"
	l.Lo, l.Hi = strings.TrimSpace(text[:dots]), strings.TrimSpace(text[dots+2:])
	if i := byIndex(l.Hi); i >= 0 {
		l.Hi, l.By = strings.TrimSpace(l.Hi[:i]), strings.TrimSpace(l.Hi[i+2:])
	}
	p.i = end
	return nil
}

// rangeDots is the offset of the first ".." outside quotes and
// parentheses in text, or -1.
func rangeDots(text string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '.' && depth == 0 && i+1 < len(text) && text[i+1] == '.':
			return i
		}
	}
	return -1
}

// byIndex is the offset of a BY word in text, or -1.
func byIndex(text string) int {
	low := strings.ToLower(text)
	for i := 0; i+2 <= len(low); i++ {
		if low[i:i+2] == "by" && (i == 0 || low[i-1] == ' ' || low[i-1] == '\t' || low[i-1] == '\n') &&
			(i+2 == len(low) || low[i+2] == ' ' || low[i+2] == '\t' || low[i+2] == '\n') {
			return i
		}
	}
	return -1
}

func (p *plParser) returnStmt(pos PLPos) (PLStmt, error) {
	p.i++
	r := &PLReturn{PLPos: pos}
	var err error
	switch {
	case p.accept("next"):
		r.Next = true
	case p.accept("query"):
		r.Query = true
		if p.accept("execute") {
			r.Execute = true
			if r.Expr, err = p.exprTo("using", ";"); err != nil {
				return nil, err
			}
			if p.accept("using") {
				if r.Using, err = p.exprList(";"); err != nil {
					return nil, err
				}
			}
			return r, nil
		}
	}
	if isPunct(p.peek(), ";") {
		if r.Query {
			return nil, p.errAt(p.i)
		}
		return r, nil
	}
	r.Expr, err = p.exprTo(";")
	return r, err
}

// exprList reads expressions separated by commas, up to end.
func (p *plParser) exprList(end string) ([]string, error) {
	var out []string
	for {
		e, err := p.exprTo(",", end)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if !p.accept(",") {
			return out, nil
		}
	}
}

// targets reads INTO's targets: [STRICT] name[.field], ...
func (p *plParser) targets() ([]string, bool, error) {
	strict := p.accept("strict")
	var out []string
	for {
		k := p.i
		if !isName(p.at(k)) {
			return nil, false, p.errAt(k)
		}
		k++
		for isPunct(p.at(k), ".") && isName(p.at(k+1)) {
			k += 2
		}
		out = append(out, foldTarget(p.src[p.toks[p.i].pos:p.toks[k-1].end]))
		p.i = k
		if !p.accept(",") {
			return out, strict, nil
		}
	}
}

func (p *plParser) execute(pos PLPos) (PLStmt, error) {
	p.i++
	x := &PLExecute{PLPos: pos}
	var err error
	if x.Expr, err = p.exprTo("into", "using", ";"); err != nil {
		return nil, err
	}
	for {
		switch {
		case p.accept("into"):
			if x.Into, x.Strict, err = p.targets(); err != nil {
				return nil, err
			}
			continue
		case p.accept("using"):
			if x.Using, err = p.exprTo2List(); err != nil {
				return nil, err
			}
			continue
		}
		return x, nil
	}
}

// exprTo2List reads USING's expressions, up to INTO or the ';'.
func (p *plParser) exprTo2List() ([]string, error) {
	var out []string
	for {
		e, err := p.exprTo(",", "into", ";")
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if !p.accept(",") {
			return out, nil
		}
	}
}

// raiseLevels are RAISE's levels.
var raiseLevels = map[string]bool{"debug": true, "log": true, "info": true, "notice": true, "warning": true, "exception": true}

func (p *plParser) raise(pos PLPos) (PLStmt, error) {
	p.i++
	r := &PLRaise{PLPos: pos, Level: "exception"}
	if isPunct(p.peek(), ";") {
		r.Reraise = true
		return r, nil
	}
	if t := p.peek(); isWord(t) && raiseLevels[t.val] {
		r.Level = t.val
		p.i++
	}
	t := p.peek()
	switch {
	case t != nil && t.kind == tkString:
		r.Format, r.HasFormat = t.val, true
		p.i++
		for p.accept(",") {
			e, err := p.exprTo(",", "using", ";")
			if err != nil {
				return nil, err
			}
			r.Args = append(r.Args, e)
		}
	case isWord(t, "sqlstate"):
		p.i++
		s := p.peek()
		if s == nil || s.kind != tkString {
			return nil, p.errAt(p.i)
		}
		r.Condition = "sqlstate " + s.val
		p.i++
	case isName(t) && !isWord(t, "using"):
		r.Condition = t.val
		p.i++
	}
	if p.accept("using") {
		for {
			o := p.peek()
			if !isName(o) {
				return nil, p.errAt(p.i)
			}
			p.i++
			if !p.accept("=", ":=") {
				return nil, p.errAt(p.i)
			}
			e, err := p.exprTo(",", ";")
			if err != nil {
				return nil, err
			}
			r.Options = append(r.Options, [2]string{o.val, e})
			if !p.accept(",") {
				break
			}
		}
	}
	if strings.Count(strings.ReplaceAll(r.Format, "%%", ""), "%") > len(r.Args) {
		return nil, pgerr.New(pgerr.SyntaxError, "too few parameters specified for RAISE")
	}
	if strings.Count(strings.ReplaceAll(r.Format, "%%", ""), "%") < len(r.Args) {
		return nil, pgerr.New(pgerr.SyntaxError, "too many parameters specified for RAISE")
	}
	return r, nil
}

func (p *plParser) getDiag(pos PLPos) (PLStmt, error) {
	p.i++
	g := &PLGetDiag{PLPos: pos}
	if p.accept("stacked") {
		g.Stacked = true
	} else {
		p.accept("current")
	}
	if err := p.expect("diagnostics"); err != nil {
		return nil, err
	}
	for {
		v := p.peek()
		if !isName(v) {
			return nil, p.errAt(p.i)
		}
		p.i++
		if !p.accept("=", ":=") {
			return nil, p.errAt(p.i)
		}
		item := p.peek()
		if !isName(item) {
			return nil, p.errAt(p.i)
		}
		p.i++
		g.Items = append(g.Items, [2]string{v.val, item.val})
		if !p.accept(",") {
			return g, nil
		}
	}
}

// sqlStmt reads a statement the interpreter runs as SQL, taking out its
// INTO clause: the first INTO outside parentheses, other than INSERT's.
func (p *plParser) sqlStmt(pos PLPos) (PLStmt, error) {
	start := p.i
	end := p.scan(func(_ int, t *token) bool { return isPunct(t, ";") })
	if end == len(p.toks) {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at end of input")
	}
	if end == start {
		return nil, p.errAt(start)
	}
	s := &PLSQL{PLPos: pos}
	into := -1
	depth := 0
	for k := start; k < end; k++ {
		t := &p.toks[k]
		switch {
		case isPunct(t, "("):
			depth++
		case isPunct(t, ")"):
			depth--
		case depth == 0 && isWord(t, "into") && !(k > start && isWord(&p.toks[k-1], "insert")) &&
			!(k > start && isWord(&p.toks[k-1], "merge")):
			into = k
		}
		if into >= 0 {
			break
		}
	}
	if into < 0 {
		s.SQL = p.src[p.toks[start].pos:p.toks[end-1].end]
		p.i = end
		return s, nil
	}
	p.i = into + 1
	targets, strict, err := p.targets()
	if err != nil {
		return nil, err
	}
	s.Into, s.Strict = targets, strict
	rest := ""
	if p.i < end {
		rest = " " + p.src[p.toks[p.i].pos:p.toks[end-1].end]
	}
	s.SQL = p.src[p.toks[start].pos:p.toks[into].pos] + rest
	p.i = end
	return s, nil
}
