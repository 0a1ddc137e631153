package types

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// TestCatalog: every base type has its array row and back, names are
// unique, and every type's name parses back to it.
func TestCatalog(t *testing.T) {
	names := map[string]bool{}
	for _, in := range All() {
		if names[in.Name] {
			t.Errorf("duplicate typname %s", in.Name)
		}
		names[in.Name] = true
		if got, ok := Lookup(in.Oid); !ok || got != in {
			t.Errorf("Lookup(%d) = %v, %v", in.Oid, got, ok)
		}
		typ := T{in.Oid, -1}
		if in.Array != 0 {
			a, ok := ArrayOf(typ)
			elem, ok2 := a.Elem()
			if !ok || !ok2 || elem != typ || a.Oid != in.Array {
				t.Errorf("%s: ArrayOf = %v, Elem = %v", in.Name, a, elem)
			}
			if arr, _ := Lookup(in.Array); arr.Elem != in.Oid || arr.Name != "_"+in.Name || arr.Category != 'A' {
				t.Errorf("%s: array row %+v", in.Name, arr)
			}
		}
		if in.Category == 'A' {
			if _, ok := ArrayOf(typ); ok {
				t.Errorf("%s: an array of arrays", in.Name)
			}
		} else if _, ok := typ.Elem(); ok {
			t.Errorf("%s: Elem of a non-array", in.Name)
		}
		if in.Type == 'p' {
			continue
		}
		back, err := ParseTypeName(typ.String())
		if err != nil || back != typ {
			t.Errorf("ParseTypeName(%q) = %v, %v; want %v", typ.String(), back, err, typ)
		}
		// In SQL, char is character(1); "char" needs its quotes.
		if back, err := ParseTypeName(in.Name); in.Oid != OidChar && (err != nil || back.Oid != in.Oid) {
			t.Errorf("ParseTypeName(%q) = %v, %v", in.Name, back, err)
		}
	}
	for i := 1; i < len(All()); i++ {
		if All()[i-1].Oid >= All()[i].Oid {
			t.Errorf("All is not ordered by oid at %d", i)
		}
	}
	if _, ok := Lookup(9999); ok {
		t.Error("Lookup found oid 9999")
	}
	if got := (T{9999, -1}).String(); got != "???" {
		t.Errorf("unknown type prints %q", got)
	}
}

// TestTypeStringRoundTrip: the names of types with modifiers parse back.
func TestTypeStringRoundTrip(t *testing.T) {
	for _, name := range []string{
		"numeric(10,2)", "numeric(3,-1)", "character varying(7)", "character(1)", "bpchar",
		"timestamp(0) without time zone", "timestamp(3) with time zone", "interval(4)",
		"numeric(5,2)[]", "character(3)[]", `"char"`, `"char"[]`,
	} {
		typ, err := ParseTypeName(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if typ.String() != name {
			t.Errorf("ParseTypeName(%q).String() = %q", name, typ.String())
		}
	}
}

// TestRandomRoundTrips: random values of every type survive text and
// binary output and input exactly.
func TestRandomRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	zones := []*time.Location{time.UTC, mustZone(t, "Asia/Kolkata"), mustZone(t, "America/St_Johns"), time.FixedZone("", -(15*3600 + 59*60))}
	for _, typ := range randomTypes {
		if typ.Oid == OidChar {
			continue // "char" holds any byte; text bytes must be UTF-8
		}
		for range 200 {
			v := randomDatum(r, typ)
			if !validUTF8Datum(v) {
				continue
			}
			loc := zones[r.IntN(len(zones))]
			text := AppendText(nil, typ, v, loc)
			back, err := ParseText(typ, string(text), loc)
			if err != nil {
				t.Fatalf("%s: ParseText(%q): %v", typ, text, err)
			}
			if !sameValue(typ, v, back) {
				t.Fatalf("%s: %q reads back as %q", typ, text, AppendText(nil, typ, back, loc))
			}
			bin := AppendBinary(nil, typ, v)
			back, err = DecodeBinary(typ, bin)
			if err != nil {
				t.Fatalf("%s: DecodeBinary(%x) of %q: %v", typ, bin, text, err)
			}
			if !sameValue(typ, v, back) {
				t.Fatalf("%s: %q comes back from binary as %q", typ, text, AppendText(nil, typ, back, loc))
			}
		}
	}
}

