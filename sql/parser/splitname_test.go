package parser

import (
	"slices"
	"testing"
)

// SplitName undoes qualifiedName's join: parts with dots or quotes come
// back whole, and no part is case-folded a second time.
func TestSplitName(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want []string
	}{
		{"COMMENT ON TABLE t IS 'x'", []string{"t"}},
		{"COMMENT ON TABLE app.t IS 'x'", []string{"app", "t"}},
		{`COMMENT ON TABLE "My Schema"."My.Table" IS 'x'`, []string{"My Schema", "My.Table"}},
		{`COMMENT ON TABLE "a""b".c IS 'x'`, []string{`a"b`, "c"}},
		{`COMMENT ON TABLE "MixedCase" IS 'x'`, []string{"MixedCase"}},
	} {
		stmts, err := Parse(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		cmd, ok := stmts[0].Cmd.(*Comment)
		if !ok {
			t.Fatalf("%s: parsed as %T", c.sql, stmts[0].Cmd)
		}
		if got := SplitName(cmd.Name); !slices.Equal(got, c.want) {
			t.Errorf("%s: SplitName(%q) = %q, want %q", c.sql, cmd.Name, got, c.want)
		}
	}
}
