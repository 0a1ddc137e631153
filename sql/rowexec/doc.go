// Package rowexec holds the executor's row operators that run without
// expressions: the RowIter interface every operator implements, the
// external sort (Sorter, with its bounded top-N and its merge of spilled
// runs), the row store that spills past work_mem (RowStore, read by
// cursors), the hash partitions that grouping, hash joins and the set
// operations spill to (Partitions), and the stable sort that notices
// cancellation.
//
// An operator runs in a Run: the statement's cancellation, its work_mem,
// and its temporary files, which sql/plan's execution (ExecCtx) provides. Past
// work_mem an operator writes its rows to a temporary file through
// sql/spill, and the statement's end removes whatever is left. A sort
// that spills keeps equal rows in their input order, as the in-memory
// sort does: runs are merged with ties going to the earlier run.
//
// The operators that evaluate expressions (filters, projections, joins,
// aggregation, windows) are sql/plan's, with the expressions they
// evaluate (its doc tells why). The package depends on sql/spill and
// sql/types only.
package rowexec
