package types

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// JSON values. Both json and jsonb datums are *JSON trees; what differs is
// how they were made:
//
//   - ParseJSONB makes jsonb's normal form: numbers are numerics, an
//     object's keys are unique (the last duplicate wins) and sorted in
//     jsonb's storage order (shorter keys first, then bytewise), and Raw is
//     empty. CompareJSONB, Contains and AppendKeyJSONB expect this form;
//     NormalizeJSONB makes it from any tree.
//   - ParseJSON keeps what json_in keeps: keys in written order with their
//     duplicates, and on every node its source text (Raw), which is what
//     json output prints. Like json_in it checks the grammar but not the
//     \u escapes that have no text form (\u0000, unpaired surrogates);
//     CheckEscapes reports those when an operation needs the text.
//
// Trees are never modified once made, so subtrees are shared freely.

// JSONKind is the kind of a JSON value. The constants are in the order
// jsonb sorts values of different kinds, which CompareJSONB relies on.
type JSONKind uint8

const (
	JSONNull JSONKind = iota
	JSONString
	JSONNumber
	JSONBool
	JSONArray
	JSONObject
)

// JSON is a parsed JSON value. Immutable once made.
type JSON struct {
	Kind  JSONKind
	Bool  bool
	Str   string       // JSONString, unescaped
	Num   *apd.Decimal // JSONNumber, a numeric datum; nil in a json tree for a number beyond numeric's range
	Elems []*JSON      // JSONArray
	Keys  []string     // JSONObject
	Vals  []*JSON      // JSONObject, Vals[i] belongs to Keys[i]
	// Raw is set by ParseJSON: the value's source text, exactly as
	// written; for the root, the whole input, surrounding whitespace
	// included, since json_out prints json_in's input unchanged.
	Raw string
}

// JSONNullValue is JSON's null.
var JSONNullValue = &JSON{Kind: JSONNull}

var (
	jsonTrue  = &JSON{Kind: JSONBool, Bool: true}
	jsonFalse = &JSON{Kind: JSONBool}
)

// JSONStr returns a JSON string.
func JSONStr(s string) *JSON { return &JSON{Kind: JSONString, Str: s} }

// JSONBoolean returns JSON's true or false.
func JSONBoolean(b bool) *JSON {
	if b {
		return jsonTrue
	}
	return jsonFalse
}

// JSONNum returns a JSON number. JSON has no NaN or infinities, so those
// become the strings "NaN", "Infinity" and "-Infinity", as to_json makes them.
func JSONNum(d *apd.Decimal) *JSON {
	if d.Form != apd.Finite {
		return JSONStr(string(appendNumeric(nil, d)))
	}
	if n, err := normalizeNumeric(d); err == nil {
		d = n
	}
	return &JSON{Kind: JSONNumber, Num: d}
}

// maxJSONDepth bounds the nesting of containers. PostgreSQL stops at its
// stack limit, past 13000 levels with the default max_stack_depth of 2MB;
// a smaller bound means every document accepted here is accepted there.
const maxJSONDepth = 10000

// SQLSTATEs that pgerr does not name.
const (
	codeUntranslatableCharacter = "22P05"
	codeStackDepthExceeded      = "54001"
)

// ParseJSONB parses text as jsonb_in does, into jsonb's normal form.
func ParseJSONB(s string) (*JSON, error) { return parseJSONText(s, true) }

// ParseJSON parses text as json_in does; see the comment at the top of
// this file for how the tree differs from jsonb's.
func ParseJSON(s string) (*JSON, error) { return parseJSONText(s, false) }

