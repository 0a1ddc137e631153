// The sqlx program, on pgx's database/sql driver: its schema by plain DDL
// (sqlx has no migrations), named statements and batch inserts, Get and
// Select into structs (joined rows into nested ones), In and Rebind,
// prepared statements, a rollback, a unique violation as the driver's
// *pgconn.PgError, and the result columns' types. See
// internal/clienttest/orm_py_go_test.go.
package main

import (
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/epochdb/epochdb/testdata/clients/go/internal/check"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
)

const schema = `
CREATE TABLE teams (
	id serial PRIMARY KEY,
	name text NOT NULL UNIQUE,
	founded date
);
CREATE TABLE players (
	id bigserial PRIMARY KEY,
	team_id int REFERENCES teams (id) ON DELETE SET NULL,
	name varchar(50) NOT NULL,
	number smallint NOT NULL CHECK (number BETWEEN 1 AND 99),
	rating numeric(4, 1),
	joined timestamptz NOT NULL DEFAULT now(),
	UNIQUE (team_id, number)
);`

type Team struct {
	ID      int          `db:"id"`
	Name    string       `db:"name"`
	Founded sql.NullTime `db:"founded"`
}

type Player struct {
	ID     int64           `db:"id"`
	TeamID sql.NullInt64   `db:"team_id"`
	Name   string          `db:"name"`
	Number int16           `db:"number"`
	Rating sql.NullFloat64 `db:"rating"`
	Joined time.Time       `db:"joined"`
}

// A roster row is a player joined to the team, which sqlx scans into the
// nested struct by the column names team.id and team.name.
type roster struct {
	Name   string `db:"name"`
	Number int16  `db:"number"`
	Team   struct {
		ID   int    `db:"id"`
		Name string `db:"name"`
	} `db:"team"`
}

