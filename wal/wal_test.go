package wal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
)

const dir = "/wal"

func newFS(t testing.TB) *vfs.MemFS {
	fs := vfs.NewMem()
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return fs
}

// sample holds one record of every kind, in the shapes the engine writes.
var sample = []Record{
	{Kind: KindEntry, Txn: 7, Key: []byte("k1"), Value: []byte("value one")},
	{Kind: KindEntry, Txn: 7, Key: []byte("k2"), Value: []byte{}},
	{Kind: KindEntry, Txn: 8, Key: []byte("gone"), Tombstone: true},
	{Kind: KindCommit, Txn: 7, CommitTS: 1_796_000_000_000_000_001},
	{Kind: KindCommit, Txn: 9, CommitTS: 5, Subtxns: []uint64{10, 11}},
	{Kind: KindAbort, Txn: 8},
	{Kind: KindCheckpoint, NextTxn: 12, CommitTS: 99},
}

func appendRecord(buf []byte, r Record) []byte {
	switch r.Kind {
	case KindEntry:
		return AppendEntry(buf, r.Txn, r.Key, r.Value, r.Tombstone)
	case KindCommit:
		return AppendCommit(buf, r.Txn, r.CommitTS, r.Subtxns)
	case KindAbort:
		return AppendAbort(buf, r.Txn)
	case KindCheckpoint:
		return AppendCheckpoint(buf, r.NextTxn, r.CommitTS)
	}
	panic("unknown kind")
}

func sameRecord(a, b Record) bool {
	return a.Kind == b.Kind && a.Txn == b.Txn && bytes.Equal(a.Key, b.Key) &&
		bytes.Equal(a.Value, b.Value) && a.Tombstone == b.Tombstone &&
		a.CommitTS == b.CommitTS && slices.Equal(a.Subtxns, b.Subtxns) && a.NextTxn == b.NextTxn
}

func TestRecordRoundTrip(t *testing.T) {
	for _, want := range sample {
		t.Run(want.Kind.String(), func(t *testing.T) {
			r := NewReader(batch(nil, 1, appendRecord(nil, want)), 1)
			got, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !sameRecord(*got, want) {
				t.Fatalf("round trip: got %+v, want %+v", *got, want)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after the only record: %v, want io.EOF", err)
			}
		})
	}
}

// batch appends records as one batch at the end of data in segment seg,
// as the flusher writes it after syncing everything before it.
func batch(data []byte, seg uint64, records []byte) []byte {
	start := len(data)
	data = append(data, make([]byte, batchHeaderSize)...)
	data = append(data, records...)
	putBatchHeader(data[start:], seg, int64(start), int64(start))
	return data
}

// writeSegment writes records as segment seg, each in a batch of its own,
// and returns each batch's start.
func writeSegment(t *testing.T, fs vfs.FS, seg uint64, recs []Record) (data []byte, starts []int) {
	for _, r := range recs {
		starts = append(starts, len(data))
		data = batch(data, seg, appendRecord(nil, r))
	}
	f, err := fs.Create(fs.PathJoin(dir, SegmentName(seg)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return data, starts
}

func scanAll(fs vfs.FS) ([]Record, ScanResult, error) {
	var got []Record
	res, err := Scan(fs, dir, func(_ Pos, r *Record) error {
		c := *r
		c.Key, c.Value = bytes.Clone(r.Key), bytes.Clone(r.Value)
		c.Subtxns = slices.Clone(r.Subtxns)
		got = append(got, c)
		return nil
	})
	return got, res, err
}

func TestTornTailAtEveryOffset(t *testing.T) {
	fs := newFS(t)
	data, starts := writeSegment(t, fs, 1, sample)
	last := starts[len(starts)-1]
	name := fs.PathJoin(dir, SegmentName(1))
	for cut := last; cut < len(data); cut++ {
		writeFile(t, fs, name, data[:cut])
		got, res, err := scanAll(fs)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if len(got) != len(sample)-1 {
			t.Fatalf("cut at %d: %d records, want %d", cut, len(got), len(sample)-1)
		}
		if res.End != (Pos{Segment: 1, Offset: int64(last)}) || res.Torn != (cut > last) {
			t.Fatalf("cut at %d: end %+v torn %v, want end at %d", cut, res.End, res.Torn, last)
		}
		if err := TruncateTorn(fs, dir, res); err != nil {
			t.Fatal(err)
		}
		if _, res, err := scanAll(fs); err != nil || res.Torn {
			t.Fatalf("cut at %d: after truncation: torn %v, %v", cut, res.Torn, err)
		}
	}
}

func TestGarbageTailIsTorn(t *testing.T) {
	fs := newFS(t)
	data, starts := writeSegment(t, fs, 1, sample)
	tail := append(bytes.Clone(data), 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 1, 2, 3, 4, 5)
	writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), tail)
	got, res, err := scanAll(fs)
	if err != nil || len(got) != len(starts) || !res.Torn || res.End.Offset != int64(len(data)) {
		t.Fatalf("garbage after the last record: %d records, %+v, %v", len(got), res, err)
	}
}