func parseJSONText(s string, jsonb bool) (*JSON, error) {
	p := &jsonParser{s: s, jsonb: jsonb}
	if err := p.next(); err != nil {
		return nil, err
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.tok != jtEnd {
		return nil, p.unexpected(`Expected end of input, but found "%s".`)
	}
	if !jsonb {
		v.Raw = s
	}
	return v, nil
}

type jsonToken uint8

const (
	jtEnd jsonToken = iota
	jtString
	jtNumber
	jtTrue
	jtFalse
	jtNull
	jtObjectStart
	jtObjectEnd
	jtArrayStart
	jtArrayEnd
	jtComma
	jtColon
)

// jsonParser is a recursive-descent parser with one token of lookahead.
// Like PostgreSQL's, it lexes the next token as soon as it consumes one,
// so a bad token is reported before a grammar error at the one before it,
// and errors come out in the order PostgreSQL reports them.
type jsonParser struct {
	s          string
	tok        jsonToken
	start, end int    // the current token's extent in s; the next one is lexed from end
	str        string // a string token's unescaped value
	// jsonb means jsonb_in: \u escapes must have text, numbers must fit
	// numeric, objects are normalized and Raw is not kept.
	jsonb bool
	depth int
}

func (p *jsonParser) value() (*JSON, error) {
	switch p.tok {
	case jtObjectStart:
		return p.object()
	case jtArrayStart:
		return p.array()
	case jtString, jtNumber, jtTrue, jtFalse, jtNull:
		return p.scalar()
	}
	return nil, p.unexpected(`Expected JSON value, but found "%s".`)
}

func (p *jsonParser) scalar() (*JSON, error) {
	tok, text, str := p.tok, p.s[p.start:p.end], p.str
	if err := p.next(); err != nil {
		return nil, err
	}
	var v *JSON
	switch tok {
	case jtString:
		v = &JSON{Kind: JSONString, Str: str}
	case jtNumber:
		d, err := parseNumeric(text)
		if err != nil && p.jsonb {
			return nil, err
		}
		v = &JSON{Kind: JSONNumber, Num: d}
	case jtNull:
		if p.jsonb {
			return JSONNullValue, nil
		}
		v = &JSON{Kind: JSONNull}
	default:
		if p.jsonb {
			return JSONBoolean(tok == jtTrue), nil
		}
		v = &JSON{Kind: JSONBool, Bool: tok == jtTrue}
	}
	if !p.jsonb {
		v.Raw = text
	}
	return v, nil
}

func (p *jsonParser) enter() error {
	if p.depth++; p.depth > maxJSONDepth {
		return pgerr.New(codeStackDepthExceeded, "stack depth limit exceeded")
	}
	return p.next()
}

func (p *jsonParser) array() (*JSON, error) {
	start := p.start
	if err := p.enter(); err != nil {
		return nil, err
	}
	v := &JSON{Kind: JSONArray}
	if p.tok != jtArrayEnd {
		for {
			e, err := p.value()
			if err != nil {
				return nil, err
			}
			v.Elems = append(v.Elems, e)
			if p.tok != jtComma {
				break
			}
			if err := p.next(); err != nil {
				return nil, err
			}
		}
	}
	if p.tok != jtArrayEnd {
		return nil, p.unexpected(`Expected "," or "]", but found "%s".`)
	}
	return v, p.leave(v, start)
}

func (p *jsonParser) object() (*JSON, error) {
	start := p.start
	if err := p.enter(); err != nil {
		return nil, err
	}
	v := &JSON{Kind: JSONObject}
	switch p.tok {
	case jtString:
		for {
			if p.tok != jtString {
				return nil, p.unexpected(`Expected string, but found "%s".`)
			}
			key := p.str
			if err := p.next(); err != nil {
				return nil, err
			}
			if p.tok != jtColon {
				return nil, p.unexpected(`Expected ":", but found "%s".`)
			}
			if err := p.next(); err != nil {
				return nil, err
			}
			val, err := p.value()
			if err != nil {
				return nil, err
			}
			v.Keys = append(v.Keys, key)
			v.Vals = append(v.Vals, val)
			if p.tok != jtComma {
				break
			}
			if err := p.next(); err != nil {
				return nil, err
			}
		}
	case jtObjectEnd:
	default:
		return nil, p.unexpected(`Expected string or "}", but found "%s".`)
	}
	if p.tok != jtObjectEnd {
		return nil, p.unexpected(`Expected "," or "}", but found "%s".`)
	}
	if p.jsonb {
		v = jsonbObject(v.Keys, v.Vals)
	}
	return v, p.leave(v, start)
}

// leave consumes the closing bracket of v, which opened at start.
func (p *jsonParser) leave(v *JSON, start int) error {
	if !p.jsonb {
		v.Raw = p.s[start:p.end]
	}
	p.depth--
	return p.next()
}

// unexpected reports the current token where the grammar wanted something
// else; detail has one %s for the token's text.
func (p *jsonParser) unexpected(detail string) error {
	if p.tok == jtEnd {
		return errJSONSyntax("The input string ended unexpectedly.")
	}
	return errJSONSyntax(detail, p.s[p.start:p.end])
}

func errJSONSyntax(detail string, args ...any) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type json").WithDetail(detail, args...)
}

