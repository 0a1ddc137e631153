package parser

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// InsertValues is the statement bulk loaders send most, which fastInsert
// parses without TiDB:
//
//	INSERT INTO name [(column, ...)] VALUES (literal, ...), ...
//	    [ON CONFLICT [(column, ...)] DO NOTHING]
//
// Every value is a plain literal, and every row has the same width.
type InsertValues struct {
	Schema, Table string
	Columns       []string  // nil: the table's columns, in order
	Width         int       // values per row
	Values        []Literal // the rows' values, row after row
	// OnConflict is ON CONFLICT [(columns)] DO NOTHING, or nil.
	OnConflict *OnConflict
}

// Rows is the number of rows.
func (v *InsertValues) Rows() int { return len(v.Values) / v.Width }

// Literal is one value of InsertValues.
type Literal struct {
	Kind LiteralKind
	// Text is a string's value, or a number's digits with an optional
	// leading '-' and, for LitDecimal, one '.'.
	Text string
}

// LiteralKind says what a Literal is.
type LiteralKind uint8

const (
	LitNull LiteralKind = iota
	LitString
	LitInteger // fits an int64
	LitDecimal
	LitTrue
	LitFalse
	LitDefault
)

// fastInsert parses an InsertValues statement: a string, an integer or
// decimal number with an optional minus sign, NULL, TRUE, FALSE or DEFAULT
// in every position. It skips the token tree, the rewrite and TiDB's
// parser, which cost several microseconds per row of a large VALUES list.
//
// It accepts only what it can parse exactly and reports ok false for
// anything else: comments, casts, expressions, keywords as names, rows of
// different widths, other statements after this one. The general path then
// parses the query, and reports any error with its position.
func fastInsert(q string) (st *Statement, ok bool) {
	s := &fastScanner{q: q}
	s.space()
	start := s.i
	if !s.keyword("insert") || !s.keyword("into") {
		return nil, false
	}
	v := &InsertValues{}
	name, ok := s.ident()
	if !ok {
		return nil, false
	}
	if s.punct('.') {
		v.Schema = name
		if name, ok = s.ident(); !ok {
			return nil, false
		}
	}
	v.Table = name
	if s.punct('(') {
		for {
			col, ok := s.ident()
			if !ok {
				return nil, false
			}
			v.Columns = append(v.Columns, col)
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
	// The first row gives the width, and its length a guess at the row
	// count, to size Values once.
	first := s.i
	if !s.row(v) {
		return nil, false
	}
	v.Width = len(v.Values)
	v.Values = slices.Grow(v.Values, v.Width*((len(q)-s.i)/(s.i-first)+1))
	for s.punct(',') {
		if !s.row(v) || len(v.Values)%v.Width != 0 {
			return nil, false
		}
	}
	if s.keyword("on") {
		// ON CONFLICT [(column, ...)] DO NOTHING, the bulk loader's upsert.
		oc := &OnConflict{DoNothing: true}
		if !s.keyword("conflict") {
			return nil, false
		}
		if s.punct('(') {
			for {
				col, ok := s.ident()
				if !ok {
					return nil, false
				}
				oc.Columns = append(oc.Columns, col)
				if s.punct(')') {
					break
				}
				if !s.punct(',') {
					return nil, false
				}
			}
		}
		if !s.keyword("do") || !s.keyword("nothing") {
			return nil, false
		}
		v.OnConflict = oc
	}
	end := s.i
	for isSpace(q[end-1]) {
		end--
	}
	s.punct(';')
	if s.i < len(q) {
		return nil, false
	}
	return &Statement{SQL: q[start:end], Pos: start, Cmd: v}, true
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
		if !ok || v == "" || len(v) > maxIdentLen || !validText(v) {
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

// row reads one parenthesized list of literals onto v.Values.
func (s *fastScanner) row(v *InsertValues) bool {
	if !s.punct('(') {
		return false
	}
	n := 0
	for {
		lit, ok := s.literal()
		if !ok {
			return false
		}
		v.Values = append(v.Values, lit)
		n++
		if s.punct(')') {
			return v.Width == 0 || n == v.Width
		}
		if !s.punct(',') || n == v.Width {
			return false
		}
	}
}

// literal reads one value.
func (s *fastScanner) literal() (Literal, bool) {
	if s.i >= len(s.q) {
		return Literal{}, false
	}
	var lit Literal
	switch c := s.q[s.i]; {
	case c == '\'':
		text, n, ok := quoted(s.q[s.i:], '\'')
		if !ok || !validText(text) {
			return Literal{}, false
		}
		s.i += n
		s.space()
		if s.i < len(s.q) && s.q[s.i] == '\'' {
			return Literal{}, false // 'a' 'b' continues a string across lines, or is an error
		}
		return Literal{Kind: LitString, Text: text}, true
	case c == '-' || isDigit(c):
		var ok bool
		if lit, ok = s.number(); !ok {
			return Literal{}, false
		}
	default:
		w, ok := s.word()
		if !ok {
			return Literal{}, false
		}
		switch strings.ToLower(w) {
		case "null":
			lit.Kind = LitNull
		case "true":
			lit.Kind = LitTrue
		case "false":
			lit.Kind = LitFalse
		case "default":
			lit.Kind = LitDefault
		default:
			return Literal{}, false
		}
		s.i += len(w)
	}
	s.space()
	return lit, true
}

// number reads [-]digits[.digits]. Exponents, integers beyond int64 and
// numbers run into a name are left to the general path.
func (s *fastScanner) number() (Literal, bool) {
	j := s.i
	if s.q[j] == '-' {
		j++
	}
	digits := j
	if j = s.digits(j); j == digits {
		return Literal{}, false
	}
	lit := Literal{Kind: LitInteger}
	if j < len(s.q) && s.q[j] == '.' {
		lit.Kind = LitDecimal
		frac := j + 1
		if j = s.digits(frac); j == frac {
			return Literal{}, false
		}
	}
	if j < len(s.q) && (isASCIIIdentChar(s.q[j]) || s.q[j] == '.' || s.q[j] >= 0x80) {
		return Literal{}, false
	}
	lit.Text = s.q[s.i:j]
	if lit.Kind == LitInteger {
		// The magnitude must fit, as on the general path, where the minus
		// is an operator: -9223372036854775808 is left to it.
		if _, err := strconv.ParseInt(s.q[digits:j], 10, 64); err != nil {
			return Literal{}, false
		}
	}
	s.i = j
	return lit, true
}

// validText reports whether a string or name is valid UTF-8 without NUL,
// as the general path's lexer requires and reports.
func validText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// digits returns the end of the run of digits that starts at j.
func (s *fastScanner) digits(j int) int {
	for j < len(s.q) && isDigit(s.q[j]) {
		j++
	}
	return j
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
