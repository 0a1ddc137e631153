package sql

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// String functions beyond funcs.go's: regular expressions (see regex.go),
// format, quoting, encodings and digests, and the array functions that
// add, remove and find elements. The parser writes a ~ b as
// epochdb_match(a, b), a SIMILAR TO b as epochdb_match(a,
// similar_to_escape(b)), and overlay(s PLACING r FROM n FOR k) as
// overlay(s, r, n, k).

func init() {
	for name, f := range map[string]builtin{
		"epochdb_match":         compileRegexLike("epochdb_match"),
		"regexp_like":           compileRegexLike("regexp_like"),
		"regexp_replace":        compileRegexpReplace,
		"regexp_count":          compileRegexpCount,
		"regexp_instr":          compileRegexpInstr,
		"regexp_substr":         compileRegexpSubstr,
		"regexp_split_to_array": compileRegexpSplitToArray,
		"regexp_matches":        compileSRFRef,
		"regexp_match":          compileRegexpMatch,
		"regexp_split_to_table": compileSRFRef,
		"similar_to_escape":     compileSimilarToEscape,
		"like_escape":           sigFunc("like_escape", types.Text, []types.T{types.Text, types.Text}, likeEscape),
		"format":                compileFormat,
		"translate":             textFunc3("translate", translate),
		"overlay":               compileOverlay,
		"quote_ident":           textFunc1("quote_ident", types.Text, func(s string) (any, error) { return parser.QuoteIdent(s), nil }),
		"quote_literal":         compileQuoteLiteral(false),
		"quote_nullable":        compileQuoteLiteral(true),
		"bit_length":            compileBitLength,
		"encode":                sigFunc("encode", types.Text, []types.T{types.Bytea, types.Text}, encodeBytes),
		"decode":                sigFunc("decode", types.Bytea, []types.T{types.Text, types.Text}, decodeText),
		"sha224":                digestFunc("sha224", func(b []byte) []byte { h := sha256.Sum224(b); return h[:] }),
		"sha256":                digestFunc("sha256", func(b []byte) []byte { h := sha256.Sum256(b); return h[:] }),
		"sha384":                digestFunc("sha384", func(b []byte) []byte { h := sha512.Sum384(b); return h[:] }),
		"sha512":                digestFunc("sha512", func(b []byte) []byte { h := sha512.Sum512(b); return h[:] }),
		"convert_to":            sigFunc("convert_to", types.Bytea, []types.T{types.Text, types.Name}, convertTo),
		"convert_from":          sigFunc("convert_from", types.Text, []types.T{types.Bytea, types.Name}, convertFrom),
	} {
		funcCompilers[name] = f
	}
}

// strTableFuncs are the set-returning functions of this file, which
// compileTableFunc compiles.
var strTableFuncs = map[string]bool{"regexp_matches": true, "regexp_split_to_table": true}

// sigFunc compiles a strict call of a function with one signature: an
// argument no implicit cast takes to its parameter's type means no such
// function, as in PostgreSQL.
func sigFunc(name string, ret types.T, params []types.T, fn func(*env, []any) (any, error)) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) != len(params) {
			return nil, argCountErr(n, nil)
		}
		args, err := compileArgs(c, n)
		if err != nil {
			return nil, err
		}
		if err := c.coerceArgs(name, args, params); err != nil {
			return nil, err
		}
		return &funcExpr{name: name, t: ret, args: args, strict: true, fn: fn}, nil
	}
}

// coerceArgs converts args to params in place, or fails as PostgreSQL
// does when no version of name takes them.
func (c *compiler) coerceArgs(name string, args []expr, params []types.T) error {
	for i, p := range params {
		if t := args[i].typ(); t.Oid != types.OidUnknown && !implicitOK(t, p) {
			return noFunction(name, args)
		}
	}
	for i, p := range params {
		var err error
		if args[i], err = c.coerce(args[i], p); err != nil {
			return err
		}
	}
	return nil
}

func textFunc1(name string, ret types.T, f func(string) (any, error)) builtin {
	return sigFunc(name, ret, []types.T{types.Text}, func(_ *env, a []any) (any, error) { return f(a[0].(string)) })
}

func textFunc3(name string, f func(a, b, c string) string) builtin {
	return sigFunc(name, types.Text, []types.T{types.Text, types.Text, types.Text}, func(_ *env, a []any) (any, error) {
		return f(a[0].(string), a[1].(string), a[2].(string)), nil
	})
}

