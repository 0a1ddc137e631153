package sstable

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// writeTable writes es (already in file order) to a new file name in fs.
func writeTable(t testing.TB, fs vfs.FS, name string, es []Entry, opts WriterOptions) Properties {
	t.Helper()
	f, err := fs.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f, opts)
	for _, e := range es {
		if err := w.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	p, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func openTable(t testing.TB, fs vfs.FS, name string, fileNum uint64, c *Cache) *Reader {
	t.Helper()
	f, err := fs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(f, name, fileNum, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func sortEntries(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int { return compareEntries(a.Key, a.Seq, b.Key, b.Seq) })
}

// randomKeys returns distinct keys over a tiny alphabet, so that many are
// prefixes of others, plus a few long ones.
func randomKeys(rng *rand.Rand, n int) [][]byte {
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0xfe, 0xff}
	seen := map[string]bool{}
	var keys [][]byte
	add := func(k []byte) {
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	for len(keys) < n {
		switch rng.IntN(10) {
		case 0: // a prefix of an existing key
			if len(keys) > 0 {
				k := keys[rng.IntN(len(keys))]
				add(bytes.Clone(k[:rng.IntN(len(k)+1)]))
			}
		case 1: // an existing key extended
			if len(keys) > 0 {
				k := keys[rng.IntN(len(keys))]
				add(append(bytes.Clone(k), alphabet[rng.IntN(len(alphabet))]))
			}
		case 2:
			k := make([]byte, 200+rng.IntN(300))
			for i := range k {
				k[i] = alphabet[rng.IntN(len(alphabet))]
			}
			add(k)
		default:
			k := make([]byte, rng.IntN(9))
			for i := range k {
				k[i] = alphabet[rng.IntN(len(alphabet))]
			}
			add(k)
		}
	}
	return keys
}

func randomValue(rng *rand.Rand) []byte {
	var n int
	switch r := rng.IntN(100); {
	case r < 10:
		n = 0
	case r < 99:
		n = rng.IntN(200)
	default:
		n = 33<<10 + rng.IntN(16<<10) // larger than a block
	}
	v := make([]byte, n)
	if rng.IntN(2) == 0 {
		for i := 0; i < n; i += 8 {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], rng.Uint64())
			copy(v[i:], w[:])
		}
	} else {
		for i := range v {
			v[i] = "abc "[rng.IntN(4)]
		}
	}
	return v
}

// randomEntries returns a sorted model: every kind, resolved and unresolved
// versions, some keys with hundreds of versions.
func randomEntries(rng *rand.Rand, nkeys int) []Entry {
	var es []Entry
	for _, k := range randomKeys(rng, nkeys) {
		nv := 1 + rng.IntN(3)
		if rng.IntN(40) == 0 {
			nv = 100 + rng.IntN(300)
		}
		seqs := map[uint64]bool{}
		for len(seqs) < nv {
			switch rng.IntN(20) {
			case 0:
				seqs[0] = true
			case 1:
				seqs[math.MaxUint64] = true
			default:
				seqs[rng.Uint64N(1<<uint(1+rng.IntN(63)))] = true
			}
		}
		for s := range seqs {
			e := Entry{Key: k, Seq: s, Kind: Kind(1 + rng.IntN(3)), Flags: uint8(rng.Uint32())}
			if rng.IntN(3) == 0 {
				e.Txn = 1 + rng.Uint64N(50)
				if rng.IntN(10) == 0 {
					e.Txn = math.MaxUint64
				}
				e.Cmd = uint32(rng.Uint64N(1 << uint(rng.IntN(33))))
			} else {
				e.TS = 1 + rng.Uint64N(1<<uint(rng.IntN(64)))
			}
			if e.Kind == KindValue {
				e.Value = randomValue(rng)
			}
			es = append(es, e)
		}
	}
	sortEntries(es)
	return es
}

func entryString(e *Entry) string {
	if e == nil {
		return "<none>"
	}
	return fmt.Sprintf("%x#%d %s ts=%d txn=%d cmd=%d flags=%d value=%d:%x",
		e.Key, e.Seq, e.Kind, e.TS, e.Txn, e.Cmd, e.Flags, len(e.Value), e.Value[:min(len(e.Value), 8)])
}

func sameEntry(a, b *Entry) bool {
	return bytes.Equal(a.Key, b.Key) && a.Seq == b.Seq && a.Kind == b.Kind && a.TS == b.TS &&
		a.Txn == b.Txn && a.Cmd == b.Cmd && a.Flags == b.Flags && bytes.Equal(a.Value, b.Value)
}

