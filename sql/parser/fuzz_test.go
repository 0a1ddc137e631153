package parser

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// soupWords are the tokens FuzzParse strings together: the keywords,
// operators and constants that the rewrite treats specially.
var soupWords = strings.Fields(`
	select from where insert into values update set delete create table index drop alter add column
	constraint primary key unique references default not null and or is distinct between like ilike
	in exists case when then else end cast as order by nulls first last asc desc limit offset fetch
	next rows row only returning on conflict do nothing with recursive union all join left full outer
	lateral group having begin commit rollback savepoint release copy stdin stdout csv header freeze
	truncate vacuum analyze explain declare cursor move close show reset time zone interval timestamp
	double precision varchar int text serial array any some operator collate for share no isolation
	level read write transaction to identity generated always sequence if true false current_user
	over partition window filter within escape isnull notnull similar at local session
	temp temporary global preserve discard pg_temp.t
	extension schema authorization rename owner session_user version cascade restrict comment is digest crypt "uuid-ossp" nosuch.t public.t
	function procedure routine returns setof language sql plpgsql strict stable immutable volatile atomic return call inout out variadic security definer %type
	a b t u x "Q" "x""y" pg_catalog.int4 nextval rank count
	's' 'it''s' E'\n' E'\x41' $$d$$ $q$;$q$ U&'\0041' B'1' 1 1.5 .5 1e3 0x1f 1_0 $1 $2 $3 $65535
	+ - * / % ^ || = <> != < <= > >= ~ ~* !~ ~~ !~~ # & | << >> :: @> -> ? @ => := ~~*
	<-> <% %> <<% %>> <<-> <->> <<<-> <->>> using gin gist gin_trgm_ops citext
	inet cidr macaddr macaddr8 inet_ops macaddr_ops <<= >>= && '10.0.0.0/8' '::1/64' '08:00:2b:01:02:03' family
	( ) [ ] , ; . : ( ) ( ) , ,
`)