// overloads picks the parameter list of a call: the first whose integer
// parameters are where the call has numbers. An untyped literal is text,
// as PostgreSQL prefers.
func overloads(c *compiler, n *ast.FuncCallExpr, sigs ...[]types.T) ([]expr, []types.T, error) {
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, nil, err
	}
	var match []types.T
	for _, sig := range sigs {
		ok := len(sig) == len(args)
		for i := 0; ok && i < len(sig); i++ {
			ok = (sig[i].Oid == types.OidInt4) == (numRank(args[i].typ().Oid) > 0)
		}
		if ok {
			match = sig
			break
		}
	}
	if match == nil {
		return nil, nil, noFunction(n.FnName.L, args)
	}
	if err := c.coerceArgs(n.FnName.L, args, match); err != nil {
		return nil, nil, err
	}
	return args, match, nil
}

var (
	sigTT   = []types.T{types.Text, types.Text}
	sigTTT  = []types.T{types.Text, types.Text, types.Text}
	sigTTTT = []types.T{types.Text, types.Text, types.Text, types.Text}
	tText   = types.Text
	tInt4   = types.Int4
)

// compileRegexLike is regexp_like(s, pattern [, flags]), and the ~
// operator.
func compileRegexLike(name string) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		args, _, err := overloads(c, n, sigTT, sigTTT)
		if err != nil {
			return nil, err
		}
		var cache regexCache
		return &funcExpr{name: name, t: types.Bool, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
			re, err := cache.get("regexp_like", a[1].(string), optText(a, 2), false)
			if err != nil {
				return nil, err
			}
			return re.re.MatchString(a[0].(string)), nil
		}}, nil
	}
}

func optText(a []any, i int) string {
	if i < len(a) {
		return a[i].(string)
	}
	return ""
}

// positiveArg checks an integer argument that counts from 1.
func positiveArg(name string, v int64, min int64) (int, error) {
	if v < min {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", name, v)
	}
	return int(min64(v, 1<<31)), nil
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// runeOffset is the byte offset of the k-th character of s counting from
// 0, or len(s)+1 past its end.
func runeOffset(s string, k int) int {
	for i := range s {
		if k == 0 {
			return i
		}
		k--
	}
	if k == 0 {
		return len(s)
	}
	return len(s) + 1
}

// compileRegexpReplace is regexp_replace(s, pattern, replacement [, start
// [, n]] [, flags]): the first match replaced, or the n-th, or with flag g
// all of them from the start-th character on.
func compileRegexpReplace(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	args, sig, err := overloads(c, n, sigTTT, sigTTTT,
		[]types.T{tText, tText, tText, tInt4},
		[]types.T{tText, tText, tText, tInt4, tInt4},
		[]types.T{tText, tText, tText, tInt4, tInt4, tText})
	if err != nil {
		return nil, err
	}
	withStart := len(sig) > 3 && sig[3].Oid == types.OidInt4
	var cache regexCache
	return &funcExpr{name: "regexp_replace", t: types.Text, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
		s, repl := a[0].(string), a[2].(string)
		start, nth, flags := 1, 0, ""
		switch {
		case withStart:
			var err error
			if start, err = positiveArg("start", a[3].(int64), 1); err != nil {
				return nil, err
			}
			if len(a) > 4 {
				if nth, err = positiveArg("n", a[4].(int64), 0); err != nil {
					return nil, err
				}
			}
			flags = optText(a, 5)
		default:
			flags = optText(a, 3)
		}
		re, err := cache.get("regexp_replace", a[1].(string), flags, true)
		if err != nil {
			return nil, err
		}
		// Without g and n, only the first match goes; with n, the n-th.
		glob := re.glob && nth == 0 || withStart && len(a) > 4 && nth != 1
		if withStart && len(a) == 4 && !re.glob {
			nth = 1
		}
		pos := runeOffset(s, start-1)
		if pos > len(s) {
			return s, nil
		}
		ms := re.matches(s, pos, glob || nth > 1)
		if nth > 0 {
			if nth > len(ms) {
				return s, nil
			}
			ms = ms[nth-1 : nth]
		}
		var b strings.Builder
		prev := 0
		for _, m := range ms {
			b.WriteString(s[prev:m[0]])
			appendReplacement(&b, s, repl, m)
			prev = m[1]
		}
		b.WriteString(s[prev:])
		return b.String(), nil
	}}, nil
}

// regexArgs reads the trailing integer and text arguments of
// regexp_count, regexp_instr and regexp_substr, in the order of names
// ("start", "n", "endoption", "flags", "subexpr"): integers are checked,
// and missing ones take their defaults.
type regexArgs struct {
	start, n, endoption, subexpr int
	flags                        string
}