func TestBitFlipIsCorruption(t *testing.T) {
	for _, newest := range []bool{true, false} {
		t.Run(fmt.Sprintf("newest=%v", newest), func(t *testing.T) {
			fs := newFS(t)
			data, starts := writeSegment(t, fs, 1, sample)
			if !newest {
				writeSegment(t, fs, 2, sample[:1])
			}
			victim := 1 // a record that is not the tail
			end := starts[victim+1]
			for bit := starts[victim] * 8; bit < end*8; bit++ {
				flipped := bytes.Clone(data)
				flipped[bit/8] ^= 1 << (bit % 8)
				writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), flipped)
				got, _, err := scanAll(fs)
				var ce *CorruptionError
				if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
					t.Fatalf("bit %d: got %v, want a corruption error", bit, err)
				}
				// The bad batch header, or the bad record after it.
				if ce.Segment != 1 || (ce.Offset != int64(starts[victim]) && ce.Offset != int64(starts[victim]+batchHeaderSize)) {
					t.Fatalf("bit %d: corruption reported at %s:%d, want %s:%d",
						bit, SegmentName(ce.Segment), ce.Offset, SegmentName(1), starts[victim])
				}
				if len(got) != victim {
					t.Fatalf("bit %d: %d records before the error, want %d: the bad record must not be skipped", bit, len(got), victim)
				}
			}
		})
	}
}

func TestTornOlderSegmentIsCorruption(t *testing.T) {
	fs := newFS(t)
	data, starts := writeSegment(t, fs, 1, sample)
	writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), data[:len(data)-1])
	writeSegment(t, fs, 2, sample[:2])
	_, _, err := scanAll(fs)
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Segment != 1 || ce.Offset != int64(starts[len(starts)-1]) {
		t.Fatalf("torn batch in a segment that is not the newest: %v", err)
	}
}

func TestMissingSegmentIsCorruption(t *testing.T) {
	fs := newFS(t)
	writeSegment(t, fs, 1, sample)
	writeSegment(t, fs, 3, sample)
	if _, _, err := scanAll(fs); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("segments 1 and 3 without 2: %v, want corruption", err)
	}
}

