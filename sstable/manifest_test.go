package sstable

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
)

const mdir = "/db"

func newManifestFS(t *testing.T) *vfs.MemFS {
	fs := vfs.NewMem()
	if err := fs.MkdirAll(mdir, 0o755); err != nil {
		t.Fatal(err)
	}
	return fs
}

func meta(num uint64, lo, hi string) *FileMeta {
	return &FileMeta{Num: num, Size: 100, SmallestKey: []byte(lo), LargestKey: []byte(hi),
		SmallestSeq: num * 10, LargestSeq: num*10 + 9, Entries: 3, Unresolved: []uint64{num + 100}}
}

func mustApply(t *testing.T, m *Manifest, e *Edit) *State {
	t.Helper()
	st, err := m.Apply(e)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func sameState(a, b *State) bool {
	return reflect.DeepEqual(a.Version, b.Version) && a.LogNum == b.LogNum && a.LastSeq == b.LastSeq &&
		a.NextTxn == b.NextTxn && a.LastTS == b.LastTS && reflect.DeepEqual(a.Commits, b.Commits)
}

// Every published edit survives a crash, and reopening yields the state
// the last one left.
func TestManifestSurvivesCrash(t *testing.T) {
	fs := newManifestFS(t)
	m, _, err := OpenManifest(fs, mdir)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, m, &Edit{Added: []AddedFile{{0, meta(5, "a", "m")}}, LogNum: 3, LastSeq: 59, NextTxn: 7, LastTS: 1000,
		Commits: []Commit{{105, 990}}})
	mustApply(t, m, &Edit{Added: []AddedFile{{0, meta(6, "c", "z")}}, LastSeq: 69})
	want := mustApply(t, m, &Edit{Deleted: []DeletedFile{{0, 5}, {0, 6}},
		Added: []AddedFile{{1, meta(7, "a", "k")}, {1, meta(8, "l", "z")}}, Forgotten: []uint64{105}})
	_, got, err := OpenManifest(fs.CrashClone(vfs.CrashOptions{}), mdir)
	if err != nil {
		t.Fatal(err)
	}
	if !sameState(got, want) {
		t.Fatalf("after a crash the manifest reads\n%+v\nwant\n%+v", got, want)
	}
	if got.NextFileNum <= 8 {
		t.Fatalf("NextFileNum %d would reuse a file number", got.NextFileNum)
	}
}

// An edit counts only once CURRENT points past it: a crash at any step of
// Apply leaves either the old state or the new one, never a third.
func TestManifestEditIsAtomic(t *testing.T) {
	ops := []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpCreate, vfs.OpRename, vfs.OpSyncDir}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		fs := newManifestFS(t)
		ffs := vfs.NewFaulty(fs)
		m, _, err := OpenManifest(ffs, mdir)
		if err != nil {
			t.Fatal(err)
		}
		before := mustApply(t, m, &Edit{Added: []AddedFile{{0, meta(5, "a", "m")}}})
		edit := &Edit{Added: []AddedFile{{0, meta(6, "b", "c")}}, LogNum: 9}
		want, err := before.apply(edit)
		if err != nil {
			t.Fatal(err)
		}
		op := ops[rng.IntN(len(ops))]
		ffs.FailAfter(op, rng.IntN(2))
		_, applyErr := m.Apply(edit)
		_, got, err := OpenManifest(fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: true}), mdir)
		switch {
		case err != nil:
			t.Fatalf("seed %d (%s fails): reopening: %v", seed, op, err)
		case applyErr == nil && !sameState(got, want):
			t.Fatalf("seed %d: Apply succeeded but a crash lost its edit", seed)
		case !sameState(got, before) && !sameState(got, want):
			t.Fatalf("seed %d (%s fails, Apply: %v): reopened state %+v is neither the old nor the new one", seed, op, applyErr, got.Version)
		}
	}
}

