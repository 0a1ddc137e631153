package pgcatalog

import "github.com/epochdb/epochdb/txn"

// pg_locks shows the advisory locks, granted and awaited, as PostgreSQL
// does. epochdb keeps its row and table locks elsewhere (in the versions
// and in the session's table locks), so they are not listed, and it has
// no virtual transaction ids. transactionid is an oid, as the catalogs'
// other xid columns are.
func init() {
	v := catalogTable(OidPgCatalog, 12073, "v", "pg_locks", `locktype text, database oid, relation oid,
		page int4, tuple int2, virtualxid text, transactionid oid, classid oid, objid oid, objsubid int2,
		virtualtransaction text, pid int4, mode text, granted bool, fastpath bool, waitstart timestamptz`, pgLocksRows)
	virtualTables[v.name] = v
	virtualByOID[v.oid] = v
}

// pgLocksRows encodes each advisory lock's key as PostgreSQL's lock tag
// does: classid and objid are the key's high and low 32 bits (a bigint's,
// or the two int4 keys), and objsubid says which of the two it was.
func pgLocksRows(s Host) []row {
	pids := make(map[*txn.Owner]int32)
	for _, b := range s.Backends() {
		pids[b.Locks] = b.PID
	}
	var out []row
	for _, l := range s.Store().AdvisoryLocks() {
		r := row{"locktype": "advisory", "database": oidDatabase, "relation": nil, "page": nil, "tuple": nil,
			"virtualxid": nil, "transactionid": nil, "classid": uint32(l.Key.Key >> 32), "objid": uint32(l.Key.Key),
			"objsubid": int64(l.Key.Space), "virtualtransaction": nil, "pid": nil, "mode": l.Mode.String(),
			"granted": l.Granted, "fastpath": false, "waitstart": nil}
		if pid, ok := pids[l.Owner]; ok {
			r["pid"] = int64(pid)
		}
		if !l.Granted {
			r["waitstart"] = l.WaitStart
		}
		out = append(out, r)
	}
	return out
}
