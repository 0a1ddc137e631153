package sstable

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
)

// NumLevels is the number of levels of the tree: L0 holds flushed files,
// which may overlap; each deeper level holds files with disjoint key ranges.
const NumLevels = 7

// FileMeta describes one live sstable: what the manifest records of it, so
// that a reader (or a new replica) learns the tree's shape without opening
// a file.
type FileMeta struct {
	Num                     uint64
	Size                    int64
	SmallestKey, LargestKey []byte
	SmallestSeq, LargestSeq uint64
	MinTS, MaxTS            uint64
	Entries, Tombstones     uint64
	// Unresolved lists the transactions with provisional versions in the
	// file; their outcomes must stay known while the file lives.
	Unresolved []uint64
	// Shadowed counts the bytes (keys and values, uncompressed) of
	// versions in the file under a newer committed version of their key in
	// the same file: what compaction drops once no snapshot needs them.
	// RawBytes counts all of them, so that Shadowed/RawBytes is the share
	// of the file that is garbage.
	Shadowed, RawBytes int64
}

// FileName is the name of sstable num. Names are never reused, so a file's
// name identifies its contents for as long as it exists, on any replica.
func FileName(num uint64) string { return fmt.Sprintf("%06d.sst", num) }

// ParseFileName returns the number of an sstable's file name.
func ParseFileName(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, ".sst")
	if !ok || len(digits) < 6 {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return n, err == nil
}

func manifestName(num uint64) string { return fmt.Sprintf("MANIFEST-%06d", num) }

