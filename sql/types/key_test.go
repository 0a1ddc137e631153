package types

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/sql/pgerr"
)

func sign(c int) int { return cmp.Compare(c, 0) }

// TestKeyOrder: for random values of every type, the key encodings compare
// as the values do, ascending and descending, equal values encode
// identically, and a key decodes to an equal value.
func TestKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range randomTypes {
		t.Run(typ.String(), func(t *testing.T) {
			vals := make([]any, 200)
			for i := range vals {
				vals[i] = randomDatum(r, typ)
			}
			for _, desc := range []bool{false, true} {
				keys := make([][]byte, len(vals))
				for i, v := range vals {
					keys[i] = AppendKey(nil, typ, v, desc)
					back, rest, err := DecodeKey(typ, keys[i], desc)
					if err != nil || len(rest) != 0 || Compare(typ, v, back) != 0 {
						t.Fatalf("DecodeKey(AppendKey(%v)) = %v, rest %x, %v", v, back, rest, err)
					}
					if !bytes.Equal(AppendKey(nil, typ, back, desc), keys[i]) {
						t.Fatalf("decoded %v re-encodes differently from %v", back, v)
					}
				}
				for i := range vals {
					for j := range vals {
						want := Compare(typ, vals[i], vals[j])
						if desc {
							want = -want
						}
						if got := sign(bytes.Compare(keys[i], keys[j])); got != want {
							t.Fatalf("desc %v: keys of %v and %v compare %d, values %d\n%x\n%x",
								desc, vals[i], vals[j], got, want, keys[i], keys[j])
						}
					}
				}
			}
		})
	}
}

// TestKeyNulls: NULL sorts after every value ascending and before every
// value descending, as PostgreSQL's default NULLS LAST / NULLS FIRST.
func TestKeyNulls(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range randomTypes {
		for range 20 {
			v := randomDatum(r, typ)
			if bytes.Compare(AppendKey(nil, typ, nil, false), AppendKey(nil, typ, v, false)) <= 0 {
				t.Errorf("%s: ascending NULL does not sort after %v", typ, v)
			}
			if bytes.Compare(AppendKey(nil, typ, nil, true), AppendKey(nil, typ, v, true)) >= 0 {
				t.Errorf("%s: descending NULL does not sort before %v", typ, v)
			}
		}
		for _, desc := range []bool{false, true} {
			v, rest, err := DecodeKey(typ, AppendKey(nil, typ, nil, desc), desc)
			if v != nil || len(rest) != 0 || err != nil {
				t.Errorf("%s: NULL decodes as %v, rest %x, %v", typ, v, rest, err)
			}
		}
	}
}

// TestKeyMultiColumn: keys of several columns, each ascending or
// descending and possibly NULL, concatenate and compare column by column.
func TestKeyMultiColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		ncols := 1 + r.IntN(3)
		types := make([]T, ncols)
		desc := make([]bool, ncols)
		for i := range types {
			types[i] = randomTypes[r.IntN(len(randomTypes))]
			desc[i] = r.IntN(2) == 0
		}
		row := func() []any {
			vals := make([]any, ncols)
			for i := range vals {
				if r.IntN(6) > 0 {
					vals[i] = randomDatum(r, types[i])
				}
			}
			return vals
		}
		encode := func(vals []any) []byte {
			var key []byte
			for i, v := range vals {
				key = AppendKey(key, types[i], v, desc[i])
			}
			return key
		}
		// compareRows is ORDER BY c1 [DESC], c2 [DESC], ... with PostgreSQL's
		// default NULL placement.
		compareRows := func(a, b []any) int {
			for i := range a {
				var c int
				switch {
				case a[i] == nil && b[i] == nil:
				case a[i] == nil:
					c = 1
				case b[i] == nil:
					c = -1
				default:
					c = Compare(types[i], a[i], b[i])
				}
				if desc[i] {
					c = -c
				}
				if c != 0 {
					return c
				}
			}
			return 0
		}
		rows := make([][]any, 20)
		for i := range rows {
			rows[i] = row()
		}
		// Make equal prefixes likely, so later columns decide.
		rows = append(rows, append([]any{rows[0][0]}, rows[1][1:]...))
		for _, a := range rows {
			ka := encode(a)
			rest := ka
			for i := range types {
				var v any
				var err error
				v, rest, err = DecodeKey(types[i], rest, desc[i])
				if err != nil || (v == nil) != (a[i] == nil) || v != nil && Compare(types[i], v, a[i]) != 0 {
					t.Fatalf("column %d of %v decodes as %v, %v", i, a, v, err)
				}
			}
			if len(rest) != 0 {
				t.Fatalf("%x left after decoding %v", rest, a)
			}
			for _, b := range rows {
				if got, want := sign(bytes.Compare(ka, encode(b))), compareRows(a, b); got != want {
					t.Fatalf("types %v desc %v: keys of %v and %v compare %d, rows %d", types, desc, a, b, got, want)
				}
			}
		}
	}
}

// TestKeyDecodeCorrupt: truncated or garbled keys are errors, not panics.
func TestKeyDecodeCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, typ := range randomTypes {
		for range 20 {
			key := AppendKey(nil, typ, randomDatum(r, typ), false)
			for n := range key {
				if _, _, err := DecodeKey(typ, key[:n], false); err == nil {
					continue // a prefix can be a valid shorter key (a shorter array)
				} else if codeOf(err) != pgerr.DataCorrupted {
					t.Fatalf("%s: truncated key %x: %v", typ, key[:n], err)
				}
			}
			garbled := append([]byte(nil), key...)
			garbled[r.IntN(len(garbled))] ^= byte(1 + r.IntN(255))
			_, _, _ = DecodeKey(typ, garbled, false) // must not panic
		}
	}
}

// TestCitextKey: citext values that differ only in case are one key, so a
// unique index holds one of them, and they compare equal; the key orders
// as the lower-cased values do, not as the values as written.
func TestCitextKey(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"abc", "ABC", 0}, {"Straße", "STRASSE", 1}, {"É", "é", 0}, {"B", "a", 1}, {"a", "B", -1},
		{"Z", "a", 1}, {"", "A", -1},
	} {
		ka, kb := AppendKey(nil, Citext, c.a, false), AppendKey(nil, Citext, c.b, false)
		if got := sign(bytes.Compare(ka, kb)); got != c.want {
			t.Errorf("keys of %q and %q compare %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Compare(Citext, c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := sign(Compare(Text, c.a, c.b)); c.want == 0 && got == 0 {
			t.Errorf("%q and %q are equal as text too: the case proves nothing", c.a, c.b)
		}
	}
}
