package builtins

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The string functions that take more than text: substring and trimming,
// padding, lengths of text, char(n) and bytea, overlay, translate, the
// quoting functions, format, concat and concat_ws (VARIADIC "any"),
// to_hex, and the encodings, digests and conversions of bytea.

// substrText is substr(s, start [, length]) and substring(s FROM start
// [FOR length]).
func substrText(_ Env, a []any) (any, error) {
	r := []rune(a[0].(string))
	start := a[1].(int64)
	end := int64(len(r)) + 1
	if len(a) == 3 {
		if a[2].(int64) < 0 {
			return nil, pgerr.New(pgerr.SubstringError, "negative substring length not allowed")
		}
		end = start + a[2].(int64)
	}
	start, end = max(start, 1), min(end, int64(len(r))+1)
	if start >= end {
		return "", nil
	}
	return string(r[start-1 : end-1]), nil
}

// substr is substr's overloads, and substring's by position.
func substr() []Overload {
	return []Overload{
		{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Fn: substrText},
		{Args: []types.T{types.Text, types.Int4, types.Int4}, Ret: types.Text, Fn: substrText},
	}
}

// trim is btrim, ltrim or rtrim(s [, characters]): s without the
// characters (by default spaces) at its start, its end or both.
func trim(left, right bool) []Overload {
	fn := func(_ Env, a []any) (any, error) {
		cut := " "
		if len(a) == 2 {
			cut = a[1].(string)
		}
		s := a[0].(string)
		if left {
			s = strings.TrimLeft(s, cut)
		}
		if right {
			s = strings.TrimRight(s, cut)
		}
		return s, nil
	}
	return []Overload{{Args: []types.T{types.Text}, Ret: types.Text, Fn: fn}, {Args: textText, Ret: types.Text, Fn: fn}}
}

// pad is lpad or rpad(s, width [, fill]): s filled to width characters
// with fill (by default spaces), or cut to it.
func pad(left bool) []Overload {
	fn := func(_ Env, a []any) (any, error) {
		r := []rune(a[0].(string))
		width := int(max(a[1].(int64), 0))
		fill := []rune(" ")
		if len(a) == 3 {
			fill = []rune(a[2].(string))
		}
		if len(r) >= width || len(fill) == 0 {
			return string(r[:min(len(r), width)]), nil
		}
		pad := make([]rune, 0, width-len(r))
		for i := 0; len(pad) < width-len(r); i++ {
			pad = append(pad, fill[i%len(fill)])
		}
		if left {
			return string(pad) + string(r), nil
		}
		return string(r) + string(pad), nil
	}
	return []Overload{
		{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Fn: fn},
		{Args: []types.T{types.Text, types.Int4, types.Text}, Ret: types.Text, Fn: fn},
	}
}

// length is length() and char_length() (in characters) or, with octets,
// octet_length() (in bytes), of text and of char(n), whose padding
// length ignores but octet_length counts, and with bytea, of bytea.
func length(octets, bytea bool) []Overload {
	chars := func(_ Env, a []any) (any, error) {
		if octets {
			return int64(len(a[0].(string))), nil
		}
		return int64(utf8.RuneCountInString(a[0].(string))), nil
	}
	bpchar := func(e Env, a []any) (any, error) {
		if octets {
			return chars(e, a)
		}
		return chars(e, []any{strings.TrimRight(a[0].(string), " ")})
	}
	ovs := []Overload{
		{Args: []types.T{types.Text}, Ret: types.Int4, Fn: chars},
		{Args: []types.T{{Oid: types.OidBpchar, Mod: -1}}, Ret: types.Int4, Fn: bpchar},
	}
	if bytea {
		ovs = append(ovs, Overload{Args: []types.T{types.Bytea}, Ret: types.Int4,
			Fn: func(_ Env, a []any) (any, error) { return int64(len(a[0].([]byte))), nil }})
	}
	return ovs
}