func parseManifestName(name string) (uint64, bool) {
	digits, ok := strings.CutPrefix(name, "MANIFEST-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return n, err == nil
}

// Edit is one change to the tree, applied atomically: files added and
// removed, the counters that must never move back, and the outcomes of
// transactions whose provisional versions are in files. A zero counter
// leaves the counter as it was.
type Edit struct {
	NextFileNum uint64
	// LogNum is the oldest log segment still needed: every segment below
	// it holds nothing that the files lack.
	LogNum  uint64
	LastSeq uint64
	NextTxn uint64
	LastTS  uint64

	Added   []AddedFile
	Deleted []DeletedFile
	// Commits are transactions committed at a timestamp whose versions in
	// files are still unresolved; Forgotten are those none is left of. A
	// transaction with unresolved versions and no commit here or in the
	// log never committed.
	Commits   []Commit
	Forgotten []uint64
}

// AddedFile puts a file at a level.
type AddedFile struct {
	Level int
	Meta  *FileMeta
}

// DeletedFile takes a file out of a level.
type DeletedFile struct {
	Level int
	Num   uint64
}

// Commit is one transaction's durable outcome.
type Commit struct{ Txn, TS uint64 }

// Version is one immutable shape of the tree. L0's files are ordered
// newest first (by LargestSeq), every other level's by SmallestKey.
type Version struct {
	Levels [NumLevels][]*FileMeta
}

// State is everything the manifest records, as of its last edit.
type State struct {
	Version     *Version
	NextFileNum uint64
	LogNum      uint64
	LastSeq     uint64
	NextTxn     uint64
	LastTS      uint64
	// Commits maps each transaction with unresolved versions in files that
	// committed (as far as the manifest knows) to its commit timestamp.
	Commits map[uint64]uint64
}

func (st *State) clone() *State {
	c := *st
	c.Commits = maps.Clone(st.Commits)
	return &c
}

// apply returns the state after e, or an error if e does not fit st (a
// file added twice, or removed where it is not).
func (st *State) apply(e *Edit) (*State, error) {
	n := st.clone()
	for _, p := range []struct {
		dst *uint64
		v   uint64
	}{{&n.NextFileNum, e.NextFileNum}, {&n.LogNum, e.LogNum}, {&n.LastSeq, e.LastSeq}, {&n.NextTxn, e.NextTxn}, {&n.LastTS, e.LastTS}} {
		if p.v != 0 {
			*p.dst = max(*p.dst, p.v)
		}
	}
	v := &Version{}
	if st.Version != nil {
		*v = *st.Version
	}
	for _, d := range e.Deleted {
		if d.Level < 0 || d.Level >= NumLevels {
			return nil, errors.Newf("edit deletes file %d from level %d, which does not exist", d.Num, d.Level)
		}
		i := slices.IndexFunc(v.Levels[d.Level], func(f *FileMeta) bool { return f.Num == d.Num })
		if i < 0 {
			return nil, errors.Newf("edit deletes file %d from level %d, which does not hold it", d.Num, d.Level)
		}
		v.Levels[d.Level] = slices.Delete(slices.Clone(v.Levels[d.Level]), i, i+1)
	}
	for _, a := range e.Added {
		if a.Level < 0 || a.Level >= NumLevels {
			return nil, errors.Newf("edit adds file %d to level %d, which does not exist", a.Meta.Num, a.Level)
		}
		for _, files := range v.Levels {
			if slices.ContainsFunc(files, func(f *FileMeta) bool { return f.Num == a.Meta.Num }) {
				return nil, errors.Newf("edit adds file %d, which the tree already holds", a.Meta.Num)
			}
		}
		v.Levels[a.Level] = append(slices.Clone(v.Levels[a.Level]), a.Meta)
		n.NextFileNum = max(n.NextFileNum, a.Meta.Num+1)
	}
	slices.SortFunc(v.Levels[0], func(a, b *FileMeta) int { return -cmpUint(a.LargestSeq, b.LargestSeq) })
	for l := 1; l < NumLevels; l++ {
		files := v.Levels[l]
		slices.SortFunc(files, func(a, b *FileMeta) int { return bytes.Compare(a.SmallestKey, b.SmallestKey) })
		for i := 1; i < len(files); i++ {
			if bytes.Compare(files[i-1].LargestKey, files[i].SmallestKey) >= 0 {
				return nil, errors.Newf("edit leaves files %d and %d overlapping in level %d", files[i-1].Num, files[i].Num, l)
			}
		}
	}
	n.Version = v
	for _, c := range e.Commits {
		n.Commits[c.Txn] = c.TS
	}
	for _, t := range e.Forgotten {
		delete(n.Commits, t)
	}
	return n, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// snapshot is the edit that builds st from nothing: the first record of a
// new manifest.
func (st *State) snapshot() *Edit {
	e := &Edit{NextFileNum: st.NextFileNum, LogNum: st.LogNum, LastSeq: st.LastSeq, NextTxn: st.NextTxn, LastTS: st.LastTS}
	for l, files := range st.Version.Levels {
		for _, f := range files {
			e.Added = append(e.Added, AddedFile{Level: l, Meta: f})
		}
	}
	for _, t := range slices.Sorted(maps.Keys(st.Commits)) {
		e.Commits = append(e.Commits, Commit{Txn: t, TS: st.Commits[t]})
	}
	return e
}

// ErrCorruptManifest marks a CURRENT pointer or manifest that cannot be
// read: the store refuses to open rather than guess which files are live.
var ErrCorruptManifest = errors.New("sstable: manifest is damaged")

const (
	currentName = "CURRENT"
	// A new manifest is started, from a snapshot, once the current one
	// passes this size, so that opening never replays a long history.
	manifestRollover = 4 << 20
)

// Manifest is the durable record of which files make up the tree. It is an
// append-only file of edits plus one pointer, CURRENT, that names the
// manifest and the length of it that counts:
//
//	CURRENT:  MANIFEST-000012 4711 3f1c09a2\n     (name, length, CRC-32C of the two)
//
// Apply appends an edit and fsyncs it, then writes a new CURRENT beside the
// old one, fsyncs it, renames it over the old one and fsyncs the
// directory. The rename is the one pointer move that publishes the edit:
// bytes of the manifest beyond the length CURRENT names are physically there
// after a crash and still never read, so a torn edit needs no repair and
// every byte below the length must be valid — any damage there is
// corruption, never guessed around. A Manifest is not safe for concurrent
// use; the store serializes its edits.
type Manifest struct {
	fs   vfs.FS
	dir  string
	f    vfs.File
	num  uint64
	size int64
	st   *State
}

// OpenManifest reads the manifest that dir's CURRENT names, or creates an
// empty one if dir has no CURRENT. It returns the state as of the last
// published edit.
func OpenManifest(fs vfs.FS, dir string) (*Manifest, *State, error) {
	name, length, err := readCurrent(fs, dir)
	if errors.Is(err, errNoCurrent) {
		// A manifest without CURRENT was never published, but an sstable
		// is written only after a manifest was: without the pointer, which
		// files are live cannot be known.
		names, err := fs.List(dir)
		if err != nil {
			return nil, nil, err
		}
		if i := slices.IndexFunc(names, func(n string) bool { _, ok := ParseFileName(n); return ok }); i >= 0 {
			return nil, nil, errors.Mark(errors.Newf("%s holds sstable %s but no CURRENT manifest pointer", dir, names[i]), ErrCorruptManifest)
		}
		st := &State{Version: &Version{}, NextFileNum: 1, Commits: map[uint64]uint64{}}
		m := &Manifest{fs: fs, dir: dir, st: st}
		if err := m.rollover(); err != nil {
			return nil, nil, err
		}
		return m, st, nil
	}
	if err != nil {
		return nil, nil, err
	}
	num, ok := parseManifestName(name)
	if !ok {
		return nil, nil, errors.Mark(errors.Newf("CURRENT names %q, which is not a manifest", name), ErrCorruptManifest)
	}
	st, err := replayManifest(fs, fs.PathJoin(dir, name), length)
	if err != nil {
		return nil, nil, err
	}
	// Edits go to a new manifest, begun with a snapshot: what a crash left
	// past the published length of the old one is never read again.
	m := &Manifest{fs: fs, dir: dir, num: num, st: st}
	if err := m.rollover(); err != nil {
		return nil, nil, err
	}
	return m, st, nil
}

// ReadManifest returns the state that dir's manifest publishes, without
// changing anything: for tools that inspect a database, running or not.
func ReadManifest(fs vfs.FS, dir string) (*State, error) {
	name, length, err := readCurrent(fs, dir)
	if err != nil {
		return nil, err
	}
	return replayManifest(fs, fs.PathJoin(dir, name), length)
}

// State returns the state as of the last applied edit.
func (m *Manifest) State() *State { return m.st }

// FileNum is the manifest's own file number.
func (m *Manifest) FileNum() uint64 { return m.num }

// Name is the manifest's file name.
func (m *Manifest) Name() string { return manifestName(m.num) }

// Apply makes e durable and published, in the order the type's comment
// gives, and returns the new state. If it fails, the edit may or may not
// survive a crash, and the caller must stop making edits: the store
// fail-stops, as it does on a failed fsync of the log.
func (m *Manifest) Apply(e *Edit) (*State, error) {
	st, err := m.st.apply(e)
	if err != nil {
		return nil, errors.Wrap(err, "sstable: refusing a manifest edit")
	}
	if m.size >= manifestRollover {
		m.st = st
		return st, m.rollover()
	}
	rec := appendRecord(nil, e)
	if _, err := m.f.Write(rec); err != nil {
		return nil, err
	}
	if err := m.f.Sync(); err != nil {
		return nil, err
	}
	if err := writeCurrent(m.fs, m.dir, manifestName(m.num), m.size+int64(len(rec))); err != nil {
		return nil, err
	}
	m.size += int64(len(rec))
	m.st = st
	return st, nil
}

// rollover starts a new manifest holding a snapshot of m.st, points CURRENT
// at it, and removes the old one.
func (m *Manifest) rollover() error {
	num := m.st.NextFileNum
	m.st.NextFileNum++
	rec := appendRecord(nil, m.st.snapshot())
	name := m.fs.PathJoin(m.dir, manifestName(num))
	f, err := m.fs.Create(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(rec); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	// The new file's directory entry is made durable by writeCurrent's
	// SyncDir, before anything could follow the pointer to it.
	if err := writeCurrent(m.fs, m.dir, manifestName(num), int64(len(rec))); err != nil {
		_ = f.Close()
		return err
	}
	old, oldNum := m.f, m.num
	m.f, m.num, m.size = f, num, int64(len(rec))
	if old != nil {
		_ = old.Close()
	}
	if oldNum != 0 {
		// Nothing points at it any more; a crash before this line leaves
		// it for Obsolete to list.
		_ = m.fs.Remove(m.fs.PathJoin(m.dir, manifestName(oldNum)))
	}
	return nil
}

// Close closes the manifest file.
func (m *Manifest) Close() error {
	if m.f == nil {
		return nil
	}
	return m.f.Close()
}

// Obsolete lists the files in dir that no published state refers to:
// sstables outside st's version, manifests other than m's, and temporary
// files a crash left behind. They are safe to delete once the store is
// open, since nothing references them.
func (m *Manifest) Obsolete(names []string) []string {
	live := make(map[uint64]bool)
	for _, files := range m.st.Version.Levels {
		for _, f := range files {
			live[f.Num] = true
		}
	}
	var out []string
	for _, name := range names {
		if n, ok := ParseFileName(name); ok && !live[n] {
			out = append(out, name)
		} else if n, ok := parseManifestName(name); ok && n != m.num {
			out = append(out, name)
		} else if strings.HasSuffix(name, ".sst.tmp") || name == currentName+".tmp" {
			out = append(out, name)
		}
	}
	return out
}

var errNoCurrent = errors.New("sstable: no CURRENT file")

// readCurrent parses CURRENT: the manifest's name and the length of it
// that is published.
func readCurrent(fs vfs.FS, dir string) (string, int64, error) {
	f, err := fs.Open(fs.PathJoin(dir, currentName))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", 0, errNoCurrent
		}
		return "", 0, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", 0, err
	}
	bad := func(why string) error {
		return errors.Mark(errors.Newf("%s: %s (%q)", fs.PathJoin(dir, currentName), why, b), ErrCorruptManifest)
	}
	fields := strings.Fields(string(b))
	if len(fields) != 3 || !strings.HasSuffix(string(b), "\n") {
		return "", 0, bad("not a manifest pointer")
	}
	length, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil || length < 0 {
		return "", 0, bad("bad length")
	}
	sum, err := strconv.ParseUint(fields[2], 16, 32)
	if err != nil || uint32(sum) != currentCRC(fields[0], length) {
		return "", 0, bad("checksum mismatch")
	}
	return fields[0], length, nil
}

func currentCRC(name string, length int64) uint32 {
	return crc32.Checksum([]byte(name+" "+strconv.FormatInt(length, 10)), castagnoli)
}

// writeCurrent points CURRENT at the first length bytes of manifest name:
// write a temporary file, fsync it, rename it over CURRENT, fsync the
// directory.
func writeCurrent(fs vfs.FS, dir, name string, length int64) error {
	tmp := fs.PathJoin(dir, currentName+".tmp")
	f, err := fs.Create(tmp)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s %d %08x\n", name, length, currentCRC(name, length))
	if _, err := f.Write([]byte(line)); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := fs.Rename(tmp, fs.PathJoin(dir, currentName)); err != nil {
		return err
	}
	return fs.SyncDir(dir)
}

// replayManifest reads the first length bytes of the manifest at path and
// applies its edits. Every record in them must be whole and valid.
func replayManifest(fs vfs.FS, path string, length int64) (*State, error) {
	f, err := fs.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.Mark(errors.Newf("CURRENT names %s, which does not exist", path), ErrCorruptManifest)
		}
		return nil, err
	}
	defer f.Close()
	data := make([]byte, length)
	if n, err := f.ReadAt(data, 0); int64(n) < length {
		return nil, errors.Mark(errors.Newf("%s holds %d bytes, but CURRENT publishes %d (%v)", path, n, length, err), ErrCorruptManifest)
	}
	st := &State{Version: &Version{}, Commits: map[uint64]uint64{}}
	for off := 0; off < len(data); {
		e, n, err := decodeRecord(data[off:])
		if err != nil {
			return nil, errors.Mark(errors.Wrapf(err, "%s at offset %d", path, off), ErrCorruptManifest)
		}
		if st, err = st.apply(e); err != nil {
			return nil, errors.Mark(errors.Wrapf(err, "%s at offset %d", path, off), ErrCorruptManifest)
		}
		off += n
	}
	return st, nil
}

