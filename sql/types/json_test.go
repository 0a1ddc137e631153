package types

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// The expected outputs in this file were taken from PostgreSQL 15.

func mustJSONB(t *testing.T, s string) *JSON {
	t.Helper()
	j, err := ParseJSONB(s)
	if err != nil {
		t.Fatalf("ParseJSONB(%q): %v", s, err)
	}
	return j
}

func mustJSON(t *testing.T, s string) *JSON {
	t.Helper()
	j, err := ParseJSON(s)
	if err != nil {
		t.Fatalf("ParseJSON(%q): %v", s, err)
	}
	return j
}

// TestJSONBParse: jsonb_in then jsonb_out.
func TestJSONBParse(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{`null`, `null`},
		{` true `, `true`},
		{"\t\n\r false", `false`},
		{`1E5`, `100000`},
		{`1e-5`, `0.00001`},
		{`-0`, `0`},
		{`-0.0`, `0.0`},
		{`1.50`, `1.50`},
		{`0.0001e4`, `1`},
		{`2e-1`, `0.2`},
		{`12.5e-1`, `1.25`},
		{`0e99999`, `0`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`""`, `""`},
		{`"\u00e9"`, `"é"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\u0001\u001f\/\b\f\n\r\t\\\"` + "\x7f é\"", `"\u0001\u001f/\b\f\n\r\t\\\"` + "\x7f é\""},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`[true,false,null]`, `[true, false, null]`},
		{`{"":1}`, `{"": 1}`},
		{`{"a":1,"a":2}`, `{"a": 2}`},
		{`{"b":1,"aa":2,"a":3,"":0}`, `{"": 0, "a": 3, "b": 1, "aa": 2}`},
		{`{"a":{"b":1,"b":[1,{}]},"a":{"c":[]}}`, `{"a": {"c": []}}`},
		{`[ 1 , [ ] , { "x" : [ 2 ] } ]`, `[1, [], {"x": [2]}]`},
	} {
		j := mustJSONB(t, c.in)
		if got := string(j.AppendJSONB(nil)); got != c.out {
			t.Errorf("%q: got %s, want %s", c.in, got, c.out)
		}
		if j.Raw != "" {
			t.Errorf("%q: jsonb value has Raw %q", c.in, j.Raw)
		}
	}
}

