package sstable

import (
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// corruptFixture writes a table of compressible and incompressible rows in
// many small blocks, so that it has compressed and raw data blocks, and
// returns its entries and bytes.
func corruptFixture(t *testing.T, fs vfs.FS) ([]Entry, []byte) {
	t.Helper()
	es := pgbenchAccounts(60)
	rng := rand.New(rand.NewPCG(9, 9))
	for i, e := range randomValues(60, rng) {
		e.Key = tableKey(16384, int64(100+i))
		es = append(es, e)
	}
	writeTable(t, fs, "good.sst", es, WriterOptions{BlockSize: 1024})
	return es, readFile(t, fs, "good.sst")
}

func readFile(t *testing.T, fs vfs.FS, name string) []byte {
	t.Helper()
	f, err := fs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, fs vfs.FS, name string, b []byte) {
	t.Helper()
	f, err := fs.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// region names the block that holds byte off of a good file: what a
// CorruptionError for damage there must say.
type region struct {
	block  string
	offset int64
}

func layout(t *testing.T, fs vfs.FS) func(off int64) region {
	r := openTable(t, fs, "good.sst", 1, nil)
	var fb [footerSize]byte
	if _, err := r.f.ReadAt(fb[:], r.size-footerSize); err != nil {
		t.Fatal(err)
	}
	ft, err := decodeFooter(fb[:], uint64(r.size))
	if err != nil {
		t.Fatal(err)
	}
	if r.props.NumDataBlocks < 5 || ft.filter.length == 0 {
		t.Fatalf("fixture too small: %+v", r.props)
	}
	index := r.index
	return func(off int64) region {
		o := uint64(off)
		for _, e := range index {
			if o >= e.handle.offset && o < e.handle.end() {
				return region{"data", int64(e.handle.offset)}
			}
		}
		for _, m := range []struct {
			name string
			h    blockHandle
		}{{"filter", ft.filter}, {"index", ft.index}, {"properties", ft.props}} {
			if o >= m.h.offset && o < m.h.end() {
				return region{m.name, int64(m.h.offset)}
			}
		}
		return region{"footer", r.size - footerSize}
	}
}

func checkCorruption(t *testing.T, what string, err error, want region) {
	t.Helper()
	var ce *CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("%s: error %v, want a CorruptionError", what, err)
	}
	if ce.File != "bad.sst" || ce.Block != want.block || ce.Offset != want.offset {
		t.Fatalf("%s: %v; want the %s block at offset %d of bad.sst", what, err, want.block, want.offset)
	}
}

// TestCorruptEveryByte flips each byte of a file in turn. Every byte is
// covered by a checksum, so each flip must be reported, naming the block
// that holds it, by Open (metadata) or by the read of that block (data),
// and no read may return an entry that was not written.
func TestCorruptEveryByte(t *testing.T) {
	fs := vfs.NewMem()
	model, good := corruptFixture(t, fs)
	regionOf := layout(t, fs)
	seen := map[string]int{}
	for off := range int64(len(good)) {
		bad := append([]byte(nil), good...)
		bad[off] ^= 1 << (off % 8)
		writeFile(t, fs, "bad.sst", bad)
		want := regionOf(off)
		seen[want.block]++
		f, _ := fs.Open("bad.sst")
		r, err := Open(f, "bad.sst", 2, nil)
		if want.block != "data" {
			checkCorruption(t, "Open", err, want)
			f.Close()
			continue
		}
		if err != nil {
			t.Fatalf("Open with damage in a data block at %d: %v", off, err)
		}
		it := r.NewIter()
		i := 0
		for ok := it.First(); ok; ok = it.Next() {
			if !sameEntry(it.Entry(), &model[i]) {
				t.Fatalf("flip at %d: entry %d is %s, want %s", off, i, entryString(it.Entry()), entryString(&model[i]))
			}
			i++
		}
		checkCorruption(t, "scan", it.Err(), want)
		if it.Next() || it.SeekGE(nil) || it.Err() == nil {
			t.Fatal("iterator moved after a corruption")
		}
		it.Close()
		// A point read of the damaged block fails too.
		k := model[i].Key
		err = r.Get(k, func(*Entry) bool { return true })
		checkCorruption(t, "Get", err, want)
		r.Close()
	}
	for _, b := range []string{"data", "filter", "index", "properties", "footer"} {
		if seen[b] == 0 {
			t.Errorf("no byte of the %s block was damaged", b)
		}
	}
}

func TestTruncated(t *testing.T) {
	fs := vfs.NewMem()
	_, good := corruptFixture(t, fs)
	r := openTable(t, fs, "good.sst", 1, nil)
	n := int64(len(good))
	cuts := []int64{0, 1, footerSize - 1, footerSize, n / 2, n - footerSize - 1, n - footerSize,
		n - footerSize + 1, n - 1, int64(r.index[1].handle.offset), int64(r.index[len(r.index)-1].handle.end())}
	for _, cut := range cuts {
		writeFile(t, fs, "bad.sst", good[:cut])
		f, _ := fs.Open("bad.sst")
		_, err := Open(f, "bad.sst", 2, nil)
		var ce *CorruptionError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) || ce.File != "bad.sst" || ce.Block != "footer" {
			t.Errorf("truncated to %d of %d bytes: Open = %v, want a footer CorruptionError", cut, n, err)
		}
		f.Close()
	}
	// Bytes appended after the footer are damage too.
	writeFile(t, fs, "bad.sst", append(good, 0))
	f, _ := fs.Open("bad.sst")
	if _, err := Open(f, "bad.sst", 2, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("extended file: Open = %v", err)
	}
}

