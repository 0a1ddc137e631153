package sql

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// json and jsonb: their operators and functions. The values themselves,
// their parsing, output, ordering and containment live in types; this
// file resolves calls by argument type and turns SQL values into JSON.
//
// A jsonb result is built as a tree and normalized. A json result is
// built as text, with the spacing PostgreSQL's producer of the same name
// uses (json_build_object writes {"a" : 1}, row_to_json {"a":1}), then
// parsed, so that it prints exactly as written like any json value.
//
// The parser writes the operators TiDB lacks as calls: a -> b is
// epochdb_arrow(a, b), a ->> b epochdb_arrow_text, #> and #>> epochdb_path
// and epochdb_path_text, @> and <@ epochdb_contains and epochdb_contained,
// ? ?| ?& epochdb_exists, _any and _all, #- epochdb_delete_path, and &&
// epochdb_overlap. || reaches compileConcatOp (as epochdb_concat_op) and - arith.

func init() {
	for name, f := range map[string]builtin{
		"epochdb_arrow":       compileArrow(false),
		"epochdb_arrow_text":  compileArrow(true),
		"epochdb_path":        compilePathOp(false),
		"epochdb_path_text":   compilePathOp(true),
		"epochdb_contains":    compileContains(false),
		"epochdb_contained":   compileContains(true),
		"epochdb_overlap":     compileOverlap,
		"epochdb_exists":      jsonbFunc(types.Bool, []types.T{types.Text}, jsonbExists),
		"epochdb_exists_any":  jsonbFunc(types.Bool, []types.T{types.TextArray}, jsonbExistsAny(false)),
		"epochdb_exists_all":  jsonbFunc(types.Bool, []types.T{types.TextArray}, jsonbExistsAny(true)),
		"epochdb_delete_path": jsonbFunc(types.JSONBType, []types.T{types.TextArray}, jsonbDeletePath),

		"jsonb_exists":       jsonbFunc(types.Bool, []types.T{types.Text}, jsonbExists),
		"jsonb_exists_any":   jsonbFunc(types.Bool, []types.T{types.TextArray}, jsonbExistsAny(false)),
		"jsonb_exists_all":   jsonbFunc(types.Bool, []types.T{types.TextArray}, jsonbExistsAny(true)),
		"jsonb_typeof":       jsonbFunc(types.Text, nil, jsonTypeof),
		"json_typeof":        jsonFunc(types.Text, nil, jsonTypeof),
		"jsonb_array_length": jsonbFunc(types.Int4, nil, jsonArrayLength),
		"json_array_length":  jsonFunc(types.Int4, nil, jsonArrayLength),
		"jsonb_pretty": jsonbFunc(types.Text, nil, func(_ *env, j *types.JSON, _ []any) (any, error) {
			return string(j.AppendPretty(nil)), nil
		}),
		"jsonb_strip_nulls": jsonbFunc(types.JSONBType, nil, func(_ *env, j *types.JSON, _ []any) (any, error) {
			return stripNulls(j, true), nil
		}),
		"json_strip_nulls": jsonFunc(types.JSONType, nil, func(_ *env, j *types.JSON, _ []any) (any, error) {
			return types.ParseJSON(string(appendJSONTree(nil, stripNulls(j, false))))
		}),
		"jsonb_set":                 compileJSONBSet,
		"jsonb_extract_path":        compileExtractPath(types.JSONBType, false),
		"jsonb_extract_path_text":   compileExtractPath(types.JSONBType, true),
		"json_extract_path":         compileExtractPath(types.JSONType, false),
		"json_extract_path_text":    compileExtractPath(types.JSONType, true),
		"to_jsonb":                  compileToJSON(types.JSONBType),
		"to_json":                   compileToJSON(types.JSONType),
		"row_to_json":               compileToJSON(types.JSONType),
		"jsonb_build_object":        compileBuildObject(types.JSONBType),
		"json_build_object":         compileBuildObject(types.JSONType),
		"jsonb_build_array":         compileBuildArray(types.JSONBType),
		"json_build_array":          compileBuildArray(types.JSONType),
		"jsonb_object_keys":         compileSRFRef,
		"json_object_keys":          compileSRFRef,
		"jsonb_each":                compileSRFRef,
		"json_each":                 compileSRFRef,
		"jsonb_each_text":           compileSRFRef,
		"json_each_text":            compileSRFRef,
		"jsonb_array_elements":      compileSRFRef,
		"json_array_elements":       compileSRFRef,
		"jsonb_array_elements_text": compileSRFRef,
		"json_array_elements_text":  compileSRFRef,
	} {
		funcCompilers[name] = f
	}
}

// jsonTableFuncs are the set-returning json functions compileTableFunc
// compiles.
var jsonTableFuncs = map[string]bool{
	"jsonb_object_keys": true, "json_object_keys": true,
	"jsonb_each": true, "json_each": true, "jsonb_each_text": true, "json_each_text": true,
	"jsonb_array_elements": true, "json_array_elements": true,
	"jsonb_array_elements_text": true, "json_array_elements_text": true,
}

// jsonOperand compiles the json or jsonb operand of an operator or
// function: an untyped literal is taken as want.
func jsonOperand(c *compiler, n ast.ExprNode, want types.T) (expr, error) {
	e, err := c.compile(n)
	if err != nil {
		return nil, err
	}
	if e.typ().Oid == types.OidUnknown {
		return c.coerce(e, want)
	}
	return e, nil
}

