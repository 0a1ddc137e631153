package types

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// The text format is PostgreSQL's, with the settings a fresh PostgreSQL 15
// session has: DateStyle ISO, MDY; IntervalStyle postgres; bytea_output hex;
// extra_float_digits 1 (shortest exact floats). Clients parse these strings,
// so they must match byte for byte.

// maxNameLen is NAMEDATALEN-1: longer names are truncated, not rejected.
const maxNameLen = 63

// ParseText parses s with t's input function and applies t's modifier, as a
// typed literal or a text-format parameter is read. loc is the session's
// TimeZone, for timestamptz values that do not give an offset.
func ParseText(t T, s string, loc *time.Location) (any, error) {
	v, err := parseText(t, s, loc)
	if err != nil || HasEnum(t) {
		return v, err // unresolved: the SQL layer resolves and checks it
	}
	return Coerce(t, v)
}

func parseText(t T, s string, loc *time.Location) (any, error) {
	if isVector(t.Oid) {
		return parseVector(t, s)
	}
	if elem, ok := t.Elem(); ok {
		return parseArray(elem, s, loc)
	}
	if IsEnum(t.Oid) {
		return UnresolvedEnum(s), nil
	}
	switch t.Oid {
	case OidBool:
		return parseBool(s)
	case OidInt2:
		return parseInt(s, 16, "smallint")
	case OidInt4:
		return parseInt(s, 32, "integer")
	case OidInt8:
		return parseInt(s, 64, "bigint")
	case OidOid:
		return parseOid(s)
	case OidFloat4:
		return parseFloat(s, 32)
	case OidFloat8:
		return parseFloat(s, 64)
	case OidNumeric:
		return parseNumeric(s)
	case OidText, OidVarchar, OidBpchar, OidCitext, OidUnknown:
		return s, nil
	case OidName:
		return truncateName(s), nil
	case OidChar:
		return parseChar(s), nil
	case OidBytea:
		return parseBytea(s)
	case OidDate:
		return parseDate(s, loc)
	case OidTime:
		return parseTime(s, loc)
	case OidTimestamp:
		return parseTimestamp(s, false, loc)
	case OidTimestamptz:
		return parseTimestamp(s, true, loc)
	case OidInterval:
		return parseInterval(s, intervalRange(t))
	case OidUUID:
		return parseUUID(s)
	case OidJSON:
		return ParseJSON(s)
	case OidJSONB:
		return ParseJSONB(s)
	case OidInet, OidCidr:
		return parseInet(s, t.Oid == OidCidr)
	case OidMacaddr:
		return parseMacaddr(s)
	case OidMacaddr8:
		return parseMacaddr8(s)
	case OidRegproc, OidRegprocedure, OidRegclass, OidRegtype, OidRegnamespace, OidRegrole:
		return parseReg(t, s)
	}
	return nil, errNoIO(t)
}

func errNoIO(t T) error {
	return pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported", t)
}

// AppendText appends the text form of the non-NULL datum v of type t. loc is
// the session's TimeZone, in which timestamptz values are shown.
func AppendText(buf []byte, t T, v any, loc *time.Location) []byte {
	if isVector(t.Oid) {
		return appendVectorText(buf, v.([]any))
	}
	if elem, ok := t.Elem(); ok {
		return appendArrayText(buf, elem, v.([]any), loc)
	}
	if IsEnum(t.Oid) {
		return append(buf, v.(Enum).Label...)
	}
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case OidInt2, OidInt4, OidInt8, OidOid:
		return strconv.AppendInt(buf, v.(int64), 10)
	case OidFloat4:
		return appendFloat(buf, v.(float64), 32)
	case OidFloat8:
		return appendFloat(buf, v.(float64), 64)
	case OidNumeric:
		return appendNumeric(buf, v.(*apd.Decimal))
	case OidChar:
		return appendChar(buf, v.(string))
	case OidBytea:
		buf = append(buf, `\x`...)
		return hex.AppendEncode(buf, v.([]byte))
	case OidDate:
		return appendDate(buf, v.(time.Time))
	case OidTime:
		return appendTime(buf, v.(int64))
	case OidTimestamp:
		return appendTimestamp(buf, v.(time.Time), nil)
	case OidTimestamptz:
		if loc == nil {
			loc = time.UTC
		}
		return appendTimestamp(buf, v.(time.Time), loc)
	case OidInterval:
		return appendInterval(buf, v.(Interval))
	case OidUUID:
		return appendUUID(buf, v.(UUID))
	case OidJSON:
		return v.(*JSON).AppendJSONText(buf)
	case OidJSONB:
		return v.(*JSON).AppendJSONB(buf)
	case OidInet, OidCidr:
		return AppendInet(buf, v.(Inet), t.Oid == OidCidr)
	case OidMacaddr, OidMacaddr8:
		return appendMac(buf, macBytes(v))
	case OidRegproc, OidRegprocedure, OidRegclass, OidRegtype, OidRegnamespace, OidRegrole:
		return appendRegText(buf, v.(Reg))
	case OidRecord:
		fields, _ := t.Fields()
		return appendRecordText(buf, fields, v.([]any), loc)
	}
	return append(buf, v.(string)...)
}