// A large history rolls over to a new manifest that starts from a
// snapshot; the old one is removed and the state is unchanged.
func TestManifestRollover(t *testing.T) {
	fs := newManifestFS(t)
	m, _, err := OpenManifest(fs, mdir)
	if err != nil {
		t.Fatal(err)
	}
	first := m.Name()
	var st *State
	key := bytes.Repeat([]byte("k"), 1000)
	for i := range uint64(3000) {
		st = mustApply(t, m, &Edit{Commits: []Commit{{i + 1, i + 1000}}, LastSeq: i,
			Added: []AddedFile{{0, &FileMeta{Num: 1000 + i, SmallestKey: key, LargestKey: key}}}})
		if i > 0 {
			st = mustApply(t, m, &Edit{Deleted: []DeletedFile{{0, 1000 + i - 1}}, Forgotten: []uint64{i}})
		}
	}
	if m.Name() == first {
		t.Fatal("the manifest never rolled over")
	}
	names, _ := fs.List(mdir)
	if len(m.Obsolete(names)) != 0 {
		t.Fatalf("files left behind after rollover: %v", m.Obsolete(names))
	}
	_, got, err := OpenManifest(fs.CrashClone(vfs.CrashOptions{}), mdir)
	if err != nil || !sameState(got, st) {
		t.Fatalf("reopened after rollover: %v, state %+v, want %+v", err, got, st)
	}
}

// A damaged pointer or manifest refuses to open, with ErrCorruptManifest,
// rather than guess which files are live.
func TestManifestDamageIsRefused(t *testing.T) {
	setup := func(t *testing.T) (*vfs.MemFS, string) {
		fs := newManifestFS(t)
		m, _, err := OpenManifest(fs, mdir)
		if err != nil {
			t.Fatal(err)
		}
		mustApply(t, m, &Edit{Added: []AddedFile{{0, meta(5, "a", "m")}}})
		mustApply(t, m, &Edit{Added: []AddedFile{{0, meta(6, "b", "n")}}})
		return fs, fs.PathJoin(mdir, m.Name())
	}
	rewrite := func(t *testing.T, fs *vfs.MemFS, name string, edit func([]byte) []byte) {
		f, err := fs.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		b := make([]byte, st.Size())
		_, _ = f.ReadAt(b, 0)
		_ = f.Close()
		b = edit(b)
		g, _ := fs.Create(name)
		_, _ = g.Write(b)
		_ = g.Sync()
		_ = g.Close()
	}
	cases := []struct {
		name string
		harm func(t *testing.T, fs *vfs.MemFS, manifest string)
	}{
		{"bit flip in an edit", func(t *testing.T, fs *vfs.MemFS, mf string) {
			rewrite(t, fs, mf, func(b []byte) []byte { b[len(b)-3] ^= 0x40; return b })
		}},
		{"manifest shorter than published", func(t *testing.T, fs *vfs.MemFS, mf string) {
			rewrite(t, fs, mf, func(b []byte) []byte { return b[:len(b)-5] })
		}},
		{"manifest missing", func(t *testing.T, fs *vfs.MemFS, mf string) { _ = fs.Remove(mf) }},
		{"CURRENT garbled", func(t *testing.T, fs *vfs.MemFS, mf string) {
			rewrite(t, fs, fs.PathJoin(mdir, currentName), func(b []byte) []byte { b[len(b)-4] ^= 1; return b })
		}},
		{"CURRENT missing beside sstables", func(t *testing.T, fs *vfs.MemFS, mf string) {
			_ = fs.Remove(fs.PathJoin(mdir, currentName))
			f, _ := fs.Create(fs.PathJoin(mdir, FileName(5)))
			_ = f.Close()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, mf := setup(t)
			c.harm(t, fs, mf)
			_, _, err := OpenManifest(fs, mdir)
			if !errors.Is(err, ErrCorruptManifest) {
				t.Fatalf("OpenManifest = %v, want ErrCorruptManifest", err)
			}
			if !bytes.Contains([]byte(fmt.Sprint(err)), []byte(mdir)) {
				t.Fatalf("error %q does not name the damaged file", err)
			}
		})
	}
}

// An edit that would leave a level overlapping, or delete a file the tree
// lacks, is refused before anything is written.
func TestManifestRefusesBadEdits(t *testing.T) {
	fs := newManifestFS(t)
	m, _, err := OpenManifest(fs, mdir)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, m, &Edit{Added: []AddedFile{{1, meta(5, "a", "m")}}})
	for _, e := range []*Edit{
		{Added: []AddedFile{{1, meta(6, "k", "z")}}},
		{Deleted: []DeletedFile{{1, 9}}},
		{Added: []AddedFile{{0, meta(5, "a", "b")}}},
	} {
		if _, err := m.Apply(e); err == nil {
			t.Fatalf("edit %+v was accepted", e)
		}
	}
}