// next lexes the token after the current one.
func (p *jsonParser) next() error {
	s, i := p.s, p.end
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	p.start, p.end = i, i+1
	if i == len(s) {
		p.tok, p.end = jtEnd, i
		return nil
	}
	switch c := s[i]; c {
	case '{':
		p.tok = jtObjectStart
	case '}':
		p.tok = jtObjectEnd
	case '[':
		p.tok = jtArrayStart
	case ']':
		p.tok = jtArrayEnd
	case ',':
		p.tok = jtComma
	case ':':
		p.tok = jtColon
	case '"':
		p.tok = jtString
		return p.lexString()
	default:
		if c == '-' || isDigit(c) {
			p.tok = jtNumber
			return p.lexNumber()
		}
		return p.lexWord()
	}
	return nil
}

// isJSONWordByte says whether c continues a word for error reports: a bad
// token is reported up to the next byte that is not one, as PostgreSQL does.
func isJSONWordByte(c byte) bool {
	return isDigit(c) || isAlpha(c) || c == '_' || c >= 0x80
}

func (p *jsonParser) lexWord() error {
	j := p.start
	for j < len(p.s) && isJSONWordByte(p.s[j]) {
		j++
	}
	if j > p.start {
		p.end = j
	}
	switch p.s[p.start:p.end] {
	case "true":
		p.tok = jtTrue
	case "false":
		p.tok = jtFalse
	case "null":
		p.tok = jtNull
	default:
		return p.invalidToken()
	}
	return nil
}

func (p *jsonParser) invalidToken() error {
	return errJSONSyntax(`Token "%s" is invalid.`, p.s[p.start:p.end])
}

// lexNumber lexes RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// A malformed number runs on over the word bytes after it, for the report.
func (p *jsonParser) lexNumber() error {
	s, j := p.s, p.start
	digits := func() bool {
		if j == len(s) || !isDigit(s[j]) {
			return false
		}
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		return true
	}
	if s[j] == '-' {
		j++
	}
	ok := true
	if j < len(s) && s[j] == '0' {
		j++
	} else {
		ok = digits()
	}
	if j < len(s) && s[j] == '.' {
		j++
		ok = digits() && ok
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		ok = digits() && ok
	}
	for ; j < len(s) && isJSONWordByte(s[j]); j++ {
		ok = false
	}
	p.end = j
	if !ok {
		return p.invalidToken()
	}
	return nil
}