// jsonbFunc compiles a strict function of a jsonb first argument and
// further arguments of the given types.
func jsonbFunc(ret types.T, params []types.T, fn func(*env, *types.JSON, []any) (any, error)) builtin {
	return jsonFuncOf(types.JSONBType, ret, params, fn)
}

// jsonFunc is jsonbFunc for json.
func jsonFunc(ret types.T, params []types.T, fn func(*env, *types.JSON, []any) (any, error)) builtin {
	return jsonFuncOf(types.JSONType, ret, params, fn)
}

func jsonFuncOf(jt, ret types.T, params []types.T, fn func(*env, *types.JSON, []any) (any, error)) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) != len(params)+1 {
			return nil, argCountErr(n, nil)
		}
		args, err := compileArgs(c, n)
		if err != nil {
			return nil, err
		}
		if err := c.coerceArg(n.FnName.L, args, 0, jt); err != nil {
			return nil, err
		}
		for i, p := range params {
			if err := c.coerceArg(n.FnName.L, args, i+1, p); err != nil {
				return nil, err
			}
		}
		return &funcExpr{name: n.FnName.L, t: ret, args: args, strict: true, fn: func(e *env, a []any) (any, error) {
			return fn(e, a[0].(*types.JSON), a[1:])
		}}, nil
	}
}

// coerceArg converts args[i] of a call of name to t. An argument of a type
// that does not convert gets PostgreSQL's error for a call no version of
// the function takes; an untyped literal that does not parse, its own.
func (c *compiler) coerceArg(name string, args []expr, i int, t types.T) error {
	e, err := c.coerce(args[i], t)
	if err != nil {
		if pgerr.Code(err) == pgerr.DatatypeMismatch {
			return noFunction(name, args)
		}
		return err
	}
	args[i] = e
	return nil
}

// noFunction is PostgreSQL's error for a call no version of the function
// takes.
func noFunction(name string, args []expr) error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.typ().String()
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, joinComma(names)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func joinComma(s []string) string {
	var b []byte
	for i, x := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, x...)
	}
	return string(b)
}

// jsonOperands compiles the two operands of a json operator: the left one
// must be json or jsonb (an untyped literal is jsonb).
func jsonOperands(c *compiler, n *ast.FuncCallExpr, op string) (l, r expr, err error) {
	if len(n.Args) != 2 {
		return nil, nil, argCountErr(n, nil)
	}
	if l, err = c.compile(n.Args[0]); err != nil {
		return nil, nil, err
	}
	if r, err = c.compile(n.Args[1]); err != nil {
		return nil, nil, err
	}
	if l.typ().Oid == types.OidUnknown && r.typ().Oid == types.OidUnknown {
		return nil, nil, pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: unknown %s unknown", op).
			WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
	}
	if l.typ().Oid == types.OidUnknown {
		if l, err = c.coerce(l, types.JSONBType); err != nil {
			return nil, nil, err
		}
	}
	return l, r, nil
}

// compileArrow is j -> key, j -> index, and their ->> forms, which give
// text.
func compileArrow(asText bool) builtin {
	op := "->"
	if asText {
		op = "->>"
	}
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		l, r, err := jsonOperands(c, n, op)
		if err != nil {
			return nil, err
		}
		lt, rt := l.typ(), r.typ()
		if !isJSON(lt.Oid) {
			return nil, noOperator(op, lt, rt)
		}
		ret := lt
		if asText {
			ret = types.Text
		}
		var pick func(j *types.JSON, k any) *types.JSON
		switch {
		case isInt(rt.Oid):
			if r, err = c.coerce(r, types.Int4); err != nil {
				return nil, err
			}
			pick = func(j *types.JSON, k any) *types.JSON {
				i := int(k.(int64))
				if lt.Oid == types.OidJSONB && j.Kind != types.JSONArray && j.Kind != types.JSONObject && (i == 0 || i == -1) {
					return j // jsonb keeps a scalar as a one-element array
				}
				return j.Elem(i)
			}
		case isString(rt.Oid) || rt.Oid == types.OidUnknown:
			if r, err = c.coerce(r, types.Text); err != nil {
				return nil, err
			}
			pick = func(j *types.JSON, k any) *types.JSON { return j.Field(k.(string)) }
		default:
			return nil, noOperator(op, lt, rt)
		}
		return &funcExpr{name: op, t: ret, args: []expr{l, r}, strict: true, fn: func(_ *env, a []any) (any, error) {
			if err := checkText(lt, a[0].(*types.JSON)); err != nil {
				return nil, err
			}
			return jsonResult(pick(a[0].(*types.JSON), a[1]), asText)
		}}, nil
	}
}

// jsonResult is what an extraction gives: SQL NULL for nothing, the value,
// or with asText its text (SQL NULL for JSON null).
func jsonResult(j *types.JSON, asText bool) (any, error) {
	if j == nil {
		return nil, nil
	}
	if !asText {
		return j, nil
	}
	s, ok := j.Text()
	if !ok {
		return nil, nil
	}
	return s, nil
}

