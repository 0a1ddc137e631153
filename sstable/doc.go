// Package sstable holds epochdb's immutable sorted files: the on-disk half
// of the storage engine, beneath the memtable.
//
// # The idea
//
// An sstable is written once, by a flush of a frozen memtable or by a
// compaction, from entries that arrive already sorted. It is then synced
// and published by a manifest edit. Nobody ever modifies it, so readers need
// no locks, a block read once can be cached and shared by every reader, and
// a value handed to a caller can point straight into a cached block. A file
// holds MVCC versions, not just keys: every Entry is one version of one
// key, ordered by Key ascending, then Seq descending, so that a key's newest
// version comes first and a point read stops at the first version its
// snapshot may see.
//
// A version is resolved (it carries its writer's commit timestamp TS) or
// unresolved (it carries the writing transaction's id Txn and statement
// number Cmd, and readers ask txn's status table whether it committed). A
// transaction larger than memory is flushed before it commits, so files
// must hold both; Properties.UnresolvedTxns lists the transactions whose
// status must outlive the file. Locks are versions too (KindLock), so a
// flushed row lock keeps blocking other writers.
//
// # Writing
//
// Writer streams: it holds the data block it is building (about 32 KiB),
// the compression output, the index entries so far, and one 8-byte hash per
// distinct key for the filter (the filter's size is unknown until the last
// key). It never holds the whole file. Add rejects an entry that does not
// sort strictly after the previous one, and an entry that the format could
// not give back unchanged (a tombstone with a value, a resolved entry with a
// Cmd, both or neither of TS and Txn). Finish writes the metadata and the
// footer and calls Sync; the caller closes the file and publishes it. Any
// error poisons the Writer, and the half-written file must be removed.
//
// # Reading
//
// Open reads the footer, checks it, then reads and checks the filter, index
// and properties blocks and keeps them in memory: a point read touches the
// disk at most once, for one data block. Iter walks the data blocks in
// either direction; Get is a pooled Iter behind the filter, and allocates
// nothing when its block is cached. An Iter's Entry and Key are overwritten
// by the next move. Its Value is not: it points into a decompressed block,
// and blocks are never modified or recycled (the garbage collector frees
// them once neither the cache nor any caller refers to them), so a Value
// stays valid and unchanged for as long as the caller holds it. It pins its
// whole block, so a caller that keeps a small value for long should copy it.
// Each Value's capacity ends at its length, so an append cannot write into
// the block.
//
// MergingIter merges InternalIterators (Iter and MergingIter satisfy it) in
// file order, forward only, for compaction and for the read path. It takes
// the interface rather than *Iter so that txn can merge its memtables with
// the files in the same heap instead of stacking another merge above it.
// Equal (Key, Seq) pairs from two sources both come out, the earlier
// source's first. A source that fails stops the merge: skipping it would
// silently hide versions, possibly the newest committed one of a key.
//
// # Compression
//
// Each data block (and the index) is compressed on its own with
// klauspost/compress, and kept compressed only if that saves at least an
// eighth of it; otherwise it is stored raw, so incompressible data costs
// nothing to read. The codecs were measured on whole 32 KiB data blocks of
// three kinds of rows (gen_test.go; go test -bench Compression, one core
// of an AMD Turin-class VM, best of 6 runs; MB/s of raw bytes):
//
//	rows                   codec          ratio  compress  decompress
//	pgbench_accounts       s2              9.58    4318       7868
//	(int key, 3 ints,      s2 "better"     9.44    1574       7624
//	84-char blank filler)  zstd fastest   18.57    1003       4328
//	                       zstd default   18.78     887       4333
//	short text (names,     s2              1.41     540       1702
//	cities, sentences,     s2 "better"     1.65     251        879
//	e-mail addresses)      zstd fastest    1.84     161       1020
//	                       zstd default    1.95     118        934
//	100 random bytes       s2, zstd        1.00   (stored raw either way)
//
// End to end (BenchmarkWriter, BenchmarkGet), a Writer turns 200,000
// pgbench rows into 12.0 bytes per row at 1123 MB/s with s2, 6.8 bytes at
// 596 MB/s with zstd; text rows into 56 bytes per row at 310 MB/s with s2,
// 43 bytes at 133 MB/s with zstd. A point read that misses the block cache
// (the file in memory) takes 9.8 µs with s2 and 15.3 µs with zstd, against
// 9.2 µs for raw blocks.
//
// The default is s2. Reads of hot data are served decompressed from the
// block cache, so the codec matters in three places: the CPU that flush and
// compaction spend (every byte is compressed again at each level it passes
// through), the latency of a read that misses the cache, and the bytes on
// disk. s2 wins the first two by 2–4× and about 1.6×; zstd wins the third by
// 1.3–1.9×. epochdb runs on small machines where compaction competes with
// query execution for a few cores, and a cache miss on the point-read path
// is exactly what an OLTP workload feels; already at s2's ratio pgbench rows
// shrink ninefold. So the default spends disk rather than CPU and latency.
// ZstdCompression remains an option per Writer, for data that is rarely
// read and never rewritten (the bottom level of the tree, say).
//
// # Checksums and corruption
//
// Every byte of a file is covered by a check. Each block is followed by a
// trailer holding its compression type and a CRC-32C (Castagnoli) of the
// stored bytes and the type; the footer has a CRC-32C of its own fields and
// ends with a magic number. Open verifies the footer, and the filter, index
// and properties blocks, and checks that they are consistent: the handles
// tile the file exactly, the index's data blocks tile the data region in
// order, and the properties agree with both. A data block is verified when
// it is read, before it is decompressed, parsed or cached, so the cache
// only ever holds good blocks.
//
// Any failure is a *CorruptionError naming the file, the block and the
// block's offset, matching errors.Is(err, ErrCorrupt); the SQL layer
// reports it as SQLSTATE XX001 (data_corrupted). A truncated file fails
// Open, since its last bytes are no longer a footer. There is no repair and
// no skipping: an iterator that meets a damaged block stops, and every move
// after that returns false, because returning less data than was written
// is as wrong as returning different data.
//
// # The bloom filter
//
// One filter per file covers its distinct user keys (not versions), so
// Get of an absent key costs a hash and a few memory probes, without
// touching the index or a block. It is a plain bit array of m = n·b bits for
// n keys at b bits per key, with k = round(b·ln 2) probes, the k that
// minimises the false-positive rate, which is then (1 − e^(−k/b))^k:
//
//	bits/key   4      6      8      10     12     16     20
//	k          3      4      6      7      8      11     14
//	FP rate    14.7%  5.61%  2.16%  0.82%  0.31%  0.046% 0.007%
//
// The default is 10 bits per key; TestBloomRate measures 0.80% there. The
// probes use double hashing, g_i = h1 + i·h2 (mod 2^32), of the two halves
// of a 64-bit hash, each mapped onto the m bits by a multiply and shift
// rather than a division. The hash (hash64) is written here and pinned by a
// test, because a filter must answer the same in every process and on every
// machine that reads the file; hash/maphash is seeded per process and would
// not.
//
// # The block cache
//
// Cache holds decompressed data blocks of all files, keyed by (file number,
// block offset), so a hot block is decompressed once. File numbers are
// never reused, so a key always names the same bytes; Reader.Close drops the
// file's blocks. The cache is split into a power-of-two number of shards
// (up to four per core, each at least 1 MiB), each with its own lock and an
// equal share of the capacity. A shard evicts by CLOCK: a hit takes only
// the shard's read lock and sets a flag, and the eviction sweep, under the
// write lock, gives a flagged block a second chance. A block is charged its
// allocation plus a fixed overhead, room is made before a block is
// inserted, and a block larger than a shard's share is not cached, so the
// bytes held never exceed the capacity. Two readers that miss the same
// block at once both read it and one copy is kept. A nil *Cache caches
// nothing.
//
// # The manifest: one pointer decides which files count
//
// Which files make up the tree is the seed's manifest swap. A flush or a
// compaction writes its files and fsyncs them, and they are then
// physically in the directory; they count only once an Edit naming them is
// published. The manifest (manifest.go) is an append-only file of CRC-framed
// edits, and CURRENT is the pointer: one line naming the manifest and the
// length of it that counts, with a checksum. Apply appends the edit and
// fsyncs it, writes a new CURRENT beside the old, fsyncs that, renames it
// over the old one and fsyncs the directory. The rename is the single
// pointer move. Bytes of the manifest past the published length are there
// after a crash and never read, exactly as a transaction's log entries
// without a commit record are there and never replayed; below the length
// every byte must be valid, and any damage refuses the open
// (ErrCorruptManifest) rather than guess which files are live. Opening
// starts a new manifest from a snapshot of the state, so the history
// replayed at open stays short.
//
// An edit records the files added and removed with their key ranges,
// sequence and timestamp ranges, entry counts and the transactions with
// unresolved versions in them; the oldest log segment still needed; the
// counters that must never move back (the next file number, the last
// sequence number, the next transaction id, the last commit timestamp);
// and the commits of transactions whose versions in files are unresolved
// (txn's status table, the commit log of this design). File names are
// never reused and the manifest describes every file without opening it,
// so that a new replica can copy the immutable files the manifest names and
// then the log after LogNum.
//
// # Compaction: leveled
//
// L0 holds flushed files, which may overlap, newest first; each deeper
// level holds files with disjoint key ranges, and every version of a key
// in a shallower level is newer than every version of it deeper down, so
// a read takes the levels in order. Picker (compact.go) scores L0 by its
// file count against L0Trigger and every other level by its bytes against
// a target that grows by Multiplier per level, and compacts the most
// overfull: all of L0 into L1 (all, or an older L0 file left behind would
// end up read before the newer ones moved down), or the next file of a
// level, round-robin by key, into the files it overlaps one level down. A
// file that overlaps nothing below moves without a rewrite. When nothing
// is due, a file that the rewrite callback names is rewritten in place:
// txn names one whose unresolved writers have all ended when resolving its
// versions, so that their status entries go, is worth the rewrite.
//
// What a compaction keeps of a key is txn's decision (keepVersions): it
// drops versions of aborted writers and ended row locks, rewrites those of
// committed writers as resolved, and keeps, below the newest version
// committed at or before the oldest snapshot a reader holds or may take,
// nothing: no snapshot can see past it. At the bottom, where no deeper file
// holds the key, that version goes too if it is a tombstone. The files a
// compaction replaces are retired to reclaim and deleted only once no
// reader pinned at an older epoch, which may still be reading them, is
// left.
//
// Leveled rather than tiered, measured (txn's TestAmplification: 1,000,000
// keys of 16 bytes with 100-byte random values, loaded in random order and
// then updated three times over, 4 MiB memtables, a 16 MiB L1):
//
//	                       after the load   after 3 update passes
//	write amplification        7.9               14.8
//	space amplification        1.03              1.16 (134 MB for 115 MB live)
//	files a point read probes   ≤ 6 (at most 4 in L0, one per deeper level)
//
// Tiered (size-tiered, or RocksDB's universal compaction) merges runs of
// similar size and writes each byte fewer times, typically a third to a
// half of leveled's write amplification; but until a merge it keeps several
// versions of a row in as many runs, so its space amplification reaches 2
// and more under updates (RocksDB's documentation puts universal
// compaction's worst case at 2× and leveled's at about 1.1×), a merge of
// the largest runs needs as much free space again, and a point read
// probes every run. epochdb's workloads are OLTP updates of rows that
// readers look up by key: the space bound (within 2× of a fresh copy after
// repeated updates) and the point-read cost decide, and leveled holds both.
// The write amplification is the price, paid in background CPU on the
// compaction goroutine, which writers feel only as a stall when L0 passes
// L0StopWrites.
//
// # File format
//
// All integers are little-endian; "uvarint" is encoding/binary's.
//
//	+--------------+--------------+-----+--------+-------+------------+--------+
//	| data block 0 | data block 1 | ... | filter | index | properties | footer |
//	+--------------+--------------+-----+--------+-------+------------+--------+
//	 offset 0                            (absent without a filter)    last 64 B
//
// Every block is followed by a 5-byte trailer:
//
//	+-------------------------+------+---------------------------------+
//	| stored bytes (length n) | type | CRC-32C of stored bytes and type |
//	+-------------------------+------+---------------------------------+
//	                            1 B    4 B
//
// where type is 0 (raw), 1 (s2 block format) or 2 (zstd frame). A block
// handle is its offset and n; the trailer follows at offset+n.
//
// A data block, once decompressed, is a run of entries followed by its
// restart array: the offsets of every 16th entry (RestartInterval), whose
// keys are stored whole, then their count. A seek binary-searches the
// restart keys and scans forward at most one interval.
//
//	+---------+---------+-----+-----------+-----------+-----+------------+
//	| entry 0 | entry 1 | ... | restart 0 | restart 1 | ... | count (4B) |
//	+---------+---------+-----+-----------+-----------+-----+------------+
//	                            4 B each
//
// An entry stores its key as a suffix of the previous entry's key:
//
//	+----------+------------+-----------+-----------+----------------------+
//	| shared   | unshared   | rest len  | key delta | rest                 |
//	| uvarint  | uvarint    | uvarint   | unshared B| rest len B           |
//	+----------+------------+-----------+-----------+----------------------+
//	rest: seq uvarint | meta byte | flags byte | ts uvarint            | value
//	                                           | or txn, cmd uvarints  |
//
// meta holds the Kind in bits 0–1 and, in bit 2, whether the entry is
// unresolved (txn and cmd follow) or resolved (ts follows); the other bits
// are zero. The value runs to the end of rest. The rest length lets a seek
// step over entries without decoding them.
//
// The user key and Seq are kept apart rather than fused into one byte
// string. Appending a big-endian Seq to the key and comparing bytewise would
// misorder a key and its extensions: "a"+seq could sort after "a\x00"+seq.
// Entries are compared as (key bytewise, then Seq descending), and nothing
// on disk depends on comparing encoded keys.
//
// The index block holds one entry per data block, in order: uvarint length
// and bytes of a separator, then the block's handle (uvarint offset,
// uvarint n). The separator is a user key s with last ≤ s < next, where last
// is the block's last key and next is the following block's first key; it
// is shortened where it can be (between "apple" and "banana", "b"). When a
// key's versions continue into the next block, last = next and the
// separator is that key. The first block whose separator is ≥ k is the only
// one that can hold k's newest version.
//
// The filter block is ⌈m/8⌉ bytes of bits, bit i in byte i/8 at position
// i%8, followed by one byte holding k.
//
// The properties block is a fixed sequence of uvarints: NumEntries,
// NumValues, NumTombstones, NumLocks, NumUnresolved, SmallestSeq,
// LargestSeq, MinTS, MaxTS, RawKeyBytes, RawValueBytes, NumDataBlocks,
// DataBytes, IndexBytes, FilterBytes; then SmallestKey and LargestKey, each
// as a uvarint length and bytes; then the count of UnresolvedTxns and each
// as a uvarint delta from the one before. A new property needs a new format
// version.
//
// The footer (footer.go) holds the handles of the filter, index and
// properties blocks as uint64 pairs, the format version (1) as a uint32, a
// CRC-32C of those 52 bytes, and the magic number "epochsst".
package sstable
