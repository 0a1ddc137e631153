package sstable

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// BenchmarkCompression measures the candidate codecs on whole data blocks of
// the three kinds of rows in gen_test.go. The figures in doc.go come from
//
//	go test -run '^$' -bench Compression ./sstable
//
// "ratio" is raw bytes over compressed bytes; MB/s is of raw bytes.
func BenchmarkCompression(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := []struct {
		name   string
		blocks [][]byte
	}{
		{"pgbench", rawBlocks(pgbenchAccounts(60000))},
		{"random100", rawBlocks(randomValues(40000, rng))},
		{"text", rawBlocks(shortText(60000, rng))},
	}
	zfast, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
	zdef, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
	zdec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	codecs := []struct {
		name string
		enc  func(dst, src []byte) []byte
		dec  func(dst, src []byte) ([]byte, error)
	}{
		{"s2", func(d, s []byte) []byte { return s2.Encode(d[:cap(d)], s) }, s2.Decode},
		{"s2better", func(d, s []byte) []byte { return s2.EncodeBetter(d[:cap(d)], s) }, s2.Decode},
		{"zstd-fastest", func(d, s []byte) []byte { return zfast.EncodeAll(s, d[:0]) },
			func(d, s []byte) ([]byte, error) { return zdec.DecodeAll(s, d[:0]) }},
		{"zstd-default", func(d, s []byte) []byte { return zdef.EncodeAll(s, d[:0]) },
			func(d, s []byte) ([]byte, error) { return zdec.DecodeAll(s, d[:0]) }},
	}
	for _, set := range sets {
		var raw int
		for _, blk := range set.blocks {
			raw += len(blk)
		}
		for _, c := range codecs {
			dst := make([]byte, s2.MaxEncodedLen(64<<10))
			comp := make([][]byte, len(set.blocks))
			var stored int
			for i, blk := range set.blocks {
				comp[i] = bytes.Clone(c.enc(dst, blk))
				stored += len(comp[i])
			}
			b.Run(set.name+"/"+c.name+"/compress", func(b *testing.B) {
				b.SetBytes(int64(raw))
				for b.Loop() {
					for _, blk := range set.blocks {
						c.enc(dst, blk)
					}
				}
				b.ReportMetric(float64(raw)/float64(stored), "ratio")
			})
			b.Run(set.name+"/"+c.name+"/decompress", func(b *testing.B) {
				b.SetBytes(int64(raw))
				out := make([]byte, 64<<10)
				for b.Loop() {
					for i, cb := range comp {
						got, err := c.dec(out, cb)
						if err != nil || len(got) != len(set.blocks[i]) {
							b.Fatal("decode failed", err)
						}
					}
				}
			})
		}
	}
}

// blockTypes returns the trailer type byte of every data block of r.
func blockTypes(t *testing.T, r *Reader) map[byte]int {
	t.Helper()
	types := map[byte]int{}
	for _, e := range r.index {
		var b [1]byte
		if _, err := r.f.ReadAt(b[:], int64(e.handle.offset+e.handle.length)); err != nil {
			t.Fatal(err)
		}
		types[b[0]]++
	}
	return types
}

func TestCompressionChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []Compression{S2Compression, ZstdCompression, DefaultCompression} {
		typ := map[Compression]byte{S2Compression: blockS2, ZstdCompression: blockZstd,
			DefaultCompression: map[Compression]byte{S2Compression: blockS2, ZstdCompression: blockZstd}[defaultCompression]}[c]
		t.Run(c.String(), func(t *testing.T) {
			fs := vfs.NewMem()
			writeTable(t, fs, "random.sst", randomValues(3000, rng), WriterOptions{Compression: c})
			writeTable(t, fs, "pgbench.sst", pgbenchAccounts(3000), WriterOptions{Compression: c})
			r := openTable(t, fs, "random.sst", 1, nil)
			if got := blockTypes(t, r); len(got) != 1 || got[blockRaw] == 0 {
				t.Errorf("incompressible rows: block types %v, want all raw", got)
			}
			if p := r.Properties(); p.DataBytes < p.RawValueBytes {
				t.Errorf("incompressible rows stored in %d bytes, less than their %d value bytes", p.DataBytes, p.RawValueBytes)
			}
			r = openTable(t, fs, "pgbench.sst", 2, nil)
			if got := blockTypes(t, r); len(got) != 1 || got[typ] == 0 {
				t.Errorf("pgbench rows: block types %v, want all %d", got, typ)
			}
			if p := r.Properties(); p.DataBytes*5 > p.RawKeyBytes+p.RawValueBytes {
				t.Errorf("pgbench rows: %d bytes stored for %d raw", p.DataBytes, p.RawKeyBytes+p.RawValueBytes)
			}
		})
	}
}

// TestCompressionThreshold checks the 12.5% rule on blocks whose
// compressibility is dialled from none to a lot: a block is stored
// compressed exactly when that saves at least an eighth of it.
func TestCompressionThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n = 32 << 10
	for _, c := range []Compression{S2Compression, ZstdCompression} {
		var sawRaw, sawCompressed bool
		for pct := 0; pct <= 40; pct++ {
			raw := make([]byte, n)
			for i := range raw[:n*(100-pct)/100] {
				raw[i] = byte(rng.Uint32())
			}
			stored, typ, _ := compressBlock(c, raw, nil)
			var alone []byte
			if c == S2Compression {
				alone = s2.Encode(nil, raw)
			} else {
				alone = zstdEncoder().EncodeAll(raw, nil)
			}
			pays := len(alone) <= n-n/8
			switch {
			case pays && (typ == blockRaw || len(stored) != len(alone)):
				t.Errorf("%s, %d%% zeros: %d → %d bytes pays but was stored as type %d", c, pct, n, len(alone), typ)
			case !pays && (typ != blockRaw || !bytes.Equal(stored, raw)):
				t.Errorf("%s, %d%% zeros: %d → %d bytes does not pay but was stored as type %d", c, pct, n, len(alone), typ)
			}
			if pct <= 5 && typ != blockRaw || pct >= 25 && typ == blockRaw {
				t.Errorf("%s, %d%% zeros: type %d", c, pct, typ)
			}
			sawRaw = sawRaw || typ == blockRaw
			sawCompressed = sawCompressed || typ != blockRaw
			if typ != blockRaw {
				back, err := decompressBlock(typ, stored)
				if err != nil || !bytes.Equal(back, raw) {
					t.Fatalf("%s: round trip failed: %v", c, err)
				}
			}
		}
		if !sawRaw || !sawCompressed {
			t.Errorf("%s: the dial never crossed the threshold", c)
		}
	}
}