func readRegexArgs(a []any, names []string) (regexArgs, error) {
	r := regexArgs{start: 1, n: 1}
	for i, name := range names {
		if 2+i >= len(a) {
			break
		}
		if name == "flags" {
			r.flags = a[2+i].(string)
			continue
		}
		v := a[2+i].(int64)
		var err error
		switch name {
		case "start":
			r.start, err = positiveArg(name, v, 1)
		case "n":
			r.n, err = positiveArg(name, v, 1)
		case "endoption":
			if v != 0 && v != 1 {
				err = pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"endoption\": %d", v)
			}
			r.endoption = int(v)
		case "subexpr":
			r.subexpr, err = positiveArg(name, v, 0)
		}
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// regexSearchFunc compiles regexp_count, regexp_instr or regexp_substr:
// params are the types of the arguments after the string and pattern,
// named by names, of which at least min are given.
func regexSearchFunc(ret types.T, names []string, f func(s string, ms [][]int, r regexArgs) any) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		name := n.FnName.L
		var sigs [][]types.T
		for k := 0; k <= len(names); k++ {
			sig := []types.T{tText, tText}
			for _, nm := range names[:k] {
				if nm == "flags" {
					sig = append(sig, tText)
				} else {
					sig = append(sig, tInt4)
				}
			}
			sigs = append(sigs, sig)
		}
		args, _, err := overloads(c, n, sigs...)
		if err != nil {
			return nil, err
		}
		var cache regexCache
		return &funcExpr{name: name, t: ret, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
			r, err := readRegexArgs(a, names)
			if err != nil {
				return nil, err
			}
			re, err := cache.get(name, a[1].(string), r.flags, false)
			if err != nil {
				return nil, err
			}
			s := a[0].(string)
			pos := runeOffset(s, r.start-1)
			var ms [][]int
			if pos <= len(s) {
				ms = re.matches(s, pos, true)
			}
			return f(s, ms, r), nil
		}}, nil
	}
}

// nthGroup is the byte offsets of group k of the n-th match, or false.
func nthGroup(ms [][]int, r regexArgs) (int, int, bool) {
	if r.n > len(ms) {
		return 0, 0, false
	}
	m := ms[r.n-1]
	if 2*r.subexpr+1 >= len(m) || m[2*r.subexpr] < 0 {
		return 0, 0, false
	}
	return m[2*r.subexpr], m[2*r.subexpr+1], true
}

var compileRegexpCount = regexSearchFunc(types.Int4, []string{"start", "flags"}, func(_ string, ms [][]int, _ regexArgs) any {
	return int64(len(ms))
})

var compileRegexpInstr = regexSearchFunc(types.Int4, []string{"start", "n", "endoption", "flags", "subexpr"}, func(s string, ms [][]int, r regexArgs) any {
	lo, hi, ok := nthGroup(ms, r)
	if !ok {
		return int64(0)
	}
	if r.endoption == 1 {
		lo = hi
	}
	return int64(utf8.RuneCountInString(s[:lo]) + 1)
})

var compileRegexpSubstr = regexSearchFunc(types.Text, []string{"start", "n", "flags", "subexpr"}, func(s string, ms [][]int, r regexArgs) any {
	lo, hi, ok := nthGroup(ms, r)
	if !ok {
		return nil
	}
	return s[lo:hi]
})

// regexpSplit is regexp_split_to_table and _to_array: the pieces between
// matches, ignoring empty matches at either end of s or right after
// another match.
func regexpSplit(re *pgRegex, s string) []any {
	out := []any{}
	prev := 0
	for _, m := range re.matches(s, 0, true) {
		if m[0] >= len(s) || m[1] <= prev {
			continue
		}
		out = append(out, s[prev:m[0]])
		prev = m[1]
	}
	return append(out, s[prev:])
}

func compileRegexpSplitToArray(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	args, _, err := overloads(c, n, sigTT, sigTTT)
	if err != nil {
		return nil, err
	}
	var cache regexCache
	return &funcExpr{name: "regexp_split_to_array", t: types.TextArray, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
		re, err := cache.get("regexp_split_to_array", a[1].(string), optText(a, 2), false)
		if err != nil {
			return nil, err
		}
		return regexpSplit(re, a[0].(string)), nil
	}}, nil
}

// strTableFunc compiles regexp_matches and regexp_split_to_table.
func (c *compiler) strTableFunc(n *ast.FuncCallExpr) (*tableFunc, error) {
	name := n.FnName.L
	args, _, err := overloads(c, n, sigTT, sigTTT)
	if err != nil {
		return nil, err
	}
	var cache regexCache
	if name == "regexp_split_to_table" {
		return &tableFunc{name: name, t: types.Text, args: args, rows: func(a []any) ([]any, error) {
			re, err := cache.get(name, a[1].(string), optText(a, 2), false)
			if err != nil {
				return nil, err
			}
			return regexpSplit(re, a[0].(string)), nil
		}}, nil
	}
	return &tableFunc{name: name, t: types.TextArray, args: args, rows: func(a []any) ([]any, error) {
		re, err := cache.get(name, a[1].(string), optText(a, 2), true)
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		var out []any
		for _, m := range re.matches(s, 0, re.glob) {
			out = append(out, re.groups(s, m))
		}
		return out, nil
	}}, nil
}

