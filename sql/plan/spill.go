package plan

import (
	"github.com/epochdb/epochdb/sql/spill"
)

// Bounded memory above the engine.
//
// A statement's operators hold rows in memory only where their semantics
// need them held, and then only up to work_mem (a setting, 64MB unless
// SET): a sort, a hash table, rows to read again. Past that, the rows go
// to temporary files in the engine's TempDir, named epochdb-sort-*,
// epochdb-hash-* or epochdb-store-* after the operator that wrote them.
// Everything else streams: a scan feeds its consumer a batch at a time;
// UPDATE, DELETE, INSERT ... SELECT and ALTER TABLE's rewrites write each
// row as they read it, which is safe because a statement's reads never
// see its own writes (txn's statement numbers).
//
// What spills, and how:
//
//	ORDER BY, DISTINCT,      an external merge sort (extsort.go): rows are
//	DISTINCT ON, windows,    gathered until their estimated size passes
//	an aggregate's ORDER BY  work_mem, sorted (stably) and written as a
//	                         run; the runs are merged by a heap, a few at a
//	                         time if there are many. Ties go to the earlier
//	                         run, so the sort stays stable. ORDER BY with
//	                         LIMIT keeps only the rows it returns.
//	DISTINCT                 a hash set while it fits; then two sorts, by
//	                         key and input position, then by ORDER BY and
//	                         position, which is the hash set's answer.
//	GROUP BY                 hash aggregation keeps the groups it has; once
//	                         they fill work_mem, the rows of groups it has
//	                         not are written to partitions by a hash of
//	                         their keys, each aggregated after the input
//	                         ends, in turn, and partitioned again if it
//	                         still does not fit (hashspill.go).
//	hash joins               grace hash join: both sides partitioned by the
//	                         hash of the join keys, then each pair of
//	                         partitions joined in memory (hashjoin.go).
//	UNION, INTERSECT, EXCEPT the same partitioning, by the whole row.
//	rows read again          rowStore: rows in memory up to work_mem, then
//	                         in a file, read as often as needed: a join's
//	                         inner side without hash keys, a WITH query, a
//	                         recursive query's working table, the window
//	                         step's input, RETURNING and FETCH.
//
// The results of these operators are the in-memory ones: the same rows,
// in the same order, except that a spilled hash table gives its groups
// (and join and set operation rows) in another order, which only ORDER
// BY fixes.
//
// Rows go to the files in a self-describing encoding of the executor's
// datums, and memory is counted by an estimate of each row's Go heap size
// (spill.RowSize); package spill has the files and the encoding.
//
// Still held in memory whatever their size: a window partition's keys
// and arguments while its values are computed; an aggregate's DISTINCT
// set and an ordered-set aggregate's inputs; the hash sets of IN
// (subquery), of a recursive UNION and of ON CONFLICT's rows; a LATERAL
// item's rows for one outer row; the foreign key checks a statement
// queues for its end.
//
// A temporary file belongs to the statement that made it: to the
// execution's spill.Set. The operator that wrote it removes it when it is
// done with it; the statement's end removes whatever is left, whether it
// ended well, with an error or by a panic (the portal's Close, which
// every path reaches). Spills count in pg_stat_database's temp_files and
// temp_bytes, as in PostgreSQL. A write that fails for want of space is
// disk_full (53100).

// temps returns the temporary files of x's statement: those of its
// outermost execution.
func (x *ExecCtx) temps() *spill.Set {
	root := x
	for root.temp == nil && root.outer != nil {
		root = root.outer.x
	}
	if root.temp == nil {
		root.temp = x.Host.NewSpillSet()
	}
	return root.temp
}

// CloseTemps removes every temporary file of x's statement still there.
func (x *ExecCtx) CloseTemps() {
	if x != nil && x.temp != nil {
		x.temp.RemoveAll()
	}
}

// WorkMem is the statement's work_mem in bytes.
func (x *ExecCtx) WorkMem() int64 {
	return x.Host.WorkMem()
}

// NewTempFile makes a temporary file for x's statement; kind says which
// operator writes it (sort, hash, store).
func (x *ExecCtx) NewTempFile(kind string) (*spill.File, error) {
	return x.temps().New(kind)
}
