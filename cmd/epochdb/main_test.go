package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/epochdb/epochdb/txn"
)

// wal dump shows the seed's point: the entries of a transaction without a
// commit record are physically in the log, and marked as not counting.
func TestWALDumpMarksUncommittedEntries(t *testing.T) {
	dir := t.TempDir()
	s, err := txn.Open(dir, txn.Options{StreamThreshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	write := func(tx *txn.Tx, prefix string) {
		for i := range 5 {
			k := prefix + strconv.Itoa(i)
			if err := tx.Put(ctx, []byte(k), []byte(strings.Repeat("v", 40))); err != nil {
				t.Fatal(err)
			}
		}
	}
	committed := s.Begin(txn.ReadCommitted)
	write(committed, "committed-")
	if err := committed.Commit(); err != nil {
		t.Fatal(err)
	}
	rolledBack := s.Begin(txn.ReadCommitted)
	write(rolledBack, "rolledback-")
	_ = rolledBack.Rollback()
	open := s.Begin(txn.ReadCommitted) // streamed, never committed
	write(open, "open-")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"wal", "dump", "--data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := map[uint64]string{
		committed.ID():  "counts: committed",
		rolledBack.ID(): "ignored: rolled back",
		open.ID():       "ignored: uncommitted leftover",
	}
	entries := map[uint64]int{}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[2] != "entry" {
			continue
		}
		id, _ := strconv.ParseUint(f[3], 10, 64)
		if !strings.Contains(line, want[id]) {
			t.Errorf("entry of txn %d should say %q: %s", id, want[id], line)
		}
		entries[id]++
	}
	for id := range want {
		if entries[id] != 5 {
			t.Errorf("txn %d: %d entries in the dump, want 5 (all physically present)\n%s", id, entries[id], out.String())
		}
	}
	if !strings.Contains(out.String(), "entries: 5 committed (count), 5 rolled back, 5 uncommitted (ignored by recovery)") {
		t.Errorf("summary missing:\n%s", out.String())
	}

	// And recovery agrees with the dump.
	s, err = txn.Open(dir, txn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx := s.Begin(txn.ReadCommitted)
	defer tx.Rollback()
	var keys []string
	_ = tx.Scan(nil, nil, func(k, _ []byte) bool { keys = append(keys, string(k)); return true })
	if len(keys) != 5 || !strings.HasPrefix(keys[0], "committed-") {
		t.Fatalf("after recovery: %v, want only the committed keys", keys)
	}
}

// sstable dump shows the same boundary in a file: a flushed transaction's
// provisional versions are physically there, and count only once the
// status table says their writer committed.
func TestSSTableDumpMarksProvisionalVersions(t *testing.T) {
	dir := t.TempDir()
	s, err := txn.Open(dir, txn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put := func(tx *txn.Tx, prefix string) {
		for i := range 5 {
			if err := tx.Put(ctx, []byte(prefix+strconv.Itoa(i)), []byte("v")); err != nil {
				t.Fatal(err)
			}
		}
	}
	done := s.Begin(txn.ReadCommitted)
	put(done, "committed-")
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	later := s.Begin(txn.ReadCommitted)
	put(later, "later-")
	open := s.Begin(txn.ReadCommitted)
	put(open, "open-")
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := later.Commit(); err != nil { // after its versions reached the file
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(files) != 1 {
		t.Fatalf("sstables %v, want one", files)
	}
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"sstable", "dump", files[0]}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"5 entries: counts: committed\n",
		"5 entries: counts: its writer committed (log)\n",
		"5 entries: ignored unless its writer commits",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, out.String())
		}
	}
}
