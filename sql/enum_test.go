package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/epochdb/epochdb/sql/types"
)

// TestEnumNamesAreTheEngines: two engines in one process, as embedded
// tests run them, each name their own enum types, in results and in
// messages, though the types have the same descriptor id. Results name
// the type from the catalog even where another engine's type has the
// same oid, as two stored databases opened in one process can.
func TestEnumNamesAreTheEngines(t *testing.T) {
	_, a := newTestSession(t)
	_, b := newTestSession(t)
	mustRun(t, a, "CREATE TYPE mood AS ENUM ('glad', 'sad')")
	mustRun(t, a, "CREATE TABLE diary (m mood NOT NULL DEFAULT 'glad', ms mood[])")
	mustRun(t, a, "INSERT INTO diary VALUES ('sad', '{glad}')")
	mustRun(t, b, "CREATE TYPE colour AS ENUM ('red', 'blue')")
	mustRun(t, b, "CREATE TABLE paint (c colour NOT NULL DEFAULT 'red')")
	oid := func(s *Session, name string) any {
		return mustRun(t, s, "SELECT oid FROM pg_type WHERE typname = '"+name+"'")[0][0]
	}
	if oid(a, "mood") == oid(b, "colour") {
		t.Fatalf("both engines' types have oid %v", oid(a, "mood"))
	}
	results := func() {
		t.Helper()
		for _, c := range []struct{ query, want string }{
			{"SELECT udt_name, data_type, column_default FROM information_schema.columns WHERE table_name = 'diary' AND column_name = 'm'", "[[mood USER-DEFINED 'glad'::mood]]"},
			{"SELECT udt_name, data_type FROM information_schema.columns WHERE table_name = 'diary' AND column_name = 'ms'", "[[_mood ARRAY]]"},
			{"SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'diary'::regclass AND attnum = 1", "[[mood]]"},
			{"SELECT pg_typeof(m)::text, pg_typeof(ms)::text, 'mood'::regtype::text FROM diary", "[[mood mood[] mood]]"},
			{"SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'diary'::regclass", "[['glad'::mood]]"},
			{"SELECT m::text, ms::text FROM diary", "[[sad {glad}]]"},
		} {
			if got := fmt.Sprint(mustRun(t, a, c.query)); got != c.want {
				t.Errorf("%s\n got %s\nwant %s", c.query, got, c.want)
			}
		}
	}
	results()
	for _, c := range []struct{ query, want string }{
		{"SELECT m + 1 FROM diary", "operator does not exist: mood + integer"},
		{"INSERT INTO diary (m) VALUES (1)", "is of type mood but expression is of type integer"},
		{"SELECT 'happy'::mood", `invalid input value for enum mood: "happy"`},
		{"SELECT m::int FROM diary", "cannot cast type mood to integer"},
	} {
		_, err := run(context.Background(), a, c.query)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.query, err, c.want)
		}
	}
	// Another engine's type on mood's oid changes no result.
	moodOid := types.Oid(oid(a, "mood").(int64))
	types.NameEnum(moodOid, "colour")
	defer types.NameEnum(moodOid, "mood")
	results()
}