// compilePathOp is j #> path and j #>> path.
func compilePathOp(asText bool) builtin {
	op := "#>"
	if asText {
		op = "#>>"
	}
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		l, r, err := jsonOperands(c, n, op)
		if err != nil {
			return nil, err
		}
		if !isJSON(l.typ().Oid) {
			return nil, noOperator(op, l.typ(), r.typ())
		}
		if r, err = c.coerce(r, types.TextArray); err != nil {
			return nil, noOperator(op, l.typ(), r.typ())
		}
		lt, ret := l.typ(), l.typ()
		if asText {
			ret = types.Text
		}
		return &funcExpr{name: op, t: ret, args: []expr{l, r}, strict: true, fn: func(_ *env, a []any) (any, error) {
			if err := checkText(lt, a[0].(*types.JSON)); err != nil {
				return nil, err
			}
			path, ok := textPath(a[1].([]any))
			if !ok {
				return nil, nil
			}
			return jsonResult(a[0].(*types.JSON).Path(path), asText)
		}}, nil
	}
}

// checkText fails where PostgreSQL does for a json value whose strings
// have no text (\u0000): when an operation reads them.
func checkText(t types.T, j *types.JSON) error {
	if t.Oid == types.OidJSON {
		return j.CheckEscapes()
	}
	return nil
}

// textPath is a text[] path; a NULL element matches nothing.
func textPath(vals []any) ([]string, bool) {
	path := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			return nil, false
		}
		path[i] = v.(string)
	}
	return path, true
}

// compileExtractPath is json[b]_extract_path[_text](j, VARIADIC path).
func compileExtractPath(jt types.T, asText bool) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) == 0 {
			return nil, argCountErr(n, nil)
		}
		args, err := compileArgs(c, n)
		if err != nil {
			return nil, err
		}
		if err := c.coerceArg(n.FnName.L, args, 0, jt); err != nil {
			return nil, err
		}
		for i := 1; i < len(args); i++ {
			if err := c.coerceArg(n.FnName.L, args, i, types.Text); err != nil {
				return nil, err
			}
		}
		ret := jt
		if asText {
			ret = types.Text
		}
		return &funcExpr{name: n.FnName.L, t: ret, args: args, fn: func(_ *env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			if err := checkText(jt, a[0].(*types.JSON)); err != nil {
				return nil, err
			}
			path, ok := textPath(a[1:])
			if !ok {
				return nil, nil
			}
			return jsonResult(a[0].(*types.JSON).Path(path), asText)
		}}, nil
	}
}

// compileContains is a @> b, or with contained a <@ b, over jsonb or
// arrays.
func compileContains(contained bool) builtin {
	op := "@>"
	if contained {
		op = "<@"
	}
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		l, r, err := twoOperands(c, n, op)
		if err != nil {
			return nil, err
		}
		if contained {
			l, r = r, l
		}
		if l.typ().IsArray() {
			elem, _ := l.typ().Elem()
			return &funcExpr{name: op, t: types.Bool, args: []expr{l, r}, strict: true, fn: func(_ *env, a []any) (any, error) {
				return arrayContains(elem, a[0].([]any), a[1].([]any)), nil
			}}, nil
		}
		return &funcExpr{name: op, t: types.Bool, args: []expr{l, r}, strict: true, fn: func(_ *env, a []any) (any, error) {
			return a[0].(*types.JSON).Contains(a[1].(*types.JSON)), nil
		}}, nil
	}
}

// compileOverlap is a && b over arrays: whether they share an element.
func compileOverlap(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	l, r, err := twoOperands(c, n, "&&")
	if err != nil {
		return nil, err
	}
	if !l.typ().IsArray() {
		return nil, noOperator("&&", l.typ(), r.typ())
	}
	elem, _ := l.typ().Elem()
	return &funcExpr{name: "&&", t: types.Bool, args: []expr{l, r}, strict: true, fn: func(_ *env, a []any) (any, error) {
		for _, x := range a[0].([]any) {
			if x != nil && arrayContains(elem, a[1].([]any), []any{x}) {
				return true, nil
			}
		}
		return false, nil
	}}, nil
}

// twoOperands compiles the operands of an operator defined on jsonb and on
// arrays, both of one type.
func twoOperands(c *compiler, n *ast.FuncCallExpr, op string) (l, r expr, err error) {
	if len(n.Args) != 2 {
		return nil, nil, argCountErr(n, nil)
	}
	if l, err = c.compile(n.Args[0]); err != nil {
		return nil, nil, err
	}
	if r, err = c.compile(n.Args[1]); err != nil {
		return nil, nil, err
	}
	lt, rt := l.typ(), r.typ()
	var t types.T
	switch {
	case lt.Oid == types.OidUnknown && rt.Oid == types.OidUnknown:
		return nil, nil, pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: unknown %s unknown", op).
			WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
	case lt.Oid == types.OidJSONB || rt.Oid == types.OidJSONB:
		t = types.JSONBType
	case lt.IsArray() && rt.IsArray():
		le, _ := lt.Elem()
		re, _ := rt.Elem()
		u, ok := unify(le, re)
		if !ok {
			return nil, nil, noOperator(op, lt, rt)
		}
		t, _ = types.ArrayOf(u)
	case lt.IsArray() && rt.Oid == types.OidUnknown:
		t = types.T{Oid: lt.Oid, Mod: -1}
	case rt.IsArray() && lt.Oid == types.OidUnknown:
		t = types.T{Oid: rt.Oid, Mod: -1}
	default:
		return nil, nil, noOperator(op, lt, rt)
	}
	if l, err = c.coerce(l, t); err != nil {
		return nil, nil, noOperator(op, lt, rt)
	}
	if r, err = c.coerce(r, t); err != nil {
		return nil, nil, noOperator(op, lt, rt)
	}
	return l, r, nil
}