// parseBool is boolin: any unique prefix of true, false, yes, no, on, off,
// and 1 or 0, ignoring case and surrounding space.
func parseBool(s string) (any, error) {
	str := strings.ToLower(strings.TrimSpace(s))
	if str != "" {
		prefix := func(word string) bool { return strings.HasPrefix(word, str) }
		switch str[0] {
		case 't':
			if prefix("true") {
				return true, nil
			}
		case 'f':
			if prefix("false") {
				return false, nil
			}
		case 'y':
			if prefix("yes") {
				return true, nil
			}
		case 'n':
			if prefix("no") {
				return false, nil
			}
		case 'o':
			// "o" alone is ambiguous.
			if len(str) >= 2 && prefix("on") {
				return true, nil
			}
			if len(str) >= 2 && prefix("off") {
				return false, nil
			}
		case '1':
			if str == "1" {
				return true, nil
			}
		case '0':
			if str == "0" {
				return false, nil
			}
		}
	}
	return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type boolean: "%s"`, s)
}

// parseInt is int2in, int4in and int8in: an optional sign and decimal digits,
// with surrounding space.
func parseInt(s string, bits int, typ string) (any, error) {
	str := strings.TrimSpace(s)
	digits := str
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" || !allDigits(digits) {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type %s: "%s"`, typ, s)
	}
	n, err := strconv.ParseInt(str, 10, bits)
	if err != nil {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, `value "%s" is out of range for type %s`, s, typ)
	}
	return n, nil
}

// parseOid is oidin, which reads an unsigned long and so also accepts a
// negative number, wrapping it into the unsigned range.
func parseOid(s string) (any, error) {
	str := strings.TrimSpace(s)
	digits := str
	neg := false
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	if digits == "" || !allDigits(digits) {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type oid: "%s"`, s)
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	// Like strtoul, a negative number is accepted if it fits an int32.
	if err != nil || neg && n > 1<<31 {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, `value "%s" is out of range for type oid`, s)
	}
	if neg {
		n = uint64(uint32(-n))
	}
	return int64(n), nil
}

// parseFloat is float4in and float8in. Unlike strconv.ParseFloat it refuses
// values that underflow to zero, and it spells the special values the way
// strtod does.
func parseFloat(s string, bits int) (any, error) {
	str := strings.TrimSpace(s)
	typ := "double precision"
	if bits == 32 {
		typ = "real"
	}
	switch strings.ToLower(str) {
	case "nan", "+nan", "-nan":
		return pgNaN, nil
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	num := str
	switch {
	case isHexFloat(str):
		// strtod reads C99 hex floats; Go insists on the binary exponent.
		if !strings.ContainsAny(str, "pP") {
			num += "p0"
		}
	case !isDecimalFloat(str):
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type %s: "%s"`, typ, s)
	}
	f, err := strconv.ParseFloat(num, bits)
	if err != nil || (f == 0 && hasNonzeroDigit(str)) {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, `"%s" is out of range for type %s`, s, typ)
	}
	return f, nil
}

// pgNaN is the NaN that C's strtod and PostgreSQL produce; Go's math.NaN
// has a different payload, which would show in the binary format.
var pgNaN = math.Float64frombits(0x7ff8000000000000)

