package parser

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// fastInsert parses the statement bulk loaders send most:
//
//	INSERT INTO name [(column, ...)] VALUES (literal, ...), ... [;]
//
// where every value is a plain literal: a string, an integer or decimal
// number with an optional minus sign, NULL, TRUE, FALSE or DEFAULT. It builds
// the AST TiDB would build from the general path's rewrite, without the
// token tree, the rewrite and TiDB's parser, which cost several
// microseconds per row of a large VALUES list.
//
// It accepts only what it can parse exactly and reports ok false for
// anything else: comments, casts, expressions, keywords as names, other
// statements after this one. The general path then parses the query, and
// reports any error with its position.
func fastInsert(q string) (st *Statement, ok bool) {
	s := &fastScanner{q: q}
	s.space()
	start := s.i
	if !s.keyword("insert") || !s.keyword("into") {
		return nil, false
	}
	schema, ok := s.ident()
	if !ok {
		return nil, false
	}
	name := schema
	if s.punct('.') {
		if name, ok = s.ident(); !ok {
			return nil, false
		}
	} else {
		schema = ""
	}
	n := &ast.InsertStmt{Table: &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{
		Source: &ast.TableName{Schema: ast.NewCIStr(schema), Name: ast.NewCIStr(name)},
	}}}}
	if s.punct('(') {
		for {
			col, ok := s.ident()
			if !ok {
				return nil, false
			}
			n.Columns = append(n.Columns, &ast.ColumnName{Name: ast.NewCIStr(col)})
			if s.punct(')') {
				break
			}
			if !s.punct(',') {
				return nil, false
			}
		}
	}
	if !s.keyword("values") {
		return nil, false
	}
	for {
		row, ok := s.row()
		if !ok {
			return nil, false
		}
		n.Lists = append(n.Lists, row)
		if !s.punct(',') {
			break
		}
	}
	end := s.i
	for isSpace(q[end-1]) {
		end--
	}
	s.punct(';')
	if s.i < len(q) {
		return nil, false
	}
	return &Statement{SQL: q[start:end], Pos: start, AST: n}, true
}

// fastScanner reads the tokens fastInsert accepts. Each method skips the
// whitespace after what it reads, and reads nothing when it reports false.
type fastScanner struct {
	q string
	i int
}

func (s *fastScanner) space() {
	for s.i < len(s.q) && isSpace(s.q[s.i]) {
		s.i++
	}
}

// word reads an unquoted identifier or keyword, as it appears in the text.
func (s *fastScanner) word() (string, bool) {
	j := s.i
	if j >= len(s.q) || !isASCIIIdentStart(s.q[j]) {
		return "", false
	}
	for j < len(s.q) && isASCIIIdentChar(s.q[j]) {
		j++
	}
	w := s.q[s.i:j]
	if j < len(s.q) && (s.q[j] >= 0x80 || s.q[j] == '\'' || s.q[j] == '"') {
		return "", false // a non-ASCII name, or a prefixed string (E'...', U&"...")
	}
	return w, true
}

func (s *fastScanner) keyword(kw string) bool {
	w, ok := s.word()
	if !ok || !strings.EqualFold(w, kw) {
		return false
	}
	s.i += len(w)
	s.space()
	return true
}

// ident reads a name: a word that is no keyword at all, folded to lower
// case, or a quoted identifier. Names PostgreSQL would truncate are left to
// the general path, which warns about them.
func (s *fastScanner) ident() (string, bool) {
	if s.i < len(s.q) && s.q[s.i] == '"' {
		v, n, ok := quoted(s.q[s.i:], '"')
		if !ok || v == "" || len(v) > maxIdentLen {
			return "", false
		}
		s.i += n
		s.space()
		return v, true
	}
	w, ok := s.word()
	if !ok || len(w) > maxIdentLen {
		return "", false
	}
	lower := strings.ToLower(w)
	if pgKeywords[lower] != notKeyword || tidbKeywords[lower] {
		return "", false
	}
	s.i += len(w)
	s.space()
	return lower, true
}

