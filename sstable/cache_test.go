package sstable

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

func TestCacheBounded(t *testing.T) {
	c := NewCache(4 << 20)
	rng := rand.New(rand.NewPCG(1, 3))
	for i := range uint64(2000) {
		size := 1 + rng.IntN(64<<10)
		c.set(i%7, i, make([]byte, size), size)
		if st := c.Stats(); st.Bytes > st.Capacity {
			t.Fatalf("after %d blocks: %d bytes held, capacity %d", i+1, st.Bytes, st.Capacity)
		}
	}
	st := c.Stats()
	if st.Bytes < st.Capacity/2 || st.Blocks < 50 {
		t.Fatalf("cache nearly empty after filling: %+v", st)
	}
	// A block too big for a shard is not cached at all.
	c.set(99, 0, make([]byte, 8<<20), 8<<20)
	if c.get(99, 0) != nil {
		t.Fatal("a block larger than the cache was cached")
	}
	var nilCache *Cache
	nilCache.set(1, 1, []byte{1}, 1)
	if nilCache.get(1, 1) != nil || nilCache.Stats() != (CacheStats{}) {
		t.Fatal("a nil cache cached")
	}
}

// TestCacheClock checks the eviction order: a block hit since the last
// sweep survives one that was not.
func TestCacheClock(t *testing.T) {
	c := NewCache(1 << 20) // one shard
	const size = 100 << 10
	for i := range uint64(10) { // fills the shard: an 11th does not fit
		c.set(1, i, make([]byte, size), size)
	}
	if c.get(1, 0) == nil {
		t.Fatal("block 0 missing before the cache is full")
	}
	c.set(1, 100, make([]byte, size), size) // evicts one block
	if c.get(1, 0) == nil {
		t.Error("the block that was hit was evicted")
	}
	if c.get(1, 1) != nil {
		t.Error("the oldest block not hit survived")
	}
}

func TestCacheHits(t *testing.T) {
	fs := vfs.NewMem()
	es := pgbenchAccounts(5000)
	writeTable(t, fs, "a.sst", es, WriterOptions{})
	c := NewCache(8 << 20)
	r := openTable(t, fs, "a.sst", 7, c)
	key := es[2500].Key
	var first, second []byte
	get := func(dst *[]byte) {
		it := r.NewIter()
		if !it.SeekGE(key) {
			t.Fatal(it.Err())
		}
		*dst = it.Entry().Value
		it.Close()
	}
	get(&first)
	st := c.Stats()
	if st.Misses != 1 || st.Hits != 0 || st.Blocks != 1 {
		t.Fatalf("after the first read: %+v", st)
	}
	get(&second)
	st = c.Stats()
	if st.Misses != 1 || st.Hits != 1 {
		t.Fatalf("after the second read: %+v", st)
	}
	// A hit returns the very block the miss decompressed, not a new copy.
	if &first[0] != &second[0] {
		t.Fatal("the second read decompressed the block again")
	}
	// A scan reads each block once.
	it := r.NewIter()
	for ok := it.First(); ok; ok = it.Next() {
	}
	it.Close()
	st = c.Stats()
	if blocks := int64(r.Properties().NumDataBlocks); st.Misses != blocks || st.Blocks != blocks {
		t.Fatalf("scan of %d blocks: %+v", blocks, st)
	}
	// Closing the file drops its blocks, and only its blocks.
	writeTable(t, fs, "b.sst", es[:100], WriterOptions{})
	r2 := openTable(t, fs, "b.sst", 8, c)
	r2.Get(es[0].Key, func(*Entry) bool { return false })
	r.Close()
	if st := c.Stats(); st.Blocks != 1 {
		t.Fatalf("after closing a.sst: %+v", st)
	}
}

// A writer that warms the cache leaves every data block there, the same
// bytes a read of the file would decompress: a scan of the new file
// misses nothing and reads what was written.
func TestCacheWarm(t *testing.T) {
	fs := vfs.NewMem()
	es := pgbenchAccounts(5000)
	c := NewCache(8 << 20)
	f, err := fs.Create("w.sst")
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f, WriterOptions{BlockSize: 4096})
	w.Warm(c, 9)
	for _, e := range es {
		if err := w.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	r := openTable(t, fs, "w.sst", 9, c)
	if got := r.CachedShare(); got != 1 {
		t.Fatalf("%.2f of the warmed file's blocks cached, want all", got)
	}
	i := 0
	it := r.NewIter()
	for ok := it.First(); ok; ok = it.Next() {
		if !sameEntry(it.Entry(), &es[i]) {
			t.Fatalf("entry %d: %s, want %s", i, entryString(it.Entry()), entryString(&es[i]))
		}
		i++
	}
	it.Close()
	if i != len(es) {
		t.Fatalf("scanned %d entries, want %d", i, len(es))
	}
	if st := c.Stats(); st.Misses != 0 || st.Hits != int64(r.Properties().NumDataBlocks) {
		t.Fatalf("scan of a warmed file of %d blocks: %+v", r.Properties().NumDataBlocks, st)
	}

	// Without Warm a new file starts out of the cache.
	writeTable(t, fs, "cold.sst", es, WriterOptions{BlockSize: 4096})
	if got := openTable(t, fs, "cold.sst", 10, c).CachedShare(); got != 0 {
		t.Fatalf("%.2f of a file written without Warm is cached", got)
	}
	c.EvictFile(9)
	if got := r.CachedShare(); got != 0 {
		t.Fatalf("%.2f of the file cached after EvictFile", got)
	}
}

// TestConcurrentReaders runs point reads and scans of two files from many
// goroutines through one cache too small for them, so that blocks are
// evicted and re-read while others use them.
func TestConcurrentReaders(t *testing.T) {
	fs := vfs.NewMem()
	rng := rand.New(rand.NewPCG(4, 4))
	models := [][]Entry{randomEntries(rng, 1500), pgbenchAccounts(20000)}
	c := NewCache(1 << 20)
	var readers []*Reader
	for i, m := range models {
		name := []string{"a.sst", "b.sst"}[i]
		writeTable(t, fs, name, m, WriterOptions{BlockSize: 4096})
		readers = append(readers, openTable(t, fs, name, uint64(i+1), c))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 5))
			for range 200 {
				which := rng.IntN(2)
				r, m := readers[which], models[which]
				if rng.IntN(10) == 0 {
					i := rng.IntN(len(m))
					for i > 0 && bytes.Equal(m[i-1].Key, m[i].Key) {
						i-- // SeekGE lands on a key's newest version
					}
					it := r.NewIter()
					end := min(i+300, len(m))
					for ok := it.SeekGE(m[i].Key); ok && i < end; ok = it.Next() {
						if !sameEntry(it.Entry(), &m[i]) {
							t.Errorf("scan: %s, want %s", entryString(it.Entry()), entryString(&m[i]))
							return
						}
						i++
					}
					if i != end {
						t.Errorf("scan stopped at %d of %d", i, end)
					}
					if err := it.Close(); err != nil {
						t.Error(err)
					}
					continue
				}
				i := rng.IntN(len(m))
				for i > 0 && bytes.Equal(m[i-1].Key, m[i].Key) {
					i--
				}
				err := r.Get(m[i].Key, func(e *Entry) bool {
					if !sameEntry(e, &m[i]) {
						t.Errorf("Get: %s, want %s", entryString(e), entryString(&m[i]))
					}
					return false
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Bytes > st.Capacity || st.Hits == 0 {
		t.Fatalf("cache after concurrent reads: %+v", st)
	}
}