// validUTF8Datum reports whether the strings in v are valid UTF-8 without
// NUL, the only strings PostgreSQL's text types can hold.
func validUTF8Datum(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ToValidUTF8(v, "?") == v && !strings.Contains(v, "\x00")
	case []any:
		for _, e := range v {
			if !validUTF8Datum(e) {
				return false
			}
		}
	}
	return true
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestDecodeBinaryMalformed: every prefix of a valid binary value, and
// some garbage, fails with 22P03 (or another SQLSTATE), never a panic.
func TestDecodeBinaryMalformed(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, typ := range randomTypes {
		for range 20 {
			b := AppendBinary(nil, typ, randomDatum(r, typ))
			for n := range b {
				_, err := DecodeBinary(typ, b[:n])
				if err == nil {
					continue // text and bytea accept any prefix
				}
				if code := codeOf(err); code == pgerr.InternalError {
					t.Fatalf("%s: %x: unclassified error %v", typ, b[:n], err)
				}
			}
			garbled := append([]byte(nil), b...)
			if len(garbled) > 0 {
				garbled[r.IntN(len(garbled))] ^= 0xff
			}
			_, _ = DecodeBinary(typ, garbled)
		}
	}
	for _, c := range []struct {
		typ T
		hex []byte
	}{
		{Int4, []byte{0, 0, 1}},
		{Int8, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{Numeric, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}}, // digit 10000
		{Numeric, []byte{0, 0, 0, 0, 0x12, 0x34, 0, 0}},       // bad sign
		{Int8Array, []byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 20}},
		{UUIDType, make([]byte, 15)},
		{InetType, []byte{1, 32, 0, 4, 1, 2, 3, 4}}, // family 1
		{InetType, []byte{2, 33, 0, 4, 1, 2, 3, 4}}, // 33 bits
		{InetType, []byte{3, 64, 0, 4, 1, 2, 3, 4}}, // IPv6 of 4 bytes
		{CidrType, []byte{2, 8, 1, 4, 10, 0, 0, 1}}, // host bits
		{MacaddrType, make([]byte, 8)},
		{Macaddr8Type, make([]byte, 7)},
	} {
		if _, err := DecodeBinary(c.typ, c.hex); codeOf(err) != pgerr.InvalidBinaryRepresentation {
			t.Errorf("%s %x: %v, want 22P03", c.typ, c.hex, err)
		}
	}
	wrongElem := AppendBinary(nil, TextArray, []any{"a"})
	if _, err := DecodeBinary(Int8Array, wrongElem); codeOf(err) != pgerr.DatatypeMismatch {
		t.Errorf("text[] bytes as bigint[]: %v", err)
	}
}

// TestUnsupported: what epochdb does not do fails with 0A000.
func TestUnsupported(t *testing.T) {
	if _, err := ParseText(Int8Array, "{{1,2},{3,4}}", nil); codeOf(err) != pgerr.FeatureNotSupported {
		t.Errorf("two-dimensional array: %v", err)
	}
	if _, err := ParseText(Int8Array, "[0:1]={1,2}", nil); codeOf(err) != pgerr.FeatureNotSupported {
		t.Errorf("lower bound 0: %v", err)
	}
	if _, err := ParseTypeName("xml"); codeOf(err) != pgerr.FeatureNotSupported {
		t.Errorf("xml: %v", err)
	}
	// serial is a column default the catalog expands, not a type.
	if _, err := ParseTypeName("serial"); codeOf(err) != pgerr.UndefinedObject {
		t.Errorf("serial: %v", err)
	}
	twoDim := []byte{0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}
	if _, err := DecodeBinary(Int8Array, twoDim); codeOf(err) != pgerr.FeatureNotSupported {
		t.Errorf("binary two-dimensional array: %v", err)
	}
}

// TestNumericLimits: the limits of PostgreSQL's numeric storage, whose
// values are too long for the testdata files.
func TestNumericLimits(t *testing.T) {
	for _, c := range []struct {
		in   string
		code string
	}{
		{"1e131071", ""},
		{"1e131072", pgerr.NumericValueOutOfRange},
		{"1e-16383", ""},
		{"1e-16384", pgerr.NumericValueOutOfRange},
		{"1e2000000000", pgerr.NumericValueOutOfRange},
	} {
		_, err := ParseText(Numeric, c.in, nil)
		if code := codeOf(err); code != c.code {
			t.Errorf("%s: %v, want %q", c.in, err, c.code)
		}
	}
}

