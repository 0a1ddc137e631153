package sstable

import (
	"bytes"
	"math/rand/v2"
	"testing"

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
