package sstable

import (
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

func rawSize(es []Entry) int64 {
	var n int64
	for _, e := range es {
		n += int64(len(e.Key) + len(e.Value))
	}
	return n
}

var benchCodecs = []Compression{NoCompression, S2Compression, ZstdCompression}

func benchSets() []struct {
	name string
	es   []Entry
} {
	rng := rand.New(rand.NewPCG(3, 4))
	return []struct {
		name string
		es   []Entry
	}{
		{"pgbench", pgbenchAccounts(200000)},
		{"text", shortText(200000, rng)},
	}
}

// discardFile counts what is written to it and keeps nothing, so that the
// writer benchmark measures the Writer rather than a file system.
type discardFile struct {
	vfs.File // nil: only Write and Sync are called
	n        int64
}

func (f *discardFile) Write(p []byte) (int, error) { f.n += int64(len(p)); return len(p), nil }
func (f *discardFile) Sync() error                 { return nil }

// BenchmarkWriter measures Writer throughput in raw key and value bytes per
// second.
func BenchmarkWriter(b *testing.B) {
	for _, set := range benchSets() {
		for _, c := range benchCodecs {
			b.Run(set.name+"/"+c.String(), func(b *testing.B) {
				b.SetBytes(rawSize(set.es))
				b.ReportAllocs()
				var f discardFile
				for b.Loop() {
					f.n = 0
					w := NewWriter(&f, WriterOptions{Compression: c})
					for _, e := range set.es {
						if err := w.Add(e); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := w.Finish(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(f.n)/float64(len(set.es)), "file-B/entry")
			})
		}
	}
}

func benchReader(b *testing.B, es []Entry, c Compression, cache *Cache) *Reader {
	fs := vfs.NewMem()
	writeTable(b, fs, "b.sst", es, WriterOptions{Compression: c})
	return openTable(b, fs, "b.sst", 1, cache)
}

// BenchmarkGet measures point reads of present keys with every block in the
// cache (hit), of absent keys that the filter turns away, and of present
// keys with no cache, which pays the read and the decompression each time.
func BenchmarkGet(b *testing.B) {
	es := pgbenchAccounts(200000)
	b.Run("hit", func(b *testing.B) {
		r := benchReader(b, es, DefaultCompression, NewCache(256<<20))
		benchGet(b, r, es, 0)
	})
	b.Run("absent", func(b *testing.B) {
		r := benchReader(b, es, DefaultCompression, NewCache(256<<20))
		benchGet(b, r, es, 1<<30)
	})
	for _, c := range benchCodecs {
		b.Run("nocache/"+c.String(), func(b *testing.B) {
			r := benchReader(b, es, c, nil)
			benchGet(b, r, es, 0)
		})
	}
}

func benchGet(b *testing.B, r *Reader, es []Entry, shift int64) {
	keys := make([][]byte, 4096)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range keys {
		keys[i] = tableKey(16384, int64(rng.IntN(len(es))+1)+shift)
	}
	for _, k := range keys { // warm the cache
		r.Get(k, func(*Entry) bool { return false })
	}
	found := 0
	fn := func(*Entry) bool { found++; return false }
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := r.Get(keys[i&4095], fn); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if want := 0; shift == 0 && found != i || shift != 0 && found != want {
		b.Fatalf("found %d of %d", found, i)
	}
}

// BenchmarkScan measures a full forward scan, in raw bytes per second, from
// a warm cache.
func BenchmarkScan(b *testing.B) {
	for _, set := range benchSets() {
		b.Run(set.name, func(b *testing.B) {
			r := benchReader(b, set.es, DefaultCompression, NewCache(256<<20))
			it := r.NewIter()
			for ok := it.First(); ok; ok = it.Next() { // warm the cache
			}
			it.Close()
			b.SetBytes(rawSize(set.es))
			b.ReportAllocs()
			for b.Loop() {
				it := r.NewIter()
				n := 0
				for ok := it.First(); ok; ok = it.Next() {
					n++
				}
				if err := it.Close(); err != nil || n != len(set.es) {
					b.Fatal(n, err)
				}
			}
		})
	}
}
