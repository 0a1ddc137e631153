package sstable

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// TestHashStable pins the filter hash: it is part of the file format.
func TestHashStable(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0xff2e69699c4857e},
		{"a", 0x6a33df41621ce463},
		{"epochdb", 0x49a5ff0b56d74360},
		{"0123456789abcdef", 0xe4ae801ff22a89fc},
		{"a key that is longer than sixteen bytes", 0xb1f6cb69ef5c1c02},
	} {
		if got := hash64([]byte(tc.in)); got != tc.want {
			t.Errorf("hash64(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func filterKey(i uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte("user"), i)
}

func bloomTheory(bitsPerKey int) float64 {
	k := float64(bloomProbes(bitsPerKey))
	return math.Pow(1-math.Exp(-k/float64(bitsPerKey)), k)
}

// TestBloomRate checks that the filter has no false negatives and that its
// false-positive rate is close to (1-e^(-k/b))^k for b bits per key.
func TestBloomRate(t *testing.T) {
	const n, probes = 50000, 400000
	for _, bpk := range []int{4, 10, 16} {
		hashes := make([]uint64, n)
		for i := range hashes {
			hashes[i] = hash64(filterKey(uint64(i)))
		}
		data := buildFilter(hashes, bpk)
		f := bloomFilter{bits: data[:len(data)-1], m: uint64(len(data)-1) * 8, k: int(data[len(data)-1])}
		for i := range uint64(n) {
			if !f.mayContain(filterKey(i)) {
				t.Fatalf("%d bits/key: false negative for key %d", bpk, i)
			}
		}
		fp := 0
		for i := range uint64(probes) {
			if f.mayContain(filterKey(n + i)) {
				fp++
			}
		}
		got, want := float64(fp)/probes, bloomTheory(bpk)
		t.Logf("%d bits/key, k=%d: false-positive rate %.4f%%, theory %.4f%%", bpk, f.k, 100*got, 100*want)
		if got < want*0.8 || got > want*1.2 {
			t.Errorf("%d bits/key: false-positive rate %.4f, theory %.4f", bpk, got, want)
		}
	}
}

// TestMayContain checks the filter end to end through a file, on distinct
// user keys with several versions each.
func TestMayContain(t *testing.T) {
	var es []Entry
	for i := range uint64(20000) {
		for v := range uint64(3) {
			es = append(es, Entry{Key: filterKey(2 * i), Seq: 10 - v, Kind: KindTombstone, TS: 1})
		}
	}
	fs := vfs.NewMem()
	writeTable(t, fs, "f.sst", es, WriterOptions{})
	r := openTable(t, fs, "f.sst", 1, nil)
	if fb := r.Properties().FilterBytes; fb > 20000*10/8+64 {
		t.Errorf("filter of %d bytes for 20000 distinct keys: versions were counted", fb)
	}
	fp := 0
	for i := range uint64(20000) {
		if !r.MayContain(filterKey(2 * i)) {
			t.Fatalf("false negative for key %d", 2*i)
		}
		if r.MayContain(filterKey(2*i + 1)) {
			fp++
		}
	}
	if rate := float64(fp) / 20000; rate > 2*bloomTheory(10) {
		t.Errorf("false-positive rate %.4f through the file", rate)
	}
	writeTable(t, fs, "nofilter.sst", es, WriterOptions{BloomBitsPerKey: -1})
	r = openTable(t, fs, "nofilter.sst", 2, nil)
	if !r.MayContain([]byte("absent")) || r.Properties().FilterBytes != 0 {
		t.Error("a file without a filter must admit every key")
	}
}
