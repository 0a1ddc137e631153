package clienttest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPgxArrays: pgx sends a Go slice as an array parameter. In WHERE id =
// ANY($1) the server must describe $1 as an array of id's type (int4[]), or
// pgx cannot encode the slice; in the Exec and simple protocol modes pgx
// chooses the type itself. Arrays come back as slices, and LoadType finds
// an array type's element through the catalogs.
func TestPgxArrays(t *testing.T) {
	t.Parallel()
	for _, mode := range pgxModes {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			conn := connectPgx(t, startTarget(t), mode)
			ctx := t.Context()
			mustExec(t, conn, "CREATE TABLE arr (id int4 PRIMARY KEY, big int8, name text, tags text[])")
			for i := int32(1); i <= 5; i++ {
				mustExec(t, conn, "INSERT INTO arr VALUES ($1, $2, $3, $4)",
					i, int64(i)*1e10, fmt.Sprintf("n%d", i), []string{"t", fmt.Sprint(i)})
			}
			for _, c := range []struct {
				sql  string
				arg  any
				want []int32
			}{
				{"SELECT id FROM arr WHERE id = ANY($1) ORDER BY id", []int32{4, 2, 9}, []int32{2, 4}},
				{"SELECT id FROM arr WHERE id = ANY($1) ORDER BY id", []int64{1, 5}, []int32{1, 5}},
				{"SELECT id FROM arr WHERE id <> ALL($1) ORDER BY id", []int32{1, 2, 3}, []int32{4, 5}},
				{"SELECT id FROM arr WHERE big = ANY($1) ORDER BY id", []int64{3e10}, []int32{3}},
				{"SELECT id FROM arr WHERE name = ANY($1) ORDER BY id", []string{"n3", "x"}, []int32{3}},
				{"SELECT id FROM arr WHERE id = ANY($1) ORDER BY id", []int32{}, nil},
				{"SELECT id FROM arr WHERE id = ANY($1) ORDER BY id", []int32(nil), nil},
				{"SELECT id FROM arr WHERE $1 = ANY(tags) ORDER BY id", "4", []int32{4}},
			} {
				if got := queryIDs(t, conn, c.sql, c.arg); !slices.Equal(got, c.want) {
					t.Errorf("%s with %#v: ids %v, want %v", c.sql, c.arg, got, c.want)
				}
			}

			var tags []string
			var built []int32
			var n int32
			err := conn.QueryRow(ctx, "SELECT tags, ARRAY[id, id * 10], array_length(tags, 1) FROM arr WHERE id = $1", int32(2)).
				Scan(&tags, &built, &n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tags, []string{"t", "2"}) || !slices.Equal(built, []int32{2, 20}) || n != 2 {
				t.Errorf("read tags %q, ARRAY[...] %v, array_length %d", tags, built, n)
			}

			// LoadType resolves the name with ::regtype, then reads the
			// element type from pg_type.
			typ, err := conn.LoadType(ctx, "_int4")
			if err != nil {
				t.Fatalf("LoadType(_int4): %v", err)
			}
			if typ.OID != 1007 {
				t.Errorf("LoadType(_int4): oid %d, want 1007", typ.OID)
			}
		})
	}
}

// TestPsqlDescribe runs psql's \dt, \d, \dx and \dT, whose queries read
// pg_class, pg_attribute, pg_index, pg_constraint, pg_attrdef, pg_type and
// pg_extension through joins, subqueries, regclass casts and format_type.
func TestPsqlDescribe(t *testing.T) {
	t.Parallel()
	psql := lookPath(t, "psql")
	tg := startTarget(t)
	dir := filepath.Join(clientsDir, "psql")
	run := func(args ...string) string {
		t.Helper()
		out, code := runProgram(t, tg, dir, psql, append([]string{"-X", "-v", "ON_ERROR_STOP=1"}, args...)...)
		if code != 0 {
			t.Fatalf("psql %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	run("-c", "CREATE TABLE orders (id serial PRIMARY KEY, customer text NOT NULL DEFAULT 'anon', "+
		"total numeric(10,2), code varchar(8) UNIQUE)")

	out := run("-c", `\dt`)
	if !strings.Contains(out, "public | orders | table") {
		t.Errorf(`\dt does not list orders:`+"\n%s", out)
	}
	// Compare psql's tables cell by cell, without its padding.
	cellsOf := func(command string) []string {
		var cells []string
		for line := range strings.Lines(run("-c", command)) {
			fields := strings.Split(line, "|")
			for i := range fields {
				fields[i] = strings.TrimSpace(fields[i])
			}
			cells = append(cells, strings.Join(fields, "|"))
		}
		return cells
	}
	// An extension's type, citext, shows as psql shows it in PostgreSQL.
	run("-c", "CREATE EXTENSION citext", "-c", "CREATE TABLE handles (h citext PRIMARY KEY, past citext[] DEFAULT '{}')")
	for command, wants := range map[string][]string{
		`\d orders`: {
			`Table "public.orders"`,
			"id|integer||not null|nextval('orders_id_seq'::regclass)",
			"customer|text||not null|'anon'::text",
			"total|numeric(10,2)|||",
			"code|character varying(8)|||",
			`"orders_pkey" PRIMARY KEY, btree (id)`,
			`"orders_code_key" UNIQUE CONSTRAINT, btree (code)`,
		},
		`\d handles`: {"h|citext||not null|", "past|citext[]|||'{}'::citext[]", `"handles_pkey" PRIMARY KEY, btree (h)`},
		`\dx`:        {"citext|1.6|public|data type for case-insensitive character strings"},
		`\dT citext`: {"public|citext|"},
	} {
		cells := cellsOf(command)
		for _, want := range wants {
			if !slices.Contains(cells, want) {
				t.Errorf(`%s does not show %q:`+"\n%s", command, want, strings.Join(cells, "\n"))
			}
		}
	}
}
