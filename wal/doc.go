// Package wal is epochdb's write-ahead log: the one place where a
// transaction's fate is decided.
//
// # The idea
//
// A transaction's entries are written to the log eagerly, long before anyone
// knows whether they will count. They count only if a commit record for the
// transaction follows them and is durable. Recovery, readers and tools all ask
// the same question of the log — "is there a durable commit record for this
// txn?" — and nothing else. Uncommitted entries are physically present, and
// they stay invisible only because every reader consults the commit record.
// `epochdb wal dump` shows exactly that.
//
// # Segments and framing
//
// The log is a sequence of segment files named by a zero-padded number
// (000000000001.wal, 000000000002.wal, ...). A segment is a sequence of
// batches, one per flusher write, each a 16-byte header (batch.go) followed
// by whole records; no record spans two batches or segments. Each record is
// framed as
//
//	 0         4         8    9
//	+---------+---------+----+---------------------+
//	| CRC-32C | length  |kind|  payload (length B) |
//	+---------+---------+----+---------------------+
//
// little-endian, where the CRC-32C (Castagnoli) covers length, kind and
// payload. Payloads use uvarints:
//
//	entry      txn | flags (bit 0: tombstone) | len(key) | key | value
//	commit     txn | commit ts | n | n subtransaction ids
//	abort      txn
//	checkpoint next txn id | last commit ts
//
// # Group commit
//
// One goroutine, the flusher, owns the segment file. Committers append their
// framed records to a shared buffer under Writer.mu, in the order in which
// their commit timestamps are assigned, and then wait. The flusher takes the
// whole buffer, writes it with one Write, makes it durable with one Sync, and
// only then runs each commit's publish hook in log order and wakes the
// committers. Every commit waiting at that moment shares the one write and the
// one fsync; committers that arrive while the fsync is in flight form the next
// group. This is Pebble's LogWriter pattern. The rejected alternative is one
// fsync per committer (Badger's per-request sync): it serialises committers
// behind the disk and does not scale.
//
// The commit path, end to end:
//
//  1. Writer.Commit: under mu, the caller's build hook appends its entries and
//     the commit record to the pending buffer (so log order = timestamp order).
//  2. The flusher writes the pending buffer and calls Sync once.
//  3. The flusher calls each publish hook in log order: this is where txn
//     flips the transaction's status to committed(ts), the single pointer move
//     that makes all its versions visible at once.
//  4. The committer wakes and acknowledges the commit.
//
// # Fail-stop
//
// A failed write or fsync leaves the file in an unknown state: Linux may have
// dropped the dirty pages and cleared the error, so a retried fsync could
// "succeed" without the data. The writer therefore never retries. It is
// poisoned: the failed group and every later Commit or Append return an error
// marked ErrPoisoned, no publish hook of the failed group runs, and nothing
// written after the last good sync is ever reported durable.
//
// # Recovery: torn tail versus corruption
//
// Scan reads every segment in order. Records are only acknowledged after the
// fsync that covers them, and a segment is synced in full before the next one
// is created, so the only place a crash can leave damage is the unsynced
// tail of the newest segment. A batch is checked whole before any of its
// records reaches the caller, and Scan classifies a bad batch (short, zeroed,
// bad length or checksum, in its header or any record) by where it sits:
//
//   - in the newest segment, with no later valid batch header whose synced
//     field lies beyond it: a torn tail, the normal result of a crash, even if
//     the disk wrote some later pages of the unsynced tail before earlier
//     ones. TruncateTorn cuts the log at the bad batch's start.
//   - anywhere else: corruption. Scan stops with a *CorruptionError that names
//     the segment and offset. It never skips the batch, because skipping could
//     silently drop an acknowledged commit or resurrect half a transaction.
//
// Batch headers are salted with their position, so bytes inside a value
// that look like a header never count as evidence. A bit flip in the last
// batch of the newest segment is indistinguishable from a torn write; like
// PostgreSQL, the log treats it as the end of the log.
package wal
