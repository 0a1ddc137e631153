package spill

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// TestCodecRoundTrip writes a value of every kind the executor makes
// and checks that the very same value comes back: not just an equal one
// (1.50 stays 1.50, json keeps its text, nil and empty slices stay apart).
func TestCodecRoundTrip(t *testing.T) {
	num := func(s string) *apd.Decimal {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	jsonOf := func(s string) *types.JSON {
		j, err := types.ParseJSON(s)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	jsonbOf := func(s string) *types.JSON {
		j, err := types.ParseJSONB(s)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	built := &types.JSON{Kind: types.JSONObject, Keys: []string{"a", "b"}, Vals: []*types.JSON{
		jsonOf(` [1,  2] `).Elem(0), // a subtree, with its own text
		{Kind: types.JSONArray, Elems: []*types.JSON{types.JSONNullValue, types.JSONBoolean(true), types.JSONStr("x")}},
	}}
	values := []any{
		nil, true, false,
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 1.5, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64,
		"", "héllo", "nul\x00byte", strings.Repeat("long ", 1000),
		[]byte(nil), []byte{}, []byte{0, 1, 0xff},
		num("1.50"), num("-0.001"), num("0"), num("-0"), num("NaN"), num("Infinity"), num("-Infinity"),
		num("123456789012345678901234567890123456789012345678901234567890.123456789"), num("1E+100"),
		time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		types.TimeInfinity, types.TimeNegInfinity, time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 6, 1, 8, 0, 0, 0, time.FixedZone("CEST", 7200)),
		types.Interval{Months: -14, Days: 3, Micros: -86399999999}, types.Interval{},
		types.UUID{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11},
		types.Inet{Bits: 8, Addr: [16]byte{10, 1, 2, 3}}, types.Inet{IPv6: true, Bits: 128, Addr: [16]byte{15: 1}},
		types.Macaddr{8, 0, 0x2b, 1, 2, 3}, types.Macaddr8{8, 0, 0x2b, 0xff, 0xfe, 1, 2, 3},
		types.Reg{Oid: 1259, Name: "pg_class"}, types.Reg{Oid: 99999},
		types.Enum{Label: "happy", Sort: 2}, types.UnresolvedEnum("sad"),
		[]any(nil), []any{}, []any{int64(1), nil, "two", []any{[]any{1.5}, nil}},
		[]any{num("1.0"), time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), types.Interval{Days: 1}},
		jsonOf(` {"b": 1, "a": [1.50, "x\u0041", null, true], "a": {}} `),
		jsonOf(`1e1000000`), // beyond numeric: a json number without a Num
		jsonOf(`"\u0000"`), jsonOf(`[]`),
		jsonbOf(`{"b": [1, 2.50, {"c": null}], "a": "s", "t": true, "f": false}`),
		jsonbOf(`null`), jsonbOf(`-0.0`),
		built,
	}
	row := append([]any(nil), values...)
	buf, err := appendRow(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeRow(buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(values) {
		t.Fatalf("decoded %d values, want %d", len(got), len(values))
	}
	for i, want := range values {
		if err := sameDatum(got[i], want); err != nil {
			t.Errorf("value %d (%T %v): %v", i, want, want, err)
		}
	}
	// Decoding owns its memory: the buffer may be reused.
	clear(buf)
	for i, want := range values {
		if err := sameDatum(got[i], want); err != nil {
			t.Errorf("after reuse, value %d: %v", i, err)
		}
	}
	// Each value alone, too, and in an empty row.
	for i, v := range values {
		b, err := appendRow(nil, []any{v})
		if err != nil {
			t.Fatal(err)
		}
		r, err := decodeRow(b)
		if err != nil || len(r) != 1 {
			t.Fatalf("value %d alone: %v, %d values", i, err, len(r))
		}
		if err := sameDatum(r[0], v); err != nil {
			t.Errorf("value %d alone: %v", i, err)
		}
		if RowSize([]any{v}) <= 0 {
			t.Errorf("value %d has no size", i)
		}
	}
	if r, err := decodeRow(appendSpillRowMust(t, nil)); err != nil || len(r) != 0 {
		t.Errorf("empty row: %v, %v", r, err)
	}
}

func appendSpillRowMust(t *testing.T, row []any) []byte {
	b, err := appendRow(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCodecRejects checks that a value the encoding does not know
// is an internal error, not a panic or a silent change, and that a
// truncated or corrupt record is reported.
func TestCodecRejects(t *testing.T) {
	if _, err := appendRow(nil, []any{struct{}{}}); pgerr.Code(err) != pgerr.InternalError {
		t.Errorf("unknown Go type: %v", err)
	}
	b := appendSpillRowMust(t, []any{"some text", int64(7), []any{1.5}})
	for n := range len(b) {
		if _, err := decodeRow(b[:n]); err == nil {
			t.Errorf("a record cut to %d of %d bytes decoded", n, len(b))
		}
	}
	if _, err := decodeRow(append(b, 0)); err == nil {
		t.Error("a record with a byte too many decoded")
	}
	if _, err := decodeRow([]byte{1, 200}); err == nil {
		t.Error("an unknown tag decoded")
	}
}

// sameDatum reports how got differs from want, Go value for Go value.
func sameDatum(got, want any) error {
	switch w := want.(type) {
	case nil:
		if got != nil {
			return fmt.Errorf("got %T %v, want nil", got, got)
		}
		return nil
	case float64:
		g, ok := got.(float64)
		if !ok || math.Float64bits(g) != math.Float64bits(w) {
			return fmt.Errorf("got %T %v, want %v", got, got, w)
		}
		return nil
	case []byte:
		g, ok := got.([]byte)
		if !ok || (g == nil) != (w == nil) || !bytes.Equal(g, w) {
			return fmt.Errorf("got %T %#v, want %#v", got, got, w)
		}
		return nil
	case *apd.Decimal:
		g, ok := got.(*apd.Decimal)
		if !ok || g.Form != w.Form || g.Negative != w.Negative || g.Exponent != w.Exponent || g.Coeff.Cmp(&w.Coeff) != 0 {
			return fmt.Errorf("got %T %v, want %v", got, got, w)
		}
		return nil
	case time.Time:
		g, ok := got.(time.Time)
		if !ok || !g.Equal(w) || g.Location().String() != w.Location().String() {
			return fmt.Errorf("got %T %v, want %v", got, got, w)
		}
		gn, go_ := g.Zone()
		wn, wo := w.Zone()
		if gn != wn || go_ != wo {
			return fmt.Errorf("zone %s%+d, want %s%+d", gn, go_, wn, wo)
		}
		return nil
	case types.Enum:
		g, ok := got.(types.Enum)
		if !ok || g.Label != w.Label || math.Float32bits(g.Sort) != math.Float32bits(w.Sort) {
			return fmt.Errorf("got %T %v, want %v", got, got, w)
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || (g == nil) != (w == nil) || len(g) != len(w) {
			return fmt.Errorf("got %T %v, want %v", got, got, w)
		}
		for i := range w {
			if err := sameDatum(g[i], w[i]); err != nil {
				return fmt.Errorf("element %d: %v", i, err)
			}
		}
		return nil
	case *types.JSON:
		g, ok := got.(*types.JSON)
		if !ok {
			return fmt.Errorf("got %T, want json", got)
		}
		return sameJSON(g, w)
	}
	if got != want {
		return fmt.Errorf("got %T %v, want %T %v", got, got, want, want)
	}
	return nil
}

func sameJSON(g, w *types.JSON) error {
	if g.Kind != w.Kind || g.Bool != w.Bool || g.Str != w.Str || g.Raw != w.Raw ||
		len(g.Elems) != len(w.Elems) || len(g.Keys) != len(w.Keys) || (g.Num == nil) != (w.Num == nil) {
		return fmt.Errorf("json %s, want %s", g.AppendJSONText(nil), w.AppendJSONText(nil))
	}
	if w.Num != nil {
		if err := sameDatum(g.Num, w.Num); err != nil {
			return err
		}
	}
	for i := range w.Elems {
		if err := sameJSON(g.Elems[i], w.Elems[i]); err != nil {
			return err
		}
	}
	for i := range w.Keys {
		if g.Keys[i] != w.Keys[i] {
			return fmt.Errorf("key %q, want %q", g.Keys[i], w.Keys[i])
		}
		if err := sameJSON(g.Vals[i], w.Vals[i]); err != nil {
			return err
		}
	}
	return nil
}
