package builtins

import (
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/types"
)

// The functions of the citext extension, which resolve only while CREATE
// EXTENSION citext has installed them (Overload.Extension): its overloads
// of ~ (epochdb_match), the regexp_* functions, strpos, replace,
// split_part and translate, which ignore case. Each runs the text
// function as the SQL body in citext--1.4.sql does, with the i flag
// added or on lower-cased text, so that the results, odd cases included
// (replace reads its third argument as a regexp_replace replacement),
// are the extension's. Comparison of citext is types.Compare's, LIKE of
// it the planner's, and its min and max are in aggregates.go.

func init() {
	ci, t, i4 := types.Citext, types.Text, types.Int4
	add := func(name string, ovs ...Overload) {
		for k := range ovs {
			ovs[k].Extension = "citext"
		}
		table[name] = append(slices.Clip(table[name]), ovs...)
	}
	// regex calls the text function name of n arguments, the last its
	// flags, with a call's arguments and flags made case-insensitive.
	regex := func(name string, n int) func(Env, []any) (any, error) {
		fn := textOverload(name, n).Fn
		return func(env Env, a []any) (any, error) { return fn(env, citextFlags(a, n-1)) }
	}
	regexRows := func(name string, n int) func(Env, []any) (func() (any, bool, error), error) {
		rows := textOverload(name, n).Rows
		return func(env Env, a []any) (func() (any, bool, error), error) { return rows(env, citextFlags(a, n-1)) }
	}
	add("epochdb_match",
		Overload{Args: []types.T{ci, ci}, Ret: types.Bool, Fn: regex("epochdb_match", 3)},
		Overload{Args: []types.T{ci, t}, Ret: types.Bool, Fn: regex("epochdb_match", 3)})
	for _, name := range []string{"regexp_match", "regexp_split_to_array"} {
		add(name,
			Overload{Args: []types.T{ci, ci}, Ret: table[name][0].Ret, Fn: regex(name, 3)},
			Overload{Args: []types.T{ci, ci, t}, Ret: table[name][0].Ret, Fn: regex(name, 3)})
	}
	for _, name := range []string{"regexp_matches", "regexp_split_to_table"} {
		add(name,
			Overload{Args: []types.T{ci, ci}, Ret: table[name][0].Ret, Rows: regexRows(name, 3)},
			Overload{Args: []types.T{ci, ci, t}, Ret: table[name][0].Ret, Rows: regexRows(name, 3)})
	}
	add("regexp_replace",
		Overload{Args: []types.T{ci, ci, t}, Ret: t, Fn: regex("regexp_replace", 4)},
		Overload{Args: []types.T{ci, ci, t, t}, Ret: t, Fn: regex("regexp_replace", 4)})

	strposText, replaceText, splitText, translateText := textOverload("strpos", 2).Fn,
		textOverload("regexp_replace", 4).Fn, textOverload("regexp_split_to_array", 3).Fn, textOverload("translate", 3).Fn
	add("strpos", Overload{Args: []types.T{ci, ci}, Ret: i4, Fn: func(env Env, a []any) (any, error) {
		return strposText(env, []any{strings.ToLower(a[0].(string)), strings.ToLower(a[1].(string))})
	}})
	add("replace", Overload{Args: []types.T{ci, ci, ci}, Ret: t, Fn: func(env Env, a []any) (any, error) {
		return replaceText(env, []any{a[0], regexQuote(a[1].(string)), a[2], "gi"})
	}})
	add("split_part", Overload{Args: []types.T{ci, ci, i4}, Ret: t, Fn: func(env Env, a []any) (any, error) {
		parts, err := splitText(env, []any{a[0], regexQuote(a[1].(string)), "i"})
		if err != nil {
			return nil, err
		}
		// An array subscript: out of range, or not from 1, is NULL.
		n, vs := a[2].(int64), parts.([]any)
		if n < 1 || n > int64(len(vs)) {
			return nil, nil
		}
		return vs[n-1], nil
	}})
	add("translate", Overload{Args: []types.T{ci, ci, t}, Ret: t, Fn: func(env Env, a []any) (any, error) {
		from := a[1].(string)
		s, err := translateText(env, []any{a[0], strings.ToLower(from), a[2]})
		if err != nil {
			return nil, err
		}
		return translateText(env, []any{s, strings.ToUpper(from), a[2]})
	}})
}

// textOverload is the overload of name whose n parameters are all text,
// which a citext overload calls.
func textOverload(name string, n int) *Overload {
	for k, o := range table[name] {
		if len(o.Args) == n && o.Extension == "" && !slices.ContainsFunc(o.Args, func(t types.T) bool { return t != types.Text }) {
			return &table[name][k]
		}
	}
	panic("builtins: no " + name + " of text")
}

// citextFlags is a call's arguments a with its flags, argument k, made
// case-insensitive as the extension makes them: "i" if the call gives
// none, else i added unless they say c.
func citextFlags(a []any, k int) []any {
	args := slices.Clone(a)
	switch {
	case k >= len(a):
		args = append(args, "i")
	case !strings.Contains(a[k].(string), "c"):
		args[k] = a[k].(string) + "i"
	}
	return args
}

// regexQuote makes s a regular expression that matches s, as the
// extension does: a backslash before every character but an ASCII letter,
// digit or underscore.
func regexQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