// bitLength is bit_length of text or bytea.
func bitLength() []Overload {
	return []Overload{
		{Args: []types.T{types.Text}, Ret: types.Int4, Fn: func(_ Env, a []any) (any, error) { return int64(len(a[0].(string))) * 8, nil }},
		{Args: []types.T{types.Bytea}, Ret: types.Int4, Fn: func(_ Env, a []any) (any, error) { return int64(len(a[0].([]byte))) * 8, nil }},
	}
}

// toHex is to_hex of an int4 or int8: a negative number shows its two's
// complement in the type's width.
func toHex() []Overload {
	return []Overload{
		{Args: []types.T{types.Int4}, Ret: types.Text, Fn: func(_ Env, a []any) (any, error) {
			return strconv.FormatUint(uint64(uint32(a[0].(int64))), 16), nil
		}},
		{Args: []types.T{types.Int8}, Ret: types.Text, Fn: func(_ Env, a []any) (any, error) {
			return strconv.FormatUint(uint64(a[0].(int64)), 16), nil
		}},
	}
}

// translate replaces each character of s found in from by the character
// at the same place in to, or drops it if to is shorter.
func translate(s, from, to string) string {
	f, t := []rune(from), []rune(to)
	var b strings.Builder
	for _, c := range s {
		i := -1
		for k, x := range f {
			if x == c {
				i = k
				break
			}
		}
		switch {
		case i < 0:
			b.WriteRune(c)
		case i < len(t):
			b.WriteRune(t[i])
		}
	}
	return b.String()
}

// overlayOverloads is overlay(s, r, from [, for]) of text or bytea: s
// with the for characters (by default r's length) at from replaced by r.
func overlayOverloads() []Overload {
	text := func(_ Env, a []any) (any, error) {
		s, r := []rune(a[0].(string)), []rune(a[1].(string))
		return overlay(len(s), len(r), a[2:], func(lo, hi int) any {
			return string(s[:lo]) + string(r) + string(s[hi:])
		})
	}
	bytea := func(_ Env, a []any) (any, error) {
		s, r := a[0].([]byte), a[1].([]byte)
		return overlay(len(s), len(r), a[2:], func(lo, hi int) any {
			return append(append(append([]byte(nil), s[:lo]...), r...), s[hi:]...)
		})
	}
	var ovs []Overload
	for _, t := range []types.T{types.Text, types.Bytea} {
		fn := text
		if t.Oid == types.OidBytea {
			fn = bytea
		}
		ovs = append(ovs, Overload{Args: []types.T{t, t, types.Int4}, Ret: t, Fn: fn},
			Overload{Args: []types.T{t, t, types.Int4, types.Int4}, Ret: t, Fn: fn})
	}
	return ovs
}

// overlay computes the span of overlay(s PLACING r FROM from FOR count)
// for s and r of lengths ls and lr, as PostgreSQL's substring-based
// definition does, and joins the pieces with join.
func overlay(ls, lr int, a []any, join func(lo, hi int) any) (any, error) {
	from := a[0].(int64)
	count := int64(lr)
	if len(a) == 2 {
		count = a[1].(int64)
	}
	if from < 1 {
		return nil, pgerr.New(pgerr.SubstringError, "negative substring length not allowed")
	}
	lo := min(from-1, int64(ls))
	hi := min(max(from-1+count, 0), int64(ls))
	return join(int(lo), int(hi)), nil
}

// quoteLiteral is quote_literal, or with nullable quote_nullable (for
// which NULL is the word NULL): the text form of a value as a string
// literal. The anyelement form reads the value in the session's time zone.
func quoteLiteral(nullable bool) []Overload {
	quote := func(t types.T, v any, e Env) any {
		if v == nil {
			return "NULL"
		}
		s, ok := v.(string)
		if !ok {
			s = string(types.AppendText(nil, t, v, e.Location()))
		}
		return parser.QuoteLiteral(s)
	}
	return []Overload{
		{Args: []types.T{types.Text}, Ret: types.Text, CalledOnNull: nullable, Fn: func(e Env, a []any) (any, error) {
			return quote(types.Text, a[0], e), nil
		}},
		{Args: []types.T{AnyElement}, Ret: types.Text, Volatility: Stable, CalledOnNull: nullable,
			Typed: func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
				return func(e Env, a []any) (any, error) { return quote(ts[0], a[0], e), nil }
			}},
	}
}