// lexString lexes the string whose opening quote is at p.start, setting
// p.str to its value.
func (p *jsonParser) lexString() error {
	s, j := p.s, p.start+1
	u := jsonUnescaper{hi: -1, strict: p.jsonb}
	plain := j // start of the source run not yet copied to u.b; moved only by escapes
	for {
		if j >= len(s) {
			p.end = len(s)
			return p.invalidToken()
		}
		c := s[j]
		switch {
		case c == '"':
			if err := u.flushHigh(); err != nil {
				return err
			}
			p.end = j + 1
			if plain == p.start+1 {
				p.str = s[p.start+1 : j]
			} else {
				p.str = string(append(u.b, s[plain:j]...))
			}
			return nil
		case c < 0x20:
			return errJSONSyntax("Character with value 0x%02x must be escaped.", c)
		case c != '\\':
			// An unpaired high surrogate ends here; an escape has just
			// moved plain to j, so nothing before it is left to copy.
			if err := u.flushHigh(); err != nil {
				return err
			}
			j++
			continue
		}
		u.b = append(u.b, s[plain:j]...)
		j++
		if j >= len(s) {
			p.end = len(s)
			return p.invalidToken()
		}
		if s[j] != 'u' {
			if err := u.flushHigh(); err != nil {
				return err
			}
		}
		switch s[j] {
		case '"', '\\', '/':
			u.b = append(u.b, s[j])
		case 'b':
			u.b = append(u.b, '\b')
		case 'f':
			u.b = append(u.b, '\f')
		case 'n':
			u.b = append(u.b, '\n')
		case 'r':
			u.b = append(u.b, '\r')
		case 't':
			u.b = append(u.b, '\t')
		case 'u':
			var r rune
			for k := 1; k <= 4; k++ {
				if j+k >= len(s) {
					p.end = len(s)
					return p.invalidToken()
				}
				h, ok := unhex(s[j+k])
				if !ok {
					return errJSONSyntax(`"\u" must be followed by four hexadecimal digits.`)
				}
				r = r<<4 | rune(h)
			}
			j += 4
			if err := u.escaped(r); err != nil {
				return err
			}
		default:
			_, n := utf8.DecodeRuneInString(s[j:])
			return errJSONSyntax(`Escape sequence "\%s" is invalid.`, s[j:j+n])
		}
		j++
		plain = j
	}
}

// jsonUnescaper builds the value of a string with escapes. Escapes that
// have no text (\u0000, an unpaired surrogate) are errors when strict, as
// jsonb_in has them; json_in accepts them, and the value then holds U+0000
// and U+FFFD in their place.
type jsonUnescaper struct {
	b      []byte
	hi     rune // a high surrogate waiting for its low half, or -1
	strict bool
}

// escaped adds the code point of a \u escape.
func (u *jsonUnescaper) escaped(r rune) error {
	switch {
	case r >= 0xd800 && r <= 0xdbff:
		pending := u.hi >= 0
		u.hi = r
		if pending {
			return u.untranslatable(errJSONSyntax("Unicode high surrogate must not follow a high surrogate."))
		}
		return nil
	case r >= 0xdc00 && r <= 0xdfff:
		if u.hi < 0 {
			return u.untranslatable(errJSONSyntax("Unicode low surrogate must follow a high surrogate."))
		}
		r = 0x10000 + (u.hi-0xd800)<<10 + (r - 0xdc00)
		u.hi = -1
	}
	if err := u.flushHigh(); err != nil {
		return err
	}
	if r == 0 {
		if u.strict {
			return pgerr.New(codeUntranslatableCharacter, "unsupported Unicode escape sequence").
				WithDetail("%s", `\u0000 cannot be converted to text.`)
		}
		u.b = append(u.b, 0)
		return nil
	}
	u.b = utf8.AppendRune(u.b, r)
	return nil
}

// flushHigh ends a pending high surrogate that no low one followed.
func (u *jsonUnescaper) flushHigh() error {
	if u.hi < 0 {
		return nil
	}
	u.hi = -1
	return u.untranslatable(errJSONSyntax("Unicode low surrogate must follow a high surrogate."))
}

func (u *jsonUnescaper) untranslatable(err error) error {
	if u.strict {
		return err
	}
	u.b = utf8.AppendRune(u.b, utf8.RuneError)
	return nil
}

// CheckEscapes returns the error PostgreSQL raises when an operation needs
// the text of a json value's strings (->, ->>, #>, json_each, a cast to
// jsonb ...) and one of them, or an object key, holds a \u escape without
// text: \u0000 or an unpaired surrogate. json_in, json output, json_typeof
// and json_array_length don't need the text, and don't fail. Values not
// made by ParseJSON always pass.
func (j *JSON) CheckEscapes() error {
	if j.Raw == "" {
		for _, e := range j.Elems {
			if err := e.CheckEscapes(); err != nil {
				return err
			}
		}
		for _, v := range j.Vals {
			if err := v.CheckEscapes(); err != nil {
				return err
			}
		}
		return nil
	}
	// Raw is valid json, so outside strings there are no quotes.
	p := jsonParser{s: j.Raw, jsonb: true}
	for {
		i := strings.IndexByte(j.Raw[p.end:], '"')
		if i < 0 {
			return nil
		}
		p.start = p.end + i
		if err := p.lexString(); err != nil {
			return err
		}
	}
}

