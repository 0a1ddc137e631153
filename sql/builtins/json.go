package builtins

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
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

// jsonFn is a function of a json or jsonb first argument and further
// arguments, the first given as a JSON tree.
func jsonFn(f func(j *types.JSON, a []any) (any, error)) func(Env, []any) (any, error) {
	return func(_ Env, a []any) (any, error) { return f(a[0].(*types.JSON), a[1:]) }
}

// bothJSON are overloads of a function of (json, args...) and (jsonb,
// args...) alike, f given which.
func bothJSON(ret func(jt types.T) types.T, args []types.T, f func(jt types.T) func(Env, []any) (any, error)) []Overload {
	var ovs []Overload
	for _, jt := range []types.T{types.JSONType, types.JSONBType} {
		ovs = append(ovs, Overload{Args: append([]types.T{jt}, args...), Ret: ret(jt), Fn: f(jt)})
	}
	return ovs
}

// itself and asText are the result types of the extraction operators
// and functions: the input's json type, or with _text, text.
func itself(jt types.T) types.T  { return jt }
func asTextType(types.T) types.T { return types.Text }

// arrow is j -> key and j -> index, or with asText their ->> forms,
// which give text.
func arrow(asText bool) []Overload {
	ret := itself
	if asText {
		ret = asTextType
	}
	field := func(jt types.T) func(Env, []any) (any, error) {
		return jsonFn(func(j *types.JSON, a []any) (any, error) {
			if err := checkText(jt, j); err != nil {
				return nil, err
			}
			return jsonResult(j.Field(a[0].(string)), asText)
		})
	}
	elem := func(jt types.T) func(Env, []any) (any, error) {
		return jsonFn(func(j *types.JSON, a []any) (any, error) {
			if err := checkText(jt, j); err != nil {
				return nil, err
			}
			i := int(a[0].(int64))
			if jt.Oid == types.OidJSONB && j.Kind != types.JSONArray && j.Kind != types.JSONObject && (i == 0 || i == -1) {
				return jsonResult(j, asText) // jsonb keeps a scalar as a one-element array
			}
			return jsonResult(j.Elem(i), asText)
		})
	}
	return slices.Concat(bothJSON(ret, []types.T{types.Text}, field), bothJSON(ret, []types.T{types.Int4}, elem))
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

// pathOp is j #> path, or with asText j #>> path.
func pathOp(asText bool) []Overload {
	ret := itself
	if asText {
		ret = asTextType
	}
	return bothJSON(ret, []types.T{types.TextArray}, func(jt types.T) func(Env, []any) (any, error) {
		return jsonFn(func(j *types.JSON, a []any) (any, error) { return extractPath(jt, j, a[0].([]any), asText) })
	})
}

// extractPath is the value at path in j, or with asText its text.
func extractPath(jt types.T, j *types.JSON, steps []any, asText bool) (any, error) {
	if err := checkText(jt, j); err != nil {
		return nil, err
	}
	path, ok := textPath(steps)
	if !ok {
		return nil, nil
	}
	return jsonResult(j.Path(path), asText)
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

// extractPathFn is json[b]_extract_path[_text](j, VARIADIC path).
func extractPathFn(jt types.T, asText bool) []Overload {
	ret := jt
	if asText {
		ret = types.Text
	}
	return []Overload{
		{Args: []types.T{jt, types.Text}, Ret: ret, Variadic: true, Params: []string{"from_json", "path_elems"},
			Fn: jsonFn(func(j *types.JSON, a []any) (any, error) { return extractPath(jt, j, a, asText) })},
	}
}

// contains is a @> b, or with contained a <@ b, over jsonb and over
// arrays of one type.
func contains(contained bool) []Overload {
	order := func(a []any) (any, any) {
		if contained {
			return a[1], a[0]
		}
		return a[0], a[1]
	}
	return []Overload{
		{Args: []types.T{types.JSONBType, types.JSONBType}, Ret: types.Bool, Fn: func(_ Env, a []any) (any, error) {
			l, r := order(a)
			return l.(*types.JSON).Contains(r.(*types.JSON)), nil
		}},
		{Args: []types.T{AnyArray, AnyArray}, Ret: types.Bool, Typed: func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
			elem, _ := ts[0].Elem()
			return func(_ Env, a []any) (any, error) {
				l, r := order(a)
				return arrayContains(elem, l.([]any), r.([]any)), nil
			}
		}},
	}
}

// overlap is a && b over arrays: whether they share an element.
func overlap(ts []types.T, _ types.T) func(Env, []any) (any, error) {
	elem, _ := ts[0].Elem()
	return func(_ Env, a []any) (any, error) {
		for _, x := range a[0].([]any) {
			if x != nil && arrayContains(elem, a[1].([]any), []any{x}) {
				return true, nil
			}
		}
		return false, nil
	}
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
func jsonbExists(j *types.JSON, a []any) (any, error) {
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
func jsonbExistsAny(all bool) func(*types.JSON, []any) (any, error) {
	return func(j *types.JSON, a []any) (any, error) {
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

func jsonTypeof(j *types.JSON, _ []any) (any, error) {
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

func jsonArrayLength(j *types.JSON, _ []any) (any, error) {
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
func jsonbDeletePath(j *types.JSON, a []any) (any, error) {
	path, err := editedPath(j, a[0].([]any), "delete")
	switch {
	case err != nil:
		return nil, err
	case len(path) == 0:
		return j, nil
	}
	return deletePath(j, path), nil
}

// editedPath reads the path of a jsonb edit (what is "set" or
// "delete"): no element of it NULL, and j a container to edit.
func editedPath(j *types.JSON, steps []any, what string) ([]string, error) {
	path, ok := textPath(steps)
	if !ok {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "path element at position %d is null", slices.Index(steps, nil)+1)
	}
	if j.Kind != types.JSONObject && j.Kind != types.JSONArray {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot %s path in scalar", what)
	}
	return path, nil
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

// jsonbSet is jsonb_set(target, path, new_value [, create_if_missing]).
func jsonbSet(_ Env, a []any) (any, error) {
	j := a[0].(*types.JSON)
	path, err := editedPath(j, a[1].([]any), "set")
	switch {
	case err != nil:
		return nil, err
	case len(path) == 0:
		return j, nil
	}
	return setPath(j, path, a[2].(*types.JSON), a[3].(bool), 1)
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

// jsonbMinus is jsonb - text (a key, or matching string elements),
// jsonb - text[] (several keys) and jsonb - int (an array element).
func jsonbMinus() []Overload {
	return []Overload{
		{Args: []types.T{types.JSONBType, types.Text}, Ret: types.JSONBType, Fn: jsonFn(func(j *types.JSON, a []any) (any, error) {
			return deleteKey(j, a[0].(string))
		})},
		{Args: []types.T{types.JSONBType, types.TextArray}, Ret: types.JSONBType, Fn: jsonFn(func(j *types.JSON, a []any) (any, error) {
			for _, key := range a[0].([]any) {
				if key == nil {
					continue
				}
				var err error
				if j, err = deleteKey(j, key.(string)); err != nil {
					return nil, err
				}
			}
			return j, nil
		})},
		{Args: []types.T{types.JSONBType, types.Int4}, Ret: types.JSONBType, Fn: jsonFn(func(j *types.JSON, a []any) (any, error) {
			switch j.Kind {
			case types.JSONObject:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from object using integer index")
			case types.JSONArray:
				i, ok := arrayIndex(strconv.FormatInt(a[0].(int64), 10), len(j.Elems))
				if !ok {
					return j, nil
				}
				return &types.JSON{Kind: types.JSONArray, Elems: slices.Delete(slices.Clone(j.Elems), i, i+1)}, nil
			}
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
		})},
	}
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

// toJSON is to_json and to_jsonb of any value, and with record
// row_to_json of a row: a SQL value as JSON.
func toJSON(jt types.T, record bool) []Overload {
	arg, vol := AnyElement, Stable
	if record {
		arg, vol = Record, Stable
	}
	return []Overload{{Args: []types.T{arg}, Ret: jt, Volatility: vol, Typed: func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
		return func(e Env, a []any) (any, error) {
			return makeJSON(jt, func(b *jsonBuilder) { b.value(ts[0], a[0]) }, e.Location())
		}
	}}}
}

// buildObject is json[b]_build_object(key, value, ...).
func buildObject(jt types.T) []Overload {
	build := func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
		return func(e Env, a []any) (any, error) {
			if len(a)%2 != 0 {
				name := "json_build_object"
				if jt.Oid == types.OidJSONB {
					name = "jsonb_build_object"
				}
				return nil, pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of %s() must consist of alternating keys and values.", name)
			}
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
					b.key(ts[2*i], a[2*i], " : ")
					b.value(ts[2*i+1], a[2*i+1])
				})
			}, e.Location())
		}
	}
	return []Overload{
		{Ret: jt, Volatility: Stable, Typed: build},
		{Args: []types.T{Any}, Ret: jt, Volatility: Stable, Variadic: true, CalledOnNull: true, Typed: build},
	}
}

// buildArray is json[b]_build_array(value, ...).
func buildArray(jt types.T) []Overload {
	build := func(ts []types.T, _ types.T) func(Env, []any) (any, error) {
		return func(e Env, a []any) (any, error) {
			return makeJSON(jt, func(b *jsonBuilder) {
				b.array(len(a), ", ", func(i int) { b.value(ts[i], a[i]) })
			}, e.Location())
		}
	}
	return []Overload{
		{Ret: jt, Volatility: Stable, Typed: build},
		{Args: []types.T{Any}, Ret: jt, Volatility: Stable, Variadic: true, CalledOnNull: true, Typed: build},
	}
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

// jsonRows is json[b]_object_keys, json[b]_each[_text] and
// json[b]_array_elements[_text], of json type jt.
func jsonRows(name string, jt types.T) []Overload {
	asText := strings.HasSuffix(name, "_text")
	valueT := jt
	if asText {
		valueT = types.Text
	}
	value := func(j *types.JSON) any {
		v, _ := jsonResult(j, asText)
		return v
	}
	o := Overload{Args: []types.T{jt}, Params: []string{"from_json"}}
	var rows func(j *types.JSON) ([]any, error)
	switch {
	case strings.HasSuffix(name, "_object_keys"):
		o.Ret, o.Params = types.Text, nil
		rows = func(j *types.JSON) ([]any, error) {
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
		o.Ret = types.RecordOf([]types.Field{{Name: "key", T: types.Text}, {Name: "value", T: valueT}})
		rows = func(j *types.JSON) ([]any, error) {
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
		o.Ret, o.Column = valueT, "value"
		rows = func(j *types.JSON) ([]any, error) {
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
	o.Rows = func(_ Env, a []any) (func() (any, bool, error), error) {
		j := a[0].(*types.JSON)
		if err := checkText(jt, j); err != nil {
			return nil, err
		}
		out, err := rows(j)
		return sliceRows(out), err
	}
	return []Overload{o}
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

func jsonbPretty(j *types.JSON, _ []any) (any, error) { return string(j.AppendPretty(nil)), nil }

func jsonbStripNulls(j *types.JSON, _ []any) (any, error) { return stripNulls(j, true), nil }

func jsonStripNulls(j *types.JSON, _ []any) (any, error) {
	return types.ParseJSON(string(appendJSONTree(nil, stripNulls(j, false))))
}