func writeFile(t *testing.T, fs vfs.FS, name string, data []byte) {
	t.Helper()
	f, err := fs.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// slowSync delays every fsync, as a disk does, so that committers pile up
// behind it and group commit has something to group.
type slowSync struct{ vfs.FS }

type slowFile struct{ vfs.File }

func (s slowSync) Create(name string) (vfs.File, error) {
	f, err := s.FS.Create(name)
	return slowFile{f}, err
}

func (f slowFile) Sync() error {
	time.Sleep(2 * time.Millisecond)
	return f.File.Sync()
}

func TestGroupCommitPublishesInLogOrder(t *testing.T) {
	fs := newFS(t)
	w, err := Create(slowSync{fs}, dir, 1, Options{NoPreallocate: true})
	if err != nil {
		t.Fatal(err)
	}
	const committers, each = 16, 25
	var (
		mu        sync.Mutex
		next      uint64 // the ts handed out in build, under the writer's lock
		published []uint64
		wg        sync.WaitGroup
	)
	for c := range committers {
		wg.Go(func() {
			for i := range each {
				var ts uint64
				err := w.Commit(func(buf []byte) []byte {
					next++
					ts = next
					buf = AppendEntry(buf, ts, []byte(fmt.Sprint(c, i)), []byte("v"), false)
					return AppendCommit(buf, ts, ts, nil)
				}, func() {
					mu.Lock()
					published = append(published, ts)
					mu.Unlock()
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if !slices.IsSorted(published) || len(published) != committers*each {
		t.Fatalf("published %d commits, sorted %v: publish must follow log order", len(published), slices.IsSorted(published))
	}
	st := w.Stats()
	if st.Commits != committers*each || st.Syncs >= st.Commits/2 {
		t.Fatalf("%d commits took %d fsyncs: group commit should share fsyncs", st.Commits, st.Syncs)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _, err := scanAll(fs)
	if err != nil || len(got) != 2*committers*each {
		t.Fatalf("scan after close: %d records, %v", len(got), err)
	}
	for i := 1; i < len(got); i += 2 {
		if got[i].Kind != KindCommit || got[i].CommitTS != uint64(i/2+1) {
			t.Fatalf("record %d is %+v: log order must equal commit-ts order", i, got[i])
		}
	}
}

func TestFsyncFailureIsFailStop(t *testing.T) {
	mem := newFS(t)
	fs := vfs.NewFaulty(mem)
	w, err := Create(fs, dir, 1, Options{NoPreallocate: true})
	if err != nil {
		t.Fatal(err)
	}
	commit := func(id uint64) (published bool, err error) {
		err = w.Commit(func(buf []byte) []byte {
			return AppendCommit(buf, id, id, nil)
		}, func() { published = true })
		return published, err
	}
	for id := uint64(1); id <= 3; id++ {
		if ok, err := commit(id); err != nil || !ok {
			t.Fatalf("commit %d before the fault: published %v, %v", id, ok, err)
		}
	}
	fs.Fail(vfs.OpSync)
	for id := uint64(4); id <= 6; id++ {
		ok, err := commit(id)
		if !errors.Is(err, ErrPoisoned) || ok {
			t.Fatalf("commit %d after a failed fsync: published %v, err %v; want ErrPoisoned and no publish", id, ok, err)
		}
	}
	if err := w.Append(AppendAbort(nil, 9)); !errors.Is(err, ErrPoisoned) {
		t.Fatalf("append after a failed fsync: %v", err)
	}
	fs.Heal(vfs.OpSync)
	if ok, err := commit(7); !errors.Is(err, ErrPoisoned) || ok {
		t.Fatalf("a healed disk must not revive a poisoned writer: %v", err)
	}
	if n := fs.Count(vfs.OpSync); n != 4 {
		t.Fatalf("%d fsync attempts, want 4: the failed fsync must not be retried", n)
	}
	if err := w.Close(); !errors.Is(err, ErrPoisoned) {
		t.Fatalf("close of a poisoned writer: %v", err)
	}
	crashed := mem.CrashClone(vfs.CrashOptions{})
	got, _, err := scanAll(crashed)
	if err != nil || len(got) != 3 {
		t.Fatalf("after the crash: %d commit records, %v; want exactly the 3 acknowledged", len(got), err)
	}
}

func TestRotation(t *testing.T) {
	fs := newFS(t)
	w, err := Create(fs, dir, 1, Options{SegmentSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	const n = 100
	for i := range uint64(n) {
		err := w.Commit(func(buf []byte) []byte {
			buf = AppendEntry(buf, i, []byte("key"), bytes.Repeat([]byte("v"), 40), false)
			return AppendCommit(buf, i, i+1, nil)
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	segs, err := Segments(fs, dir)
	if err != nil || len(segs) < 10 {
		t.Fatalf("segments %v, %v: want rotation at 256 bytes", segs, err)
	}
	got, _, err := scanAll(crashedCopy(fs))
	if err != nil || len(got) != 2*n {
		t.Fatalf("after a crash: %d records, %v; every acknowledged commit must survive rotation", len(got), err)
	}
}

func crashedCopy(fs *vfs.MemFS) *vfs.MemFS { return fs.CrashClone(vfs.CrashOptions{}) }

// Prepared segments are zero-filled ahead of time. Their unwritten zeroes
// read as the end of the log, rotation trims them, and a crash at any point
// loses no acknowledged commit and reports no corruption.
func TestPreallocatedSegments(t *testing.T) {
	for seed := range uint64(20) {
		fs := newFS(t)
		// A prepared segment left by an earlier crash is not part of the log.
		writeFile(t, fs, fs.PathJoin(dir, prepPrefix+"7"+prepSuffix), make([]byte, 100))
		w, err := Create(fs, dir, 1, Options{SegmentSize: 1024})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		acked := 0
		var wg sync.WaitGroup
		for c := range 4 {
			wg.Go(func() {
				for i := range 50 {
					err := w.Commit(func(buf []byte) []byte {
						return AppendEntry(buf, uint64(c), []byte(fmt.Sprint(i)), bytes.Repeat([]byte("v"), 30), false)
					}, nil)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					acked++
					mu.Unlock()
				}
			})
		}
		time.Sleep(time.Duration(seed) * 100 * time.Microsecond)
		mu.Lock()
		want := acked
		crashed := fs.CrashClone(vfs.CrashOptions{KeepUnsynced: seed%2 == 1, Rand: rand.New(rand.NewPCG(seed, 1))})
		mu.Unlock()
		wg.Wait()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for _, f := range []*vfs.MemFS{fs, crashed} {
			got, res, err := scanAll(f)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if len(got) < want {
				t.Fatalf("seed %d: %d records, but %d were acknowledged", seed, len(got), want)
			}
			if err := TruncateTorn(f, dir, res); err != nil {
				t.Fatal(err)
			}
			segs, _ := Segments(f, dir)
			if f == fs && len(segs) < 5 {
				t.Fatalf("seed %d: only %d segments: no rotation happened", seed, len(segs))
			}
		}
		names, _ := fs.List(dir)
		for _, n := range names {
			if strings.HasPrefix(n, prepPrefix) {
				t.Fatalf("seed %d: %s left behind after Close", seed, n)
			}
		}
		// After a restart the new writer's log extends the old one cleanly.
		segs, _ := Segments(crashed, dir)
		w2, err := Create(crashed, dir, segs[len(segs)-1]+1, Options{SegmentSize: 1024})
		if err != nil {
			t.Fatal(err)
		}
		if err := w2.Commit(func(buf []byte) []byte { return AppendAbort(buf, 1) }, nil); err != nil {
			t.Fatal(err)
		}
		if err := w2.Close(); err != nil {
			t.Fatal(err)
		}
		if got, res, err := scanAll(crashed); err != nil || res.Torn || len(got) < want+1 {
			t.Fatalf("seed %d: after restart: %d records, torn %v, %v", seed, len(got), res.Torn, err)
		}
	}
}

// A crash can leave the unsynced tail with later pages written and earlier
// ones not (an overwritten, prepared segment has no ordering guarantee). No
// batch after the hole was covered by an fsync, so it is all torn tail.
func TestOutOfOrderPagesInUnsyncedTail(t *testing.T) {
	fs := newFS(t)
	data, starts := writeSegment(t, fs, 1, sample[:3])
	synced := int64(len(data)) // the fsync after the third batch
	// Two more batches written after that fsync, never synced.
	tail := len(data)
	for i := range 2 {
		start := len(data)
		data = append(data, make([]byte, batchHeaderSize)...)
		data = appendRecord(data, sample[3+i])
		putBatchHeader(data[start:], 1, int64(start), synced)
	}
	// The fourth batch's first bytes never reached the disk.
	for i := tail; i < tail+20; i++ {
		data[i] = 0
	}
	writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), data)
	got, res, err := scanAll(fs)
	if err != nil || !res.Torn || res.End.Offset != int64(tail) || len(got) != len(starts) {
		t.Fatalf("hole in the unsynced tail: %d records, %+v, %v; want a torn tail at %d", len(got), res, err, tail)
	}

	// If the batch after the hole had been written after an fsync that
	// covered the hole, the hole is corruption.
	last := tail + batchHeaderSize + len(appendRecord(nil, sample[3]))
	putBatchHeader(data[last:], 1, int64(last), int64(last))
	writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), data)
	if _, _, err := scanAll(fs); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damage under a later fsync: %v, want corruption", err)
	}
}

// A value can hold bytes that look like a log record or batch. In a torn
// tail they must not pass for evidence of a later fsync.
func TestEmbeddedFramesInTornTail(t *testing.T) {
	fs := newFS(t)
	data, _ := writeSegment(t, fs, 1, sample[:2])
	good := len(data)
	// A value that embeds a whole valid segment image, cut short.
	inner, _ := writeSegment(t, newFS(t), 1, sample)
	rec := AppendEntry(nil, 99, []byte("k"), bytes.Repeat(inner, 3), false)
	data = batch(data, 1, rec)
	data = data[:len(data)-10]
	writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), data)
	got, res, err := scanAll(fs)
	if err != nil || !res.Torn || res.End.Offset != int64(good) || len(got) != 2 {
		t.Fatalf("torn record embedding frames: %d records, %+v, %v", len(got), res, err)
	}
}

// A torn batch counts whole or not at all: none of its records reach the
// caller, not even those before the damage.
func TestTornBatchDeliversNothing(t *testing.T) {
	fs := newFS(t)
	data, _ := writeSegment(t, fs, 1, sample[:1])
	good := len(data)
	var recs []byte
	for _, r := range sample[1:4] {
		recs = appendRecord(recs, r)
	}
	data = batch(data, 1, recs)
	data = data[:len(data)-3]
	writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), data)
	got, res, err := scanAll(fs)
	if err != nil || len(got) != 1 || res.End.Offset != int64(good) {
		t.Fatalf("%d records delivered from a segment whose second batch is torn, %+v, %v", len(got), res, err)
	}
}

// The torn-tail search is linear: a large random tail (crafted lengths
// everywhere) must not take quadratic time.
func TestLargeTornTail(t *testing.T) {
	fs := newFS(t)
	data, _ := writeSegment(t, fs, 1, sample[:1])
	rng := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 8<<20)
	for i := 0; i+4 <= len(junk); i += 4 {
		// Lengths that mostly point inside the tail.
		binary.LittleEndian.PutUint32(junk[i:], uint32(rng.IntN(len(junk)-i)))
	}
	data = append(data, junk...)
	writeFile(t, fs, fs.PathJoin(dir, SegmentName(1)), data)
	if _, res, err := scanAll(fs); err != nil || !res.Torn {
		t.Fatalf("random tail: %+v, %v", res, err)
	}
}

// Rotate is a flush's cut: what was appended before it lies in older
// segments, its commits are published when it returns, and what is appended
// after it lies in the new segment. Removing the older segments then leaves
// a log that scans cleanly from the cut, also after a crash.
func TestRotateCutsTheLog(t *testing.T) {
	fs := newFS(t)
	w, err := Create(fs, dir, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var published []uint64
	var mu sync.Mutex
	commit := func(txn uint64) {
		err := w.Commit(func(buf []byte) []byte {
			buf = AppendEntry(buf, txn, []byte("k"), []byte("v"), false)
			return AppendCommit(buf, txn, txn, nil)
		}, func() {
			mu.Lock()
			published = append(published, txn)
			mu.Unlock()
		})
		if err != nil {
			t.Error(err)
		}
	}
	commit(1)
	if err := w.Append(AppendEntry(nil, 2, []byte("streamed"), []byte("v"), false)); err != nil {
		t.Fatal(err)
	}
	cut, err := w.Rotate()
	if err != nil || cut != 2 {
		t.Fatalf("Rotate = %d, %v; want segment 2", cut, err)
	}
	mu.Lock()
	if !slices.Equal(published, []uint64{1}) {
		t.Fatalf("published %v when Rotate returned; want [1]", published)
	}
	mu.Unlock()
	commit(3)
	if n, err := RemoveSegments(fs, dir, cut); err != nil || n != 1 {
		t.Fatalf("RemoveSegments = %d, %v; want 1 removed", n, err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	var txns []uint64
	_, err = Scan(fs.CrashClone(vfs.CrashOptions{}), dir, func(_ Pos, r *Record) error {
		txns = append(txns, r.Txn)
		return nil
	})
	if err != nil || !slices.Equal(txns, []uint64{3, 3}) {
		t.Fatalf("after the cut and a crash the log holds txns %v (%v); want only txn 3's records", txns, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// commitSized commits transaction txn with one entry of size bytes.
func commitSized(t *testing.T, w *Writer, txn uint64, size int) {
	t.Helper()
	err := w.Commit(func(buf []byte) []byte {
		buf = AppendEntry(buf, txn, []byte("k"), bytes.Repeat([]byte{byte(txn)}, size), false)
		return AppendCommit(buf, txn, txn, nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

// writeOnRecycled fills a segment with 50 commits of 2000 bytes (about
// 100 KiB), recycles it, and rotates until the flusher writes into it:
// prepare offers one segment at a time, and may still be offering the
// zero-filled one.
func writeOnRecycled(t *testing.T, fs vfs.FS, w *Writer, label string) {
	t.Helper()
	for i := range uint64(50) {
		commitSized(t, w, i+1, 2000)
	}
	cut, err := w.Rotate()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Recycle(cut); err != nil {
		t.Fatal(err)
	}
	recycledLeft := func() bool {
		names, _ := fs.List(dir)
		return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, prepPrefix+"r") })
	}
	for tries := 0; recycledLeft(); tries++ {
		if tries == 1000 {
			t.Fatalf("%sthe recycled segment was never written over", label)
		}
		if _, err := w.Rotate(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
}

// A recycled segment is written over from its start; what is left of its
// old batches past the new records is the log's end, never corruption and
// never records, whether the crash keeps the unsynced tail or not.
func TestRecycledSegmentTail(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 7))
		fs := newFS(t)
		w, err := Create(fs, dir, 1, Options{SegmentSize: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		writeOnRecycled(t, fs, w, fmt.Sprintf("seed %d: ", seed))
		n := 1 + rng.IntN(5)
		for i := range n {
			commitSized(t, w, uint64(100+i), 10)
		}
		crashed := fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: rng.IntN(2) == 0})
		_ = w.Close()
		var txns []uint64
		_, err = Scan(crashed, dir, func(_ Pos, r *Record) error {
			if r.Kind == KindCommit {
				txns = append(txns, r.Txn)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("seed %d: scanning a log with a recycled segment: %v", seed, err)
		}
		if len(txns) != n || txns[0] != 100 {
			t.Fatalf("seed %d: commits %v after the cut; want the %d new ones", seed, txns, n)
		}
	}
}

// A recycled segment is extended to full size before the flusher takes it,
// so that the commits written into it overwrite allocated blocks: an append
// would make every fdatasync write the file's size too. The old segment
// held about 100 KiB; the new one takes 300 KiB of commits and must not grow.
func TestRecycledSegmentIsFullSize(t *testing.T) {
	const segSize = 1 << 20
	fs := newFS(t)
	w, err := Create(fs, dir, 1, Options{SegmentSize: segSize})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	writeOnRecycled(t, fs, w, "")
	for i := range uint64(150) {
		commitSized(t, w, 100+i, 2000)
	}
	seg := w.seg.Load()
	info, err := fs.Stat(fs.PathJoin(dir, SegmentName(seg)))
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != segSize {
		t.Fatalf("segment %d, once a recycled one, is %d bytes after 300 KiB of commits; want %d (allocated in advance)",
			seg, info.Size(), segSize)
	}
}