// arrayContains reports whether every element of sub equals an element of
// arr; a NULL element equals nothing, as in PostgreSQL.
func arrayContains(elem types.T, arr, sub []any) bool {
	for _, s := range sub {
		if s == nil {
			return false
		}
		if !slices.ContainsFunc(arr, func(x any) bool { return x != nil && types.Compare(elem, x, s) == 0 }) {
			return false
		}
	}
	return true
}

// jsonbExists is j ? key: key is a top-level key, array element string or
// the string itself.
func jsonbExists(_ *env, j *types.JSON, a []any) (any, error) {
	return hasString(j, a[0].(string)), nil
}

func hasString(j *types.JSON, s string) bool {
	switch j.Kind {
	case types.JSONObject:
		return j.Field(s) != nil
	case types.JSONArray:
		return slices.ContainsFunc(j.Elems, func(e *types.JSON) bool { return e.Kind == types.JSONString && e.Str == s })
	case types.JSONString:
		return j.Str == s
	}
	return false
}

// jsonbExistsAny is j ?| keys, or with all j ?& keys.
func jsonbExistsAny(all bool) func(*env, *types.JSON, []any) (any, error) {
	return func(_ *env, j *types.JSON, a []any) (any, error) {
		for _, k := range a[0].([]any) {
			if k == nil {
				continue // PostgreSQL skips NULL keys
			}
			if hasString(j, k.(string)) != all {
				return !all, nil
			}
		}
		return all, nil
	}
}

func jsonTypeof(_ *env, j *types.JSON, _ []any) (any, error) {
	switch j.Kind {
	case types.JSONObject:
		return "object", nil
	case types.JSONArray:
		return "array", nil
	case types.JSONString:
		return "string", nil
	case types.JSONNumber:
		return "number", nil
	case types.JSONBool:
		return "boolean", nil
	}
	return "null", nil
}

func jsonArrayLength(_ *env, j *types.JSON, _ []any) (any, error) {
	switch j.Kind {
	case types.JSONArray:
		return int64(len(j.Elems)), nil
	case types.JSONObject:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
}

// stripNulls drops object members whose value is null, at every depth.
func stripNulls(j *types.JSON, normalize bool) *types.JSON {
	switch j.Kind {
	case types.JSONArray:
		out := &types.JSON{Kind: types.JSONArray, Elems: make([]*types.JSON, len(j.Elems))}
		for i, e := range j.Elems {
			out.Elems[i] = stripNulls(e, normalize)
		}
		return out
	case types.JSONObject:
		out := &types.JSON{Kind: types.JSONObject}
		for i, v := range j.Vals {
			if v.Kind != types.JSONNull {
				out.Keys = append(out.Keys, j.Keys[i])
				out.Vals = append(out.Vals, stripNulls(v, normalize))
			}
		}
		return out
	}
	return j
}

// appendJSONTree writes a tree as json text: values parsed from json as
// written, the containers stripNulls rebuilt the way json_strip_nulls
// prints them.
func appendJSONTree(buf []byte, j *types.JSON) []byte {
	switch {
	case j.Raw != "":
		return append(buf, j.Raw...)
	case j.Kind == types.JSONArray:
		buf = append(buf, '[')
		for i, e := range j.Elems {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONTree(buf, e)
		}
		return append(buf, ']')
	case j.Kind == types.JSONObject:
		buf = append(buf, '{')
		for i, k := range j.Keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = types.JSONStr(k).AppendJSONB(buf)
			buf = append(buf, ':')
			buf = appendJSONTree(buf, j.Vals[i])
		}
		return append(buf, '}')
	}
	return j.AppendJSONText(buf)
}

// jsonbDeletePath is j #- path.
func jsonbDeletePath(_ *env, j *types.JSON, a []any) (any, error) {
	path, ok := textPath(a[0].([]any))
	if !ok {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "path element at position %d is null", slices.Index(a[0].([]any), nil)+1)
	}
	if j.Kind != types.JSONObject && j.Kind != types.JSONArray {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot delete path in scalar")
	}
	if len(path) == 0 {
		return j, nil
	}
	return deletePath(j, path), nil
}

func deletePath(j *types.JSON, path []string) *types.JSON {
	switch j.Kind {
	case types.JSONObject:
		i := slices.Index(j.Keys, path[0])
		if i < 0 {
			return j
		}
		out := &types.JSON{Kind: types.JSONObject, Keys: slices.Clone(j.Keys), Vals: slices.Clone(j.Vals)}
		if len(path) == 1 {
			out.Keys = slices.Delete(out.Keys, i, i+1)
			out.Vals = slices.Delete(out.Vals, i, i+1)
		} else {
			out.Vals[i] = deletePath(j.Vals[i], path[1:])
		}
		return out
	case types.JSONArray:
		i, ok := arrayIndex(path[0], len(j.Elems))
		if !ok {
			return j
		}
		out := &types.JSON{Kind: types.JSONArray, Elems: slices.Clone(j.Elems)}
		if len(path) == 1 {
			out.Elems = slices.Delete(out.Elems, i, i+1)
		} else {
			out.Elems[i] = deletePath(j.Elems[i], path[1:])
		}
		return out
	}
	return j
}