// checkAt fails unless the iterator's state (ok, entry) is model position i,
// where i outside the model means unpositioned.
func checkAt(t *testing.T, what string, model []Entry, i int, ok bool, it *Iter) {
	t.Helper()
	want := i >= 0 && i < len(model)
	if ok != want {
		t.Fatalf("%s: ok = %v, want %v (model position %d of %d; at %s)", what, ok, want, i, len(model), entryString(it.Entry()))
	}
	if want && !sameEntry(it.Entry(), &model[i]) {
		t.Fatalf("%s: at %s, want %s", what, entryString(it.Entry()), entryString(&model[i]))
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func modelProperties(es []Entry) Properties {
	var p Properties
	txns := map[uint64]bool{}
	for i, e := range es {
		if i == 0 {
			p.SmallestKey, p.SmallestSeq, p.LargestSeq = e.Key, e.Seq, e.Seq
		}
		p.LargestKey = e.Key
		p.NumEntries++
		switch e.Kind {
		case KindValue:
			p.NumValues++
		case KindTombstone:
			p.NumTombstones++
		case KindLock:
			p.NumLocks++
		}
		p.SmallestSeq, p.LargestSeq = min(p.SmallestSeq, e.Seq), max(p.LargestSeq, e.Seq)
		if e.Txn != 0 {
			p.NumUnresolved++
			txns[e.Txn] = true
		} else {
			if p.MinTS == 0 || e.TS < p.MinTS {
				p.MinTS = e.TS
			}
			p.MaxTS = max(p.MaxTS, e.TS)
		}
		p.RawKeyBytes += uint64(len(e.Key))
		p.RawValueBytes += uint64(len(e.Value))
	}
	for t := range txns {
		p.UnresolvedTxns = append(p.UnresolvedTxns, t)
	}
	slices.Sort(p.UnresolvedTxns)
	return p
}

func checkProps(t *testing.T, got *Properties, es []Entry) {
	t.Helper()
	want := modelProperties(es)
	g := *got
	g.NumDataBlocks, g.DataBytes, g.IndexBytes, g.FilterBytes = 0, 0, 0, 0
	if fmt.Sprint(g) != fmt.Sprint(want) {
		t.Fatalf("properties:\n got %+v\nwant %+v", g, want)
	}
	if len(es) > 0 && (got.NumDataBlocks == 0 || got.DataBytes == 0 || got.IndexBytes == 0) {
		t.Fatalf("block counts missing: %+v", got)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nkeys int
		opts  WriterOptions
		cache bool
	}{
		{"empty", 0, WriterOptions{}, false},
		{"one", 1, WriterOptions{}, false},
		{"default", 3000, WriterOptions{}, true},
		{"small-blocks", 2000, WriterOptions{BlockSize: 512, RestartInterval: 3}, false},
		{"tiny-blocks-s2", 1000, WriterOptions{BlockSize: 1, RestartInterval: 1, Compression: S2Compression}, true},
		{"no-filter-raw", 1500, WriterOptions{BloomBitsPerKey: -1, Compression: NoCompression}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.nkeys), 7))
			model := randomEntries(rng, tc.nkeys)
			if tc.nkeys >= 1000 {
				checkModelCoverage(t, model)
			}
			fs := vfs.NewMem()
			props := writeTable(t, fs, "t.sst", model, tc.opts)
			var c *Cache
			if tc.cache {
				c = NewCache(8 << 20)
			}
			r := openTable(t, fs, "t.sst", 1, c)
			checkProps(t, &props, model)
			checkProps(t, r.Properties(), model)
			if fmt.Sprint(props) != fmt.Sprint(*r.Properties()) {
				t.Fatalf("Finish and Open disagree:\n%+v\n%+v", props, *r.Properties())
			}
			testIteration(t, r, model, rng)
			testGet(t, r, model, rng)
		})
	}
}

func testIteration(t *testing.T, r *Reader, model []Entry, rng *rand.Rand) {
	it := r.NewIter()
	defer it.Close()
	i := 0
	for ok := it.First(); ok; ok = it.Next() {
		checkAt(t, "forward", model, i, true, it)
		i++
	}
	checkAt(t, "forward end", model, len(model), false, it)
	if it.Next() || it.Prev() {
		t.Fatal("an exhausted iterator moved")
	}
	i = len(model) - 1
	for ok := it.Last(); ok; ok = it.Prev() {
		checkAt(t, "backward", model, i, true, it)
		i--
	}
	checkAt(t, "backward end", model, -1, false, it)

	// Seeks at present keys, absent keys and beyond both ends, each followed
	// by a random walk that changes direction.
	probes := [][]byte{nil, {}, {0}, bytes.Repeat([]byte{0xff}, 600)}
	for range 300 {
		if len(model) > 0 && rng.IntN(2) == 0 {
			probes = append(probes, model[rng.IntN(len(model))].Key)
		} else {
			probes = append(probes, randomKeys(rng, 1)[0])
		}
	}
	for _, p := range probes {
		ge, _ := slices.BinarySearchFunc(model, p, func(e Entry, k []byte) int {
			return cmp.Or(bytes.Compare(e.Key, k), 1) // lands on the first entry with Key >= k
		})
		what := fmt.Sprintf("SeekGE(%x)", p)
		i := ge
		checkAt(t, what, model, i, it.SeekGE(p), it)
		walk(t, what, it, model, i, rng)

		what = fmt.Sprintf("SeekLT(%x)", p)
		i = ge - 1
		checkAt(t, what, model, i, it.SeekLT(p), it)
		walk(t, what, it, model, i, rng)
	}
}