// TestCoerceDatumType: a Go value of the wrong type is reported, not
// panicked on, since it is a bug in the caller.
func TestCoerceDatumType(t *testing.T) {
	for _, c := range []struct {
		typ T
		v   any
	}{
		{Int4, "1"}, {Text, int64(1)}, {Numeric, 1.5}, {Date, "2024-01-01"}, {Int8Array, []int64{1}},
		{Float8, float32(1)}, {Bool, 1}, {UUIDType, []byte{1}},
	} {
		if _, err := Coerce(c.typ, c.v); codeOf(err) != pgerr.DatatypeMismatch {
			t.Errorf("Coerce(%s, %T): %v", c.typ, c.v, err)
		}
	}
	if v, err := Coerce(Int4, nil); v != nil || err != nil {
		t.Errorf("Coerce(NULL) = %v, %v", v, err)
	}
	if v, err := Cast(nil, Text, Int4, nil); v != nil || err != nil {
		t.Errorf("Cast(NULL) = %v, %v", v, err)
	}
}

// TestNumericImmutable: rounding, casting and encoding never modify a
// numeric datum, which may be shared.
func TestNumericImmutable(t *testing.T) {
	d := mustNumeric(t, "-123.456").(*apd.Decimal)
	before := d.String()
	_, _ = Coerce(T{OidNumeric, 5<<16 | 1 + 4}, d)
	_, _ = Cast(d, Numeric, Int4, nil)
	_, _ = Cast(d, Numeric, Float8, nil)
	_ = AppendKey(nil, Numeric, d, true)
	_ = AppendBinary(nil, Numeric, d)
	_ = EncodeRow(nil, []T{Numeric}, []any{d})
	if d.String() != before {
		t.Errorf("numeric changed from %s to %s", before, d)
	}
}

// TestInfinityEncodings: the infinities map to PostgreSQL's int32 and int64
// extremes.
func TestInfinityEncodings(t *testing.T) {
	if pgMicros(TimeInfinity) != math.MaxInt64 || pgMicros(TimeNegInfinity) != math.MinInt64 {
		t.Error("timestamp infinities")
	}
	if pgDays(TimeInfinity) != math.MaxInt32 || pgDays(TimeNegInfinity) != math.MinInt32 {
		t.Error("date infinities")
	}
	if !fromPGMicros(math.MaxInt64).Equal(TimeInfinity) || !fromPGDays(math.MinInt32).Equal(TimeNegInfinity) {
		t.Error("decoding infinities")
	}
}

// TestNowIsRecent: 'now' and 'today' read the clock.
func TestNowIsRecent(t *testing.T) {
	v, err := ParseText(Timestamptz, "now", time.UTC)
	if err != nil || time.Since(v.(time.Time)) > time.Minute {
		t.Errorf("now = %v, %v", v, err)
	}
	v, err = ParseText(Date, "today", time.UTC)
	if err != nil || time.Since(v.(time.Time)) > 25*time.Hour {
		t.Errorf("today = %v, %v", v, err)
	}
}

// codeOf returns err's SQLSTATE, or "" for nil.
func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return pgerr.Code(err)
}

// TestNumericFromArithmetic: numerics that arithmetic makes, with a
// positive exponent or a negative zero, print, send and store as
// PostgreSQL's equal values do.
func TestNumericFromArithmetic(t *testing.T) {
	for _, c := range []struct {
		d    *apd.Decimal
		text string
	}{
		{apd.New(15, 2), "1500"},
		{&apd.Decimal{Negative: true, Exponent: -2}, "0.00"},
		{&apd.Decimal{Negative: true, Exponent: 3}, "0"},
	} {
		want := mustNumeric(t, c.text)
		if got := string(AppendText(nil, Numeric, c.d, nil)); got != c.text {
			t.Errorf("%s prints as %s, want %s", c.d, got, c.text)
		}
		if got, wantBin := AppendBinary(nil, Numeric, c.d), AppendBinary(nil, Numeric, want); string(got) != string(wantBin) {
			t.Errorf("%s sends %x, want %x", c.d, got, wantBin)
		}
		if v, err := Coerce(Numeric, c.d); err != nil || !sameValue(Numeric, v, want) {
			t.Errorf("Coerce(%s) = %v, %v", c.d, v, err)
		}
		dst := make([]any, 1)
		if err := DecodeRow([]T{Numeric}, EncodeRow(nil, []T{Numeric}, []any{c.d}), dst); err != nil || !sameValue(Numeric, dst[0], want) {
			t.Errorf("row of %s decodes as %v, %v", c.d, dst[0], err)
		}
		if string(AppendKey(nil, Numeric, c.d, false)) != string(AppendKey(nil, Numeric, want, false)) {
			t.Errorf("key of %s differs from key of %s", c.d, c.text)
		}
	}
}
