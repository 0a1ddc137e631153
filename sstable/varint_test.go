package sstable

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestUvarintMatchesBinary checks the block iterator's uvarint decoding,
// word-at-a-time away from a block's end, against encoding/binary: every
// length, followed by other bytes or by the end, and cut short.
func TestUvarintMatchesBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		buf := binary.AppendUvarint(nil, r.Uint64()>>r.IntN(64))
		for range r.IntN(10) {
			buf = append(buf, byte(r.Uint32()))
		}
		if r.IntN(4) == 0 {
			buf = buf[:r.IntN(len(buf)+1)]
		}
		it := blockIter{data: buf}
		got, p := it.uvarint(0)
		want, n := binary.Uvarint(buf)
		if n <= 0 {
			n = -1 // uvarint's "none"
		}
		if got != want && n > 0 || p != n {
			t.Fatalf("%x: uvarint gives %d at %d, binary.Uvarint %d at %d", buf, got, p, want, n)
		}
	}
}
