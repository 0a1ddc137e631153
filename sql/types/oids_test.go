package types

import (
	"encoding/hex"
	"testing"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// TestReg: the reg* types print the name their value carries, "-" for oid
// 0 and the number when there is no name; they send the oid; and on their
// own they read only numbers, the names being the catalog's business.
func TestReg(t *testing.T) {
	for _, c := range []struct {
		v    Reg
		text string
	}{{Reg{}, "-"}, {Reg{Oid: 1259, Name: "pg_class"}, "pg_class"}, {Reg{Oid: 16384}, "16384"}} {
		if got := string(AppendText(nil, Regclass, c.v, nil)); got != c.text {
			t.Errorf("%+v prints %q, want %q", c.v, got, c.text)
		}
	}
	if got := hex.EncodeToString(AppendBinary(nil, Regtype, Reg{Oid: 23, Name: "integer"})); got != "00000017" {
		t.Errorf("regtype integer sends %s", got)
	}
	if v, err := ParseText(Regclass, " 16384 ", nil); err != nil || v != (Reg{Oid: 16384}) {
		t.Errorf("regclass '16384' reads as %v, %v", v, err)
	}
	if _, err := ParseText(Regclass, "t", nil); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Errorf("regclass 't' without a catalog: %v, want 0A000", err)
	}
	if v, err := Cast(Reg{Oid: 3000000000, Name: "x"}, Regclass, OidType, nil); err != nil || v != int64(3000000000) {
		t.Errorf("regclass to oid: %v, %v", v, err)
	}
	if v, err := Cast(Reg{Oid: 3000000000}, Regclass, Int4, nil); err != nil || v != int64(-1294967296) {
		t.Errorf("regclass to int4: %v, %v (binary coercion through oid wraps)", v, err)
	}
	if v, err := Cast(int64(-1), Int4, Regclass, nil); err != nil || v != (Reg{Oid: 4294967295}) {
		t.Errorf("int4 -1 to regclass: %v, %v", v, err)
	}
	if c := Compare(Regclass, Reg{Oid: 2, Name: "b"}, Reg{Oid: 10, Name: "a"}); c >= 0 {
		t.Errorf("regclass compares by oid, got %d", c)
	}
}

// TestRecord: a record type is found again by its fields, and prints and
// sends as record_out and record_send do.
func TestRecord(t *testing.T) {
	fields := []Field{{"x", Text}, {"n", Int4}}
	rt := RecordOf(fields)
	if again := RecordOf([]Field{{"x", Text}, {"n", Int4}}); again != rt {
		t.Errorf("RecordOf twice: %v, then %v", rt, again)
	}
	if other := RecordOf([]Field{{"y", Text}, {"n", Int4}}); other == rt {
		t.Errorf("records with different fields share %v", rt)
	}
	if got, ok := rt.Fields(); !ok || len(got) != 2 || got[1] != fields[1] {
		t.Errorf("Fields() = %v, %v", got, ok)
	}
	for _, c := range []struct {
		v    []any
		text string
	}{
		{[]any{"a", int64(1)}, "(a,1)"},
		{[]any{"b c", nil}, `("b c",)`},
		{[]any{"", int64(-2)}, `("",-2)`},
		{[]any{`q"\`, int64(0)}, `("q""\\",0)`},
	} {
		if got := string(AppendText(nil, rt, c.v, nil)); got != c.text {
			t.Errorf("%q prints %s, want %s", c.v, got, c.text)
		}
	}
	want := "00000002" + "00000019" + "00000001" + "61" + "00000017" + "ffffffff"
	if got := hex.EncodeToString(AppendBinary(nil, rt, []any{"a", nil})); got != want {
		t.Errorf("(a,) sends %s, want %s", got, want)
	}
	if c := Compare(rt, []any{"a", nil}, []any{"a", int64(5)}); c <= 0 {
		t.Errorf("a NULL field sorts after a value, got %d", c)
	}
}