// jsonbObject makes an object in jsonb's normal form from pairs in any
// order, the last of duplicate keys winning.
func jsonbObject(keys []string, vals []*JSON) *JSON {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	// Stable, so duplicates stay in written order and the last one wins.
	slices.SortStableFunc(order, func(a, b int) int { return compareJSONBKeys(keys[a], keys[b]) })
	v := &JSON{Kind: JSONObject, Keys: make([]string, 0, len(keys)), Vals: make([]*JSON, 0, len(keys))}
	for n, i := range order {
		if n+1 < len(order) && keys[order[n+1]] == keys[i] {
			continue
		}
		v.Keys = append(v.Keys, keys[i])
		v.Vals = append(v.Vals, vals[i])
	}
	return v
}

// compareJSONBKeys is jsonb's storage order for keys: shorter first, then
// bytewise.
func compareJSONBKeys(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// NormalizeJSONB returns j in jsonb's normal form, as the json to jsonb
// cast and the jsonb builder functions make it. Parts parsed as json are
// parsed again as jsonb, as PostgreSQL does, so the errors are jsonb_in's:
// escapes without text, numbers beyond numeric's range.
func NormalizeJSONB(j *JSON) (*JSON, error) {
	if j.Raw != "" {
		return ParseJSONB(j.Raw)
	}
	switch j.Kind {
	case JSONNumber:
		return JSONNum(j.Num), nil
	case JSONArray:
		v := &JSON{Kind: JSONArray, Elems: make([]*JSON, len(j.Elems))}
		for i, e := range j.Elems {
			n, err := NormalizeJSONB(e)
			if err != nil {
				return nil, err
			}
			v.Elems[i] = n
		}
		return v, nil
	case JSONObject:
		vals := make([]*JSON, len(j.Vals))
		for i, e := range j.Vals {
			n, err := NormalizeJSONB(e)
			if err != nil {
				return nil, err
			}
			vals[i] = n
		}
		return jsonbObject(j.Keys, vals), nil
	}
	return j, nil
}

// AppendJSONB appends jsonb_out's text of j, ignoring Raw:
// {"a": 1, "b": [1, 2]}.
func (j *JSON) AppendJSONB(buf []byte) []byte { return appendJSON(buf, j, ": ", false) }

// AppendJSONText appends json_out's text of j. A node with Raw prints it
// unchanged. A node without, built in SQL, prints as json_build_object and
// json_build_array do: {"a" : 1, "b" : [1, 2]}, scalars as jsonb does.
// Text in any other layout (json_object_agg's, row_to_json's, a jsonb
// value's inside a json one) is kept by parsing it with ParseJSON, or by
// setting Raw on a node being built.
func (j *JSON) AppendJSONText(buf []byte) []byte { return appendJSON(buf, j, " : ", true) }

func appendJSON(buf []byte, j *JSON, colon string, raw bool) []byte {
	if raw && j.Raw != "" {
		return append(buf, j.Raw...)
	}
	switch j.Kind {
	case JSONNull:
		return append(buf, "null"...)
	case JSONBool:
		return strconv.AppendBool(buf, j.Bool)
	case JSONNumber:
		return appendNumeric(buf, j.Num)
	case JSONString:
		return appendJSONString(buf, j.Str)
	case JSONArray:
		buf = append(buf, '[')
		for i, e := range j.Elems {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJSON(buf, e, colon, raw)
		}
		return append(buf, ']')
	}
	buf = append(buf, '{')
	for i, k := range j.Keys {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, colon...)
		buf = appendJSON(buf, j.Vals[i], colon, raw)
	}
	return append(buf, '}')
}