// FuzzParse checks that Parse never panics, on raw input and on soups of
// the tokens above, and that what it returns holds together.
func FuzzParse(f *testing.F) {
	f.Add("SELECT 1", []byte{0, 1, 2})
	for _, seed := range []string{
		`CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA public VERSION '1.1' CASCADE`,
		"DROP EXTENSION IF EXISTS pgcrypto, x CASCADE",
		"COMMENT ON EXTENSION pgcrypto IS 'x'",
		"CREATE TABLE nosuch.t (a int DEFAULT digest('x', 'sha256'))",
		"DROP TYPE IF EXISTS nosuch.e, \"a.b\".\"c\"\"d\"",
		"CREATE SCHEMA IF NOT EXISTS app AUTHORIZATION CURRENT_USER",
		"CREATE SCHEMA s CREATE TABLE t (a int) CREATE VIEW v AS SELECT a FROM t CREATE INDEX ON t (a)",
		"CREATE SCHEMA AUTHORIZATION bob",
		"CREATE OR REPLACE FUNCTION app.f(a int, INOUT b text DEFAULT 'x', VARIADIC c int[] = '{}') RETURNS SETOF record LANGUAGE sql STRICT STABLE AS $$ SELECT 1 $$",
		"CREATE FUNCTION f(x t.c%TYPE) RETURNS TABLE (a int, b text) BEGIN ATOMIC SELECT x, 'a'; SELECT CASE WHEN x > 0 THEN 1 END, 'b'; END",
		"CREATE PROCEDURE p(IN x int, OUT y int) LANGUAGE sql SET search_path = a, b AS 'SELECT 1'",
		"CREATE FUNCTION f(int) RETURNS int RETURN $1 + 1",
		"DROP FUNCTION IF EXISTS f(int, OUT text), app.g, h() CASCADE",
		"ALTER FUNCTION f(int) IMMUTABLE STRICT RESET ALL SET work_mem TO '1MB'",
		"CALL p(1, x => 2)",
		"DO LANGUAGE plpgsql $$ BEGIN NULL; END $$",
		"DROP SCHEMA IF EXISTS a, \"B c\" RESTRICT",
		"ALTER SCHEMA a RENAME TO b; ALTER SCHEMA b OWNER TO SESSION_USER; COMMENT ON SCHEMA b IS NULL",
		"CREATE VIEW app.v (x) AS SELECT 1",
		"CREATE TEMP TABLE t (a int) WITH (fillfactor = 70) ON COMMIT DELETE ROWS",
		"CREATE GLOBAL TEMPORARY TABLE IF NOT EXISTS pg_temp.t ON COMMIT DROP AS SELECT 1",
		"CREATE TEMPORARY SEQUENCE s START 1; CREATE OR REPLACE TEMP VIEW v AS SELECT 1; DISCARD TEMP",
		"CREATE TABLE t (c citext PRIMARY KEY, d public.citext[] DEFAULT '{}'::citext[])",
		"CREATE INDEX ON t USING gin (c gin_trgm_ops)",
		"CREATE INDEX i ON t USING gist (c gist_trgm_ops) WHERE c % 'x'",
		"SELECT a % b, a <-> b, a <% b, b %> a, a <<% b, a %>> b, a <<-> b, a <->> b, a <<<-> b, a <->>> b FROM t ORDER BY a <-> 'x' LIMIT 3",
		"CREATE TABLE h (a inet PRIMARY KEY, c cidr DEFAULT '10/8' CHECK (a <<= c), m macaddr UNIQUE, m8 macaddr8, x inet[])",
		"SELECT a << c, a <<= c, a >> c, a >>= $1, a && c, ~a, a & c, a | c, a + 1, a - c, text(a), abbrev(c) FROM h WHERE a <<= $2 ORDER BY a",
		"CREATE INDEX ON h (c inet_ops, m macaddr_ops, m8 macaddr8_ops)",
	} {
		f.Add(seed, []byte{})
	}
	f.Fuzz(func(t *testing.T, raw string, soup []byte) {
		check(t, raw)
		var b strings.Builder
		for i, c := range soup {
			if i > 0 && c&0x80 == 0 {
				b.WriteByte(' ')
			}
			b.WriteString(soupWords[int(c&0x7f)%len(soupWords)])
		}
		check(t, b.String())
	})
}

func check(t *testing.T, query string) {
	sameParse(t, query)
	stmts, err := Parse(query)
	if err != nil {
		var pe *pgerr.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%q: error %T is not a *pgerr.Error: %v", query, err, err)
		}
		if pe.Code == "" || pe.Code == pgerr.InternalError {
			t.Fatalf("%q: error without a proper SQLSTATE: %s %v", query, pe.Code, err)
		}
		if pe.Position < 0 || pe.Position > utf8.RuneCountInString(query)+1 {
			t.Fatalf("%q: position %d out of range", query, pe.Position)
		}
		return
	}
	for _, st := range stmts {
		checkStatement(t, query, st)
	}
}

func checkStatement(t *testing.T, query string, st *Statement) {
	if st.Pos < 0 || st.Pos+len(st.SQL) > len(query) || query[st.Pos:st.Pos+len(st.SQL)] != st.SQL {
		t.Fatalf("%q: statement %q is not at %d", query, st.SQL, st.Pos)
	}
	if (st.AST == nil) == (st.Cmd == nil) {
		t.Fatalf("%q: statement %q has AST %v and Cmd %v", query, st.SQL, st.AST, st.Cmd)
	}
	for _, n := range st.ParamOrder {
		if n < 0 || n >= st.NumParams {
			t.Fatalf("%q: ParamOrder %v out of range for %d parameters", query, st.ParamOrder, st.NumParams)
		}
	}
	var markers []*driver.ParamMarkerExpr
	if st.AST != nil {
		markers = markersOf(st.AST)
	}
	if st.OnConflict != nil {
		var set []ast.Node
		for _, a := range st.OnConflict.Set {
			set = append(set, a)
		}
		if st.OnConflict.Where != nil {
			set = append(set, st.OnConflict.Where)
		}
		markers = append(markers, markersOf(set...)...)
	}
	if st.Returning != nil {
		markers = append(markers, markersOf(st.Returning)...)
	}
	if len(markers) != len(st.ParamOrder) {
		t.Fatalf("%q: %d markers, ParamOrder %v", query, len(markers), st.ParamOrder)
	}
	for i, m := range markers {
		if m.Order != i {
			t.Fatalf("%q: marker %d has Order %d", query, i, m.Order)
		}
	}
	switch cmd := st.Cmd.(type) {
	case *Copy:
		if cmd.Query != nil {
			checkStatement(t, query, cmd.Query)
		}
	case *Declare:
		checkStatement(t, query, cmd.Query)
	}
}