// textOf is the text form of argument v of type t, in the session's time
// zone; false for NULL.
func textOf(e Env, t types.T, v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", false
	case string:
		return v, true
	default:
		return string(types.AppendText(nil, t, v, e.Location())), true
	}
}

// concat is concat(...), which skips NULL arguments.
func concat() []Overload {
	return []Overload{{Args: []types.T{Any}, Ret: types.Text, Volatility: Stable, Variadic: true, CalledOnNull: true,
		Typed: func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
			return func(e Env, a []any) (any, error) { return joinText(e, ts, a, ""), nil }
		}}}
}

// concatWS is concat_ws(sep, ...), which puts sep between the arguments
// it keeps.
func concatWS() []Overload {
	return []Overload{{Args: []types.T{types.Text, Any}, Ret: types.Text, Volatility: Stable, Variadic: true, CalledOnNull: true,
		Typed: func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
			return func(e Env, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				return joinText(e, ts[1:], a[1:], a[0].(string)), nil
			}
		}}}
}

// joinText joins the text forms of the non-NULL values a, of types ts,
// with sep.
func joinText(e Env, ts []types.T, a []any, sep string) string {
	var sb strings.Builder
	first := true
	for i, v := range a {
		s, ok := textOf(e, ts[i], v)
		if !ok {
			continue
		}
		if !first {
			sb.WriteString(sep)
		}
		first = false
		sb.WriteString(s)
	}
	return sb.String()
}

// format is format(formatstr, args...): %s, %I and %L, with an optional
// position (%2$s), the flag -, and a width, a number or * (the next
// argument) or *n$.
func format() []Overload {
	typed := func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
		return func(e Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			text := func(i int) (string, bool) { return textOf(e, ts[i], a[i]) }
			return formatString(a[0].(string), len(a)-1, text, func(i int) (int64, bool, error) {
				if a[i] == nil {
					return 0, false, nil
				}
				if v, ok := a[i].(int64); ok && ts[i].Oid != types.OidInt8 {
					return v, true, nil
				}
				s, _ := text(i)
				v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
				if err != nil {
					return 0, false, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type integer: \"%s\"", s)
				}
				return v, true, nil
			})
		}
	}
	return []Overload{
		{Args: []types.T{types.Text}, Ret: types.Text, Volatility: Stable, CalledOnNull: true, Typed: typed},
		{Args: []types.T{types.Text, Any}, Ret: types.Text, Volatility: Stable, Variadic: true, CalledOnNull: true, Typed: typed},
	}
}

func formatErr(msg string) *pgerr.Error {
	return pgerr.New(pgerr.InvalidParameterValue, "%s", msg)
}