func main() {
	// An empty DSN: pgx reads PGHOST, PGPORT, ... itself.
	db, err := sqlx.Connect("pgx", "")
	if err != nil {
		check.Step("connect", func(t *check.T) { t.NoErr(err, "sqlx.Connect") })
		check.Finish()
	}
	defer db.Close()

	check.Step("schema", func(t *check.T) {
		db.MustExec(schema)
		var n int
		t.NoErr(db.Get(&n, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"), "Get")
		t.Eq(n, 2, "tables")
	})

	check.Step("named inserts", func(t *check.T) {
		teams := []Team{
			{Name: "Otters", Founded: sql.NullTime{Time: time.Date(1990, 5, 1, 0, 0, 0, 0, time.UTC), Valid: true}},
			{Name: "Herons"},
			{Name: "Voles", Founded: sql.NullTime{Time: time.Date(2005, 9, 30, 0, 0, 0, 0, time.UTC), Valid: true}},
		}
		// A slice is one INSERT with a VALUES row per element.
		res, err := db.NamedExec("INSERT INTO teams (name, founded) VALUES (:name, :founded)", teams)
		t.NoErr(err, "batch NamedExec")
		n, _ := res.RowsAffected()
		t.Eq(n, int64(3), "rows inserted")
		ids := map[string]int{}
		rows, err := db.Queryx("SELECT id, name FROM teams")
		t.NoErr(err, "Queryx")
		for rows.Next() {
			var tm Team
			t.NoErr(rows.StructScan(&tm), "StructScan")
			ids[tm.Name] = tm.ID
		}
		t.NoErr(rows.Err(), "rows")
		players := []map[string]any{
			{"team": ids["Otters"], "name": "Ana", "number": 7, "rating": 8.5},
			{"team": ids["Otters"], "name": "Bo", "number": 10, "rating": 6.0},
			{"team": ids["Otters"], "name": "Cy", "number": 23, "rating": nil},
			{"team": ids["Herons"], "name": "Di", "number": 7, "rating": 9.1},
			{"team": ids["Herons"], "name": "Ed", "number": 99, "rating": 7.3},
			{"team": nil, "name": "Fay", "number": 1, "rating": 5.0},
		}
		stmt, err := db.PrepareNamed("INSERT INTO players (team_id, name, number, rating) VALUES (:team, :name, :number, :rating) RETURNING id")
		t.NoErr(err, "PrepareNamed")
		defer stmt.Close()
		var last int64
		for _, p := range players {
			var id int64
			t.NoErr(stmt.Get(&id, p), "prepared named insert")
			if id <= last {
				t.Fatalf("id %d after %d", id, last)
			}
			last = id
		}
	})

	check.Step("Get and Select", func(t *check.T) {
		var p Player
		t.NoErr(db.Get(&p, "SELECT * FROM players WHERE name = $1", "Ana"), "Get")
		t.Eq([]any{p.Number, p.Rating, p.TeamID.Valid}, []any{int16(7), sql.NullFloat64{Float64: 8.5, Valid: true}, true}, "Ana")
		if d := time.Since(p.Joined); d < -time.Minute || d > 5*time.Minute {
			t.Fatalf("joined default now() read back as %v", p.Joined)
		}
		var players []Player
		t.NoErr(db.Select(&players, "SELECT * FROM players WHERE rating IS NULL OR team_id IS NULL ORDER BY name"), "Select")
		t.Eq(len(players), 2, "players without a rating or a team")
		t.Eq([]string{players[0].Name, players[1].Name}, []string{"Cy", "Fay"}, "names")
		err := db.Get(&p, "SELECT * FROM players WHERE name = $1", "nobody")
		t.Eq(errors.Is(err, sql.ErrNoRows), true, "Get of no row is sql.ErrNoRows")
		var names []string
		t.NoErr(db.Select(&names, "SELECT name FROM players WHERE number = $1 ORDER BY name", 7), "Select into strings")
		t.Eq(names, []string{"Ana", "Di"}, "number 7")
	})

	check.Step("In, Rebind and named queries", func(t *check.T) {
		q, args, err := sqlx.In("SELECT name FROM players WHERE number IN (?) AND rating > ? ORDER BY name", []int{7, 10, 99}, 6.5)
		t.NoErr(err, "In")
		var names []string
		t.NoErr(db.Select(&names, db.Rebind(q), args...), "Select")
		t.Eq(names, []string{"Ana", "Di", "Ed"}, "IN expanded")
		rows, err := db.NamedQuery("SELECT name FROM players WHERE rating >= :min AND name <> :skip ORDER BY rating DESC",
			map[string]any{"min": 7, "skip": "Di"})
		t.NoErr(err, "NamedQuery")
		names = nil
		for rows.Next() {
			var n string
			t.NoErr(rows.Scan(&n), "Scan")
			names = append(names, n)
		}
		t.Eq(names, []string{"Ana", "Ed"}, "named query")
	})

	check.Step("joins, grouping and pages", func(t *check.T) {
		var rs []roster
		t.NoErr(db.Select(&rs, `SELECT p.name, p.number, t.id AS "team.id", t.name AS "team.name"
			FROM players p JOIN teams t ON t.id = p.team_id ORDER BY t.name, p.number`), "join into nested structs")
		var got []string
		for _, r := range rs {
			got = append(got, r.Team.Name+"/"+r.Name)
		}
		t.Eq(got, []string{"Herons/Di", "Herons/Ed", "Otters/Ana", "Otters/Bo", "Otters/Cy"}, "roster")
		type count struct {
			Team    string          `db:"team"`
			Players int             `db:"players"`
			Avg     sql.NullFloat64 `db:"avg"`
		}
		var counts []count
		t.NoErr(db.Select(&counts, `SELECT t.name AS team, count(p.id) AS players, round(avg(p.rating), 2)::float8 AS avg
			FROM teams t LEFT JOIN players p ON p.team_id = t.id GROUP BY t.name ORDER BY players DESC, team`), "group by")
		t.Eq(counts, []count{{"Otters", 3, sql.NullFloat64{Float64: 7.25, Valid: true}}, {"Herons", 2, sql.NullFloat64{Float64: 8.2, Valid: true}},
			{"Voles", 0, sql.NullFloat64{}}}, "players per team")
		var pages [][]string
		for off := 0; off < 8; off += 3 {
			var page []string
			t.NoErr(db.Select(&page, "SELECT name FROM players ORDER BY rating DESC NULLS LAST, name LIMIT $1 OFFSET $2", 3, off), "page")
			pages = append(pages, page)
		}
		t.Eq(pages, [][]string{{"Di", "Ana", "Ed"}, {"Bo", "Fay", "Cy"}, nil}, "pages of three")
	})

	check.Step("rollback", func(t *check.T) {
		tx, err := db.Beginx()
		t.NoErr(err, "Beginx")
		tx.MustExec("UPDATE players SET rating = rating + 1 WHERE team_id IS NOT NULL")
		tx.MustExec("DELETE FROM teams WHERE name = 'Voles'")
		var n int
		t.NoErr(tx.Get(&n, "SELECT count(*) FROM teams"), "in the transaction")
		t.Eq(n, 2, "teams in the transaction")
		t.NoErr(tx.Rollback(), "Rollback")
		var r float64
		t.NoErr(db.Get(&n, "SELECT count(*) FROM teams"), "after")
		t.NoErr(db.Get(&r, "SELECT rating FROM players WHERE name = 'Ana'"), "after")
		t.Eq([]any{n, r}, []any{3, 8.5}, "teams and Ana's rating after rollback")
	})

	check.Step("unique violation", func(t *check.T) {
		_, err := db.Exec("INSERT INTO players (team_id, name, number) SELECT id, 'Gil', 7 FROM teams WHERE name = 'Otters'")
		pg := check.PgError(err)
		if pg == nil {
			t.Fatalf("duplicate (team_id, number): %v, want a *pgconn.PgError", err)
		}
		t.Eq([]string{pg.Code, pg.ConstraintName, pg.TableName}, []string{"23505", "players_team_id_number_key", "players"}, "the error")
		tx, err := db.Beginx()
		t.NoErr(err, "Beginx")
		_, err = tx.Exec("INSERT INTO teams (name) VALUES ('Otters')")
		t.Eq(check.SQLState(err), "23505", "duplicate team in a transaction")
		_, err = tx.Exec("SELECT 1")
		t.Eq(check.SQLState(err), "25P02", "the failed transaction")
		t.NoErr(tx.Rollback(), "Rollback")
		_, err = db.Exec("UPDATE players SET number = 100 WHERE name = 'Ana'")
		t.Eq(check.SQLState(err), "23514", "check violation")
	})

	check.Step("column types", func(t *check.T) {
		rows, err := db.Queryx("SELECT * FROM players LIMIT 0")
		t.NoErr(err, "Queryx")
		defer rows.Close()
		cols, err := rows.ColumnTypes()
		t.NoErr(err, "ColumnTypes")
		var got []string
		for _, c := range cols {
			s := c.Name() + " " + c.DatabaseTypeName()
			if p, sc, ok := c.DecimalSize(); ok {
				s += " " + itoa(p) + "," + itoa(sc)
			}
			if n, ok := c.Length(); ok {
				s += " len " + itoa(n)
			}
			got = append(got, s)
		}
		t.Eq(got, []string{"id INT8", "team_id INT4", "name VARCHAR len 50", "number INT2", "rating NUMERIC 4,1", "joined TIMESTAMPTZ"}, "columns")
		m := map[string]any{}
		row := db.QueryRowx("SELECT name, number FROM players WHERE name = 'Bo'")
		t.NoErr(row.MapScan(m), "MapScan")
		t.Eq(m, map[string]any{"name": "Bo", "number": int64(10)}, "MapScan")
	})

	check.Step("drop", func(t *check.T) {
		db.MustExec("DROP TABLE players, teams")
		var n int
		t.NoErr(db.Get(&n, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "Get")
		t.Eq(n, 0, "tables left")
	})
	check.Finish()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