// arrayIndex reads a path step as an index into an array of n elements,
// negative counting from the end.
func arrayIndex(step string, n int) (int, bool) {
	i, err := strconv.Atoi(step)
	if err != nil {
		return 0, false
	}
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// compileJSONBSet is jsonb_set(target, path, new_value [, create_if_missing]).
func compileJSONBSet(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	if len(n.Args) != 3 && len(n.Args) != 4 {
		return nil, argCountErr(n, nil)
	}
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	want := []types.T{types.JSONBType, types.TextArray, types.JSONBType, types.Bool}
	for i := range args {
		if err := c.coerceArg(n.FnName.L, args, i, want[i]); err != nil {
			return nil, err
		}
	}
	return &funcExpr{name: "jsonb_set", t: types.JSONBType, args: args, strict: true, fn: func(_ *env, a []any) (any, error) {
		j := a[0].(*types.JSON)
		path, ok := textPath(a[1].([]any))
		if !ok {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "path element at position %d is null", slices.Index(a[1].([]any), nil)+1)
		}
		if j.Kind != types.JSONObject && j.Kind != types.JSONArray {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot set path in scalar")
		}
		create := len(a) < 4 || a[3].(bool)
		if len(path) == 0 {
			return j, nil
		}
		return setPath(j, path, a[2].(*types.JSON), create, 1)
	}}, nil
}

func setPath(j *types.JSON, path []string, v *types.JSON, create bool, pos int) (*types.JSON, error) {
	last := len(path) == 1
	switch j.Kind {
	case types.JSONObject:
		i := slices.Index(j.Keys, path[0])
		if i < 0 {
			if !last || !create {
				return j, nil
			}
			out := &types.JSON{Kind: types.JSONObject, Keys: append(slices.Clone(j.Keys), path[0]), Vals: append(slices.Clone(j.Vals), v)}
			return types.NormalizeJSONB(out)
		}
		out := &types.JSON{Kind: types.JSONObject, Keys: slices.Clone(j.Keys), Vals: slices.Clone(j.Vals)}
		if last {
			out.Vals[i] = v
			return out, nil
		}
		sub, err := setPath(j.Vals[i], path[1:], v, create, pos+1)
		out.Vals[i] = sub
		return out, err
	case types.JSONArray:
		idx, err := strconv.Atoi(path[0])
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "path element at position %d is not an integer: %q", pos, path[0])
		}
		n := len(j.Elems)
		if idx < 0 {
			idx += n
		}
		if idx < 0 || idx >= n {
			if !last || !create {
				return j, nil
			}
			// Past either end, the value goes at that end.
			if idx < 0 {
				return &types.JSON{Kind: types.JSONArray, Elems: append([]*types.JSON{v}, j.Elems...)}, nil
			}
			return &types.JSON{Kind: types.JSONArray, Elems: append(slices.Clone(j.Elems), v)}, nil
		}
		out := &types.JSON{Kind: types.JSONArray, Elems: slices.Clone(j.Elems)}
		if last {
			out.Elems[idx] = v
			return out, nil
		}
		sub, err := setPath(j.Elems[idx], path[1:], v, create, pos+1)
		out.Elems[idx] = sub
		return out, err
	}
	return j, nil
}

// jsonbConcat is a || b over jsonb: objects merge, the right side's
// members winning; anything else concatenates as arrays, a scalar or
// object standing for a one-element array.
func jsonbConcat(a, b *types.JSON) (*types.JSON, error) {
	if a.Kind == types.JSONObject && b.Kind == types.JSONObject {
		out := &types.JSON{Kind: types.JSONObject, Keys: append(slices.Clone(a.Keys), b.Keys...), Vals: append(slices.Clone(a.Vals), b.Vals...)}
		return types.NormalizeJSONB(out)
	}
	elems := func(j *types.JSON) []*types.JSON {
		if j.Kind == types.JSONArray {
			return j.Elems
		}
		return []*types.JSON{j}
	}
	return &types.JSON{Kind: types.JSONArray, Elems: append(slices.Clone(elems(a)), elems(b)...)}, nil
}

// compileJSONBMinus is jsonb - text (a key, or matching string elements),
// jsonb - text[] (several keys) and jsonb - int (an array element).
func (c *compiler) jsonbMinus(l, r expr) (expr, error) {
	rt := r.typ()
	var err error
	var del func(j *types.JSON, k any) (*types.JSON, error)
	switch {
	case isInt(rt.Oid):
		if r, err = c.coerce(r, types.Int4); err != nil {
			return nil, err
		}
		del = func(j *types.JSON, k any) (*types.JSON, error) {
			switch j.Kind {
			case types.JSONObject:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from object using integer index")
			case types.JSONArray:
				i, ok := arrayIndex(strconv.FormatInt(k.(int64), 10), len(j.Elems))
				if !ok {
					return j, nil
				}
				return &types.JSON{Kind: types.JSONArray, Elems: slices.Delete(slices.Clone(j.Elems), i, i+1)}, nil
			}
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
		}
	case rt.IsArray():
		if r, err = c.coerce(r, types.TextArray); err != nil {
			return nil, noOperator("-", l.typ(), rt)
		}
		del = func(j *types.JSON, k any) (*types.JSON, error) {
			for _, key := range k.([]any) {
				if key == nil {
					continue
				}
				var err error
				if j, err = deleteKey(j, key.(string)); err != nil {
					return nil, err
				}
			}
			return j, nil
		}
	case isString(rt.Oid) || rt.Oid == types.OidUnknown:
		if r, err = c.coerce(r, types.Text); err != nil {
			return nil, err
		}
		del = func(j *types.JSON, k any) (*types.JSON, error) { return deleteKey(j, k.(string)) }
	default:
		return nil, noOperator("-", l.typ(), rt)
	}
	return &funcExpr{name: "-", t: types.JSONBType, args: []expr{l, r}, strict: true, fn: func(_ *env, a []any) (any, error) {
		return del(a[0].(*types.JSON), a[1])
	}}, nil
}

