package builtins

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The string functions with fixed signatures: their arguments are text
// (any string type converts to it), their results text or integers.

// str1 is a function of one text argument.
func str1(ret types.T, f func(string) any) []Overload {
	return one(ret, []types.T{types.Text}, func(_ Env, a []any) (any, error) { return f(a[0].(string)), nil })
}

func lower(s string) any { return strings.ToLower(s) }
func upper(s string) any { return strings.ToUpper(s) }

func reverse(s string) any {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func md5Hex(s string) any {
	h := md5.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// initcap capitalizes the first letter of each word: a run of letters and
// digits, as PostgreSQL's isalnum sees them in a UTF-8 database.
func initcap(s string) any {
	r := []rune(strings.ToLower(s))
	start := true
	for i, c := range r {
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c > 127
		if start && alnum {
			r[i] = []rune(strings.ToUpper(string(c)))[0]
		}
		start = !alnum
	}
	return string(r)
}

// ascii is the code point of the first character, 0 for "".
func ascii(s string) any {
	r, _ := utf8.DecodeRuneInString(s)
	if s == "" {
		r = 0
	}
	return int64(r)
}

func replace(_ Env, a []any) (any, error) {
	if a[1].(string) == "" {
		return a[0], nil // unlike strings.ReplaceAll, nothing matches ""
	}
	return strings.ReplaceAll(a[0].(string), a[1].(string), a[2].(string)), nil
}

func left(_ Env, a []any) (any, error)  { return leftRight(a[0].(string), a[1].(int64), true), nil }
func right(_ Env, a []any) (any, error) { return leftRight(a[0].(string), a[1].(int64), false), nil }

func repeat(_ Env, a []any) (any, error) {
	return strings.Repeat(a[0].(string), int(max(a[1].(int64), 0))), nil
}

// strpos(s, sub) is where sub first starts in s, from 1; 0 if nowhere.
// position(sub IN s), which the parser writes position(sub, s), and
// MySQL's locate(sub, s) are the same with the arguments swapped.
func strpos(_ Env, a []any) (any, error)   { return runeIndex(a[0].(string), a[1].(string)), nil }
func position(_ Env, a []any) (any, error) { return runeIndex(a[1].(string), a[0].(string)), nil }

func splitPartFn(_ Env, a []any) (any, error) {
	return splitPart(a[0].(string), a[1].(string), a[2].(int64))
}

func startsWith(_ Env, a []any) (any, error) {
	return strings.HasPrefix(a[0].(string), a[1].(string)), nil
}

func chr(_ Env, a []any) (any, error) {
	switch c := a[0].(int64); {
	case c == 0:
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "null character not permitted")
	case c < 0 || c > unicode.MaxRune || (c >= 0xd800 && c <= 0xdfff):
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", c)
	default:
		return string(rune(c)), nil
	}
}

func leftRight(s string, n int64, left bool) string {
	r := []rune(s)
	k := int(n)
	if k < 0 {
		k = max(len(r)+k, 0)
	}
	k = min(k, len(r))
	if left {
		return string(r[:k])
	}
	return string(r[len(r)-k:])
}

func runeIndex(s, sub string) int64 {
	i := strings.Index(s, sub)
	if i < 0 {
		return 0
	}
	return int64(utf8.RuneCountInString(s[:i]) + 1)
}

// splitPart is split_part: the n-th field of s split at sep, counting from
// the end when n is negative.
func splitPart(s, sep string, n int64) (any, error) {
	if n == 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "field position must not be zero")
	}
	fields := []string{s}
	if sep != "" {
		fields = strings.Split(s, sep)
	}
	if s == "" {
		fields = nil
	}
	if n < 0 {
		n += int64(len(fields)) + 1
	}
	if n < 1 || n > int64(len(fields)) {
		return "", nil
	}
	return fields[n-1], nil
}