// appendJSONString quotes s as PostgreSQL's escape_json does: only the
// quote, the backslash and control characters are escaped.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			if c < 0x20 {
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				buf = append(buf, c)
			}
		}
	}
	return append(buf, '"')
}

// AppendPretty appends jsonb_pretty's text of j: four spaces of indent a
// level, every element and pair on a line of its own, and an empty
// container's brackets on two lines.
func (j *JSON) AppendPretty(buf []byte) []byte { return appendPretty(buf, j, 0) }

func appendPretty(buf []byte, j *JSON, level int) []byte {
	newline := func(buf []byte, level int) []byte {
		buf = append(buf, '\n')
		for range level {
			buf = append(buf, "    "...)
		}
		return buf
	}
	switch j.Kind {
	case JSONArray:
		buf = append(buf, '[')
		for i, e := range j.Elems {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendPretty(newline(buf, level+1), e, level+1)
		}
		return append(newline(buf, level), ']')
	case JSONObject:
		buf = append(buf, '{')
		for i, k := range j.Keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(appendJSONString(newline(buf, level+1), k), ": "...)
			buf = appendPretty(buf, j.Vals[i], level+1)
		}
		return append(newline(buf, level), '}')
	}
	return j.AppendJSONB(buf)
}

// CompareJSONB orders two jsonb values as PostgreSQL's jsonb btree does:
// by kind (null < string < number < boolean < array < object); arrays by
// length, then element by element; objects by number of pairs, then pair
// by pair in storage order, key before value; strings bytewise, numbers
// by value (1.0 = 1), false before true. A top-level scalar is stored as a
// one-element array, and compares by length with a top-level array before
// anything else, so [] sorts before every scalar, including null.
func CompareJSONB(a, b *JSON) int {
	switch {
	case isEmptyJSONArray(a) && isJSONScalar(b):
		return -1
	case isJSONScalar(a) && isEmptyJSONArray(b):
		return 1
	}
	return compareJSONB(a, b)
}

func isEmptyJSONArray(j *JSON) bool { return j.Kind == JSONArray && len(j.Elems) == 0 }

func isJSONScalar(j *JSON) bool { return j.Kind != JSONArray && j.Kind != JSONObject }

func compareJSONB(a, b *JSON) int {
	if a.Kind != b.Kind {
		return cmp.Compare(a.Kind, b.Kind)
	}
	switch a.Kind {
	case JSONString:
		return strings.Compare(a.Str, b.Str)
	case JSONNumber:
		return compareNumeric(a.Num, b.Num)
	case JSONBool:
		return Compare(Bool, a.Bool, b.Bool)
	case JSONArray:
		if c := cmp.Compare(len(a.Elems), len(b.Elems)); c != 0 {
			return c
		}
		for i, e := range a.Elems {
			if c := compareJSONB(e, b.Elems[i]); c != 0 {
				return c
			}
		}
	case JSONObject:
		if c := cmp.Compare(len(a.Keys), len(b.Keys)); c != 0 {
			return c
		}
		for i, k := range a.Keys {
			if c := strings.Compare(k, b.Keys[i]); c != 0 {
				return c
			}
			if c := compareJSONB(a.Vals[i], b.Vals[i]); c != 0 {
				return c
			}
		}
	}
	return 0
}

// Contains is jsonb's @>: an object contains an object whose every key it
// has, with a value containing that key's value; an array contains an
// array each of whose elements is equal to (scalars) or contained by
// (containers) one of its own, ignoring order and repeats; scalars contain
// equal scalars. At the top level only, an array also contains a scalar
// that is one of its elements. Both values are in jsonb's normal form.
func (j *JSON) Contains(b *JSON) bool {
	switch aScalar, bScalar := isJSONScalar(j), isJSONScalar(b); {
	case aScalar && bScalar:
		return compareJSONB(j, b) == 0
	case aScalar:
		return false
	case bScalar:
		return j.Kind == JSONArray && slices.ContainsFunc(j.Elems, func(e *JSON) bool { return compareJSONB(e, b) == 0 })
	}
	return containsJSONB(j, b)
}