func deleteKey(j *types.JSON, key string) (*types.JSON, error) {
	switch j.Kind {
	case types.JSONObject:
		return deletePath(j, []string{key}), nil
	case types.JSONArray:
		out := &types.JSON{Kind: types.JSONArray}
		for _, e := range j.Elems {
			if e.Kind != types.JSONString || e.Str != key {
				out.Elems = append(out.Elems, e)
			}
		}
		return out, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
}

// compileToJSON is to_json, to_jsonb and row_to_json: a SQL value as JSON.
func compileToJSON(jt types.T) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) != 1 {
			return nil, argCountErr(n, nil)
		}
		arg, err := c.compile(n.Args[0])
		if err != nil {
			return nil, err
		}
		at := arg.typ()
		if at.Oid == types.OidUnknown {
			return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
		}
		if _, rec := at.Fields(); n.FnName.L == "row_to_json" && !rec {
			return nil, noFunction(n.FnName.L, []expr{arg})
		}
		return &funcExpr{name: n.FnName.L, t: jt, args: []expr{arg}, strict: true, fn: func(e *env, a []any) (any, error) {
			return makeJSON(jt, func(b *jsonBuilder) { b.value(at, a[0]) }, e.s.loc())
		}}, nil
	}
}

// compileBuildObject is json[b]_build_object(key, value, ...).
func compileBuildObject(jt types.T) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args)%2 != 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
				WithHint("The arguments of %s() must consist of alternating keys and values.", n.FnName.L)
		}
		args, err := jsonBuildArgs(c, n)
		if err != nil {
			return nil, err
		}
		return &funcExpr{name: n.FnName.L, t: jt, args: args, fn: func(e *env, a []any) (any, error) {
			for i := 0; i < len(a); i += 2 {
				switch {
				case a[i] != nil:
				case jt.Oid == types.OidJSONB:
					return nil, pgerr.New(pgerr.InvalidParameterValue, "argument %d: key must not be null", i+1)
				default:
					return nil, pgerr.New(pgerr.InvalidParameterValue, "argument %d cannot be null", i+1).
						WithHint("Object keys should be text.")
				}
			}
			return makeJSON(jt, func(b *jsonBuilder) {
				b.object(len(a)/2, "{", ", ", "}", func(i int) {
					b.key(args[2*i].typ(), a[2*i], " : ")
					b.value(args[2*i+1].typ(), a[2*i+1])
				})
			}, e.s.loc())
		}}, nil
	}
}

// compileBuildArray is json[b]_build_array(value, ...).
func compileBuildArray(jt types.T) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		args, err := jsonBuildArgs(c, n)
		if err != nil {
			return nil, err
		}
		return &funcExpr{name: n.FnName.L, t: jt, args: args, fn: func(e *env, a []any) (any, error) {
			return makeJSON(jt, func(b *jsonBuilder) {
				b.array(len(a), ", ", func(i int) { b.value(args[i].typ(), a[i]) })
			}, e.s.loc())
		}}, nil
	}
}

