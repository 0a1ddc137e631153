// Package txn is the transaction layer: the Store that ties the write-ahead
// log, the memtables, the sstables and the reclaim manager together, and
// the Tx through which everything above reads and writes.
//
// # One flip decides
//
// Every transaction has one memtable.Status, and every version it writes
// points to it. While the transaction runs, its versions are provisional:
// readers skip them because the status says "in progress", and writers that
// meet them wait, because a provisional version is the row's write lock. The
// commit path, in order:
//
//  1. Tx.Commit reads the reclaim epoch and stamps it on its versions as their
//     birth epoch.
//  2. Inside wal.Writer.Commit's build hook, under the log's lock, it takes
//     the next commit timestamp and appends its buffered entries and its
//     commit record. Log order is therefore timestamp order.
//  3. The log's flusher writes the group and fsyncs it once.
//  4. The flusher runs the publish hook: status.Commit(ts) — the single
//     pointer move that makes every version of the transaction visible at once
//     — then advances the store's visible timestamp, then wakes the
//     transactions queued on its row locks.
//  5. Commit returns: the commit is acknowledged. Versions the commit made
//     obsolete are retired to reclaim.
//
// A snapshot is the visible timestamp when it was taken. A version is visible
// to a snapshot if its writer committed at or before it, or if the reader
// wrote it. Statuses flip in log order and the visible timestamp only moves
// after the flip, so a snapshot never sees a transaction appear or vanish.
//
// # Status table
//
// The status table maps an in-progress transaction's id to its state; lock
// waiters and the deadlock detector use it. Once a transaction ends, its
// versions in memory resolve through their Status pointer, which holds the
// outcome.
//
// Versions also outlive memory. A flush writes each version of a writer
// that has ended resolved, with its commit timestamp, and each version of
// a writer still in progress as it is: unresolved, naming the
// (sub)transaction and its statement number. pgbench -i loads twenty
// million rows in one transaction, which must not be held in memory until
// it commits. A reader of an unresolved version asks status.go's table,
// whose entry is the very Status the writer's commit flips, so the one flip
// still publishes every version at once, in memory and in files alike, and
// a flushed provisional version is still its row's write lock. The table
// keeps an entry while any live file holds an unresolved version of its
// transaction, and the entry's outcome is durable while it lives, as
// PostgreSQL's commit log is: the log holds the commit record until a
// manifest edit records the commit, and the manifest keeps it until
// compaction has rewritten every such version resolved and the last file
// holding one is deleted. A transaction with unresolved versions and no
// recorded commit never committed (after a crash, it was in progress).
//
// # Where versions live
//
// A key's versions are, newest first, in the mutable memtable, in the
// frozen memtables awaiting their flush, and in the files, L0 newest first
// and then each deeper level. A walker (versions.go) steps through them in
// that order, looking the key up in an older source only when the newer
// ones did not decide, and every decision above — a snapshot's read, a
// write's base, a row lock, ScanLatest, SERIALIZABLE's check — reads
// through it. Writers lock a key's row in the mutable memtable, holding
// memMu shared so that the swap of the mutable memtable (exclusive) cannot
// split two writers of one key across two rows.
//
// A flush (flush.go) cuts the log (wal.Writer.Rotate), then freezes the
// mutable memtable; writes its versions to a file; publishes the file, the
// log's new start and the pending commits in one manifest edit; swaps the
// frozen memtable for the file in the read state; and deletes the log
// before the cut. The log before the cut holds nothing the files lack,
// even a transaction still in progress: its versions pushed before the
// freeze are in the file, and its entries for later ones are after the
// cut. A memtable is frozen when it is full, or when the log since the last
// freeze passes MaxLogSize, or on the checkpoint interval (checkpoint.go),
// which follows the seed's C/I + I/(2·MTBF) with the redone work measured
// as replay time. Writers stall, never fail, while MaxFrozen memtables
// await their flush, while a freeze is late, or while L0 holds too many
// files: memory and the log a crash replays stay bounded.
//
// Compaction (compact.go) merges files down the levels and keeps of each
// key what a snapshot at or after the horizon — the oldest snapshot a
// pinned reader reads at, from reclaim's OldestTS — can see. The files it
// replaces are retired to reclaim (RetireFile): a reader pinned at or
// before the retirement may hold the old file set and is reading it, so a
// file is closed and deleted only once every such reader has unpinned.
// Until then epochdb_stat_reclaim charges its bytes to the oldest pin that
// holds it.
//
// # Isolation
//
// READ COMMITTED takes a new snapshot per statement (NextStatement). A write
// that meets a provisional version waits for its writer to end, then reads
// the newest committed version and hands it to the caller's Mutate callback,
// which re-checks its WHERE clause on it, as PostgreSQL's EvalPlanQual does.
// REPEATABLE READ keeps one snapshot for the whole transaction; a write to a
// row whose newest committed version is newer than the snapshot fails with
// ErrSerialization (40001).
//
// Versions carry the number of the statement that wrote them, like
// PostgreSQL's command ids: a statement reads its transaction's earlier
// statements' writes, never its own. A statement made of parts that write
// on their own (data-modifying WITH queries beside the main statement)
// gives each part a number of its own (StatementPart) while all of them
// read as the statement does; MutateOnce and LockRow then tell a row that
// another part wrote, which the caller leaves alone.
//
// A transaction is used by one goroutine, with one exception: ScanChunks
// (chunks.go) scans a range in chunks on several goroutines at once. The
// scan itself changes nothing in the transaction; the read a
// SERIALIZABLE one records is noted once, on the caller's goroutine,
// after every worker has stopped.
//
// SERIALIZABLE is REPEATABLE READ that also records the key ranges it
// reads through its snapshot: a point read its key, a scan the range up to
// where it stopped. A serializable transaction that wrote commits under a
// store-wide mutex, after checking that no other transaction committed a
// version into any of those ranges since its snapshot; if one did, it
// fails with ErrSerializationRW (40001) and rolls back. Each such
// transaction is then as if it ran alone at its commit, and one that only
// read as if it ran alone at its snapshot, which sees a prefix of that
// commit order: together they are serializable. This is optimistic
// validation, not PostgreSQL's SSI: it fails only at COMMIT, it may fail a
// transaction SSI would let through (a read of a key that changed to the
// same value, or a change by a READ COMMITTED writer), and serializable
// writers' commits do not share an fsync.
//
// Lock waits form a waits-for graph (waits.go). A transaction about to
// wait first follows the graph from itself; if a path returns to it, it
// fails with ErrDeadlock (40P01) instead of waiting. The graph is changed
// under one mutex, so of two transactions closing a cycle exactly one sees
// it.
//
// # Advisory locks
//
// PostgreSQL's advisory locks (advisory.go) are locks on keys that only the
// application gives a meaning, in a lock table of their own: for each key,
// what each Owner (a client session) holds of it, counted by mode and by
// level, and a queue of the requests waiting for it, granted in order as
// PostgreSQL's are. A session-level grant belongs to the owner and lasts
// until it unlocks or closes, whatever its transactions do; a
// transaction-level grant belongs to the transaction and goes when it
// ends, or with a rollback to a savepoint taken before it. Their waits are
// in the same graph as row and table locks, whose nodes are transactions:
// an edge to a session that holds a lock leads to the transaction it runs
// now, the only one through which it can wait. So one cycle may run
// through row locks, table locks and advisory locks alike.
//
// # Recovery
//
// Open reads the manifest (the files that count, the log's start, the
// recorded commits), opens its files and deletes what no edit published:
// files of a flush or compaction the crash cut short. It then scans the log
// from the manifest's start twice. The first pass finds the commit records
// — the only thing that decides — and where the log ends, and truncates a
// torn tail; the commits found resolve, with the manifest's, the
// unresolved versions in the files. The second pass installs the entries
// of committed transactions in log order, keeping for each key the version
// with the newest commit timestamp, and ignores every other entry, though
// it is physically present. A version both in a file and in the log after
// the cut (a transaction still running at the flush) is the same version
// twice, and the newer copy wins. New transaction ids, sequence numbers and
// timestamps continue above everything the manifest and the log hold, so an
// old uncommitted entry can never be adopted by a new transaction that
// reuses its id. Open logs its progress at least every two seconds.
//
// # Reclamation
//
// A version superseded by a committed newer one is retired with the span
// [its birth epoch, the epoch after the supersede]; a version of an aborted
// transaction with the span of the abort. Readers pin an epoch before taking
// their snapshot and seal the pin after it. reclaim frees a version (unlinks
// it from its chain) only once no pinned reader's span overlaps its own, so
// no reader ever finds a version it can see missing.
package txn