// TestJSONParseErrors: the SQLSTATE, message and DETAIL of bad input, for
// both types unless the case says otherwise.
func TestJSONParseErrors(t *testing.T) {
	const syntax = "invalid input syntax for type json"
	for _, c := range []struct {
		in        string
		only      string // "json" or "jsonb" for one type
		code, msg string
		detail    string
	}{
		{in: ``, code: "22P02", msg: syntax, detail: `The input string ended unexpectedly.`},
		{in: `  `, code: "22P02", msg: syntax, detail: `The input string ended unexpectedly.`},
		{in: `x`, code: "22P02", msg: syntax, detail: `Token "x" is invalid.`},
		{in: `1x`, code: "22P02", msg: syntax, detail: `Token "1x" is invalid.`},
		{in: `1.x`, code: "22P02", msg: syntax, detail: `Token "1.x" is invalid.`},
		{in: `1.`, code: "22P02", msg: syntax, detail: `Token "1." is invalid.`},
		{in: `.1`, code: "22P02", msg: syntax, detail: `Token "." is invalid.`},
		{in: `01`, code: "22P02", msg: syntax, detail: `Token "01" is invalid.`},
		{in: `-01`, code: "22P02", msg: syntax, detail: `Token "-01" is invalid.`},
		{in: `-`, code: "22P02", msg: syntax, detail: `Token "-" is invalid.`},
		{in: `-.5`, code: "22P02", msg: syntax, detail: `Token "-.5" is invalid.`},
		{in: `1e+`, code: "22P02", msg: syntax, detail: `Token "1e+" is invalid.`},
		{in: `1ex`, code: "22P02", msg: syntax, detail: `Token "1ex" is invalid.`},
		{in: `+1`, code: "22P02", msg: syntax, detail: `Token "+" is invalid.`},
		{in: `truex`, code: "22P02", msg: syntax, detail: `Token "truex" is invalid.`},
		{in: `-Infinity`, code: "22P02", msg: syntax, detail: `Token "-Infinity" is invalid.`},
		{in: `'a'`, code: "22P02", msg: syntax, detail: `Token "'" is invalid.`},
		{in: `é`, code: "22P02", msg: syntax, detail: `Token "é" is invalid.`},
		{in: `abc def`, code: "22P02", msg: syntax, detail: `Token "abc" is invalid.`},
		{in: `[1] x`, code: "22P02", msg: syntax, detail: `Token "x" is invalid.`},
		{in: `"abc`, code: "22P02", msg: syntax, detail: `Token ""abc" is invalid.`},
		{in: `"a\`, code: "22P02", msg: syntax, detail: `Token ""a\" is invalid.`},
		{in: `"\u12`, code: "22P02", msg: syntax, detail: `Token ""\u12" is invalid.`},
		{in: `"\u12x4"`, code: "22P02", msg: syntax, detail: `"\u" must be followed by four hexadecimal digits.`},
		{in: `"\q"`, code: "22P02", msg: syntax, detail: `Escape sequence "\q" is invalid.`},
		{in: `"\é"`, code: "22P02", msg: syntax, detail: `Escape sequence "\é" is invalid.`},
		{in: "\"\\\n\"", code: "22P02", msg: syntax, detail: "Escape sequence \"\\\n\" is invalid."},
		{in: "\"a\nb\"", code: "22P02", msg: syntax, detail: `Character with value 0x0a must be escaped.`},
		{in: "\"a\tb\"", code: "22P02", msg: syntax, detail: `Character with value 0x09 must be escaped.`},
		{in: `[1 2]`, code: "22P02", msg: syntax, detail: `Expected "," or "]", but found "2".`},
		{in: `[1}`, code: "22P02", msg: syntax, detail: `Expected "," or "]", but found "}".`},
		{in: `[1,`, code: "22P02", msg: syntax, detail: `The input string ended unexpectedly.`},
		{in: `[1,]`, code: "22P02", msg: syntax, detail: `Expected JSON value, but found "]".`},
		{in: `[,1]`, code: "22P02", msg: syntax, detail: `Expected JSON value, but found ",".`},
		{in: `]`, code: "22P02", msg: syntax, detail: `Expected JSON value, but found "]".`},
		{in: `{`, code: "22P02", msg: syntax, detail: `The input string ended unexpectedly.`},
		{in: `{"a" }`, code: "22P02", msg: syntax, detail: `Expected ":", but found "}".`},
		{in: `{"a":1,}`, code: "22P02", msg: syntax, detail: `Expected string, but found "}".`},
		{in: `{1:2}`, code: "22P02", msg: syntax, detail: `Expected string or "}", but found "1".`},
		{in: `{"a":1 "b":2}`, code: "22P02", msg: syntax, detail: `Expected "," or "}", but found ""b"".`},
		{in: `{"a":1]`, code: "22P02", msg: syntax, detail: `Expected "," or "}", but found "]".`},
		{in: `1 2`, code: "22P02", msg: syntax, detail: `Expected end of input, but found "2".`},
		{in: `{"a":1}}`, code: "22P02", msg: syntax, detail: `Expected end of input, but found "}".`},
		{in: `"\ud800\q"`, only: "json", code: "22P02", msg: syntax, detail: `Escape sequence "\q" is invalid.`},
		// Only jsonb needs the text of a string.
		{in: `"\u0000"`, only: "jsonb", code: "22P05", msg: "unsupported Unicode escape sequence", detail: `\u0000 cannot be converted to text.`},
		{in: `{"\u0000":1}`, only: "jsonb", code: "22P05", msg: "unsupported Unicode escape sequence", detail: `\u0000 cannot be converted to text.`},
		{in: `"\ud800"`, only: "jsonb", code: "22P02", msg: syntax, detail: `Unicode low surrogate must follow a high surrogate.`},
		{in: `"\ud800x"`, only: "jsonb", code: "22P02", msg: syntax, detail: `Unicode low surrogate must follow a high surrogate.`},
		{in: `"\udc00"`, only: "jsonb", code: "22P02", msg: syntax, detail: `Unicode low surrogate must follow a high surrogate.`},
		{in: `"\ud800\u0041"`, only: "jsonb", code: "22P02", msg: syntax, detail: `Unicode low surrogate must follow a high surrogate.`},
		{in: `"\ud800\ud800"`, only: "jsonb", code: "22P02", msg: syntax, detail: `Unicode high surrogate must not follow a high surrogate.`},
		{in: `"\ud800\q"`, only: "jsonb", code: "22P02", msg: syntax, detail: `Unicode low surrogate must follow a high surrogate.`},
		{in: `1e99999999999`, only: "jsonb", code: "22003", msg: "value overflows numeric format"},
		{in: `1e-16384`, only: "jsonb", code: "22003", msg: "value overflows numeric format"},
		{in: `1e131072`, only: "jsonb", code: "22003", msg: "value overflows numeric format"},
		// The token after a number is lexed before the number is converted.
		{in: `1e99999999999 x`, code: "22P02", msg: syntax, detail: `Token "x" is invalid.`},
	} {
		parsers := []func(string) (*JSON, error){ParseJSONB, ParseJSON}
		switch c.only {
		case "jsonb":
			parsers = parsers[:1]
		case "json":
			parsers = parsers[1:]
		}
		for i, parse := range parsers {
			_, err := parse(c.in)
			e := pgerr.Convert(err)
			if e == nil || e.Code != c.code || e.Message != c.msg || e.Detail != c.detail {
				t.Errorf("%q (parser %d): got %+v, want %s %s / %s", c.in, i, e, c.code, c.msg, c.detail)
			}
		}
	}
}

// TestJSONRaw: json keeps its input, every node's source text, key order
// and duplicate keys; -> takes the last duplicate.
func TestJSONRaw(t *testing.T) {
	in := " {\"a\" : [ 1 ,2e0, \"x\\n\" ] , \"b\":{ } ,\"a\":3}\n"
	j := mustJSON(t, in)
	if got := string(j.AppendJSONText(nil)); got != in {
		t.Errorf("json_out: got %q", got)
	}
	if got := strings.Join(j.Keys, ","); got != "a,b,a" {
		t.Errorf("keys %s", got)
	}
	a := j.Vals[0]
	for _, c := range []struct {
		j    *JSON
		raw  string
		text string
	}{
		{a, `[ 1 ,2e0, "x\n" ]`, `[ 1 ,2e0, "x\n" ]`},
		{a.Elem(1), `2e0`, `2e0`},
		{a.Elem(2), `"x\n"`, "x\n"},
		{j.Field("b"), `{ }`, `{ }`},
		{j.Field("a"), `3`, `3`},
		{mustJSON(t, "  [1]  "), "  [1]  ", "[1]"},
		// PostgreSQL's #>> '{}' keeps a scalar root's leading whitespace.
		{mustJSON(t, "  1  "), "  1  ", "  1"},
	} {
		if c.j == nil || c.j.Raw != c.raw {
			t.Errorf("got %+v, want Raw %q", c.j, c.raw)
			continue
		}
		if s, ok := c.j.Text(); !ok || s != c.text {
			t.Errorf("%q: Text() = %q, %v, want %q", c.raw, s, ok, c.text)
		}
	}
	if n := a.Elem(1).Num; n == nil || n.String() != "2" {
		t.Errorf("2e0 has Num %v", n)
	}
	if n := mustJSON(t, "1e99999999999"); n.Num != nil || n.Raw != "1e99999999999" {
		t.Errorf("a number beyond numeric: %+v", n)
	}
}

// TestJSONEscapes: json accepts escapes without text; operations that need
// the text refuse them (CheckEscapes), the first one in the document
// deciding the error, and so does the cast to jsonb.
func TestJSONEscapes(t *testing.T) {
	for _, c := range []struct {
		in, code, detail string
		str              string // the lenient value of the first string, if one
	}{
		{`"\ud83d\ude00"`, "", "", "😀"},
		{`{"a":"\u0000","b":1}`, "22P05", `\u0000 cannot be converted to text.`, ""},
		{`"a\u0000b"`, "22P05", `\u0000 cannot be converted to text.`, "a\x00b"},
		{`{"\u0000":1}`, "22P05", `\u0000 cannot be converted to text.`, ""},
		{`["\ud800"]`, "22P02", `Unicode low surrogate must follow a high surrogate.`, ""},
		{`"\ud800x"`, "22P02", `Unicode low surrogate must follow a high surrogate.`, "\uFFFDx"},
		{`"\udc00\ud800"`, "22P02", `Unicode low surrogate must follow a high surrogate.`, "\uFFFD\uFFFD"},
		{`"\ud800\ud800\udc00"`, "22P02", `Unicode high surrogate must not follow a high surrogate.`, "\uFFFD\U00010000"},
		{`["\u0000","\ud800"]`, "22P05", `\u0000 cannot be converted to text.`, ""},
		{`["\ud800","\u0000"]`, "22P02", `Unicode low surrogate must follow a high surrogate.`, ""},
	} {
		j := mustJSON(t, c.in)
		for what, err := range map[string]error{"CheckEscapes": j.CheckEscapes(), "NormalizeJSONB": second(NormalizeJSONB(j))} {
			if e := pgerr.Convert(err); (c.code == "" && e != nil) || (c.code != "" && (e == nil || e.Code != c.code || e.Detail != c.detail)) {
				t.Errorf("%s(%s) = %+v, want %s %s", what, c.in, e, c.code, c.detail)
			}
		}
		if c.str != "" && j.Str != c.str {
			t.Errorf("%s: Str %q, want %q", c.in, j.Str, c.str)
		}
	}
	// A value built in SQL around a parsed one checks the parsed part.
	built := &JSON{Kind: JSONArray, Elems: []*JSON{JSONStr("ok"), mustJSON(t, `"\u0000"`)}}
	if err := built.CheckEscapes(); pgerr.Code(err) != "22P05" {
		t.Errorf("built value: %v", err)
	}
}

func second[A, B any](_ A, b B) B { return b }

// TestNormalizeJSONB: json and values built in SQL become jsonb as the cast
// and jsonb_build_object make them.
func TestNormalizeJSONB(t *testing.T) {
	for _, c := range []struct {
		j    *JSON
		want string
	}{
		{mustJSON(t, ` {"b":1, "a":[1.50, 1e2, -0], "b":2} `), `{"a": [1.50, 100, 0], "b": 2}`},
		{&JSON{Kind: JSONObject, Keys: []string{"b", "a", "b"}, Vals: []*JSON{JSONNum(apd.New(1, 0)), JSONNum(apd.New(2, 0)), JSONNum(apd.New(3, 0))}}, `{"a": 2, "b": 3}`},
		{&JSON{Kind: JSONArray, Elems: []*JSON{mustJSON(t, `{"z":1, "a":2}`), JSONNullValue, JSONBoolean(true)}}, `[{"a": 2, "z": 1}, null, true]`},
		{JSONNum(&apd.Decimal{Form: apd.NaN}), `"NaN"`},
		{JSONNum(&apd.Decimal{Form: apd.Infinite, Negative: true}), `"-Infinity"`},
		{JSONNum(apd.New(15, 2)), `1500`},
		{JSONNum(&apd.Decimal{Negative: true, Exponent: -1}), `0.0`},
		{JSONStr("a\"\x01"), `"a\"\u0001"`},
	} {
		n, err := NormalizeJSONB(c.j)
		if err != nil {
			t.Errorf("%s: %v", c.want, err)
			continue
		}
		if got := string(n.AppendJSONB(nil)); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
		if CompareJSONB(n, mustJSONB(t, c.want)) != 0 || n.Raw != "" {
			t.Errorf("%s: not in normal form: %+v", c.want, n)
		}
	}
	if _, err := NormalizeJSONB(mustJSON(t, `[1e99999999999]`)); pgerr.Code(err) != "22003" {
		t.Errorf("out-of-range number: %v", err)
	}
}

// TestJSONOutput: json builder output, jsonb_pretty, and ->> text.
func TestJSONOutput(t *testing.T) {
	built := &JSON{Kind: JSONObject, Keys: []string{"a", "b", "c", "d"}, Vals: []*JSON{
		JSONNum(apd.New(1, 0)),
		{Kind: JSONArray, Elems: []*JSON{JSONNum(apd.New(1, 0)), JSONNum(apd.New(2, 0)), JSONStr("x")}},
		{Kind: JSONObject},
		mustJSON(t, `[1,  2]`),
	}}
	if got, want := string(built.AppendJSONText(nil)), `{"a" : 1, "b" : [1, 2, "x"], "c" : {}, "d" : [1,  2]}`; got != want {
		t.Errorf("json_build_object: got %s, want %s", got, want)
	}
	pretty := mustJSONB(t, `{"a": [1, {}, [], {"b": [[]], "c": {"d": null}}], "e": "x\ny", "f":{}}`)
	want := `{
    "a": [
        1,
        {
        },
        [
        ],
        {
            "b": [
                [
                ]
            ],
            "c": {
                "d": null
            }
        }
    ],
    "e": "x\ny",
    "f": {
    }
}`
	if got := string(pretty.AppendPretty(nil)); got != want {
		t.Errorf("jsonb_pretty: got\n%s", got)
	}
	for in, want := range map[string]string{`[]`: "[\n]", `{}`: "{\n}", `1.50`: "1.50", `"a"`: `"a"`} {
		if got := string(mustJSONB(t, in).AppendPretty(nil)); got != want {
			t.Errorf("jsonb_pretty(%s) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{`"a\"b"`: `a"b`, `1.50`: `1.50`, `{"b":[1,"x"],"a":true}`: `{"a": true, "b": [1, "x"]}`, `false`: `false`} {
		if got, ok := mustJSONB(t, in).Text(); !ok || got != want {
			t.Errorf("->> of %s = %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{`null`, ` null `} {
		if _, ok := mustJSON(t, in).Text(); ok {
			t.Errorf("->> of json %s is not SQL NULL", in)
		}
		if _, ok := mustJSONB(t, in).Text(); ok {
			t.Errorf("->> of jsonb %s is not SQL NULL", in)
		}
	}
}

// jsonbOrder lists values with their rank in PostgreSQL's ORDER BY (equal
// ranks are equal values).
var jsonbOrder = []struct {
	v    string
	rank int
}{
	{`[]`, 1}, {`null`, 2}, {`""`, 3}, {`"Z"`, 4}, {`"a"`, 5}, {`"aa"`, 6}, {`"ab"`, 7},
	{`"b"`, 8}, {`"é"`, 9}, {`-1`, 10}, {`-0.5`, 11}, {`0`, 12}, {`1`, 13}, {`1.0`, 13},
	{`1.5`, 14}, {`1.50`, 14}, {`100`, 15}, {`1e2`, 15}, {`false`, 16}, {`true`, 17},
	{`[null]`, 18}, {`["a"]`, 19}, {`[1]`, 20}, {`[1.0]`, 20}, {`[2]`, 21}, {`[false]`, 22},
	{`[true]`, 23}, {`[[]]`, 24}, {`[[1]]`, 25}, {`[{}]`, 26}, {`[{"a":1}]`, 27},
	{`[{"a":1,"b":1}]`, 28}, {`[1,2]`, 29}, {`[2,1]`, 30}, {`[[],[]]`, 31}, {`[[1,2],3]`, 32},
	{`[null,null,null]`, 33}, {`{}`, 34}, {`{"":0}`, 35}, {`{"a":null}`, 36}, {`{"a":1}`, 37},
	{`{"a":2}`, 38}, {`{"a":[]}`, 39}, {`{"a":[1,2]}`, 40}, {`{"a":{}}`, 41}, {`{"aa":1}`, 42},
	{`{"b":1}`, 43}, {`{"a":1,"b":2}`, 44}, {`{"a":1,"c":0}`, 45}, {`{"b":1,"aa":0}`, 46},
}

// TestCompareJSONB: the order of jsonb values, checked pairwise, and their
// keys sort the same way.
func TestCompareJSONB(t *testing.T) {
	vals := make([]*JSON, len(jsonbOrder))
	keys := make([][]byte, len(jsonbOrder))
	for i, o := range jsonbOrder {
		vals[i] = mustJSONB(t, o.v)
		keys[i] = AppendKeyJSONB(nil, vals[i])
	}
	for i, a := range jsonbOrder {
		for j, b := range jsonbOrder {
			want := sign(a.rank - b.rank)
			if got := CompareJSONB(vals[i], vals[j]); got != want {
				t.Errorf("CompareJSONB(%s, %s) = %d, want %d", a.v, b.v, got, want)
			}
			if got := sign(bytes.Compare(keys[i], keys[j])); got != want {
				t.Errorf("keys of %s and %s compare %d, want %d", a.v, b.v, got, want)
			}
		}
	}
}

// randomJSON makes a jsonb value from few strings and numbers, so that
// equal values and shared prefixes are common.
func randomJSON(r *rand.Rand, depth int) *JSON {
	n := r.IntN(10)
	if depth > 3 {
		n = r.IntN(6)
	}
	switch n {
	case 0:
		return JSONNullValue
	case 1:
		return JSONBoolean(r.IntN(2) == 0)
	case 2, 3:
		return JSONStr(randomString(r))
	case 4, 5:
		return JSONNum(randomNumeric(r, Numeric))
	case 6, 7:
		j := &JSON{Kind: JSONArray}
		for range r.IntN(4) {
			j.Elems = append(j.Elems, randomJSON(r, depth+1))
		}
		return j
	}
	j := &JSON{Kind: JSONObject}
	for range r.IntN(4) {
		j.Keys = append(j.Keys, pick(r, "", "a", "b", "aa", "ab", "\x00"))
		j.Vals = append(j.Vals, randomJSON(r, depth+1))
	}
	return j
}

// TestJSONBKeyOrder: on random values, keys compare as CompareJSONB does,
// are self-delimiting, and decode to equal values; output parses back to
// an equal value.
func TestJSONBKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vals := make([]*JSON, 400)
	keys := make([][]byte, len(vals))
	for i := range vals {
		v, err := NormalizeJSONB(randomJSON(r, 0))
		if err != nil {
			t.Fatal(err)
		}
		vals[i] = v
		keys[i] = AppendKeyJSONB(nil, v)
		back, rest, err := DecodeKeyJSONB(append(keys[i], 0xab))
		if err != nil || !bytes.Equal(rest, []byte{0xab}) || CompareJSONB(back, v) != 0 {
			t.Fatalf("DecodeKeyJSONB(%s) = %v, rest %x, %v", v.AppendJSONB(nil), back, rest, err)
		}
		if !bytes.Equal(AppendKeyJSONB(nil, back), keys[i]) {
			t.Fatalf("%s: decoded value encodes differently", v.AppendJSONB(nil))
		}
		// jsonb can't hold U+0000 read from text, but a value built in SQL can.
		if out := string(v.AppendJSONB(nil)); !strings.Contains(out, `\u0000`) {
			if p := mustJSONB(t, out); CompareJSONB(p, v) != 0 {
				t.Fatalf("%s parses back as %s", out, p.AppendJSONB(nil))
			}
		}
	}
	for i := range vals {
		for j := range vals {
			want := CompareJSONB(vals[i], vals[j])
			if want != -CompareJSONB(vals[j], vals[i]) {
				t.Fatalf("CompareJSONB is not antisymmetric on %s, %s", vals[i].AppendJSONB(nil), vals[j].AppendJSONB(nil))
			}
			if got := sign(bytes.Compare(keys[i], keys[j])); got != want {
				t.Fatalf("keys of %s and %s compare %d, values %d", vals[i].AppendJSONB(nil), vals[j].AppendJSONB(nil), got, want)
			}
		}
	}
}

func TestJSONBKeyCorrupt(t *testing.T) {
	good := AppendKeyJSONB(nil, mustJSONB(t, `{"a":[1,"x",[]],"b":null}`))
	for n := range len(good) {
		if _, _, err := DecodeKeyJSONB(good[:n]); pgerr.Code(err) != pgerr.DataCorrupted {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
	for _, b := range [][]byte{{0}, {0xff}, {keyJSONArray, 0x88 + 5, keyJSONNull}, {keyJSONArray, 0x89, keyJSONEmptyTop}} {
		if _, _, err := DecodeKeyJSONB(b); pgerr.Code(err) != pgerr.DataCorrupted {
			t.Errorf("%x: %v", b, err)
		}
	}
}

// TestJSONContains: jsonb @>.
func TestJSONContains(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`[1,2]`, `1`, true},
		{`{"a":[1,2]}`, `{"a":1}`, false},
		{`1`, `[1]`, false},
		{`1`, `1.0`, true},
		{`1`, `[]`, false},
		{`[1]`, `[]`, true},
		{`{}`, `{}`, true},
		{`[[1,2]]`, `[1]`, false},
		{`[[1,2]]`, `[[1]]`, true},
		{`[{"a":1,"b":2}]`, `[{"a":1}]`, true},
		{`{"a":1}`, `1`, false},
		{`[1,[2]]`, `[[2],1,1]`, true},
		{`{"a":{"b":[1,{"c":2}]}}`, `{"a":{"b":[{}]}}`, true},
		{`[[]]`, `[{}]`, false},
		{`"a"`, `["a"]`, false},
		{`["a"]`, `"a"`, true},
		{`[[1]]`, `[1]`, false},
		{`{"a":{}}`, `{"a":[]}`, false},
		{`{"a":1,"b":2}`, `{"b":2}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"c":1}`, false},
		{`{"a":1}`, `{"a":1.00}`, true},
		{`{"a":null}`, `{"a":null}`, true},
		{`{"a":null}`, `{"a":false}`, false},
		{`[1,2,3]`, `[3,3,1]`, true},
		{`[1,2,3]`, `[4]`, false},
		{`[]`, `[]`, true},
		{`[]`, `{}`, false},
		{`{}`, `[]`, false},
		{`null`, `null`, true},
		{`null`, `[null]`, false},
		{`[null]`, `null`, true},
		{`"a"`, `"a"`, true},
		{`"a"`, `"b"`, false},
		{`true`, `false`, false},
		{`{"a":[1,2,[3]]}`, `{"a":[[3],2]}`, true},
		{`{"a":[1,2,[3]]}`, `{"a":[3]}`, false},
		{`{"a":[{"b":1},{"c":2}]}`, `{"a":[{"b":1,"c":2}]}`, false},
		{`{"a":[{"b":1,"c":2}]}`, `{"a":[{"b":1},{"c":2}]}`, true},
		{`[{"a":1},[1]]`, `[[1],{"a":1}]`, true},
		{`[[1,2],[3]]`, `[[1,3]]`, false},
		{`{"a":1}`, `{}`, true},
		{`[1]`, `[[]]`, false},
		{`[[]]`, `[[]]`, true},
		{`[[],1]`, `[]`, true},
	} {
		if got := mustJSONB(t, c.a).Contains(mustJSONB(t, c.b)); got != c.want {
			t.Errorf("%s @> %s = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestJSONPath: -> and #> on jsonb and json.
func TestJSONPath(t *testing.T) {
	doc := `{"a":[1,{"b":"x"}],"c":null}`
	for _, c := range []struct {
		doc  string
		path []string
		want string // jsonb output, "" for nil
	}{
		{doc, nil, `{"a": [1, {"b": "x"}], "c": null}`},
		{doc, []string{"a"}, `[1, {"b": "x"}]`},
		{doc, []string{"a", "1", "b"}, `"x"`},
		{doc, []string{"a", "-1", "b"}, `"x"`},
		{doc, []string{"a", "-2"}, `1`},
		{doc, []string{"a", "-3"}, ``},
		{doc, []string{"a", "2"}, ``},
		{doc, []string{"a", "b"}, ``},
		{doc, []string{"c"}, `null`},
		{doc, []string{"c", "x"}, ``},
		{doc, []string{"d"}, ``},
		{doc, []string{"a", "1", "b", "0"}, ``},
		{`[10,20]`, []string{"+1"}, `20`},
		{`[10,20]`, []string{" -1"}, `20`},
		{`[10,20]`, []string{"00001"}, `20`},
		{`[10,20]`, []string{"1 "}, ``},
		{`[10,20]`, []string{""}, ``},
		{`[10,20]`, []string{"-"}, ``},
		{`[10,20]`, []string{"0x1"}, ``},
		{`[10,20]`, []string{"2147483648"}, ``},
		{`[10,20]`, []string{"-2147483648"}, ``},
		{`{"1":"one"}`, []string{"1"}, `"one"`},
		{`"s"`, nil, `"s"`},
		{`"s"`, []string{"0"}, ``},
		{`5`, []string{"a"}, ``},
	} {
		for _, j := range []*JSON{mustJSONB(t, c.doc), mustJSON(t, c.doc)} {
			got := ""
			if v := j.Path(c.path); v != nil {
				got = string(v.AppendJSONB(nil))
			}
			if got != c.want {
				t.Errorf("%s #> %q = %s, want %s", c.doc, c.path, got, c.want)
			}
		}
	}
	arr := mustJSONB(t, `[1,2,3]`)
	for i, want := range map[int]string{0: "1", 2: "3", 3: "", -1: "3", -3: "1", -4: ""} {
		got := ""
		if e := arr.Elem(i); e != nil {
			got = string(e.AppendJSONB(nil))
		}
		if got != want {
			t.Errorf("[1,2,3] -> %d = %s, want %s", i, got, want)
		}
	}
	if mustJSONB(t, `{"0":1}`).Elem(0) != nil || arr.Field("0") != nil || mustJSONB(t, `1`).Field("a") != nil {
		t.Error("-> of the wrong kind of step is not NULL")
	}
	if v := mustJSON(t, `{"a":{"b":1},"a":{"b":2}}`).Path([]string{"a", "b"}); v == nil || v.Raw != "2" {
		t.Errorf("json #> takes the last duplicate key: %+v", v)
	}
}

// TestJSONDepth: nesting beyond the limit is an error, not a crash, for
// both types, and values at the limit work everywhere.
func TestJSONDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, in := range []string{nest(maxJSONDepth + 1), strings.Repeat(`{"a":`, 1_000_000), strings.Repeat("[", 1_000_000)} {
		for _, parse := range []func(string) (*JSON, error){ParseJSONB, ParseJSON} {
			if _, err := parse(in); pgerr.Code(err) != codeStackDepthExceeded {
				t.Errorf("depth error: %v", err)
			}
		}
	}
	j := mustJSONB(t, nest(maxJSONDepth))
	back, _, err := DecodeKeyJSONB(AppendKeyJSONB(nil, j))
	if err != nil || CompareJSONB(back, j) != 0 || !j.Contains(back) {
		t.Errorf("deepest value: %v", err)
	}
	if got := string(j.AppendJSONB(nil)); got != nest(maxJSONDepth) {
		t.Error("deepest value prints wrong")
	}
}