// walk moves it at random from model position i and checks each step.
func walk(t *testing.T, what string, it *Iter, model []Entry, i int, rng *rand.Rand) {
	t.Helper()
	for step := range 20 {
		if i < 0 || i >= len(model) {
			return
		}
		if rng.IntN(2) == 0 {
			i++
			checkAt(t, fmt.Sprintf("%s, step %d Next", what, step), model, i, it.Next(), it)
		} else {
			i--
			checkAt(t, fmt.Sprintf("%s, step %d Prev", what, step), model, i, it.Prev(), it)
		}
	}
}

func testGet(t *testing.T, r *Reader, model []Entry, rng *rand.Rand) {
	versions := map[string][]Entry{}
	for _, e := range model {
		versions[string(e.Key)] = append(versions[string(e.Key)], e)
	}
	probes := randomKeys(rng, 200)
	for k := range versions {
		probes = append(probes, []byte(k))
	}
	for _, p := range probes {
		want := versions[string(p)]
		if len(want) > 0 && !r.MayContain(p) {
			t.Fatalf("MayContain(%x) = false for a present key", p)
		}
		var got []Entry
		limit := len(want)
		if limit > 1 && rng.IntN(3) == 0 {
			limit = 1 + rng.IntN(limit-1) // stop early
		}
		err := r.Get(p, func(e *Entry) bool {
			c := *e
			c.Key = bytes.Clone(e.Key)
			got = append(got, c)
			return len(got) < limit
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			limit = 0
		}
		if len(got) != limit {
			t.Fatalf("Get(%x): %d versions, want %d", p, len(got), limit)
		}
		for i := range got {
			if !sameEntry(&got[i], &want[i]) {
				t.Fatalf("Get(%x) version %d: %s, want %s", p, i, entryString(&got[i]), entryString(&want[i]))
			}
		}
	}
}

// checkModelCoverage makes sure a random model has the hard cases: values
// larger than a block, keys whose versions span blocks, keys that are
// prefixes of other keys, and every kind, resolved and not.
func checkModelCoverage(t *testing.T, model []Entry) {
	t.Helper()
	var large, prefix bool
	kinds := map[string]bool{}
	versions := 0
	maxVersions := 0
	for i, e := range model {
		large = large || len(e.Value) > defaultBlockSize
		kinds[fmt.Sprint(e.Kind, e.Resolved())] = true
		if i > 0 && bytes.Equal(model[i-1].Key, e.Key) {
			versions++
		} else {
			versions = 1
			prefix = prefix || i > 0 && bytes.HasPrefix(e.Key, model[i-1].Key)
		}
		maxVersions = max(maxVersions, versions)
	}
	if !large || !prefix || len(kinds) != 6 || maxVersions < 100 {
		t.Fatalf("model lacks cases: large value %v, prefix key %v, kinds %v, max versions %d",
			large, prefix, kinds, maxVersions)
	}
}

// TestOSFile writes and reads a file on the real file system.
func TestOSFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	model := randomEntries(rng, 1000)
	fs := vfs.Default
	name := fs.PathJoin(t.TempDir(), "000001.sst")
	writeTable(t, fs, name, model, WriterOptions{})
	r := openTable(t, fs, name, 1, NewCache(1<<20))
	st, err := fs.Stat(name)
	if err != nil || st.Size() != r.Size() {
		t.Fatalf("size %d, stat %v, %v", r.Size(), st, err)
	}
	testIteration(t, r, model, rng)
	testGet(t, r, model, rng)
}

// TestValueLifetime checks the documented rule: a Value stays valid and
// unchanged after the iterator moves on, is closed, its blocks are evicted
// from the cache, and other iterators read the file.
func TestValueLifetime(t *testing.T) {
	fs := vfs.NewMem()
	rng := rand.New(rand.NewPCG(10, 10))
	model := randomValues(5000, rng)
	writeTable(t, fs, "v.sst", model, WriterOptions{})
	for _, c := range []*Cache{nil, NewCache(1 << 20)} {
		r := openTable(t, fs, "v.sst", 1, c)
		it := r.NewIter()
		var kept [][]byte
		for ok := it.First(); ok; ok = it.Next() {
			kept = append(kept, it.Entry().Value)
		}
		it.Close()
		// Later iterators take their read buffers from a pool that closed
		// ones give back to: none of them may be a block a Value points
		// into (the random values make raw blocks, read straight into it).
		for range 3 {
			it := r.NewIter()
			for ok := it.Last(); ok; ok = it.Prev() {
			}
			it.Close()
		}
		r.Close()
		for i := range model {
			if !bytes.Equal(kept[i], model[i].Value) {
				t.Fatalf("value %d changed after the iterator moved", i)
			}
		}
		// Appending to a Value must not write into the block.
		if cap(kept[0]) != len(kept[0]) {
			t.Fatal("a Value has spare capacity into its block")
		}
	}
}