// containsJSONB is Contains for two containers below the top level.
func containsJSONB(a, b *JSON) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == JSONObject {
		for i, k := range b.Keys {
			n, ok := slices.BinarySearchFunc(a.Keys, k, compareJSONBKeys)
			if !ok {
				return false
			}
			x, y := a.Vals[n], b.Vals[i]
			if isJSONScalar(x) || isJSONScalar(y) {
				if compareJSONB(x, y) != 0 {
					return false
				}
			} else if !containsJSONB(x, y) {
				return false
			}
		}
		return true
	}
	for _, y := range b.Elems {
		found := slices.ContainsFunc(a.Elems, func(x *JSON) bool {
			if isJSONScalar(y) {
				return compareJSONB(x, y) == 0
			}
			return !isJSONScalar(x) && containsJSONB(x, y)
		})
		if !found {
			return false
		}
	}
	return true
}

// Field is j -> key: the member of an object, or nil. Of duplicate keys,
// which a json object may have, the last one counts, as in PostgreSQL.
func (j *JSON) Field(key string) *JSON {
	if j.Kind != JSONObject {
		return nil
	}
	for i := len(j.Keys) - 1; i >= 0; i-- {
		if j.Keys[i] == key {
			return j.Vals[i]
		}
	}
	return nil
}

// Elem is j -> i: an array's element, counting from the end when i is
// negative (-1 is the last), or nil.
func (j *JSON) Elem(i int) *JSON {
	if j.Kind != JSONArray {
		return nil
	}
	if i < 0 {
		i += len(j.Elems)
	}
	if i < 0 || i >= len(j.Elems) {
		return nil
	}
	return j.Elems[i]
}

// Path is j #> path: each step a key of an object or, for an array, an
// integer as C's strtol reads it (leading whitespace and a sign allowed,
// nothing after the digits, within int32). It returns nil where a step
// finds nothing, and j for an empty path.
func (j *JSON) Path(path []string) *JSON {
	for _, step := range path {
		switch j.Kind {
		case JSONObject:
			j = j.Field(step)
		case JSONArray:
			i, err := strconv.ParseInt(strings.TrimLeftFunc(step, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) }), 10, 32)
			if err != nil {
				return nil
			}
			j = j.Elem(int(i))
		default:
			return nil
		}
		if j == nil {
			return nil
		}
	}
	return j
}

// Text is j's value as ->> gives it: false for JSON null (SQL NULL), a
// string's value, and otherwise the value's text: Raw if it has one, else
// jsonb's. A json value with escapes that have no text must be refused
// first (CheckEscapes); its strings hold U+0000 and U+FFFD for them.
func (j *JSON) Text() (string, bool) {
	switch {
	case j.Kind == JSONNull:
		return "", false
	case j.Kind == JSONString:
		return j.Str, true
	case j.Raw != "":
		// Only a root's Raw has whitespace around it. PostgreSQL drops the
		// trailing part, and the leading part too for a container.
		raw := strings.TrimRight(j.Raw, " \t\n\r")
		if !isJSONScalar(j) {
			raw = strings.TrimLeft(raw, " \t\n\r")
		}
		return raw, true
	}
	return string(j.AppendJSONB(nil)), true
}

// Key encoding of jsonb: a kind byte, in CompareJSONB's order, then
//
//	string   appendKeyBytes of its value
//	number   appendKeyNumeric, so 1.0 and 1 encode alike
//	array    its length as appendKeyInt, then each element
//	object   its number of pairs as appendKeyInt, then each key
//	         (appendKeyBytes) and value, in storage order
//
// Lengths come before contents, as they do in the ordering, and make the
// encoding self-delimiting. A top-level [] is one byte below null.
const (
	keyJSONEmptyTop = iota + 1
	keyJSONNull
	keyJSONString
	keyJSONNumber
	keyJSONFalse
	keyJSONTrue
	keyJSONArray
	keyJSONObject
)