// TestCorruptNotCached checks that a damaged block is never cached as if it
// were good: reading it again fails again.
func TestCorruptNotCached(t *testing.T) {
	fs := vfs.NewMem()
	model, good := corruptFixture(t, fs)
	r := openTable(t, fs, "good.sst", 1, nil)
	h := r.index[2].handle
	bad := append([]byte(nil), good...)
	bad[h.offset+h.length/2] ^= 0x40
	writeFile(t, fs, "bad.sst", bad)
	c := NewCache(1 << 20)
	br := openTable(t, fs, "bad.sst", 2, c)
	var key []byte
	for _, e := range model {
		if string(e.Key) > string(r.index[1].sep) {
			key = e.Key
			break
		}
	}
	for range 3 {
		err := br.Get(key, func(*Entry) bool { return true })
		checkCorruption(t, "Get", err, region{"data", int64(h.offset)})
	}
	if st := c.Stats(); st.Hits != 0 {
		t.Fatalf("damaged block served from the cache: %+v", st)
	}
}

func TestAddOutOfOrder(t *testing.T) {
	e := func(k string, seq uint64) Entry {
		return Entry{Key: []byte(k), Seq: seq, Kind: KindTombstone, TS: 1}
	}
	for _, tc := range []struct {
		name   string
		first  Entry
		second Entry
	}{
		{"smaller key", e("b", 1), e("a", 1)},
		{"prefix after its extension", e("ab", 1), e("a", 9)},
		{"same key, newer seq", e("a", 1), e("a", 2)},
		{"duplicate", e("a", 5), e("a", 5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := vfs.NewMem().Create("x.sst")
			w := NewWriter(f, WriterOptions{})
			if err := w.Add(tc.first); err != nil {
				t.Fatal(err)
			}
			if err := w.Add(tc.second); err == nil {
				t.Fatal("out-of-order Add accepted")
			}
			// The rejected entry is not in the file.
			if _, err := w.Finish(); err != nil {
				t.Fatal(err)
			}
			if err := w.Add(e("zz", 1)); err == nil {
				t.Fatal("Add after Finish accepted")
			}
		})
	}
	// Accepted: an older version after a newer one, a key after its prefix.
	f, _ := vfs.NewMem().Create("x.sst")
	w := NewWriter(f, WriterOptions{})
	for _, x := range []Entry{e("a", 9), e("a", 0), e("ab", 1)} {
		if err := w.Add(x); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAddInvalid(t *testing.T) {
	for _, e := range []Entry{
		{Key: []byte("k"), Kind: 0, TS: 1},
		{Key: []byte("k"), Kind: 4, TS: 1},
		{Key: []byte("k"), Kind: KindValue},                              // neither TS nor Txn
		{Key: []byte("k"), Kind: KindValue, TS: 1, Txn: 1},               // both
		{Key: []byte("k"), Kind: KindValue, TS: 1, Cmd: 3},               // Cmd without Txn
		{Key: []byte("k"), Kind: KindTombstone, TS: 1, Value: []byte{1}}, // tombstone with a value
		{Key: []byte("k"), Kind: KindLock, Txn: 1, Value: []byte{1}},     // lock with a value
	} {
		f, _ := vfs.NewMem().Create("x.sst")
		if err := NewWriter(f, WriterOptions{}).Add(e); err == nil {
			t.Errorf("Add(%+v) accepted", e)
		}
	}
}

// TestWriterFailStop checks that a failed write or sync poisons the Writer:
// the error comes back from every later call and no Finish succeeds.
func TestWriterFailStop(t *testing.T) {
	for op, after := range map[vfs.Op]int{vfs.OpWrite: 2, vfs.OpSync: 0} { // Finish syncs once
		t.Run(op.String(), func(t *testing.T) {
			fs := vfs.NewFaulty(vfs.NewMem())
			f, err := fs.Create("x.sst")
			if err != nil {
				t.Fatal(err)
			}
			w := NewWriter(f, WriterOptions{BlockSize: 512})
			es := pgbenchAccounts(200)
			fs.FailAfter(op, after)
			var first error
			for _, e := range es {
				if first = w.Add(e); first != nil {
					break
				}
			}
			if _, err := w.Finish(); first == nil {
				first = err
			}
			if !errors.Is(first, vfs.ErrInjected) {
				t.Fatalf("error %v, want the injected one", first)
			}
			fs.Heal(op)
			if err := w.Add(Entry{Key: []byte("zz"), Kind: KindTombstone, TS: 1}); !errors.Is(err, vfs.ErrInjected) {
				t.Fatalf("Add after the failure: %v", err)
			}
			if _, err := w.Finish(); !errors.Is(err, vfs.ErrInjected) {
				t.Fatalf("Finish after the failure: %v", err)
			}
		})
	}
}
