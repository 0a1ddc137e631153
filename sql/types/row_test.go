package types

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// sameValue reports whether a and b are the same datum, not merely equal:
// rows must give back 1.50 as 1.50 and -0 as -0.
func sameValue(typ T, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if Compare(typ, a, b) != 0 {
		return false
	}
	x, y := AppendText(nil, typ, a, time.UTC), AppendText(nil, typ, b, time.UTC)
	return string(x) == string(y) && string(AppendBinary(nil, typ, a)) == string(AppendBinary(nil, typ, b))
}

// TestRowRoundTrip: random rows of every type decode to the exact values.
func TestRowRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		types := make([]T, r.IntN(12))
		vals := make([]any, len(types))
		for i := range types {
			types[i] = randomTypes[r.IntN(len(randomTypes))]
			if r.IntN(4) > 0 {
				vals[i] = randomDatum(r, types[i])
			}
		}
		row := EncodeRow([]byte("prefix"), types, vals)[len("prefix"):]
		dst := make([]any, len(types))
		for i := range dst {
			dst[i] = "stale"
		}
		if err := DecodeRow(types, row, dst); err != nil {
			t.Fatalf("DecodeRow(%v): %v", vals, err)
		}
		for i := range types {
			if !sameValue(types[i], vals[i], dst[i]) {
				t.Fatalf("column %d (%s): got %v, want %v", i, types[i], dst[i], vals[i])
			}
		}
	}
}

// TestRowAddedColumns: a row stored before ALTER TABLE ADD COLUMN decodes
// with the new trailing columns NULL.
func TestRowAddedColumns(t *testing.T) {
	old := []T{Int8, Text}
	row := EncodeRow(nil, old, []any{int64(7), "seven"})
	now := []T{Int8, Text, Bool, Numeric}
	dst := []any{nil, nil, true, "stale"}
	if err := DecodeRow(now, row, dst); err != nil {
		t.Fatal(err)
	}
	if dst[0] != int64(7) || dst[1] != "seven" || dst[2] != nil || dst[3] != nil {
		t.Fatalf("got %v", dst)
	}
}

// TestRowCorrupt: a row with more columns than the table, or cut short, is
// an error (XX001), never a panic or a wrong value.
func TestRowCorrupt(t *testing.T) {
	types := []T{Int8, Text, Numeric, Int8Array}
	vals := []any{int64(1), "one", mustNumeric(t, "1.5"), []any{int64(1), nil}}
	row := EncodeRow(nil, types, vals)
	if err := DecodeRow(types[:2], row, make([]any, 2)); codeOf(err) != pgerr.DataCorrupted {
		t.Errorf("decoding 4 columns as 2: %v", err)
	}
	for n := range row {
		if err := DecodeRow(types, row[:n], make([]any, 4)); codeOf(err) != pgerr.DataCorrupted {
			t.Errorf("row cut to %d bytes: %v", n, err)
		}
	}
	if err := DecodeRow(types, append(row, 0), make([]any, 4)); codeOf(err) != pgerr.DataCorrupted {
		t.Errorf("row with a trailing byte: %v", err)
	}
}

// TestRowDoesNotAlias: decoded strings and bytes do not share the row's
// buffer, which the storage engine reuses.
func TestRowDoesNotAlias(t *testing.T) {
	types := []T{Bytea, Text}
	row := EncodeRow(nil, types, []any{[]byte("abc"), "def"})
	dst := make([]any, 2)
	if err := DecodeRow(types, row, dst); err != nil {
		t.Fatal(err)
	}
	for i := range row {
		row[i] = 'x'
	}
	if string(dst[0].([]byte)) != "abc" || dst[1] != "def" {
		t.Fatalf("decoded values changed with the buffer: %q %q", dst[0], dst[1])
	}
}

func mustNumeric(t *testing.T, s string) any {
	t.Helper()
	v, err := ParseText(Numeric, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