// formatString is format's work: nargs arguments, numbered from 1, read
// as text by arg (false for NULL) or, for a width, as an integer by width.
func formatString(f string, nargs int, arg func(int) (string, bool), width func(int) (int64, bool, error)) (any, error) {
	var b strings.Builder
	next := 1 // the argument an unnumbered specifier takes
	unterminated := func() error {
		return formatErr("unterminated format() type specifier").WithHint("For a single \"%%\" use \"%%%%\".")
	}
	// number reads digits at f[i:], and whether a $ follows them.
	number := func(i int) (int, int, bool) {
		j := i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if j == i {
			return 0, i, false
		}
		v, _ := strconv.Atoi(f[i:min(j, i+9)])
		if j < len(f) && f[j] == '$' {
			return v, j + 1, true
		}
		return v, j, false
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return nil, unterminated()
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		pos := 0
		if v, j, dollar := number(i); dollar {
			if v == 0 {
				return nil, formatErr("format specifies argument 0, but arguments are numbered from 1")
			}
			pos, i = v, j
		}
		left := false
		for i < len(f) && f[i] == '-' {
			left = true
			i++
		}
		w := 0
		switch {
		case i < len(f) && f[i] == '*':
			i++
			k := next
			if v, j, dollar := number(i); dollar {
				if v == 0 {
					return nil, formatErr("format specifies argument 0, but arguments are numbered from 1")
				}
				k, i = v, j
			} else if j != i {
				return nil, unterminated()
			}
			if k > nargs {
				return nil, formatErr("too few arguments for format()")
			}
			next = k + 1
			v, ok, err := width(k)
			if err != nil {
				return nil, err
			}
			if ok {
				if v < 0 {
					left, v = true, -v
				}
				w = int(v)
			}
		default:
			if v, j, dollar := number(i); dollar {
				return nil, unterminated()
			} else {
				w, i = v, j
			}
		}
		if i >= len(f) {
			return nil, unterminated()
		}
		if pos == 0 {
			pos = next
		}
		typ := f[i]
		if typ != 's' && typ != 'I' && typ != 'L' {
			r, _ := utf8.DecodeRuneInString(f[i:])
			return nil, formatErr("unrecognized format() type specifier \"" + string(r) + "\"").WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if pos > nargs {
			return nil, formatErr("too few arguments for format()")
		}
		next = pos + 1
		s, ok := arg(pos)
		switch typ {
		case 'I':
			if !ok {
				return nil, pgerr.New(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = parser.QuoteIdent(s)
		case 'L':
			if ok {
				s = parser.QuoteLiteral(s)
			} else {
				s = "NULL"
			}
		}
		pad := strings.Repeat(" ", max(w-utf8.RuneCountInString(s), 0))
		if left {
			b.WriteString(s + pad)
		} else {
			b.WriteString(pad + s)
		}
	}
	return b.String(), nil
}

// digest is a hash function of bytea.
func digest(h func([]byte) []byte) []Overload {
	return []Overload{{Args: []types.T{types.Bytea}, Ret: types.Bytea, Fn: func(_ Env, a []any) (any, error) {
		return h(a[0].([]byte)), nil
	}}}
}

func sha224(b []byte) []byte    { h := sha256.Sum224(b); return h[:] }
func sha256Sum(b []byte) []byte { h := sha256.Sum256(b); return h[:] }
func sha384(b []byte) []byte    { h := sha512.Sum384(b); return h[:] }
func sha512Sum(b []byte) []byte { h := sha512.Sum512(b); return h[:] }

func unknownEncoding(name string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", name)
}

// likeEscape is like_escape(pattern, escape): pattern rewritten to escape
// with a backslash instead. PostgreSQL stores LIKE p ESCAPE e as
// ~~ like_escape(p, e), and pg_dump writes it so. An empty escape makes
// every backslash a literal one.
func likeEscape(_ Env, a []any) (any, error) {
	pattern, escape := a[0].(string), a[1].(string)
	if escape == `\` {
		return pattern, nil
	}
	var esc rune = -1
	if escape != "" {
		r, size := utf8.DecodeRuneInString(escape)
		if size != len(escape) {
			return nil, pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
				WithHint("Escape string must be empty or one character.")
		}
		esc = r
	}
	var b strings.Builder
	afterEscape := false
	for _, r := range pattern {
		switch {
		case r == esc && !afterEscape:
			b.WriteByte('\\')
			afterEscape = true
		case r == '\\':
			// A literal backslash; after the escape it is escaped already.
			b.WriteByte('\\')
			if !afterEscape {
				b.WriteByte('\\')
			}
			afterEscape = false
		default:
			b.WriteRune(r)
			afterEscape = false
		}
	}
	return b.String(), nil
}

// encodeBytes is encode(bytea, format).
func encodeBytes(_ Env, a []any) (any, error) {
	b := a[0].([]byte)
	switch strings.ToLower(a[1].(string)) {
	case "hex":
		return hex.EncodeToString(b), nil
	case "base64":
		// PostgreSQL breaks base64 output into lines of 76 characters.
		s := base64.StdEncoding.EncodeToString(b)
		var out strings.Builder
		for len(s) > 76 {
			out.WriteString(s[:76])
			out.WriteByte('\n')
			s = s[76:]
		}
		out.WriteString(s)
		return out.String(), nil
	case "escape":
		var out strings.Builder
		for _, c := range b {
			switch {
			case c == '\\':
				out.WriteString(`\\`)
			case c == 0 || c >= 0x80:
				out.WriteString(`\` + strconv.FormatInt(int64(c)+01000, 8)[1:])
			default:
				out.WriteByte(c)
			}
		}
		return out.String(), nil
	}
	return nil, unknownEncoding(a[1].(string))
}

// decodeText is decode(text, format).
func decodeText(_ Env, a []any) (any, error) {
	s := a[0].(string)
	switch strings.ToLower(a[1].(string)) {
	case "hex":
		return types.ParseText(types.Bytea, `\x`+s, nil)
	case "base64":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		for _, c := range clean {
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid symbol \"%c\" found while decoding base64 sequence", c)
			}
		}
		b, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid base64 end sequence").
				WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
		}
		return b, nil
	case "escape":
		if strings.HasPrefix(s, `\x`) {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
		}
		return types.ParseText(types.Bytea, s, nil)
	}
	return nil, unknownEncoding(a[1].(string))
}

// isUTF8Name reports whether an encoding name means UTF8, which is the
// only encoding epochdb converts; it fails for a name that is no encoding.
func isUTF8Name(name, which string) (bool, error) {
	norm := strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, name)
	switch norm {
	case "utf8", "unicode":
		return true, nil
	case "sqlascii", "latin1", "latin2", "latin3", "latin4", "latin5", "latin6", "latin7", "latin8", "latin9", "latin10",
		"win1250", "win1251", "win1252", "win1253", "win1254", "win1255", "win1256", "win1257", "win1258", "win866", "win874",
		"koi8r", "koi8u", "eucjp", "euccn", "euckr", "euctw", "eucjis2004", "sjis", "big5", "gbk", "uhc", "gb18030", "johab",
		"iso88591", "iso88595", "iso88596", "iso88597", "iso88598", "mulecinternal", "shiftjis2004":
		return false, pgerr.New(pgerr.FeatureNotSupported, "conversion to or from encoding \"%s\" is not supported", name)
	}
	return false, pgerr.New(pgerr.InvalidParameterValue, "invalid %s encoding name \"%s\"", which, name)
}

func convertTo(_ Env, a []any) (any, error) {
	if _, err := isUTF8Name(a[1].(string), "destination"); err != nil {
		return nil, err
	}
	return []byte(a[0].(string)), nil
}

func convertFrom(_ Env, a []any) (any, error) {
	if _, err := isUTF8Name(a[1].(string), "source"); err != nil {
		return nil, err
	}
	b := a[0].([]byte)
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w <= 1 || r == 0 {
			return nil, invalidUTF8(b[i:])
		}
		i += w
	}
	return string(b), nil
}

// invalidUTF8 is PostgreSQL's report of a bad byte sequence: the bytes of
// the character that should have been there.
func invalidUTF8(b []byte) error {
	n := 1
	switch c := b[0]; {
	case c >= 0xc0 && c < 0xe0:
		n = 2
	case c >= 0xe0 && c < 0xf0:
		n = 3
	case c >= 0xf0:
		n = 4
	}
	n = min(n, len(b))
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "0x" + hex.EncodeToString(b[i:i+1])
	}
	return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", strings.Join(parts, " "))
}