// A manifest record is framed as
//
//	+---------+---------+--------------------+
//	| CRC-32C | length  | edit (length B)    |
//	+---------+---------+--------------------+
//
// and the edit is a sequence of tagged fields, each a uvarint tag followed
// by uvarints and length-prefixed byte strings. An unknown tag is an error:
// a manifest from a newer format must not be half-understood.
const (
	tagNextFileNum = 1 + iota
	tagLogNum
	tagLastSeq
	tagNextTxn
	tagLastTS
	tagAdded
	tagDeleted
	tagCommit
	tagForgotten
)

func appendRecord(buf []byte, e *Edit) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, 8)...)
	u := func(v uint64) { buf = binary.AppendUvarint(buf, v) }
	bs := func(b []byte) { u(uint64(len(b))); buf = append(buf, b...) }
	for _, c := range []struct {
		tag int
		v   uint64
	}{{tagNextFileNum, e.NextFileNum}, {tagLogNum, e.LogNum}, {tagLastSeq, e.LastSeq}, {tagNextTxn, e.NextTxn}, {tagLastTS, e.LastTS}} {
		if c.v != 0 {
			u(uint64(c.tag))
			u(c.v)
		}
	}
	for _, a := range e.Added {
		f := a.Meta
		u(tagAdded)
		u(uint64(a.Level))
		u(f.Num)
		u(uint64(f.Size))
		bs(f.SmallestKey)
		bs(f.LargestKey)
		u(f.SmallestSeq)
		u(f.LargestSeq)
		u(f.MinTS)
		u(f.MaxTS)
		u(f.Entries)
		u(f.Tombstones)
		u(uint64(f.Shadowed))
		u(uint64(f.RawBytes))
		u(uint64(len(f.Unresolved)))
		for _, t := range f.Unresolved {
			u(t)
		}
	}
	for _, d := range e.Deleted {
		u(tagDeleted)
		u(uint64(d.Level))
		u(d.Num)
	}
	for _, c := range e.Commits {
		u(tagCommit)
		u(c.Txn)
		u(c.TS)
	}
	for _, t := range e.Forgotten {
		u(tagForgotten)
		u(t)
	}
	binary.LittleEndian.PutUint32(buf[start+4:], uint32(len(buf)-start-8))
	binary.LittleEndian.PutUint32(buf[start:], crc32.Checksum(buf[start+4:], castagnoli))
	return buf
}

