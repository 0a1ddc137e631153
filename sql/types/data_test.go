package types

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The tests in this file replay the cases in testdata/ against the answers
// PostgreSQL gave.

// TestDataTypeNames: type name → format_type, oid and typmod, as CREATE
// TABLE records them.
func TestDataTypeNames(t *testing.T) {
	runDataFile(t, "testdata/typenames",
		func(f []string) string {
			return "create temp table t(c " + f[0] + "); " +
				"select format_type(atttypid, atttypmod) || ' ' || atttypid || ' ' || atttypmod " +
				"from pg_attribute where attrelid = 't'::regclass and attname = 'c'"
		},
		func(t *testing.T, _ *time.Location, f []string) string {
			typ, err := ParseTypeName(f[0])
			if err != nil {
				return errString(err)
			}
			return fmt.Sprintf("%s %d %d", typ, typ.Oid, typ.Mod)
		})
}

// TestDataText: text input → text output, and for every value that PostgreSQL
// accepts, the round trips through the text and binary formats.
func TestDataText(t *testing.T) {
	runDataFile(t, "testdata/text",
		func(f []string) string {
			// With a modifier, call the input function itself: a cast to
			// varchar(3) would truncate where the input function fails.
			typ, _ := ParseTypeName(f[0])
			if typ.Mod < 0 {
				return "select " + sqlLiteral(f[1]) + "::" + f[0]
			}
			info, _ := Lookup(typ.Oid)
			ioParam := typ.Oid
			if elem, ok := typ.Elem(); ok {
				ioParam = elem.Oid
			}
			return fmt.Sprintf("select %s(%s::cstring, %d, %d)", info.Input, sqlLiteral(f[1]), ioParam, typ.Mod)
		},
		func(t *testing.T, loc *time.Location, f []string) string {
			typ := mustType(t, f[0])
			v, err := ParseText(typ, f[1], loc)
			if err != nil {
				return errString(err)
			}
			out := string(AppendText(nil, typ, v, loc))
			checkRoundTrips(t, typ, v, loc)
			return out
		})
}

// checkRoundTrips checks that v survives its text, binary, key and row
// encodings.
func checkRoundTrips(t *testing.T, typ T, v any, loc *time.Location) {
	t.Helper()
	text := string(AppendText(nil, typ, v, loc))
	back, err := ParseText(typ, text, loc)
	if err != nil {
		t.Errorf("text round trip of %s %q: %v", typ, text, err)
	} else if Compare(typ, v, back) != 0 || string(AppendText(nil, typ, back, loc)) != text {
		t.Errorf("text round trip of %s %q: got %q", typ, text, AppendText(nil, typ, back, loc))
	}
	bin := AppendBinary(nil, typ, v)
	back, err = DecodeBinary(typ, bin)
	if err != nil {
		t.Errorf("binary round trip of %s %q: %v", typ, text, err)
	} else if got := string(AppendText(nil, typ, back, loc)); got != text {
		t.Errorf("binary round trip of %s %q: got %q", typ, text, got)
	}
	for _, desc := range []bool{false, true} {
		key := AppendKey(nil, typ, v, desc)
		back, rest, err := DecodeKey(typ, append(key, 0x42), desc)
		if err != nil || Compare(typ, v, back) != 0 || !bytes.Equal(rest, []byte{0x42}) {
			t.Errorf("key round trip of %s %q (desc %v): got %v, rest %x, %v", typ, text, desc, back, rest, err)
		}
	}
	row := EncodeRow(nil, []T{typ}, []any{v})
	dst := make([]any, 1)
	if err := DecodeRow([]T{typ}, row, dst); err != nil {
		t.Errorf("row round trip of %s %q: %v", typ, text, err)
	} else if got := string(AppendText(nil, typ, dst[0], loc)); got != text {
		t.Errorf("row round trip of %s %q: got %q", typ, text, got)
	}
}

// TestDataBinary: text input → PostgreSQL's send function, and back.
func TestDataBinary(t *testing.T) {
	runDataFile(t, "testdata/binary",
		func(f []string) string {
			typ, _ := ParseTypeName(f[0])
			info, _ := Lookup(typ.Oid)
			return "select encode(" + info.Send + "(" + sqlLiteral(f[1]) + "::" + f[0] + "), 'hex')"
		},
		func(t *testing.T, loc *time.Location, f []string) string {
			typ := mustType(t, f[0])
			v, err := ParseText(typ, f[1], loc)
			if err != nil {
				return errString(err)
			}
			b := AppendBinary(nil, typ, v)
			back, err := DecodeBinary(typ, b)
			if err != nil {
				t.Errorf("DecodeBinary(%x): %v", b, err)
			} else if x, y := AppendText(nil, typ, v, loc), AppendText(nil, typ, back, loc); !bytes.Equal(x, y) {
				t.Errorf("DecodeBinary(%x) = %s, want %s", b, y, x)
			}
			return hex.EncodeToString(b)
		})
}

