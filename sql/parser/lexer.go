package parser

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// tokKind classifies a PostgreSQL token.
type tokKind uint8

const (
	tkWord   tokKind = iota + 1 // unquoted identifier or keyword; val is folded to lower case
	tkQIdent                    // "quoted identifier"; val is the name
	tkString                    // any string constant; val is its value
	tkBits                      // B'...' or X'...' bit-string constant
	tkNumber                    // val is the literal in decimal, without underscores
	tkParam                     // $n; num is n
	tkOp                        // operator; val is its text
	tkPunct                     // ( ) [ ] , ; . : :: :=; val is its text
)

// token is one lexical token of the query. Tokens keep their byte span in
// the original query so that every error, including TiDB's, can point there.
type token struct {
	kind  tokKind
	pos   int    // byte offset of the token in the query
	end   int    // byte offset just past the token
	val   string // see tokKind
	num   int    // $n for tkParam
	space bool   // whitespace or a comment precedes the token
	call  bool   // a word or quoted identifier directly followed by '('
	name  bool   // a keyword used as a name, which TiDB must see quoted
	// keyword marks a non-reserved keyword that its neighbours make a
	// keyword, such as BY after ORDER: it starts no expression and calls
	// nothing, whatever follows it.
	keyword bool
}

// maxIdentLen is PostgreSQL's NAMEDATALEN-1: longer identifiers are
// truncated, as the server does.
const maxIdentLen = 63

// maxParam bounds $n. The extended protocol counts parameters in an int16.
const maxParam = 65535

// lexer turns a query string into tokens with PostgreSQL's rules
// (src/backend/parser/scan.l), standard_conforming_strings on.
type lexer struct {
	q    string
	i    int
	toks []token
}

