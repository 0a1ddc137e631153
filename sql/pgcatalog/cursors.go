package pgcatalog

import "time"

// pg_cursors lists the session's SQL cursors, held ones too, as
// PostgreSQL's does; the portals of the extended protocol are not SQL
// cursors and are not listed.
func init() {
	v := catalogTable(OidPgCatalog, 12077, "v", "pg_cursors", `name text, statement text, is_holdable bool,
		is_binary bool, is_scrollable bool, creation_time timestamptz`, pgCursorsRows)
	virtualTables[v.name] = v
	virtualByOID[v.oid] = v
}

// CursorView is a cursor as pg_cursors shows it: Statement is the text
// of the query message that declared it.
type CursorView struct {
	Name, Statement              string
	Holdable, Binary, Scrollable bool
	Created                      time.Time
}

func pgCursorsRows(s Host) []row {
	var out []row
	for _, c := range s.Cursors() {
		out = append(out, row{"name": c.Name, "statement": c.Statement, "is_holdable": c.Holdable,
			"is_binary": c.Binary, "is_scrollable": c.Scrollable, "creation_time": c.Created})
	}
	return out
}