// AppendKeyJSONB appends the order-preserving key encoding of a jsonb value:
// bytes.Compare of two encodings agrees with CompareJSONB, and values it
// calls equal encode identically.
func AppendKeyJSONB(buf []byte, j *JSON) []byte {
	if isEmptyJSONArray(j) {
		return append(buf, keyJSONEmptyTop)
	}
	return appendKeyJSON(buf, j)
}

func appendKeyJSON(buf []byte, j *JSON) []byte {
	switch j.Kind {
	case JSONNull:
		return append(buf, keyJSONNull)
	case JSONString:
		return appendKeyBytes(append(buf, keyJSONString), j.Str)
	case JSONNumber:
		return appendKeyNumeric(append(buf, keyJSONNumber), j.Num)
	case JSONBool:
		if j.Bool {
			return append(buf, keyJSONTrue)
		}
		return append(buf, keyJSONFalse)
	case JSONArray:
		buf = appendKeyInt(append(buf, keyJSONArray), int64(len(j.Elems)))
		for _, e := range j.Elems {
			buf = appendKeyJSON(buf, e)
		}
		return buf
	}
	buf = appendKeyInt(append(buf, keyJSONObject), int64(len(j.Keys)))
	for i, k := range j.Keys {
		buf = appendKeyBytes(buf, k)
		buf = appendKeyJSON(buf, j.Vals[i])
	}
	return buf
}

// DecodeKeyJSONB decodes a value encoded by AppendKeyJSONB, returning it
// and the bytes after it. Numbers come back without trailing zeros.
func DecodeKeyJSONB(b []byte) (*JSON, []byte, error) {
	r := keyReader{b: b}
	j, err := r.jsonb()
	if err != nil {
		return nil, nil, err
	}
	return j, r.b, nil
}

// jsonb reads a jsonb value, so a descending column decodes through the
// reader's mask.
func (r *keyReader) jsonb() (*JSON, error) {
	if len(r.b) > 0 && r.b[0]^r.mask == keyJSONEmptyTop {
		r.b = r.b[1:]
		return &JSON{Kind: JSONArray}, nil
	}
	return r.jsonbValue(0)
}

func (r *keyReader) jsonbValue(depth int) (*JSON, error) {
	kind, ok := r.byte()
	if !ok || depth > maxJSONDepth {
		return nil, errKeyJSONB()
	}
	switch kind {
	case keyJSONNull:
		return JSONNullValue, nil
	case keyJSONFalse, keyJSONTrue:
		return JSONBoolean(kind == keyJSONTrue), nil
	case keyJSONString:
		s, ok := r.bytes()
		if !ok {
			return nil, errKeyJSONB()
		}
		return JSONStr(string(s)), nil
	case keyJSONNumber:
		d, err := r.numeric(Numeric)
		if err != nil {
			return nil, errKeyJSONB()
		}
		return &JSON{Kind: JSONNumber, Num: d.(*apd.Decimal)}, nil
	case keyJSONArray, keyJSONObject:
	default:
		return nil, errKeyJSONB()
	}
	n, ok := r.int()
	// Each element takes a byte at least; a larger count is corrupt, and
	// must not size an allocation.
	if !ok || n < 0 || n > int64(len(r.b)) {
		return nil, errKeyJSONB()
	}
	if kind == keyJSONArray {
		j := &JSON{Kind: JSONArray, Elems: make([]*JSON, n)}
		for i := range j.Elems {
			e, err := r.jsonbValue(depth + 1)
			if err != nil {
				return nil, err
			}
			j.Elems[i] = e
		}
		return j, nil
	}
	j := &JSON{Kind: JSONObject, Keys: make([]string, n), Vals: make([]*JSON, n)}
	for i := range j.Keys {
		k, ok := r.bytes()
		if !ok {
			return nil, errKeyJSONB()
		}
		v, err := r.jsonbValue(depth + 1)
		if err != nil {
			return nil, err
		}
		j.Keys[i], j.Vals[i] = string(k), v
	}
	return j, nil
}

func errKeyJSONB() error {
	return pgerr.New(pgerr.DataCorrupted, "invalid key encoding for type jsonb")
}