var errBadRecord = errors.New("malformed manifest record")

func decodeRecord(b []byte) (*Edit, int, error) {
	if len(b) < 8 {
		return nil, 0, errors.Wrap(errBadRecord, "short record header")
	}
	n := int(binary.LittleEndian.Uint32(b[4:8]))
	if n > len(b)-8 {
		return nil, 0, errors.Wrapf(errBadRecord, "record of %d bytes past the published end", n)
	}
	if crc32.Checksum(b[4:8+n], castagnoli) != binary.LittleEndian.Uint32(b[:4]) {
		return nil, 0, errors.Wrap(errBadRecord, "checksum mismatch")
	}
	d := decoder{p: b[8 : 8+n]}
	e := &Edit{}
	for len(d.p) > 0 && !d.bad {
		switch tag := d.uvarint(); tag {
		case tagNextFileNum:
			e.NextFileNum = d.uvarint()
		case tagLogNum:
			e.LogNum = d.uvarint()
		case tagLastSeq:
			e.LastSeq = d.uvarint()
		case tagNextTxn:
			e.NextTxn = d.uvarint()
		case tagLastTS:
			e.LastTS = d.uvarint()
		case tagAdded:
			level := int(d.uvarint())
			f := &FileMeta{Num: d.uvarint(), Size: int64(d.uvarint()), SmallestKey: d.prefixed(), LargestKey: d.prefixed(),
				SmallestSeq: d.uvarint(), LargestSeq: d.uvarint(), MinTS: d.uvarint(), MaxTS: d.uvarint(), Entries: d.uvarint(), Tombstones: d.uvarint(),
				Shadowed: int64(d.uvarint()), RawBytes: int64(d.uvarint())}
			k := d.uvarint()
			if k > uint64(len(d.p)) {
				d.bad = true
				break
			}
			for range k {
				f.Unresolved = append(f.Unresolved, d.uvarint())
			}
			e.Added = append(e.Added, AddedFile{Level: level, Meta: f})
		case tagDeleted:
			e.Deleted = append(e.Deleted, DeletedFile{Level: int(d.uvarint()), Num: d.uvarint()})
		case tagCommit:
			e.Commits = append(e.Commits, Commit{Txn: d.uvarint(), TS: d.uvarint()})
		case tagForgotten:
			e.Forgotten = append(e.Forgotten, d.uvarint())
		default:
			return nil, 0, errors.Wrapf(errBadRecord, "unknown field tag %d", tag)
		}
	}
	if d.bad {
		return nil, 0, errors.Wrap(errBadRecord, "truncated field")
	}
	return e, 8 + n, nil
}
