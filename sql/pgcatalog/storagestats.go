package pgcatalog

import (
	"github.com/cockroachdb/apd/v3"
	"time"

	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/sstable"
	"github.com/epochdb/epochdb/txn"
)

// The storage engine's statistics as views, where psql users look first:
//
//	epochdb_stat_files       each sstable: level, size, key range, entries, garbage, retirement
//	epochdb_stat_checkpoint  the flush cost, the log a crash would replay, the checkpoint interval
//	epochdb_stat_reclaim     who holds back cleanup: each pin with its session and what it holds
//	epochdb_stat_cache       the block cache: hits, misses, the bytes and blocks it holds
//	pg_stat_wal              the log writer's batches, fsyncs, bytes and time, in PostgreSQL's columns

func init() {
	for _, v := range []*virtTable{
		catalogTable(0, 0, "v", "epochdb_stat_files",
			"file_name text, level int4, size_bytes int8, live_bytes int8, garbage_bytes int8, entries int8, "+
				"tombstones int8, smallest_key bytea, largest_key bytea, min_commit_ts int8, max_commit_ts int8, "+
				"unresolved_txns int8[], state text, retired_epoch int8", statFilesRows),
		catalogTable(0, 0, "v", "epochdb_stat_checkpoint",
			"last_flush timestamptz, last_flush_cost interval, last_flush_bytes int8, flushes int8, "+
				"wal_bytes_to_replay int8, expected_replay interval, replay_bytes_per_sec float8, replay_speed_measured bool, "+
				"wal_bytes_per_sec float8, mtbf interval, recommended_interval interval, configured_interval interval, "+
				"interval_in_force interval, memtable_bytes int8, memtable_threshold int8, frozen_memtables int4, "+
				"write_stalls int8, write_stall_time interval, compactions int8, compaction_bytes_written int8", statCheckpointRows),
		catalogTable(OidPgCatalog, 0, "v", "pg_stat_wal",
			"wal_records int8, wal_fpi int8, wal_bytes numeric, wal_buffers_full int8, wal_write int8, wal_sync int8, "+
				"wal_write_time float8, wal_sync_time float8, stats_reset timestamptz", pgStatWALRows),
		catalogTable(0, 0, "v", "epochdb_stat_reclaim",
			"kind text, pid int4, backend_xid int8, pinned_epoch int8, pinned_since timestamptz, age interval, query text, "+
				"held_versions int8, held_version_bytes int8, held_files int8, held_file_bytes int8, "+
				"current_epoch int8, oldest_pinned_epoch int8, freed_versions int8, freed_version_bytes int8, "+
				"freed_files int8, freed_file_bytes int8", statReclaimRows),
		catalogTable(0, 0, "v", "epochdb_stat_cache",
			"hits int8, misses int8, hit_ratio float8, bytes int8, capacity_bytes int8, blocks int8", statCacheRows),
	} {
		virtualTables[v.name] = v
	}
}

func interval(d time.Duration) types.Interval { return types.Interval{Micros: d.Microseconds()} }

// statFilesRows lists the live files, then those awaiting deletion. The
// garbage is what the file's own newer versions shadow, scaled from the
// uncompressed bytes to the file's size; versions shadowed by other files
// show only when compaction meets them.
func statFilesRows(s Host) []row {
	var out []row
	for _, f := range s.Store().Files() {
		m := f.Meta
		garbage := int64(0)
		if m.RawBytes > 0 {
			garbage = int64(float64(m.Size) * float64(m.Shadowed) / float64(m.RawBytes))
		}
		unresolved := make([]any, len(m.Unresolved))
		for i, id := range m.Unresolved {
			unresolved[i] = int64(id)
		}
		r := row{
			"file_name": sstable.FileName(m.Num), "level": int64(f.Level), "size_bytes": m.Size,
			"live_bytes": m.Size - garbage, "garbage_bytes": garbage, "entries": int64(m.Entries),
			"tombstones": int64(m.Tombstones), "smallest_key": m.SmallestKey, "largest_key": m.LargestKey,
			"min_commit_ts": int64(m.MinTS), "max_commit_ts": int64(m.MaxTS), "unresolved_txns": unresolved,
			"state": "live", "retired_epoch": nil,
		}
		if f.Retired {
			r["state"], r["retired_epoch"] = "awaiting deletion", int64(f.RetiredEpoch)
		}
		out = append(out, r)
	}
	return out
}

