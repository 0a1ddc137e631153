// Package reclaim decides when an obsolete MVCC version, or an sstable that
// compaction replaced, may be freed: only once no reader that could still see
// it is running.
//
// Go's garbage collector keeps memory safe, but it cannot answer this
// question. A version is reachable only through its key's version chain, so
// once the chain is unlinked a reader with an old snapshot would silently skip
// the version it needs and read the wrong row. A replaced sstable is a file on
// disk, and deleting it breaks every reader still iterating it. "Free" here
// means "unlink" or "delete", and it must wait for the readers, not for the GC.
//
// # Epochs, pins and retirements
//
// A Manager keeps one global counter, the epoch. It starts at 1 and only
// Advance moves it, always by one. A reader calls Pin before it takes its
// snapshot and Unpin when it is done. A writer that makes a version obsolete,
// by committing a newer one or by aborting, calls Retire or RetireSpan after
// the replacement is visible, passing a callback that frees the version.
//
// Both sides are described by an interval of epochs:
//
//   - An item retired while the epoch is E has the lifetime [born, E]. born is
//     the epoch from which the writer says it can have been visible (0, the
//     conservative default, for Retire). died = E is read under the manager's
//     mutex after the writer made the replacement visible.
//   - A guard pinned at epoch P has the interval [P, Φ]. Φ is ∞ until Seal and
//     the epoch current at Seal afterwards. The caller pins, takes its MVCC
//     snapshot, then seals, so the snapshot falls between P and Φ.
//
// An item is freed once both hold:
//
//	(a) died < Current()   no future pin can land inside [born, died]
//	(b) no live guard's [P, Φ] overlaps [born, died], i.e. there is no guard
//	    with P ≤ died and born ≤ Φ
//
// # Why this is safe
//
// Suppose a reader's snapshot can see an item. Then:
//
//  1. The reader pinned before it took the snapshot, and the snapshot was
//     taken before the item's replacement became visible (otherwise the
//     snapshot would see the replacement instead). The writer read died after
//     the replacement became visible. Epochs never go back, so P ≤ died.
//  2. The item was visible when the snapshot was taken, and that was before
//     Seal read Φ. The item was not visible before epoch born. So born ≤ Φ.
//     Before Seal, Φ = ∞ and this holds trivially.
//  3. Pin and Retire read the epoch under the same mutex that Advance
//     increments it under, so every comparison above is between values of one
//     linearizable counter. A guard pinned after the item passed (a) has
//     P ≥ Current() > died and cannot overlap.
//
// So every guard that might see the item overlaps it, and (b) waits for each of
// them to unpin. Ties (P = died, born = Φ) count as overlapping because the
// order within one epoch is unknown.
//
// # Freeing between readers
//
// Classic epoch-based reclamation frees only what died before the oldest pin,
// so one long report holds back every version retired after it began. Like
// bbolt, which reuses pages that lie wholly between two open read
// transactions, reclaim frees whatever no pin can see, wherever it lies:
//
//	epoch   1  2  3  4  5  6  7  8  9 10 11 12 13 14
//	A          |                                        P = Φ = 2
//	B                                        [───────)  P = 12, Φ = ∞
//	x       [──────────────────────────]                held by A
//	y                   [───────────]                   freed
//	z                                     [─────]       held by B
//
// A long reader therefore holds back only the versions that were alive when
// its snapshot was taken; the statistics attribute those bytes to it by name.
//
// # Parking instead of rescanning
//
// Retire only appends to a pending list. Condition (a) is what allows that:
// nothing is examined in the epoch it died in, so each Advance examines the
// items of the epoch it closes, once, as a batch. (With pins serialized by the
// mutex, (b) alone would be enough at any moment; (a) is the classic rule that
// stays correct should Pin ever stop taking the mutex.)
//
// Re-examining every retired item on every Advance would cost O(retired) per
// Advance while a long reader holds thousands of them. Instead, an item that
// a guard overlaps is parked on the oldest such guard and not looked at again
// until that guard unpins. Then it moves to the next overlapping guard or is
// freed. Guards are kept in a list ordered by P (pins append at the tail, and P
// only grows), so the search for the next holder resumes after the unpinned
// guard: the older guards did not overlap at parking time and are sealed, so
// they never will. Only guards with P ≤ died can overlap and no new one can
// appear, so an item moves at most once per guard that was pinned when it was
// first examined. Sealing does not re-examine what a guard already holds: a
// guard is sealed right after its snapshot, normally before any Advance has
// parked anything on it, and holding a little longer is merely conservative.
//
// # Bounded garbage
//
// Retire advances the epoch itself every Options.AdvanceEvery retirements, so
// with only short readers the unfreed bytes stay within about AdvanceEvery
// items plus what the live guards hold, whatever the write rate.
//
// # Free callbacks and locks
//
// Free callbacks run on the goroutine whose Advance, Unpin or Retire freed
// them, after the manager's mutex is released, because they take other locks
// (a memtable chain, the file system). They may call back into the Manager.
// The rule for callers follows: do not call Retire, Advance or Unpin while
// holding a lock that a free callback takes, or the callback deadlocks on it.
// An item counts as freed in Stats from the moment it is handed to its
// callback.
//
// # Alternatives rejected
//
//   - Reference counts on versions put a shared write on every read path and
//     still need a rule for when the count can no longer rise.
//   - Per-goroutine epoch slots with three rotating retire lists (the crossbeam
//     and Linux RCU style) avoid the mutex but free only below the oldest pin
//     and cannot say who holds garbage back. A pin is once per statement, not
//     per row, so one mutex is cheap enough; measure before replacing it.
package reclaim
