package sql

import (
	"testing"

	"github.com/epochdb/epochdb/sql/types"
)

// Statistics and enum oids are kept in descriptors, and survive a crash
// exactly as committed: the ANALYZE of a transaction that had not
// committed is not there, the committed one is; an enum type whose oid
// ClaimEnumOid moved off its descriptor id keeps that oid, which its
// columns' types name.
func TestStatisticsAndEnumOidsSurviveCrash(t *testing.T) {
	// Hold the oids from the base up, so that the test's type cannot
	// have the oid its descriptor id gives.
	for range 512 {
		types.ClaimEnumOid(types.EnumOidBase)
	}
	crashScenario(t, 7, []string{
		`CREATE TYPE mood AS ENUM ('glad', 'sad')`,
		`CREATE TABLE st (id int PRIMARY KEY, g int, m mood)`,
		`INSERT INTO st SELECT i, i % 4, 'sad' FROM generate_series(1, 100) i`,
		`ANALYZE st`,
	}, []string{`BEGIN`, `INSERT INTO st SELECT i, i % 9, 'glad' FROM generate_series(101, 1000) i`, `ANALYZE st`}, []crashCheck{
		{`SELECT reltuples::text FROM pg_class WHERE relname = 'st'`, "100"},
		{`SELECT n_distinct::text || ' ' || most_common_vals::text FROM pg_stats WHERE tablename = 'st' AND attname = 'g'`, "4 {0,1,2,3}"},
		{`SELECT (oid >= 1073741824 + 512)::text FROM pg_type WHERE typname = 'mood'`, "true"},
		{`SELECT (atttypid = 'mood'::regtype)::text FROM pg_attribute WHERE attrelid = 'st'::regclass AND attname = 'm'`, "true"},
		{`SELECT count(*)::text FROM st WHERE m = 'sad'`, "100"},
	})
}