// isDecimalFloat reports whether s is [sign] digits [. digits] [e [sign]
// digits], with at least one digit in the mantissa. It keeps out the hex
// floats and underscores strconv would accept.
func isDecimalFloat(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	mant := s
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		if _, ok := parseExponent(s[i+1:]); !ok {
			return false
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	return intPart+frac != "" && allDigits(intPart) && allDigits(frac)
}

// isHexFloat reports whether s is [sign] 0x hexdigits [. hexdigits] [p
// [sign] digits].
func isHexFloat(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) < 3 || s[0] != '0' || s[1]|0x20 != 'x' {
		return false
	}
	mant := s[2:]
	if i := strings.IndexAny(mant, "pP"); i >= 0 {
		if _, ok := parseExponent(mant[i+1:]); !ok {
			return false
		}
		mant = mant[:i]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	isHex := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if _, ok := unhex(s[i]); !ok {
				return false
			}
		}
		return true
	}
	return intPart+frac != "" && isHex(intPart) && isHex(frac)
}

func hasNonzeroDigit(s string) bool {
	if isHexFloat(s) {
		s = strings.TrimLeft(s, "+-")[2:]
		if i := strings.IndexAny(s, "pP"); i >= 0 {
			s = s[:i]
		}
		return strings.ContainsAny(s, "123456789abcdefABCDEF")
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	return strings.ContainsAny(s, "123456789")
}

// appendFloat is float4out and float8out: the shortest digits that read back
// as the same value, laid out the way PostgreSQL's Ryu code does, which
// switches to exponent form from 10^15 (float4: 10^6) and below 10^-4.
func appendFloat(buf []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(buf, "-0"...)
		}
		return append(buf, '0')
	}
	if f < 0 {
		buf = append(buf, '-')
		f = -f
	}
	digits, exp := shortestDigits(f, bits)
	maxExp := 15
	if bits == 32 {
		maxExp = 6
	}
	if exp < -4 || exp >= maxExp {
		buf = append(buf, digits[0])
		if len(digits) > 1 {
			buf = append(buf, '.')
			buf = append(buf, digits[1:]...)
		}
		buf = append(buf, 'e')
		if exp < 0 {
			buf = append(buf, '-')
			exp = -exp
		} else {
			buf = append(buf, '+')
		}
		if exp < 10 {
			buf = append(buf, '0')
		}
		return strconv.AppendInt(buf, int64(exp), 10)
	}
	if exp < 0 {
		buf = append(buf, "0."...)
		buf = append(buf, strings.Repeat("0", -exp-1)...)
		return append(buf, digits...)
	}
	if len(digits) <= exp+1 {
		buf = append(buf, digits...)
		return append(buf, strings.Repeat("0", exp+1-len(digits))...)
	}
	buf = append(buf, digits[:exp+1]...)
	buf = append(buf, '.')
	return append(buf, digits[exp+1:]...)
}

// shortestDigits returns the fewest significant digits d1d2... that read
// back as f > 0, and the decimal exponent of d1. Like PostgreSQL's Ryu
// code, and unlike strconv, it refuses a decimal lying exactly halfway
// between f and a neighbour, which only a reader rounding half to even
// would map back to f; the next longer correctly rounded digits are used.
func shortestDigits(f float64, bits int) (string, int) {
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, bits)
	for atHalfway(string(e), f, bits) {
		mant, _, _ := strings.Cut(string(e), "e")
		_, frac, _ := strings.Cut(mant, ".")
		e = strconv.AppendFloat(scratch[:0], f, 'e', len(frac)+1, bits)
	}
	mant, expText, _ := strings.Cut(string(e), "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	return digits, exp
}

// atHalfway reports whether the decimal s is exactly halfway between f and
// the next float of its size up or down.
func atHalfway(s string, f float64, bits int) bool {
	// Cheap tests first. A midpoint is a dyadic rational, so a decimal
	// fraction's digits must be divisible by 5^(digits after the point);
	// and below 2^53 (float32: 2^24) floats are at most 1 apart, so no
	// midpoint is an integer.
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	intPart, frac, _ := strings.Cut(mant, ".")
	m, err := strconv.ParseUint(intPart+frac, 10, 64)
	switch point := len(frac) - exp; {
	case point > 27:
		return false // 5^28 exceeds any 64-bit m
	case point > 0 && err == nil:
		p5 := uint64(1)
		for range point {
			p5 *= 5
		}
		if m%p5 != 0 {
			return false
		}
	case point <= 0 && (bits == 64 && f < 1<<53 || bits == 32 && f < 1<<24):
		return false
	}
	d, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	up, down := math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1))
	if bits == 32 {
		up = float64(math.Nextafter32(float32(f), float32(math.Inf(1))))
		down = float64(math.Nextafter32(float32(f), float32(math.Inf(-1))))
	}
	x := new(big.Rat).SetFloat64(f)
	for _, n := range []float64{up, down} {
		if math.IsInf(n, 0) {
			continue
		}
		mid := new(big.Rat).Add(x, new(big.Rat).SetFloat64(n))
		if mid.Mul(mid, big.NewRat(1, 2)).Cmp(d) == 0 {
			return true
		}
	}
	return false
}