// markersOf returns the parameter markers of the nodes of one TiDB parse,
// in text order.
func markersOf(nodes ...ast.Node) []*driver.ParamMarkerExpr {
	var v collector
	for _, n := range nodes {
		n.Accept(&v)
	}
	slices.SortFunc(v.markers, func(a, b *driver.ParamMarkerExpr) int { return a.Offset - b.Offset })
	return v.markers
}

// FuzzParsePL checks that ParsePL never panics on a PL/pgSQL body, and
// that a body it accepts parses the same again.
func FuzzParsePL(f *testing.F) {
	for _, seed := range []string{
		"BEGIN NULL; END",
		"DECLARE x int := 1; r record; c CONSTANT text NOT NULL DEFAULT 'a'; BEGIN x := x + 1; END",
		"<<l>> BEGIN FOR i IN 1..10 BY 2 LOOP EXIT l WHEN i > 3; CONTINUE; END LOOP; END l",
		"BEGIN FOR i IN REVERSE 10..1 LOOP NULL; END LOOP; WHILE true LOOP EXIT; END LOOP; END",
		"DECLARE r record; BEGIN FOR r IN SELECT * FROM t LOOP RETURN NEXT r; END LOOP; RETURN QUERY SELECT 1; END",
		"BEGIN IF a THEN NULL; ELSIF b THEN RAISE NOTICE '% %', 1, 2; ELSE RAISE; END IF; END",
		"BEGIN CASE x WHEN 1, 2 THEN NULL; ELSE NULL; END CASE; CASE WHEN x THEN NULL; END CASE; END",
		"BEGIN SELECT a INTO STRICT x FROM t; INSERT INTO t VALUES (1) RETURNING a INTO x; END",
		"BEGIN EXECUTE format('x %I', y) INTO z USING 1, 2; GET DIAGNOSTICS n = ROW_COUNT; END",
		"BEGIN PERFORM f(); EXCEPTION WHEN unique_violation OR SQLSTATE '22012' THEN GET STACKED DIAGNOSTICS m = MESSAGE_TEXT; WHEN others THEN NULL; END",
		"BEGIN RAISE EXCEPTION USING MESSAGE = 'x', ERRCODE = 'P0001', HINT = 'h'; RAISE division_by_zero; RAISE SQLSTATE '22012'; END",
		"DECLARE a ALIAS FOR $1; t tab%ROWTYPE; c tab.col%TYPE; BEGIN FOREACH x SLICE 1 IN ARRAY arr LOOP NULL; END LOOP; ASSERT x > 0, 'msg'; END",
		"BEGIN NEW.a := upper(NEW.b); RETURN NEW; END;",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		b, err := ParsePL(src, "f")
		if err != nil {
			if _, ok := err.(*pgerr.Error); !ok {
				t.Fatalf("ParsePL(%q) failed with %T, not a *pgerr.Error: %v", src, err, err)
			}
			return
		}
		again, err := ParsePL(src, "f")
		if err != nil || len(again.Body) != len(b.Body) {
			t.Fatalf("ParsePL(%q) parsed once, then %v", src, err)
		}
	})
}