func statCheckpointRows(s Host) []row {
	st := s.Store().Stats()
	c := st.Checkpoint
	var last any
	if !c.LastFlush.IsZero() {
		last = c.LastFlush
	}
	optional := func(d time.Duration) any {
		if d == 0 {
			return nil
		}
		return interval(d)
	}
	return []row{{
		"last_flush": last, "last_flush_cost": interval(c.LastFlushCost), "last_flush_bytes": c.LastFlushBytes,
		"flushes": c.Flushes, "wal_bytes_to_replay": c.LogBytesToReplay, "expected_replay": interval(c.ExpectedReplay),
		"replay_bytes_per_sec": c.ReplaySpeed, "replay_speed_measured": c.ReplayMeasured, "wal_bytes_per_sec": c.WriteRate,
		"mtbf": optional(c.MTBF), "recommended_interval": optional(c.Recommended), "configured_interval": optional(c.Configured),
		"interval_in_force": interval(c.InForce), "memtable_bytes": st.MemtableBytes, "memtable_threshold": c.MemtableThreshold,
		"frozen_memtables": int64(c.FrozenMemtables), "write_stalls": c.StallCount, "write_stall_time": interval(c.StallTime),
		"compactions": st.Compaction.Compactions, "compaction_bytes_written": st.Compaction.BytesWritten,
	}}
}

// pgStatWALRows is the log writer's activity since the store opened, in
// PostgreSQL's columns: wal_write counts the batches written (one per group
// commit, or more when large transactions stream), wal_sync the fsyncs,
// and wal_buffers_full the appends that waited for the writer to catch up.
// The times are in milliseconds and always kept (PostgreSQL keeps them only
// under track_wal_io_timing). The log counts no records, so wal_records is
// NULL; it never writes full-page images, so wal_fpi is 0.
func pgStatWALRows(s Host) []row {
	st := s.Store().Stats().WAL
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return []row{{"wal_records": nil, "wal_fpi": int64(0), "wal_bytes": apd.New(int64(st.Bytes), 0),
		"wal_buffers_full": int64(st.Stalls), "wal_write": int64(st.Writes), "wal_sync": int64(st.Syncs),
		"wal_write_time": ms(st.WriteTime), "wal_sync_time": ms(st.SyncTime), "stats_reset": nil}}
}

// Backend is a session as the views of the engine's activity show it:
// its process id, the statement it runs, its transaction's id, and the
// owner of its advisory locks.
type Backend struct {
	PID   int32
	Query string
	Txn   uint64
	Locks *txn.Owner
}

// statCacheRows is the block cache's one row. The counters run from the
// store's open; hit_ratio is NULL until the first read.
func statCacheRows(s Host) []row {
	c := s.Store().Stats().Cache
	var ratio any
	if n := c.Hits + c.Misses; n > 0 {
		ratio = float64(c.Hits) / float64(n)
	}
	return []row{{"hits": c.Hits, "misses": c.Misses, "hit_ratio": ratio,
		"bytes": c.Bytes, "capacity_bytes": c.Capacity, "blocks": c.Blocks}}
}

// statReclaimRows gives one row per pin, oldest first, named by the
// session whose transaction holds it, and a last row of totals.
func statReclaimRows(s Host) []row {
	st := s.Store().Reclaim().Stats()
	byTxn := make(map[uint64]Backend)
	for _, b := range s.Backends() {
		byTxn[b.Txn] = b
	}
	now := time.Now()
	var out []row
	for _, p := range st.Pins {
		r := row{"kind": "pin", "pid": nil, "backend_xid": nil, "query": nil,
			"pinned_epoch": int64(p.Epoch), "pinned_since": p.Since, "age": interval(now.Sub(p.Since)),
			"held_versions": p.HeldCount, "held_version_bytes": p.HeldBytes,
			"held_files": p.HeldFiles, "held_file_bytes": p.HeldFileBytes}
		if id := p.Txn; id != 0 {
			r["backend_xid"] = int64(id)
			if a, ok := byTxn[id]; ok {
				r["pid"], r["query"] = int64(a.PID), a.Query
			}
		}
		out = append(out, r)
	}
	total := row{"kind": "total", "pid": nil, "backend_xid": nil, "pinned_epoch": nil, "pinned_since": nil, "age": nil, "query": nil,
		"held_versions": st.RetiredCount, "held_version_bytes": st.RetiredBytes,
		"held_files": st.RetiredFiles, "held_file_bytes": st.RetiredFileBytes,
		"current_epoch": int64(st.Epoch), "oldest_pinned_epoch": int64(st.OldestPinned),
		"freed_versions": st.FreedCount, "freed_version_bytes": st.FreedBytes,
		"freed_files": st.FreedFiles, "freed_file_bytes": st.FreedFileBytes}
	if st.OldestPinned == 0 {
		total["oldest_pinned_epoch"] = nil
	}
	for _, r := range out {
		r["current_epoch"], r["oldest_pinned_epoch"] = total["current_epoch"], total["oldest_pinned_epoch"]
		r["freed_versions"], r["freed_version_bytes"], r["freed_files"], r["freed_file_bytes"] = nil, nil, nil, nil
	}
	return append(out, total)
}