// compileRegexpMatch is regexp_match(string, pattern [, flags]): the
// groups of the first match, as a text array, or NULL.
func compileRegexpMatch(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	args, _, err := overloads(c, n, sigTT, sigTTT)
	if err != nil {
		return nil, err
	}
	var cache regexCache
	return &funcExpr{name: "regexp_match", t: types.TextArray, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
		re, err := cache.get("regexp_match", a[1].(string), optText(a, 2), false)
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		m := re.find(s, 0)
		if m == nil {
			return nil, nil
		}
		return re.groups(s, m), nil
	}}, nil
}

func compileSimilarToEscape(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	args, _, err := overloads(c, n, []types.T{tText}, sigTT)
	if err != nil {
		return nil, err
	}
	return &funcExpr{name: "similar_to_escape", t: types.Text, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
		esc := `\`
		if len(a) == 2 {
			esc = a[1].(string)
		}
		return similarToRegex(a[0].(string), esc)
	}}, nil
}

// compileSubstring is substring in its three forms: substring(s, start
// [, count]) (s FROM start FOR count) by position; substring(s, pattern)
// (s FROM pattern) with a POSIX regular expression; and substring(s,
// pattern, escape) (s SIMILAR pattern ESCAPE escape, or s FROM pattern FOR
// escape) with a SQL one. As in PostgreSQL's overload resolution, a number
// after s means a position, and untyped literals alone mean a pattern,
// text being the preferred type.
func compileSubstring(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	if len(n.Args) < 2 || len(n.Args) > 3 {
		return nil, argCountErr(n, nil)
	}
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	positional := false
	for _, a := range args[1:] {
		positional = positional || numRank(a.typ().Oid) > 0
	}
	if positional {
		params := []types.T{tText, tInt4, tInt4}[:len(args)]
		for i, p := range params {
			if !castsImplicitly(args[i].typ(), p) {
				return nil, noFunction("substring", args)
			}
		}
		if err := c.coerceArgs("substring", args, params); err != nil {
			return nil, err
		}
		return &funcExpr{name: "substring", t: types.Text, args: args, strict: true, fn: substrText}, nil
	}
	if err := c.coerceArgs("substring", args, sigTTT[:len(args)]); err != nil {
		return nil, err
	}
	var cache regexCache
	return &funcExpr{name: "substring", t: types.Text, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
		pattern := a[1].(string)
		if len(a) == 3 {
			var err error
			if pattern, err = similarToRegex(pattern, a[2].(string)); err != nil {
				return nil, err
			}
		}
		re, err := cache.get("substring", pattern, "", false)
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		m := re.find(s, 0)
		// The first group's match if the pattern has groups, else the
		// whole match; NULL if that group took no part.
		if m == nil || len(m) > 2 && m[2] < 0 {
			return nil, nil
		}
		if len(m) > 2 {
			return s[m[2]:m[3]], nil
		}
		return s[m[0]:m[1]], nil
	}}, nil
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

// compileOverlay is overlay(s, r, from [, for]) of text or bytea: s with
// the for characters (by default r's length) at from replaced by r.
func compileOverlay(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	str := tText
	if len(args) > 0 && args[0].typ().Oid == types.OidBytea {
		str = types.Bytea
	}
	params := []types.T{str, str, tInt4, tInt4}
	if len(args) != 3 && len(args) != 4 {
		return nil, noFunction("overlay", args)
	}
	if err := c.coerceArgs("overlay", args, params[:len(args)]); err != nil {
		return nil, err
	}
	return &funcExpr{name: "overlay", t: str, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
		if str.Oid == types.OidBytea {
			s, r := a[0].([]byte), a[1].([]byte)
			out, err := overlay(len(s), len(r), a[2:], func(lo, hi int) any {
				return append(append(append([]byte(nil), s[:lo]...), r...), s[hi:]...)
			})
			return out, err
		}
		s, r := []rune(a[0].(string)), []rune(a[1].(string))
		return overlay(len(s), len(r), a[2:], func(lo, hi int) any {
			return string(s[:lo]) + string(r) + string(s[hi:])
		})
	}}, nil
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

// compileQuoteLiteral is quote_literal, or with nullable quote_nullable, of
// a value of any type: its text form as a string literal.
func compileQuoteLiteral(nullable bool) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) != 1 {
			return nil, argCountErr(n, nil)
		}
		e, err := c.compile(n.Args[0])
		if err != nil {
			return nil, err
		}
		if e, err = c.resolveUnknown(e); err != nil {
			return nil, err
		}
		t, loc := e.typ(), c.s.loc()
		return &funcExpr{name: n.FnName.L, t: types.Text, args: []expr{e}, strict: !nullable, fn: func(_ *env, a []any) (any, error) {
			if a[0] == nil {
				return "NULL", nil
			}
			s, ok := a[0].(string)
			if !ok {
				s = string(types.AppendText(nil, t, a[0], loc))
			}
			return quoteLiteral(s), nil
		}}, nil
	}
}

// quoteLiteral doubles quotes, and backslashes too, in an E” literal.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

func compileBitLength(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	if len(n.Args) != 1 {
		return nil, argCountErr(n, nil)
	}
	e, err := c.compile(n.Args[0])
	if err != nil {
		return nil, err
	}
	if e.typ().Oid != types.OidBytea {
		if err := c.coerceArgs("bit_length", []expr{e}, []types.T{types.Text}); err != nil {
			return nil, err
		}
		if e, err = c.coerce(e, types.Text); err != nil {
			return nil, err
		}
	}
	return &funcExpr{name: "bit_length", t: types.Int4, args: []expr{e}, strict: true, fn: func(_ *env, a []any) (any, error) {
		switch v := a[0].(type) {
		case []byte:
			return int64(len(v)) * 8, nil
		default:
			return int64(len(v.(string))) * 8, nil
		}
	}}, nil
}

func digestFunc(name string, h func([]byte) []byte) builtin {
	return sigFunc(name, types.Bytea, []types.T{types.Bytea}, func(_ *env, a []any) (any, error) {
		return h(a[0].([]byte)), nil
	})
}

func unknownEncoding(name string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", name)
}

// encodeBytes is encode(bytea, format).
// likeEscape is like_escape(pattern, escape): pattern rewritten to escape
// with a backslash instead. PostgreSQL stores LIKE p ESCAPE e as
// ~~ like_escape(p, e), and pg_dump writes it so. An empty escape makes
// every backslash a literal one.
func likeEscape(_ *env, a []any) (any, error) {
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

func encodeBytes(_ *env, a []any) (any, error) {
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
func decodeText(_ *env, a []any) (any, error) {
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

func convertTo(_ *env, a []any) (any, error) {
	if _, err := isUTF8Name(a[1].(string), "destination"); err != nil {
		return nil, err
	}
	return []byte(a[0].(string)), nil
}

func convertFrom(_ *env, a []any) (any, error) {
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

// compileFormat is format(formatstr, args...): %s, %I and %L, with an
// optional position (%2$s), the flag -, and a width, a number or * (the
// next argument) or *n$.
func compileFormat(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	if len(n.Args) == 0 {
		return nil, argCountErr(n, nil)
	}
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	for i := range args {
		if args[i], err = c.resolveUnknown(args[i]); err != nil {
			return nil, err
		}
	}
	if err := c.coerceArgs("format", args[:1], []types.T{types.Text}); err != nil {
		return nil, err
	}
	loc := c.s.loc()
	return &funcExpr{name: "format", t: types.Text, args: args, fn: func(_ *env, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		text := func(i int) (string, bool) {
			switch v := a[i].(type) {
			case nil:
				return "", false
			case string:
				return v, true
			default:
				return string(types.AppendText(nil, args[i].typ(), v, loc)), true
			}
		}
		return formatString(a[0].(string), len(a)-1, text, func(i int) (int64, bool, error) {
			if a[i] == nil {
				return 0, false, nil
			}
			if v, ok := a[i].(int64); ok && numRank(args[i].typ().Oid) <= 2 {
				return v, true, nil
			}
			s, _ := text(i)
			v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
			if err != nil {
				return 0, false, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type integer: \"%s\"", s)
			}
			return v, true, nil
		})
	}}, nil
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
				s = quoteLiteral(s)
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

// PostgreSQL's regular expressions (Spencer's ARE syntax) run on Go's RE2
// engine: translateRegex rewrites the common subset, and rejects with
// 2201B what RE2 cannot do (back-references, lookaround, collating
// elements). Two differences of semantics are bridged here rather than in
// the syntax: an ARE without non-greedy quantifiers prefers the longest
// match, as RE2's Longest mode does; and a search that starts inside the
// string (the g flag's next match, the start argument) sees the character
// before it, so that ^ and word boundaries behave as in PostgreSQL.

// pgRegex is a compiled ARE and the flags it was compiled with.
type pgRegex struct {
	re     *regexp.Regexp // the pattern
	anchor *regexp.Regexp // one character of context, then the pattern, anchored
	glob   bool           // the g flag
}

// regexFlags are the flag letters of PostgreSQL's regex functions.
type regexFlags struct {
	glob, icase, quote, expanded bool
	// dotNL: . and [^...] match a newline; anchorNL: ^ and $ match at
	// one (flags s, n/m, p, w).
	dotNL, anchorNL bool
}

func parseRegexFlags(flags string) (regexFlags, error) {
	f := regexFlags{dotNL: true}
	for _, c := range flags {
		switch c {
		case 'g':
			f.glob = true
		case 'i':
			f.icase = true
		case 'c':
			f.icase = false
		case 'q':
			f.quote = true
		case 'x':
			f.expanded = true
		case 't':
			f.expanded = false
		case 's':
			f.dotNL, f.anchorNL = true, false
		case 'n', 'm':
			f.dotNL, f.anchorNL = false, true
		case 'p':
			f.dotNL, f.anchorNL = false, false
		case 'w':
			f.dotNL, f.anchorNL = true, true
		case 'b', 'e':
			return f, pgerr.New(pgerr.FeatureNotSupported, "regular expression option %q is not supported", string(c))
		default:
			return f, pgerr.New(pgerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	return f, nil
}

// regexCache keeps a call site's last compiled pattern: a constant pattern
// compiles once.
type regexCache struct {
	pattern, flags string
	re             *pgRegex
}

// get compiles pattern with flags for the function fn; only some
// functions take the g flag.
func (c *regexCache) get(fn, pattern, flags string, globOK bool) (*pgRegex, error) {
	if c.re != nil && c.pattern == pattern && c.flags == flags {
		return c.re, nil
	}
	f, err := parseRegexFlags(flags)
	if err != nil {
		return nil, err
	}
	if f.glob && !globOK {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn)
	}
	key := pattern // the cache is keyed by the argument, not what is left of it
	if strings.HasPrefix(pattern, "***=") {
		pattern, f.quote = pattern[4:], true
	} else {
		pattern = strings.TrimPrefix(pattern, "***:")
		if pattern, err = embeddedOptions(pattern, &f); err != nil {
			return nil, err
		}
	}
	src, longest := regexp.QuoteMeta(pattern), true
	if !f.quote {
		if src, longest, err = translateRegex(pattern, f); err != nil {
			return nil, err
		}
	}
	prefix := "(?"
	if f.icase {
		prefix += "i"
	}
	if f.dotNL {
		prefix += "s"
	}
	if f.anchorNL {
		prefix += "m"
	}
	src = prefix + ":" + src + ")"
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %v", err)
	}
	anchor := regexp.MustCompile(`\A(?s:.)` + src)
	if longest {
		re.Longest()
		anchor.Longest()
	}
	c.pattern, c.flags, c.re = key, flags, &pgRegex{re: re, anchor: anchor, glob: f.glob}
	return c.re, nil
}

// embeddedOptions reads an ARE's leading (?flags).
func embeddedOptions(p string, f *regexFlags) (string, error) {
	if !strings.HasPrefix(p, "(?") {
		return p, nil
	}
	end := strings.IndexByte(p, ')')
	if end < 0 {
		return p, nil
	}
	letters := p[2:end]
	for _, c := range letters {
		if c < 'a' || c > 'z' {
			return p, nil // (?: and lookaround, which translateRegex reads
		}
	}
	g := f.glob
	nf, err := parseRegexFlags(letters)
	if err != nil || strings.ContainsRune(letters, 'g') {
		return "", pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid embedded option")
	}
	// Letters not given keep the outer flags.
	for _, c := range letters {
		switch c {
		case 'i', 'c':
			f.icase = nf.icase
		case 'q':
			f.quote = true
		case 'x', 't':
			f.expanded = nf.expanded
		default:
			f.dotNL, f.anchorNL = nf.dotNL, nf.anchorNL
		}
	}
	f.glob = g
	return p[end+1:], nil
}

func unsupportedRegex(what string) error {
	return pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %s is not supported", what)
}

// translateRegex rewrites an ARE in RE2's syntax. It reports whether the
// pattern prefers the longest match (it has no non-greedy quantifier).
func translateRegex(p string, f regexFlags) (string, bool, error) {
	var b strings.Builder
	longest := true
	inClass := false
	classStart := 0 // where the class's members begin in p
	for i := 0; i < len(p); {
		c, w := utf8.DecodeRuneInString(p[i:])
		switch {
		case inClass:
			switch {
			case c == ']' && i > classStart:
				inClass = false
				if !f.dotNL && p[classStart-1] == '^' {
					b.WriteString(`\n`)
				}
				b.WriteByte(']')
			case c == '[' && i+1 < len(p) && (p[i+1] == '.' || p[i+1] == '='):
				return "", false, unsupportedRegex("a collating element or equivalence class")
			case c == '[' && i+1 < len(p) && p[i+1] == ':':
				end := strings.Index(p[i:], ":]")
				if end < 0 {
					return "", false, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: brackets [] not balanced")
				}
				if name := p[i+2 : i+end]; name == "<" || name == ">" {
					return "", false, unsupportedRegex("a word boundary class")
				}
				b.WriteString(p[i : i+end+2])
				w = end + 2
			case c == '\\':
				s, n, err := translateEscape(p[i:], true)
				if err != nil {
					return "", false, err
				}
				b.WriteString(s)
				w = n
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		case f.expanded && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'):
		case f.expanded && c == '#':
			if end := strings.IndexByte(p[i:], '\n'); end >= 0 {
				w = end + 1
			} else {
				w = len(p) - i
			}
		case c == '[':
			inClass = true
			b.WriteByte('[')
			classStart = i + 1
			if strings.HasPrefix(p[i+1:], "^") {
				b.WriteByte('^')
				classStart++
				w++
			}
			if strings.HasPrefix(p[classStart:], "[:<:]]") || strings.HasPrefix(p[classStart:], "[:>:]]") {
				return "", false, unsupportedRegex("a word boundary class")
			}
		case c == '\\':
			s, n, err := translateEscape(p[i:], false)
			if err != nil {
				return "", false, err
			}
			b.WriteString(s)
			w = n
		case c == '(' && strings.HasPrefix(p[i:], "(?"):
			switch {
			case strings.HasPrefix(p[i:], "(?:"):
				b.WriteString("(?:")
				w = 3
			case strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
				strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!"):
				return "", false, unsupportedRegex("lookahead or lookbehind")
			default:
				return "", false, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: quantifier operand invalid")
			}
		case c == '{':
			end := strings.IndexByte(p[i:], '}')
			if end < 0 {
				b.WriteString(`\{`)
				break
			}
			bounds := strings.Split(p[i+1:i+end], ",")
			for _, s := range bounds {
				if n, err := strconv.Atoi(s); s != "" && (err != nil || n > 255) || len(bounds) > 2 {
					return "", false, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid repetition count(s)")
				}
			}
			b.WriteString(p[i : i+end+1])
			w = end + 1
			if strings.HasPrefix(p[i+w:], "?") {
				longest = false
			}
		case c == '*' || c == '+' || c == '?':
			b.WriteRune(c)
			if strings.HasPrefix(p[i+1:], "?") {
				b.WriteByte('?')
				w++
				longest = false
			}
		case c == '.' && !f.dotNL:
			b.WriteString(`[^\n]`)
		default:
			b.WriteRune(c)
		}
		i += w
	}
	if inClass {
		return "", false, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: brackets [] not balanced")
	}
	return b.String(), longest, nil
}

// translateEscape translates the escape at the start of p (a backslash and
// what follows), inside a bracket expression or not, and returns its
// length in p.
func translateEscape(p string, inClass bool) (string, int, error) {
	if len(p) < 2 {
		return "", 0, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid escape \\ sequence")
	}
	c, w := utf8.DecodeRuneInString(p[1:])
	n := 1 + w
	hexRun := func(max int) (string, int, error) {
		j := 2
		for j < len(p) && j-2 < max && strings.IndexByte("0123456789abcdefABCDEF", p[j]) >= 0 {
			j++
		}
		if j == 2 {
			return "", 0, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid escape \\ sequence")
		}
		return `\x{` + p[2:j] + `}`, j, nil
	}
	switch c {
	case 'd', 'D', 's', 'S', 'w', 'W', 'f', 'n', 'r', 't', 'v', 'a':
		return p[:2], 2, nil
	case 'b':
		return `\x08`, 2, nil
	case 'e':
		return `\x1b`, 2, nil
	case 'B':
		return `\\`, 2, nil
	case 'x':
		return hexRun(8)
	case 'u':
		return hexRun(4)
	case 'U':
		return hexRun(8)
	case 'c':
		if len(p) < 3 {
			break
		}
		return `\x{` + strconv.FormatInt(int64(p[2]&0x1f), 16) + `}`, 3, nil
	case 'A', 'Z', 'y', 'Y', 'm', 'M':
		if inClass {
			break
		}
		switch c {
		case 'A':
			return `\A`, 2, nil
		case 'Z':
			return `\z`, 2, nil
		case 'y':
			return `\b`, 2, nil
		case 'Y':
			return `\B`, 2, nil
		}
		return "", 0, unsupportedRegex(`\` + string(c))
	}
	switch {
	case c >= '1' && c <= '9' && !inClass:
		return "", 0, unsupportedRegex("a back-reference")
	case c == '0':
		j := 2
		for j < len(p) && j < 4 && p[j] >= '0' && p[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseInt("0"+p[2:j], 8, 32)
		return `\x{` + strconv.FormatInt(v, 16) + `}`, j, nil
	case c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'):
		return "", 0, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid escape \\ sequence")
	}
	return regexp.QuoteMeta(string(c)), n, nil
}

// find is the first match at or after byte offset pos: the byte offsets of
// the match and its groups, -1 for a group that took no part, or nil.
func (r *pgRegex) find(s string, pos int) []int {
	if pos == 0 {
		return r.re.FindStringSubmatchIndex(s)
	}
	if pos > len(s) {
		return nil
	}
	// Search with the character before pos as context; a match that
	// begins on it is not one, so then try each position in turn.
	_, w := utf8.DecodeLastRuneInString(s[:pos])
	base := pos - w
	m := r.re.FindStringSubmatchIndex(s[base:])
	if m == nil {
		return nil
	}
	if m[0] < w {
		m = nil
		for p := pos; p <= len(s) && m == nil; {
			_, w := utf8.DecodeLastRuneInString(s[:p])
			base = p - w
			if m = r.anchor.FindStringSubmatchIndex(s[base:]); m != nil {
				m[0] = w // the anchor's context character is no part of it
			}
			if p == len(s) {
				break
			}
			_, next := utf8.DecodeRuneInString(s[p:])
			p += next
		}
		if m == nil {
			return nil
		}
	}
	for i, v := range m {
		if v >= 0 {
			m[i] = v + base
		}
	}
	return m
}

// matches is PostgreSQL's search loop: from byte offset pos, the first
// match, or with glob all of them, each search starting where the last
// match ended, or a character further after an empty one.
func (r *pgRegex) matches(s string, pos int, glob bool) [][]int {
	var out [][]int
	for pos <= len(s) {
		m := r.find(s, pos)
		if m == nil {
			break
		}
		out = append(out, m)
		if !glob {
			break
		}
		pos = m[1]
		if m[0] == m[1] {
			if pos == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += w
		}
	}
	return out
}

// groups are a match's parenthesized groups, or the whole match if the
// pattern has none; a group that took no part is NULL.
func (r *pgRegex) groups(s string, m []int) []any {
	if len(m) == 2 {
		return []any{s[m[0]:m[1]]}
	}
	out := make([]any, 0, len(m)/2-1)
	for i := 2; i < len(m); i += 2 {
		if m[i] < 0 {
			out = append(out, nil)
		} else {
			out = append(out, s[m[i]:m[i+1]])
		}
	}
	return out
}

// appendReplacement appends regexp_replace's replacement for match m:
// \1 to \9 are groups, \& the whole match, \\ a backslash.
func appendReplacement(b *strings.Builder, s, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			b.WriteByte(c)
			continue
		}
		switch d := repl[i+1]; {
		case d >= '1' && d <= '9':
			if k := int(d-'0') * 2; k+1 < len(m) && m[k] >= 0 {
				b.WriteString(s[m[k]:m[k+1]])
			}
			i++
		case d == '&':
			b.WriteString(s[m[0]:m[1]])
			i++
		case d == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte('\\')
		}
	}
}

// similarToRegex is similar_to_escape: a SQL regular expression (SIMILAR
// TO's pattern) as an ARE anchored at both ends. escape is "" for none.
func similarToRegex(p, escape string) (string, error) {
	var esc rune = -1
	switch utf8.RuneCountInString(escape) {
	case 0:
	case 1:
		esc, _ = utf8.DecodeRuneInString(escape)
	default:
		return "", pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	var b strings.Builder
	b.WriteString("^(?:")
	afterEscape := false
	nquotes := 0
	classPos := 0 // 0 outside a class; 1 just after [, 2 after [^, 3 inside
	for _, c := range p {
		switch {
		case afterEscape:
			afterEscape = false
			if c == '"' && classPos == 0 {
				switch nquotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", pgerr.New(pgerr.InvalidUseOfEscapeCharacter, "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				nquotes++
				continue
			}
			b.WriteByte('\\')
			b.WriteRune(c)
			if classPos > 0 {
				classPos = 3
			}
		case c == esc:
			afterEscape = true
		case classPos > 0:
			switch {
			case c == '\\':
				b.WriteString(`\\`)
			default:
				b.WriteRune(c)
			}
			switch {
			case c == '^' && classPos == 1:
				classPos = 2
			case c == ']' && classPos == 3:
				classPos = 0
			default:
				classPos = 3
			}
		case c == '[':
			b.WriteRune(c)
			classPos = 1
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteString(")$")
	return b.String(), nil
}
