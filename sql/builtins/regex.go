package builtins

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The regular expression functions: regexp_like and the ~ operator (which
// the parser writes as epochdb_match(a, b), and a SIMILAR TO b as
// epochdb_match(a, similar_to_escape(b))), regexp_replace, regexp_count,
// regexp_instr, regexp_substr, regexp_match, regexp_matches,
// regexp_split_to_array and regexp_split_to_table, substring by pattern,
// and similar_to_escape.

// text2 are the parameter lists (text, text) and (text, text, text),
// which most of these functions have, the third being the flags.
var (
	textText     = []types.T{types.Text, types.Text}
	textTextText = []types.T{types.Text, types.Text, types.Text}
)

// regexOverloads is a function of (string, pattern [, flags]).
func regexOverloads(ret types.T, f func(s string, re *pgRegex) (any, error), name string, globOK bool) []Overload {
	fn := func(_ Env, a []any) (any, error) {
		re, err := compileRegex(name, a[1].(string), optText(a, 2), globOK)
		if err != nil {
			return nil, err
		}
		return f(a[0].(string), re)
	}
	return []Overload{{Args: textText, Ret: ret, Fn: fn}, {Args: textTextText, Ret: ret, Fn: fn}}
}

// regexRows is regexOverloads for a set-returning function.
func regexRows(ret types.T, f func(s string, re *pgRegex) []any, name string, globOK bool) []Overload {
	rows := func(_ Env, a []any) (func() (any, bool, error), error) {
		re, err := compileRegex(name, a[1].(string), optText(a, 2), globOK)
		if err != nil {
			return nil, err
		}
		return sliceRows(f(a[0].(string), re)), nil
	}
	return []Overload{{Args: textText, Ret: ret, Rows: rows}, {Args: textTextText, Ret: ret, Rows: rows}}
}

func regexpLike(s string, re *pgRegex) (any, error) { return re.re.MatchString(s), nil }

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

// regexpReplace is regexp_replace(s, pattern, replacement [, start
// [, n]] [, flags]): the first match replaced, or the n-th, or with flag g
// all of them from the start-th character on.
func regexpReplace() []Overload {
	fn := func(_ Env, a []any) (any, error) {
		s, repl := a[0].(string), a[2].(string)
		_, withStart := optArg(a, 3).(int64)
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
		re, err := compileRegex("regexp_replace", a[1].(string), flags, true)
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
	}
	t, i := types.Text, types.Int4
	var ovs []Overload
	for _, args := range [][]types.T{{t, t, t}, {t, t, t, t}, {t, t, t, i}, {t, t, t, i, i}, {t, t, t, i, i, t}} {
		ovs = append(ovs, Overload{Args: args, Ret: t, Fn: fn})
	}
	return ovs
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

// regexSearch is regexp_count, regexp_instr or regexp_substr: after the
// string and pattern come the arguments named by names, of which a call
// gives the first few, or none.
func regexSearch(name string, ret types.T, names []string, f func(s string, ms [][]int, r regexArgs) any) []Overload {
	fn := func(_ Env, a []any) (any, error) {
		r, err := readRegexArgs(a, names)
		if err != nil {
			return nil, err
		}
		re, err := compileRegex(name, a[1].(string), r.flags, false)
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
	}
	var ovs []Overload
	for k := 0; k <= len(names); k++ {
		args := []types.T{types.Text, types.Text}
		for _, nm := range names[:k] {
			if nm == "flags" {
				args = append(args, types.Text)
			} else {
				args = append(args, types.Int4)
			}
		}
		ovs = append(ovs, Overload{Args: args, Ret: ret, Fn: fn})
	}
	return ovs
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

func regexpCount(_ string, ms [][]int, _ regexArgs) any { return int64(len(ms)) }

func regexpInstr(s string, ms [][]int, r regexArgs) any {
	lo, hi, ok := nthGroup(ms, r)
	if !ok {
		return int64(0)
	}
	if r.endoption == 1 {
		lo = hi
	}
	return int64(utf8.RuneCountInString(s[:lo]) + 1)
}

func regexpSubstr(s string, ms [][]int, r regexArgs) any {
	lo, hi, ok := nthGroup(ms, r)
	if !ok {
		return nil
	}
	return s[lo:hi]
}

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

// regexpMatches is regexp_matches: the groups of each match (with g) or
// of the first, as text arrays.
func regexpMatches(s string, re *pgRegex) []any {
	var out []any
	for _, m := range re.matches(s, 0, re.glob) {
		out = append(out, re.groups(s, m))
	}
	return out
}

// regexpMatch is regexp_match: the groups of the first match, as a text
// array, or NULL.
func regexpMatch(s string, re *pgRegex) (any, error) {
	m := re.find(s, 0)
	if m == nil {
		return nil, nil
	}
	return re.groups(s, m), nil
}

// similarToEscape is similar_to_escape(pattern [, escape]): a SIMILAR TO
// pattern as a POSIX one.
func similarToEscape(_ Env, a []any) (any, error) {
	esc := `\`
	if len(a) == 2 {
		esc = a[1].(string)
	}
	return similarToRegex(a[0].(string), esc)
}

// substringPattern is substring(s, pattern) (s FROM pattern), with a
// POSIX regular expression, and substring(s, pattern, escape) (s SIMILAR
// pattern ESCAPE escape, or s FROM pattern FOR escape), with a SQL one:
// the first group's match if the pattern has groups, else the whole
// match; NULL if that group took no part.
func substringPattern(_ Env, a []any) (any, error) {
	pattern := a[1].(string)
	if len(a) == 3 {
		var err error
		if pattern, err = similarToRegex(pattern, a[2].(string)); err != nil {
			return nil, err
		}
	}
	re, err := compileRegex("substring", pattern, "", false)
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	m := re.find(s, 0)
	if m == nil || len(m) > 2 && m[2] < 0 {
		return nil, nil
	}
	if len(m) > 2 {
		return s[m[2]:m[3]], nil
	}
	return s[m[0]:m[1]], nil
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

// regexes keeps compiled patterns with their flags.
var regexes memo[regexKey, regexEntry]

type regexKey struct{ pattern, flags string }

// A regexEntry is a pattern compiled, or why it does not compile; glob
// is whether its flags, which parsed, ask for every match.
type regexEntry struct {
	re   *pgRegex
	glob bool
	err  error
}

// compileRegex compiles pattern with flags for the function fn; only
// some functions take the g flag.
func compileRegex(fn, pattern, flags string, globOK bool) (*pgRegex, error) {
	e := regexes.get(regexKey{pattern, flags}, hashStrings(pattern, flags), func() regexEntry {
		return newRegex(pattern, flags)
	})
	if e.glob && !globOK {
		return nil, errGlobal(fn)
	}
	return e.re, e.err
}

func errGlobal(fn string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn)
}

// newRegex compiles pattern with flags.
func newRegex(pattern, flags string) regexEntry {
	f, err := parseRegexFlags(flags)
	if err != nil {
		return regexEntry{err: err}
	}
	e := regexEntry{glob: f.glob}
	e.re, e.err = compileARE(pattern, f)
	return e
}

// compileARE compiles an ARE under flags f.
func compileARE(pattern string, f regexFlags) (*pgRegex, error) {
	var err error
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
	return &pgRegex{re: re, anchor: anchor, glob: f.glob}, nil
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