// TestDataCast: explicit casts, value::from::to.
func TestDataCast(t *testing.T) {
	runDataFile(t, "testdata/cast",
		func(f []string) string { return "select (" + sqlLiteral(f[2]) + "::" + f[0] + ")::" + f[1] },
		func(t *testing.T, loc *time.Location, f []string) string {
			from, to := mustType(t, f[0]), mustType(t, f[1])
			v, err := ParseText(from, f[2], loc)
			if err != nil {
				t.Fatalf("input %q: %v", f[2], err)
			}
			r, err := Cast(v, from, to, loc)
			if err != nil {
				return errString(err)
			}
			if r == nil {
				return "" // an infinite timestamp's time is NULL
			}
			return string(AppendText(nil, to, r, loc))
		})
}

// TestDataCoerce: storing a value of one type into a column of another of
// the same family, as INSERT does.
func TestDataCoerce(t *testing.T) {
	runDataFile(t, "testdata/coerce",
		func(f []string) string {
			return "create temp table t(c " + f[0] + "); insert into t values (" + sqlLiteral(f[2]) + "::" + f[1] + ") returning c"
		},
		func(t *testing.T, loc *time.Location, f []string) string {
			col, from := mustType(t, f[0]), mustType(t, f[1])
			v, err := ParseText(from, f[2], loc)
			if err != nil {
				t.Fatalf("input %q: %v", f[2], err)
			}
			r, err := Coerce(col, v)
			if err != nil {
				return errString(err)
			}
			return string(AppendText(nil, col, r, loc))
		})
}

// TestDataCompare: the order of two values, which the key encoding must
// agree with too.
func TestDataCompare(t *testing.T) {
	runDataFile(t, "testdata/compare",
		func(f []string) string {
			a, b := sqlLiteral(f[1])+"::"+f[0], sqlLiteral(f[2])+"::"+f[0]
			return "select case when " + a + " < " + b + " then -1 when " + a + " = " + b + " then 0 when " + a + " > " + b + " then 1 end"
		},
		func(t *testing.T, loc *time.Location, f []string) string {
			typ := mustType(t, f[0])
			a, err := ParseText(typ, f[1], loc)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ParseText(typ, f[2], loc)
			if err != nil {
				t.Fatal(err)
			}
			c := Compare(typ, a, b)
			for _, desc := range []bool{false, true} {
				k := bytes.Compare(AppendKey(nil, typ, a, desc), AppendKey(nil, typ, b, desc))
				if desc {
					k = -k
				}
				if k != c {
					t.Errorf("key order %d (desc %v) disagrees with Compare %d", k, desc, c)
				}
			}
			return fmt.Sprint(c)
		})
}

// TestDataPGValues: random values PostgreSQL generated, in its text and
// binary formats, which must convert into each other as in PostgreSQL.
func TestDataPGValues(t *testing.T) {
	lines := readDataFile(t, "testdata/pgvalues")
	for _, l := range lines {
		if l.fields == nil {
			continue
		}
		name, zone, _ := strings.Cut(l.fields[0], "@")
		if zone == "" {
			zone = "UTC"
		}
		typ, loc := mustType(t, name), mustZone(t, zone)
		bin, err := hex.DecodeString(l.fields[1])
		if err != nil {
			t.Fatal(err)
		}
		text := l.fields[2]
		v, err := DecodeBinary(typ, bin)
		if err != nil {
			t.Errorf("line %d: DecodeBinary(%s, %x): %v", l.lineNo, typ, bin, err)
		} else if got := string(AppendText(nil, typ, v, loc)); got != text {
			t.Errorf("line %d: %s %x prints as %s, want %s", l.lineNo, typ, bin, got, text)
		}
		v, err = ParseText(typ, text, loc)
		if err != nil {
			t.Errorf("line %d: ParseText(%s, %q): %v", l.lineNo, typ, text, err)
		} else if got := AppendBinary(nil, typ, v); !bytes.Equal(got, bin) {
			t.Errorf("line %d: %s %q sends %x, want %x", l.lineNo, typ, text, got, bin)
		}
	}
}