// lex tokenizes the whole query. Like PostgreSQL, a lexical error anywhere
// fails the whole query.
func lex(q string) ([]token, error) {
	l := &lexer{q: q}
	for {
		space, err := l.skipSpace()
		if err != nil {
			return nil, err
		}
		if l.i >= len(q) {
			return l.toks, nil
		}
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		t.space = space
		l.toks = append(l.toks, t)
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool {
	return isIdentStart(c) || isDigit(c) || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isOpChar reports whether c may appear in a PostgreSQL operator.
func isOpChar(c byte) bool { return strings.IndexByte("~!@#^&|`?+-*/%<>=", c) >= 0 }

// skipSpace skips whitespace and comments, reporting whether there were any.
func (l *lexer) skipSpace() (bool, error) {
	start := l.i
	for l.i < len(l.q) {
		c := l.q[l.i]
		switch {
		case isSpace(c):
			l.i++
		case c == '-' && l.peek(1) == '-':
			for l.i < len(l.q) && l.q[l.i] != '\n' && l.q[l.i] != '\r' {
				l.i++
			}
		case c == '/' && l.peek(1) == '*':
			if err := l.skipBlockComment(); err != nil {
				return true, err
			}
		default:
			return l.i > start, nil
		}
	}
	return l.i > start, nil
}

// skipBlockComment skips a /* comment */, which nests in PostgreSQL.
func (l *lexer) skipBlockComment() error {
	start := l.i
	depth := 0
	for l.i < len(l.q) {
		switch {
		case l.q[l.i] == '/' && l.peek(1) == '*':
			depth++
			l.i += 2
		case l.q[l.i] == '*' && l.peek(1) == '/':
			depth--
			l.i += 2
			if depth == 0 {
				return nil
			}
		default:
			l.i++
		}
	}
	return lexError(l.q, start, "unterminated /* comment at or near \"%s\"", l.q[start:])
}

func (l *lexer) peek(n int) byte {
	if l.i+n < len(l.q) {
		return l.q[l.i+n]
	}
	return 0
}

func (l *lexer) next() (token, error) {
	q := l.q
	start := l.i
	c := q[start]
	switch {
	case c == '\'':
		val, err := l.quoted(start, start+1, false)
		return token{kind: tkString, pos: start, end: l.i, val: val}, err
	case (c == 'e' || c == 'E') && l.peek(1) == '\'':
		val, err := l.quoted(start, start+2, true)
		return token{kind: tkString, pos: start, end: l.i, val: val}, err
	case (c == 'n' || c == 'N') && l.peek(1) == '\'':
		// N'...' is a national character constant: an ordinary string.
		val, err := l.quoted(start, start+2, false)
		return token{kind: tkString, pos: start, end: l.i, val: val}, err
	case (c == 'b' || c == 'B' || c == 'x' || c == 'X') && l.peek(1) == '\'':
		val, err := l.quoted(start, start+2, false)
		return token{kind: tkBits, pos: start, end: l.i, val: val}, err
	case (c == 'u' || c == 'U') && l.peek(1) == '&' && (l.peek(2) == '\'' || l.peek(2) == '"'):
		return l.unicodeQuoted(start)
	case c == '"':
		name, err := l.quotedIdent(start, start+1)
		if err != nil {
			return token{}, err
		}
		return token{kind: tkQIdent, pos: start, end: l.i, val: truncateIdent(name)}, nil
	case isIdentStart(c):
		i := start + 1
		for i < len(q) && isIdentCont(q[i]) {
			i++
		}
		l.i = i
		return token{kind: tkWord, pos: start, end: i, val: truncateIdent(foldIdent(q[start:i]))}, nil
	case isDigit(c) || c == '.' && isDigit(l.peek(1)):
		return l.number(start)
	case c == '$':
		return l.dollar(start)
	case c == ':':
		switch l.peek(1) {
		case ':':
			l.i += 2
			return token{kind: tkPunct, pos: start, end: l.i, val: "::"}, nil
		case '=':
			l.i += 2
			return token{kind: tkPunct, pos: start, end: l.i, val: ":="}, nil
		}
		l.i++
		return token{kind: tkPunct, pos: start, end: l.i, val: ":"}, nil
	case strings.IndexByte("()[],;.", c) >= 0:
		l.i++
		return token{kind: tkPunct, pos: start, end: l.i, val: q[start:l.i]}, nil
	case isOpChar(c):
		return l.operator(start), nil
	}
	_, n := utf8.DecodeRuneInString(q[start:])
	return token{}, lexError(q, start, "syntax error at or near \"%s\"", q[start:start+n])
}

// operator lexes an operator the way scan.l does: the longest run of operator
// characters that does not start a comment, without a trailing + or - unless
// the operator contains one of ~!@#^&|`?%.
func (l *lexer) operator(start int) token {
	q := l.q
	i := start
	for i < len(q) && isOpChar(q[i]) {
		if i > start && (q[i] == '-' && i+1 < len(q) && q[i+1] == '-' || q[i] == '/' && i+1 < len(q) && q[i+1] == '*') {
			break
		}
		i++
	}
	op := q[start:i]
	if len(op) > 1 && !strings.ContainsAny(op, "~!@#^&|`?%") {
		for len(op) > 1 && (op[len(op)-1] == '+' || op[len(op)-1] == '-') {
			op = op[:len(op)-1]
		}
	}
	l.i = start + len(op)
	return token{kind: tkOp, pos: start, end: l.i, val: op}
}

// number lexes a numeric constant, including PostgreSQL 16's 0x/0o/0b
// prefixes and digit-group underscores, and normalizes it to plain decimal
// so that TiDB reads the same value.
func (l *lexer) number(start int) (token, error) {
	q := l.q
	i := start
	if q[i] == '0' && i+1 < len(q) && strings.IndexByte("xXoObB", q[i+1]) >= 0 {
		base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[q[i+1]|0x20]
		j := i + 2
		digits := strings.Builder{}
		for j < len(q) {
			if q[j] == '_' && j+1 < len(q) && digitValue(q[j+1]) < base {
				j++
				continue
			}
			if digitValue(q[j]) >= base {
				break
			}
			digits.WriteByte(q[j])
			j++
		}
		if digits.Len() > 0 {
			if j < len(q) && isIdentCont(q[j]) {
				return token{}, trailingJunk(q, start, j, "numeric literal")
			}
			n, _ := new(big.Int).SetString(digits.String(), base)
			l.i = j
			return token{kind: tkNumber, pos: start, end: j, val: n.String()}, nil
		}
		// "0x" without digits is the integer 0 followed by junk.
		return token{}, trailingJunk(q, start, i+2, "numeric literal")
	}
	var b strings.Builder
	digits := func() {
		for i < len(q) {
			switch {
			case isDigit(q[i]):
				b.WriteByte(q[i])
				i++
			case q[i] == '_' && i > start && isDigit(q[i-1]) && i+1 < len(q) && isDigit(q[i+1]):
				i++
			default:
				return
			}
		}
	}
	digits()
	// "1..2" is the integer 1 followed by "..", as in scan.l's numericfail.
	if i < len(q) && q[i] == '.' && !(i+1 < len(q) && q[i+1] == '.') {
		b.WriteByte('.')
		i++
		digits()
	}
	if i < len(q) && (q[i] == 'e' || q[i] == 'E') {
		j := i + 1
		if j < len(q) && (q[j] == '+' || q[j] == '-') {
			j++
		}
		if j < len(q) && isDigit(q[j]) {
			b.WriteString(q[i:j])
			i = j
			digits()
		} else {
			return token{}, trailingJunk(q, start, j, "numeric literal")
		}
	}
	if i < len(q) && isIdentStart(q[i]) {
		return token{}, trailingJunk(q, start, i+1, "numeric literal")
	}
	l.i = i
	return token{kind: tkNumber, pos: start, end: i, val: b.String()}, nil
}

func digitValue(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func trailingJunk(q string, start, end int, what string) error {
	for end < len(q) && isIdentCont(q[end]) {
		end++
	}
	return lexError(q, start, "trailing junk after %s at or near \"%s\"", what, q[start:end])
}

// dollar lexes $n parameters and $tag$ dollar-quoted strings.
func (l *lexer) dollar(start int) (token, error) {
	q := l.q
	if isDigit(l.peek(1)) {
		i := start + 1
		for i < len(q) && isDigit(q[i]) {
			i++
		}
		if i < len(q) && isIdentCont(q[i]) {
			return token{}, trailingJunk(q, start, i+1, "parameter")
		}
		n, err := strconv.Atoi(q[start+1 : i])
		if err != nil || n < 1 || n > maxParam {
			return token{}, &pgerr.Error{Code: pgerr.UndefinedParameter,
				Message: "there is no parameter " + q[start:i], Position: charPos(q, start)}
		}
		l.i = i
		return token{kind: tkParam, pos: start, end: i, val: q[start:i], num: n}, nil
	}
	i := start + 1
	if i < len(q) && isIdentStart(q[i]) {
		i++
		for i < len(q) && (isIdentStart(q[i]) || isDigit(q[i])) {
			i++
		}
	}
	if i >= len(q) || q[i] != '$' {
		return token{}, lexError(q, start, "syntax error at or near \"$\"")
	}
	delim := q[start : i+1]
	body := i + 1
	end := strings.Index(q[body:], delim)
	if end < 0 {
		return token{}, lexError(q, start, "unterminated dollar-quoted string at or near \"%s\"", q[start:])
	}
	val := q[body : body+end]
	if !utf8.ValidString(val) {
		return token{}, invalidUTF8(q, start, val)
	}
	l.i = body + end + len(delim)
	return token{kind: tkString, pos: start, end: l.i, val: val}, nil
}

// quoted lexes a '...' string whose body starts at i, processing backslash
// escapes when esc is set (E'...'). Adjacent constants separated by a
// newline continue the string, as in SQL.
func (l *lexer) quoted(start, i int, esc bool) (string, error) {
	q := l.q
	var b []byte
	for {
		if i >= len(q) {
			return "", lexError(q, start, "unterminated quoted string at or near \"%s\"", q[start:])
		}
		c := q[i]
		switch {
		case c == '\'' && i+1 < len(q) && q[i+1] == '\'':
			b = append(b, '\'')
			i += 2
		case c == '\'':
			i++
			if next, ok := continuation(q, i); ok {
				i = next + 1
				continue
			}
			l.i = i
			if !utf8.Valid(b) || strings.IndexByte(string(b), 0) >= 0 {
				return "", invalidUTF8(q, start, string(b))
			}
			return string(b), nil
		case c == '\\' && esc:
			var err error
			b, i, err = unescape(q, start, i, b)
			if err != nil {
				return "", err
			}
		default:
			b = append(b, c)
			i++
		}
	}
}

// continuation reports whether the string constant that ended just before i
// continues: whitespace holding a newline, then another quote.
func continuation(q string, i int) (int, bool) {
	newline := false
	for i < len(q) {
		switch c := q[i]; {
		case c == '\n' || c == '\r':
			newline = true
			i++
		case isSpace(c):
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-' && newline:
			for i < len(q) && q[i] != '\n' && q[i] != '\r' {
				i++
			}
		case c == '\'' && newline:
			return i, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// unescape decodes one backslash escape of an E'...' string at q[i].
func unescape(q string, start, i int, b []byte) ([]byte, int, error) {
	if i+1 >= len(q) {
		return b, i + 1, nil // the unterminated string is reported by the caller
	}
	c := q[i+1]
	i += 2
	switch c {
	case 'b':
		return append(b, '\b'), i, nil
	case 'f':
		return append(b, '\f'), i, nil
	case 'n':
		return append(b, '\n'), i, nil
	case 'r':
		return append(b, '\r'), i, nil
	case 't':
		return append(b, '\t'), i, nil
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v := int(c - '0')
		for n := 1; n < 3 && i < len(q) && q[i] >= '0' && q[i] <= '7'; n++ {
			v = v*8 + int(q[i]-'0')
			i++
		}
		return append(b, byte(v)), i, nil
	case 'x':
		v, n := 0, 0
		for ; n < 2 && i < len(q) && digitValue(q[i]) < 16; n++ {
			v = v*16 + digitValue(q[i])
			i++
		}
		if n == 0 {
			return append(b, 'x'), i, nil
		}
		return append(b, byte(v)), i, nil
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		r, ok := hexRune(q, i, n)
		if !ok {
			return nil, 0, escapeError(q, i-2, "invalid Unicode escape")
		}
		i += n
		if r >= 0xD800 && r <= 0xDBFF {
			// A high surrogate must be followed by a \u low surrogate.
			if i+1 < len(q) && q[i] == '\\' && (q[i+1] == 'u' || q[i+1] == 'U') {
				m := 4
				if q[i+1] == 'U' {
					m = 8
				}
				lo, ok := hexRune(q, i+2, m)
				if ok && lo >= 0xDC00 && lo <= 0xDFFF {
					return utf8.AppendRune(b, (r-0xD800)<<10+(lo-0xDC00)+0x10000), i + 2 + m, nil
				}
			}
			return nil, 0, escapeError(q, i-n-2, "invalid Unicode surrogate pair")
		}
		if r >= 0xDC00 && r <= 0xDFFF || r == 0 || r > utf8.MaxRune {
			return nil, 0, escapeError(q, i-n-2, "invalid Unicode escape value")
		}
		return utf8.AppendRune(b, r), i, nil
	}
	// Any other character stands for itself, including \\ and \'. A
	// multi-byte character is copied whole.
	_, size := utf8.DecodeRuneInString(q[i-1:])
	return append(b, q[i-1:i-1+size]...), i - 1 + size, nil
}

func hexRune(q string, i, n int) (rune, bool) {
	if i+n > len(q) {
		return 0, false
	}
	var r rune
	for j := i; j < i+n; j++ {
		d := digitValue(q[j])
		if d >= 16 {
			return 0, false
		}
		r = r*16 + rune(d)
	}
	return r, true
}

// quotedIdent lexes a "quoted identifier" whose body starts at i.
func (l *lexer) quotedIdent(start, i int) (string, error) {
	q := l.q
	var b strings.Builder
	for {
		if i >= len(q) {
			return "", lexError(q, start, "unterminated quoted identifier at or near \"%s\"", q[start:])
		}
		if q[i] == '"' {
			if i+1 < len(q) && q[i+1] == '"' {
				b.WriteByte('"')
				i += 2
				continue
			}
			l.i = i + 1
			if b.Len() == 0 {
				return "", lexError(q, start, "zero-length delimited identifier at or near \"\"\"\"")
			}
			return b.String(), nil
		}
		b.WriteByte(q[i])
		i++
	}
}

// unicodeQuoted lexes U&'...' and U&"..." with an optional UESCAPE clause.
func (l *lexer) unicodeQuoted(start int) (token, error) {
	var raw string
	var err error
	ident := l.q[start+2] == '"'
	if ident {
		raw, err = l.quotedIdent(start, start+3)
	} else {
		raw, err = l.quoted(start, start+3, false)
	}
	if err != nil {
		return token{}, err
	}
	escape := byte('\\')
	save := l.i
	if space, err := l.skipSpace(); err == nil && space && l.i+7 <= len(l.q) && strings.EqualFold(l.q[l.i:l.i+7], "uescape") &&
		(l.i+7 == len(l.q) || !isIdentCont(l.q[l.i+7])) {
		l.i += 7
		if _, err := l.skipSpace(); err != nil {
			return token{}, err
		}
		if l.i+3 <= len(l.q) && l.q[l.i] == '\'' && l.q[l.i+2] == '\'' {
			escape = l.q[l.i+1]
			if digitValue(escape) < 16 || escape == '+' || escape == '\'' || escape == '"' || isSpace(escape) {
				return token{}, lexError(l.q, start, "invalid Unicode escape character")
			}
			l.i += 3
		} else {
			return token{}, lexError(l.q, start, "UESCAPE must be followed by a simple string literal")
		}
	} else {
		l.i = save
	}
	var b []byte
	for i := 0; i < len(raw); {
		if raw[i] != escape {
			b = append(b, raw[i])
			i++
			continue
		}
		if i+1 < len(raw) && raw[i+1] == escape {
			b = append(b, escape)
			i += 2
			continue
		}
		n, skip := 4, 1
		if i+1 < len(raw) && raw[i+1] == '+' {
			n, skip = 6, 2
		}
		r, ok := hexRune(raw, i+skip, n)
		if !ok || r == 0 || r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
			return token{}, escapeError(l.q, start, "invalid Unicode escape value")
		}
		b = utf8.AppendRune(b, r)
		i += skip + n
	}
	if ident {
		if len(b) == 0 {
			return token{}, lexError(l.q, start, "zero-length delimited identifier")
		}
		return token{kind: tkQIdent, pos: start, end: l.i, val: truncateIdent(string(b))}, nil
	}
	return token{kind: tkString, pos: start, end: l.i, val: string(b)}, nil
}

// foldIdent lower-cases an unquoted identifier. PostgreSQL folds only ASCII
// letters in multi-byte encodings.
func foldIdent(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// truncateIdent cuts an identifier to maxIdentLen bytes on a character
// boundary, as PostgreSQL's truncate_identifier does.
func truncateIdent(s string) string {
	if len(s) <= maxIdentLen {
		return s
	}
	n := maxIdentLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// charPos converts a byte offset into the 1-based character position that
// ErrorResponse carries.
func charPos(q string, off int) int {
	if off > len(q) {
		off = len(q)
	}
	return utf8.RuneCountInString(q[:off]) + 1
}

func lexError(q string, pos int, format string, args ...any) error {
	return pgerr.New(pgerr.SyntaxError, format, args...).WithPosition(charPos(q, pos))
}

func escapeError(q string, pos int, msg string) error {
	return pgerr.New(pgerr.InvalidEscapeSequence, "%s", msg).WithPosition(charPos(q, pos))
}

func invalidUTF8(q string, pos int, val string) error {
	// Report the first offending byte, as PostgreSQL's report_invalid_encoding does.
	bad := 0
	for i := 0; i < len(val); {
		r, n := utf8.DecodeRuneInString(val[i:])
		if r == utf8.RuneError && n <= 1 || r == 0 {
			bad = i
			break
		}
		i += n
	}
	return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", val[bad]).
		WithPosition(charPos(q, pos))
}
