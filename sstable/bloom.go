package sstable

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The filter block is a plain Bloom filter over the file's distinct user
// keys: m bits (a multiple of 8), then one byte holding k, the number of
// probes. See doc.go for the false-positive rate.

// hash64 is the filter's hash. It is part of the file format: changing it
// makes every existing filter answer wrongly, so TestHashStable pins it. It
// is a one-lane multiply-rotate hash in the style of MurmurHash3's 64-bit
// mixing, reading 8 bytes at a time.
func hash64(b []byte) uint64 {
	const (
		p1 = 0x9e3779b97f4a7c15
		p2 = 0xc2b2ae3d27d4eb4f
	)
	h := p2 ^ uint64(len(b))*p1
	mix := func(h, v uint64) uint64 {
		v *= p2
		v = bits.RotateLeft64(v, 31)
		v *= p1
		h ^= v
		return bits.RotateLeft64(h, 27)*5 + 0x52dce729
	}
	for len(b) >= 8 {
		h = mix(h, binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	if len(b) > 0 {
		var t uint64
		for i, c := range b {
			t |= uint64(c) << (8 * i)
		}
		h = mix(h, t)
	}
	// MurmurHash3's finaliser, so every input bit reaches every output bit.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// bloomProbes is the number of probes that minimises the false-positive rate
// for a given number of bits per key: bitsPerKey·ln 2, rounded.
func bloomProbes(bitsPerKey int) int {
	return min(max(int(math.Round(float64(bitsPerKey)*math.Ln2)), 1), 30)
}

// buildFilter builds the filter block for the given key hashes.
func buildFilter(hashes []uint64, bitsPerKey int) []byte {
	nbits := uint64(len(hashes)) * uint64(bitsPerKey)
	// The probe arithmetic below maps a 32-bit value onto the bit array, so
	// the array is capped at 2^32 bits (512 MiB, some 400 million keys).
	nbits = min(max(nbits, 64), 1<<32-8)
	nbytes := (nbits + 7) / 8
	f := make([]byte, nbytes+1)
	k := bloomProbes(bitsPerKey)
	f[nbytes] = byte(k)
	m := nbytes * 8
	for _, h := range hashes {
		h1, h2 := uint32(h), uint32(h>>32)
		for range k {
			bit := (uint64(h1) * m) >> 32
			f[bit/8] |= 1 << (bit % 8)
			h1 += h2
		}
	}
	return f
}

// bloomFilter is a decoded filter block; a nil one matches every key.
type bloomFilter struct {
	bits []byte
	m    uint64
	k    int
}

func (f *bloomFilter) mayContain(key []byte) bool {
	if f.bits == nil {
		return true
	}
	h := hash64(key)
	h1, h2 := uint32(h), uint32(h>>32)
	for range f.k {
		bit := (uint64(h1) * f.m) >> 32
		if f.bits[bit/8]&(1<<(bit%8)) == 0 {
			return false
		}
		h1 += h2
	}
	return true
}