// truncateName is namein: names longer than NAMEDATALEN-1 bytes are cut at a
// character boundary.
func truncateName(s string) string {
	if len(s) <= maxNameLen {
		return s
	}
	n := maxNameLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// parseChar is charin: the first byte, or a \ooo octal escape, which is how
// charout shows bytes outside ASCII.
func parseChar(s string) string {
	if len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]) {
		return string([]byte{(s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')})
	}
	if s == "" {
		return ""
	}
	return s[:1]
}

func appendChar(buf []byte, s string) []byte {
	if s == "" {
		return buf
	}
	if c := s[0]; c >= 0x80 {
		return append(buf, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
	}
	return append(buf, s[0])
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// parseBytea is byteain: \x followed by hex digit pairs (space allowed
// between pairs), or the escape format, where \\ is a backslash and \ooo an
// octal byte.
func parseBytea(s string) (any, error) {
	if strings.HasPrefix(s, `\x`) {
		out := make([]byte, 0, (len(s)-2)/2)
		for i := 2; i < len(s); {
			c := s[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				i++
				continue
			}
			hi, ok := unhex(c)
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, `invalid hexadecimal digit: "%s"`, s[i:i+utf8Len(s[i:])])
			}
			if i+1 >= len(s) {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := unhex(s[i+1])
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, `invalid hexadecimal digit: "%s"`, s[i+1:i+1+utf8Len(s[i+1:])])
			}
			out = append(out, hi<<4|lo)
			i += 2
		}
		return out, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type bytea`)
		}
	}
	return out, nil
}

func utf8Len(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseUUID is uuid_in: 32 hex digits, optionally in braces, with a hyphen
// allowed after any group of four digits.
func parseUUID(s string) (any, error) {
	var u UUID
	str := s
	braces := strings.HasPrefix(str, "{")
	if braces {
		str = str[1:]
	}
	n := 0
	i := 0
	for ; i < len(str) && n < 32; i++ {
		c := str[i]
		if c == '-' && n > 0 && n%4 == 0 && i+1 < len(str) && str[i-1] != '-' {
			continue
		}
		v, ok := unhex(c)
		if !ok {
			break
		}
		if n%2 == 0 {
			u[n/2] = v << 4
		} else {
			u[n/2] |= v
		}
		n++
	}
	rest := str[i:]
	if braces {
		rest, braces = strings.CutPrefix(rest, "}")
		braces = !braces
	}
	if n != 32 || rest != "" || braces {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type uuid: "%s"`, s)
	}
	return u, nil
}

func appendUUID(buf []byte, u UUID) []byte {
	buf = hex.AppendEncode(buf, u[:4])
	buf = append(buf, '-')
	buf = hex.AppendEncode(buf, u[4:6])
	buf = append(buf, '-')
	buf = hex.AppendEncode(buf, u[6:8])
	buf = append(buf, '-')
	buf = hex.AppendEncode(buf, u[8:10])
	buf = append(buf, '-')
	return hex.AppendEncode(buf, u[10:])
}