func (s *fastScanner) punct(c byte) bool {
	if s.i >= len(s.q) || s.q[s.i] != c {
		return false
	}
	s.i++
	s.space()
	return true
}

// row reads one parenthesized list of literals.
func (s *fastScanner) row() ([]ast.ExprNode, bool) {
	if !s.punct('(') {
		return nil, false
	}
	var row []ast.ExprNode
	for {
		v, ok := s.literal()
		if !ok {
			return nil, false
		}
		row = append(row, v)
		if s.punct(')') {
			return row, true
		}
		if !s.punct(',') {
			return nil, false
		}
	}
}

// literal reads one value as TiDB's grammar would build it.
func (s *fastScanner) literal() (ast.ExprNode, bool) {
	if s.i >= len(s.q) {
		return nil, false
	}
	var v ast.ExprNode
	switch c := s.q[s.i]; {
	case c == '\'':
		text, n, ok := quoted(s.q[s.i:], '\'')
		if !ok || !utf8.ValidString(text) {
			return nil, false
		}
		s.i += n
		s.space()
		if s.i < len(s.q) && s.q[s.i] == '\'' {
			return nil, false // 'a' 'b' continues a string across lines, or is an error
		}
		return ast.NewValueExpr(text, "", ""), true
	case c == '-':
		if s.i+1 >= len(s.q) || !isDigit(s.q[s.i+1]) {
			return nil, false
		}
		s.i++
		num, ok := s.number()
		if !ok {
			return nil, false
		}
		v = &ast.UnaryOperationExpr{Op: opcode.Minus, V: num}
	case isDigit(c):
		num, ok := s.number()
		if !ok {
			return nil, false
		}
		v = num
	default:
		w, ok := s.word()
		if !ok {
			return nil, false
		}
		switch strings.ToLower(w) {
		case "null":
			v = ast.NewValueExpr(nil, "", "")
		case "true":
			v = ast.NewValueExpr(true, "", "")
		case "false":
			v = ast.NewValueExpr(false, "", "")
		case "default":
			v = &ast.DefaultExpr{}
		default:
			return nil, false
		}
		s.i += len(w)
	}
	s.space()
	return v, true
}

// number reads digits [. digits]: an int64, or a decimal. Exponents,
// integers beyond int64 and numbers run into a name are left to the general
// path.
func (s *fastScanner) number() (ast.ExprNode, bool) {
	j := s.i
	for j < len(s.q) && isDigit(s.q[j]) {
		j++
	}
	frac := j < len(s.q) && s.q[j] == '.'
	if frac {
		j++
		if j >= len(s.q) || !isDigit(s.q[j]) {
			return nil, false
		}
		for j < len(s.q) && isDigit(s.q[j]) {
			j++
		}
	}
	if j < len(s.q) && (isASCIIIdentChar(s.q[j]) || s.q[j] == '.' || s.q[j] >= 0x80) {
		return nil, false
	}
	text := s.q[s.i:j]
	var v any
	if frac {
		d := new(driver.MyDecimal)
		if d.FromString([]byte(text)) != nil {
			return nil, false
		}
		v = d
	} else {
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, false
		}
		v = i
	}
	s.i = j
	return ast.NewValueExpr(v, "", ""), true
}

// quoted reads a string or identifier that starts with the quote character
// q at s[0], with doubled quotes inside, and returns its value and length.
func quoted(s string, q byte) (string, int, bool) {
	var b strings.Builder
	start := 1
	for j := 1; j < len(s); j++ {
		if s[j] != q {
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteString(s[start : j+1])
			start = j + 2
			j++
			continue
		}
		if b.Len() == 0 {
			return s[1:j], j + 1, true
		}
		b.WriteString(s[start:j])
		return b.String(), j + 1, true
	}
	return "", 0, false
}

func isASCIIIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isASCIIIdentChar(c byte) bool { return isASCIIIdentStart(c) || isDigit(c) || c == '$' }