// jsonBuildArgs compiles a builder's arguments; untyped literals are text.
func jsonBuildArgs(c *compiler, n *ast.FuncCallExpr) ([]expr, error) {
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	for i := range args {
		if args[i], err = c.resolveUnknown(args[i]); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// jsonBuilder makes a JSON value from SQL values: a jsonb tree, or json
// text in the producer's own spacing.
type jsonBuilder struct {
	jsonb bool
	loc   *time.Location
	buf   []byte        // json text
	stack []*types.JSON // jsonb: the containers being filled
	out   *types.JSON   // jsonb: the finished value
	err   error
}

// makeJSON runs build and returns the value it made, of type jt.
func makeJSON(jt types.T, build func(*jsonBuilder), loc *time.Location) (any, error) {
	b := &jsonBuilder{jsonb: jt.Oid == types.OidJSONB, loc: loc}
	build(b)
	if b.err != nil {
		return nil, b.err
	}
	if b.jsonb {
		return b.out, nil
	}
	return types.ParseJSON(string(b.buf))
}

// put adds a finished jsonb value to the open container, or makes it the
// result.
func (b *jsonBuilder) put(j *types.JSON) {
	if len(b.stack) == 0 {
		b.out = j
		return
	}
	top := b.stack[len(b.stack)-1]
	if top.Kind == types.JSONArray {
		top.Elems = append(top.Elems, j)
	} else {
		top.Vals = append(top.Vals, j)
	}
}

// array writes n elements, each by elem, json's separated by sep.
func (b *jsonBuilder) array(n int, sep string, elem func(i int)) {
	if b.jsonb {
		b.stack = append(b.stack, &types.JSON{Kind: types.JSONArray, Elems: []*types.JSON{}})
	} else {
		b.buf = append(b.buf, '[')
	}
	for i := range n {
		if i > 0 && !b.jsonb {
			b.buf = append(b.buf, sep...)
		}
		elem(i)
	}
	b.closeContainer("]")
}

// object writes n members, each by a call of member that writes a key
// (with key) and a value; json's text opens, separates and closes them
// with the strings given.
func (b *jsonBuilder) object(n int, open, sep, close string, member func(i int)) {
	if b.jsonb {
		b.stack = append(b.stack, &types.JSON{Kind: types.JSONObject, Keys: []string{}, Vals: []*types.JSON{}})
	} else {
		b.buf = append(b.buf, open...)
	}
	for i := range n {
		if i > 0 && !b.jsonb {
			b.buf = append(b.buf, sep...)
		}
		member(i)
	}
	b.closeContainer(close)
}

func (b *jsonBuilder) closeContainer(close string) {
	if !b.jsonb {
		b.buf = append(b.buf, close...)
		return
	}
	top := b.stack[len(b.stack)-1]
	b.stack = b.stack[:len(b.stack)-1]
	if top.Kind == types.JSONObject {
		b.put(b.normalize(top))
		return
	}
	b.put(top)
}

// normalize makes j jsonb, keeping the first error for the end.
func (b *jsonBuilder) normalize(j *types.JSON) *types.JSON {
	n, err := types.NormalizeJSONB(j)
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		return types.JSONNullValue
	}
	return n
}

// key writes an object member's key, a SQL value's text, and in json the
// colon after it.
func (b *jsonBuilder) key(t types.T, v any, colon string) {
	s := jsonKeyText(t, v, b.loc)
	if b.jsonb {
		top := b.stack[len(b.stack)-1]
		top.Keys = append(top.Keys, s)
		return
	}
	b.buf = types.JSONStr(s).AppendJSONB(b.buf)
	b.buf = append(b.buf, colon...)
}

// jsonKeyText is how a SQL value becomes an object key: its text.
func jsonKeyText(t types.T, v any, loc *time.Location) string {
	if s, ok := v.(string); ok {
		return s
	}
	if t.Oid == types.OidBool {
		if v.(bool) {
			return "true"
		}
		return "false"
	}
	return string(types.AppendText(nil, t, v, loc))
}

// value writes a SQL value as JSON: NULL as null, booleans and numbers as
// themselves (non-finite numbers as strings), json as is, arrays as
// arrays, records as objects, dates and times in ISO 8601, and anything
// else as the string of its text.
func (b *jsonBuilder) value(t types.T, v any) {
	if v == nil {
		b.scalar(types.JSONNullValue, "null")
		return
	}
	if elem, ok := t.Elem(); ok {
		b.array(len(v.([]any)), ",", func(i int) { b.value(elem, v.([]any)[i]) })
		return
	}
	if fields, ok := t.Fields(); ok {
		vals := v.([]any)
		b.object(len(fields), "{", ",", "}", func(i int) {
			b.key(types.Text, fields[i].Name, ":")
			b.value(fields[i].T, vals[i])
		})
		return
	}
	switch t.Oid {
	case types.OidJSON, types.OidJSONB:
		j := v.(*types.JSON)
		if b.jsonb {
			if t.Oid == types.OidJSON {
				j = b.normalize(j)
			}
			b.put(j)
		} else if t.Oid == types.OidJSON {
			b.buf = j.AppendJSONText(b.buf)
		} else {
			b.buf = j.AppendJSONB(b.buf)
		}
		return
	case types.OidBool:
		b.scalar(types.JSONBoolean(v.(bool)), strconv.FormatBool(v.(bool)))
		return
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidOid:
		n := v.(int64)
		b.scalar(types.JSONNum(apd.New(n, 0)), strconv.FormatInt(n, 10))
		return
	case types.OidFloat4, types.OidFloat8, types.OidNumeric:
		text := string(types.AppendText(nil, t, v, b.loc))
		d, err := types.ParseText(types.Numeric, text, nil)
		if err != nil || d.(*apd.Decimal).Form != apd.Finite {
			b.scalar(types.JSONStr(text), "")
			return
		}
		b.scalar(types.JSONNum(d.(*apd.Decimal)), text)
		return
	case types.OidDate, types.OidTimestamp, types.OidTimestamptz:
		b.scalar(types.JSONStr(isoTime(t, v.(time.Time), b.loc)), "")
		return
	}
	b.scalar(types.JSONStr(jsonKeyText(t, v, b.loc)), "")
}

// scalar writes a scalar: the jsonb value, or json text (a string's
// escaped form when text is empty).
func (b *jsonBuilder) scalar(j *types.JSON, text string) {
	if b.jsonb {
		b.put(j)
		return
	}
	if text == "" {
		b.buf = j.AppendJSONB(b.buf)
		return
	}
	b.buf = append(b.buf, text...)
}

// isoTime is a date or time as JSON writes it: ISO 8601, with a T between
// date and time, and a timestamptz's offset in hours and minutes.
func isoTime(t types.T, v time.Time, loc *time.Location) string {
	var tz *time.Location
	if t.Oid == types.OidTimestamptz {
		tz = loc
	}
	s := []byte(types.AppendText(nil, t, v, tz))
	if v.Equal(types.TimeInfinity) || v.Equal(types.TimeNegInfinity) || t.Oid == types.OidDate {
		return string(s)
	}
	if i := bytes.IndexByte(s, ' '); i >= 0 {
		s[i] = 'T'
	}
	if t.Oid == types.OidTimestamptz {
		// +05 becomes +05:00; +05:30 stays.
		if i := bytes.LastIndexAny(s, "+-"); i > 0 && len(s)-i == 3 {
			s = append(s, ":00"...)
		}
	}
	return string(s)
}

// jsonTableFunc compiles json[b]_object_keys, json[b]_each[_text] and
// json[b]_array_elements[_text].
func (c *compiler) jsonTableFunc(n *ast.FuncCallExpr) (*tableFunc, error) {
	name := n.FnName.L
	jt := types.JSONType
	if strings.HasPrefix(name, "jsonb") {
		jt = types.JSONBType
	}
	if len(n.Args) != 1 {
		return nil, argCountErr(n, nil)
	}
	arg, err := jsonOperand(c, n.Args[0], jt)
	if err != nil {
		return nil, err
	}
	args := []expr{arg}
	if err := c.coerceArg(name, args, 0, jt); err != nil {
		return nil, err
	}
	arg = args[0]
	asText := strings.HasSuffix(name, "_text")
	valueT := jt
	if asText {
		valueT = types.Text
	}
	value := func(j *types.JSON) any {
		v, _ := jsonResult(j, asText)
		return v
	}
	f := &tableFunc{name: name, args: []expr{arg}}
	switch {
	case name == "jsonb_object_keys" || name == "json_object_keys":
		f.t = types.Text
		f.rows = func(a []any) ([]any, error) {
			j := a[0].(*types.JSON)
			if err := checkText(jt, j); err != nil {
				return nil, err
			}
			if j.Kind != types.JSONObject {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on %s", name, jsonKindPhrase(j))
			}
			out := make([]any, len(j.Keys))
			for i, k := range j.Keys {
				out[i] = k
			}
			return out, nil
		}
	case strings.Contains(name, "_each"):
		f.t = types.RecordOf([]types.Field{{Name: "key", T: types.Text}, {Name: "value", T: valueT}})
		f.rows = func(a []any) ([]any, error) {
			j := a[0].(*types.JSON)
			if err := checkText(jt, j); err != nil {
				return nil, err
			}
			switch {
			case j.Kind == types.JSONObject:
			case jt.Oid == types.OidJSONB:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-object", name)
			case j.Kind == types.JSONArray:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot deconstruct an array as an object")
			default:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot deconstruct a scalar")
			}
			out := make([]any, len(j.Keys))
			for i, k := range j.Keys {
				out[i] = []any{k, value(j.Vals[i])}
			}
			return out, nil
		}
	default:
		f.t, f.column = valueT, "value"
		f.rows = func(a []any) ([]any, error) {
			j := a[0].(*types.JSON)
			if err := checkText(jt, j); err != nil {
				return nil, err
			}
			switch {
			case j.Kind == types.JSONArray:
			case jt.Oid == types.OidJSON:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on %s", name, map[bool]string{true: "a non-array", false: "a scalar"}[j.Kind == types.JSONObject])
			case j.Kind == types.JSONObject:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from an object")
			default:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from a scalar")
			}
			out := make([]any, len(j.Elems))
			for i, e := range j.Elems {
				out[i] = value(e)
			}
			return out, nil
		}
	}
	return f, nil
}

// jsonKindPhrase names a value's kind as json_object_keys's error does.
func jsonKindPhrase(j *types.JSON) string {
	switch j.Kind {
	case types.JSONArray:
		return "an array"
	case types.JSONObject:
		return "an object"
	}
	return "a scalar"
}

// checkComparable fails as PostgreSQL does where a value of t must be
// compared (DISTINCT, GROUP BY, set operations) or, with ordering, sorted:
// json has neither equality nor order.
func checkComparable(t types.T, ordering bool) error {
	if elem, ok := t.Elem(); ok {
		t = elem
	}
	switch {
	case t.Oid != types.OidJSON:
		return nil
	case ordering:
		return pgerr.New(pgerr.UndefinedFunction, "could not identify an ordering operator for type json").
			WithHint("Use an explicit ordering operator or modify the query.")
	}
	return pgerr.New(pgerr.UndefinedFunction, "could not identify an equality operator for type json")
}

// addJSON takes one input of json[b]_agg or json[b]_object_agg in.
func (st *aggState) addJSON(vals []any) error {
	c := st.call
	if c.nargs == 2 && vals[0] == nil {
		return pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
	}
	inputs, _ := st.acc.([][]any)
	st.acc = append(inputs, slices.Clone(vals[:c.nargs]))
	return nil
}

// jsonResult builds a json aggregate's value: json_agg writes [1, 2],
// arrays and records each on a line of their own; json_object_agg
// writes { "a" : 1, "b" : 2 }.
func (st *aggState) jsonResult() (any, error) {
	inputs, _ := st.acc.([][]any)
	if inputs == nil {
		return nil, nil
	}
	c := st.call
	return makeJSON(c.t, func(b *jsonBuilder) {
		if c.nargs == 1 {
			t := c.args[0].typ()
			sep := ", "
			if _, rec := t.Fields(); rec || t.IsArray() {
				sep = ", \n "
			}
			b.array(len(inputs), sep, func(i int) { b.value(t, inputs[i][0]) })
			return
		}
		b.object(len(inputs), "{ ", ", ", " }", func(i int) {
			b.key(c.args[0].typ(), inputs[i][0], " : ")
			b.value(c.args[1].typ(), inputs[i][1])
		})
	}, c.loc)
}
