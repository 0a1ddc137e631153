package sstable

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// TestMergingIter splits a model across several files and merges them back.
func TestMergingIter(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	model := randomEntries(rng, 2000)
	fs := vfs.NewMem()
	const n = 4
	parts := make([][]Entry, n)
	for _, e := range model {
		i := rng.IntN(n - 1) // the last source stays empty
		parts[i] = append(parts[i], e)
	}
	var iters []InternalIterator
	for i, p := range parts {
		name := fmt.Sprintf("%d.sst", i)
		writeTable(t, fs, name, p, WriterOptions{BlockSize: 2048})
		iters = append(iters, openTable(t, fs, name, uint64(i), nil).NewIter())
	}
	m := NewMergingIter(iters...)
	i := 0
	for ok := m.First(); ok; ok = m.Next() {
		if !sameEntry(m.Entry(), &model[i]) {
			t.Fatalf("entry %d: %s, want %s", i, entryString(m.Entry()), entryString(&model[i]))
		}
		i++
	}
	if i != len(model) || m.Err() != nil {
		t.Fatalf("merged %d of %d entries: %v", i, len(model), m.Err())
	}
	for range 200 {
		probe := randomKeys(rng, 1)[0]
		if rng.IntN(2) == 0 {
			probe = model[rng.IntN(len(model))].Key
		}
		i := 0
		for i < len(model) && string(model[i].Key) < string(probe) {
			i++
		}
		ok := m.SeekGE(probe)
		for step := 0; step < 10 && i < len(model); step++ {
			if !ok || !sameEntry(m.Entry(), &model[i]) {
				t.Fatalf("SeekGE(%x)+%d: %s, want %s", probe, step, entryString(m.Entry()), entryString(&model[i]))
			}
			ok = m.Next()
			i++
		}
		if i == len(model) && ok {
			t.Fatalf("SeekGE(%x) ran past the end", probe)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMergingIterTies checks that equal (Key, Seq) entries from two sources
// both appear, the earlier source's first.
func TestMergingIterTies(t *testing.T) {
	fs := vfs.NewMem()
	for _, v := range []string{"first", "second"} {
		writeTable(t, fs, v, []Entry{{Key: []byte("k"), Seq: 1, Kind: KindValue, TS: 1, Value: []byte(v)}}, WriterOptions{})
	}
	m := NewMergingIter(openTable(t, fs, "second", 2, nil).NewIter(), openTable(t, fs, "first", 1, nil).NewIter())
	var got []string
	for ok := m.First(); ok; ok = m.Next() {
		got = append(got, string(m.Entry().Value))
	}
	if fmt.Sprint(got) != "[second first]" {
		t.Fatalf("got %v", got)
	}
}

// TestMergingIterStopsOnCorruption checks that a damaged source stops the
// merge instead of being skipped.
func TestMergingIterStopsOnCorruption(t *testing.T) {
	fs := vfs.NewMem()
	model, good := corruptFixture(t, fs)
	r := openTable(t, fs, "good.sst", 1, nil)
	bad := append([]byte(nil), good...)
	bad[r.index[3].handle.offset] ^= 1
	writeFile(t, fs, "bad.sst", bad)
	var other []Entry
	for _, e := range model {
		e.Key = append([]byte("z"), e.Key...) // sorts after every key of bad.sst
		other = append(other, e)
	}
	writeTable(t, fs, "other.sst", other, WriterOptions{})
	m := NewMergingIter(openTable(t, fs, "other.sst", 2, nil).NewIter(), openTable(t, fs, "bad.sst", 3, nil).NewIter())
	n := 0
	for ok := m.First(); ok; ok = m.Next() {
		n++
	}
	var ce *CorruptionError
	if !errors.As(m.Err(), &ce) || ce.File != "bad.sst" || n >= len(model) {
		t.Fatalf("after %d entries: %v", n, m.Err())
	}
	if err := m.Close(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Close: %v", err)
	}
}

// TestKeyStep checks the Step that Next reports, alone and merged: a
// known step must agree with comparing the keys, since a scan groups a
// key's versions by it. It also checks that a file's walk knows the step
// for most moves, or the scan would compare keys after all.
func TestKeyStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	model := randomEntries(rng, 3000)
	fs := vfs.NewMem()
	writeTable(t, fs, "all.sst", model, WriterOptions{BlockSize: 1024})
	parts := make([][]Entry, 3)
	for _, e := range model {
		i := rng.IntN(len(parts))
		parts[i] = append(parts[i], e)
	}
	var iters []InternalIterator
	for i, p := range parts {
		name := fmt.Sprintf("%d.sst", i)
		writeTable(t, fs, name, p, WriterOptions{BlockSize: 1024})
		iters = append(iters, openTable(t, fs, name, uint64(i+1), nil).NewIter())
	}
	walk := func(name string, it InternalIterator, step func() KeyStep) (known int) {
		var prev []byte
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			e := it.Entry()
			if n > 0 {
				switch s := step(); {
				case s == StepSameKey && string(e.Key) != string(prev),
					s == StepNewKey && string(e.Key) == string(prev):
					t.Fatalf("%s: entry %d (%x after %x): step %d", name, n, e.Key, prev, s)
				case s != StepUnknown:
					known++
				}
			}
			prev = append(prev[:0], e.Key...)
			n++
		}
		if n != len(model) && name != "part" {
			t.Fatalf("%s: walked %d of %d entries", name, n, len(model))
		}
		return known
	}
	file := openTable(t, fs, "all.sst", 0, nil).NewIter()
	if known := walk("file", file, func() KeyStep { return file.Entry().Step }); known < len(model)*3/4 {
		t.Errorf("a file's walk knew the step of %d of %d moves", known, len(model))
	}
	m := NewMergingIter(iters...)
	walk("merge", m, m.Step)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}