// parseArray is array_in for one-dimensional arrays: {a,b,"c d",NULL}, with
// an optional [1:n]= bounds decoration.
func parseArray(elem T, s string, loc *time.Location) (any, error) {
	malformed := func(detail string) error {
		return pgerr.New(pgerr.InvalidTextRepresentation, `malformed array literal: "%s"`, s).WithDetail("%s", detail)
	}
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if strings.HasPrefix(p, "[") {
		dims, rest, ok := strings.Cut(p[1:], "]")
		lo, hi, ok2 := strings.Cut(dims, ":")
		l, err1 := strconv.Atoi(strings.TrimSpace(lo))
		h, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if !ok || !ok2 || err1 != nil || err2 != nil {
			return nil, malformed(`"[" must introduce explicitly-specified array dimensions.`)
		}
		if l != 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "array lower bounds other than 1 are not supported")
		}
		rest = strings.TrimLeft(rest, " \t\n\r\v\f")
		if !strings.HasPrefix(rest, "=") {
			return nil, malformed(`Missing "=" after array dimensions.`)
		}
		p = strings.TrimLeft(rest[1:], " \t\n\r\v\f")
		vals, err := parseArray(elem, p, loc)
		if err != nil {
			return nil, err
		}
		if len(vals.([]any)) != h-l+1 {
			return nil, malformed("Specified array dimensions do not match array contents.")
		}
		return vals, nil
	}
	if !strings.HasPrefix(p, "{") {
		return nil, malformed(`Array value must start with "{" or dimension information.`)
	}
	p = p[1:]
	vals := []any{}
	skip := func() {
		for p != "" && isSpace(p[0]) {
			p = p[1:]
		}
	}
	skip()
	if strings.HasPrefix(p, "}") {
		p = p[1:]
		skip()
		if p != "" {
			return nil, malformed("Junk after closing right brace.")
		}
		return vals, nil
	}
	for {
		skip()
		if p == "" {
			return nil, malformed("Unexpected end of input.")
		}
		if p[0] == '{' {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
		var sb strings.Builder
		quoted, literal, closed := false, false, false
		// keep is the length of sb up to the last character that trailing
		// space trimming must not remove (quoted or escaped text).
		keep := 0
		for {
			if p == "" {
				return nil, malformed("Unexpected end of input.")
			}
			c := p[0]
			if c == '"' {
				// A quoted element is quoted as a whole.
				if !quoted && literal || !quoted && sb.Len() > 0 {
					return nil, malformed("Unexpected array element.")
				}
				quoted, literal, closed = !quoted, true, quoted
				p = p[1:]
				keep = sb.Len()
				continue
			}
			if closed && !isSpace(c) && c != ',' && c != '}' {
				if c == '\\' || c == '{' {
					return nil, malformed(`Unexpected "` + string(c) + `" character.`)
				}
				return nil, malformed("Unexpected array element.")
			}
			if c == '\\' {
				if len(p) < 2 {
					return nil, malformed("Unexpected end of input.")
				}
				sb.WriteByte(p[1])
				p = p[2:]
				keep, literal = sb.Len(), true
				continue
			}
			if !quoted && (c == ',' || c == '}') {
				break
			}
			if !quoted && (c == '{') {
				return nil, malformed(`Unexpected "{" character.`)
			}
			sb.WriteByte(c)
			p = p[1:]
			if quoted {
				keep = sb.Len()
			}
		}
		text := sb.String()
		text = text[:keep] + strings.TrimRight(text[keep:], " \t\n\r\v\f")
		if !literal && text == "" {
			return nil, malformed("Unexpected \"" + p[:1] + "\" character.")
		}
		if !literal && strings.EqualFold(text, "null") {
			vals = append(vals, nil)
		} else {
			v, err := parseText(elem, text, loc)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		c := p[0]
		p = p[1:]
		if c == '}' {
			break
		}
	}
	skip()
	if p != "" {
		return nil, malformed("Junk after closing right brace.")
	}
	return vals, nil
}

// appendArrayText is array_out: elements that are empty, spell NULL, or
// contain a delimiter, brace, quote, backslash or space are double-quoted
// with backslash escapes.
func appendArrayText(buf []byte, elem T, vals []any, loc *time.Location) []byte {
	buf = append(buf, '{')
	var scratch []byte
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		if v == nil {
			buf = append(buf, "NULL"...)
			continue
		}
		scratch = AppendText(scratch[:0], elem, v, loc)
		if !needsArrayQuotes(scratch) {
			buf = append(buf, scratch...)
			continue
		}
		buf = append(buf, '"')
		for _, c := range scratch {
			if c == '"' || c == '\\' {
				buf = append(buf, '\\')
			}
			buf = append(buf, c)
		}
		buf = append(buf, '"')
	}
	return append(buf, '}')
}

func needsArrayQuotes(s []byte) bool {
	if len(s) == 0 || strings.EqualFold(string(s), "null") {
		return true
	}
	for _, c := range s {
		switch c {
		case '"', '\\', '{', '}', ',', ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
	}
	return false
}
