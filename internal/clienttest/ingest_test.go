package clienttest

import (
	"strings"
	"testing"
)

// Ingest tables from node-postgres: testdata/clients/node/ingest.js.
func TestIngestNodePostgres(t *testing.T) {
	if *againstPG {
		t.Skip("ingest tables are epochdb's own")
	}
	runNode(t, "ingest.js", "pg")
}

// Ingest tables from psql: duplicates reported as a NOTICE and left out of
// the command tag, a gap reported with its SQLSTATE.
func TestIngestPsql(t *testing.T) {
	psql := lookPath(t, "psql")
	if *againstPG {
		t.Skip("ingest tables are epochdb's own")
	}
	tg := startTarget(t)
	out, code := runProgram(t, tg, ".", psql, "-X", "-v", "VERBOSITY=verbose",
		"-c", `CREATE TABLE events (producer text NOT NULL, seq bigint NOT NULL, payload text)
			WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_window = 8)`,
		"-c", `SELECT * FROM epochdb_producer_begin('events', 'psql-1', resume_after => 10)`,
		"-c", `INSERT INTO events VALUES ('psql-1', 11, 'a'), ('psql-1', 12, 'b'), ('psql-1', 11, 'a again'), ('psql-1', 3, 'old')`,
		"-c", `INSERT INTO events VALUES ('psql-1', 30, 'far')`,
	)
	for _, want := range []string{
		"high_water", "10", // producer_begin's row
		"INSERT 0 2",               // two new rows, two duplicates
		"2 duplicate rows skipped", // the NOTICE
		"55Q02", "missing 13-29",   // the gap
	} {
		if !strings.Contains(out, want) {
			t.Errorf("psql output lacks %q", want)
		}
	}
	if code != 1 {
		t.Errorf("psql exited %d, want 1: its last command failed", code)
	}
}
