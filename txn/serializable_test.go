package txn

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/errors"
)

// onCall counts the doctors on call: the rows under "doc/" whose value is
// "1", read through tx's snapshot.
func onCall(t *testing.T, tx *Tx) int {
	t.Helper()
	n := 0
	if err := tx.Scan([]byte("doc/"), []byte("doc0"), func(_, v []byte) bool {
		if string(v) == "1" {
			n++
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func putDoctors(t *testing.T, s *Store, n int) {
	t.Helper()
	tx := s.Begin(ReadCommitted)
	for i := range n {
		if err := tx.Put(context.Background(), []byte("doc/"+strconv.Itoa(i)), []byte("1")); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
}

// Write skew: two transactions each read that two doctors are on call and
// take a different one off. REPEATABLE READ lets both commit, leaving no
// one on call; SERIALIZABLE fails the second.
func TestSerializableWriteSkew(t *testing.T) {
	for _, iso := range []Isolation{RepeatableRead, Serializable} {
		t.Run(iso.String(), func(t *testing.T) {
			s, _ := newMemStore(t, Options{})
			ctx := context.Background()
			putDoctors(t, s, 2)
			a, b := s.Begin(iso), s.Begin(iso)
			if onCall(t, a) != 2 || onCall(t, b) != 2 {
				t.Fatal("both should see two doctors on call")
			}
			if err := a.Put(ctx, []byte("doc/0"), []byte("0")); err != nil {
				t.Fatal(err)
			}
			if err := b.Put(ctx, []byte("doc/1"), []byte("0")); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, a)
			err := b.Commit()
			if iso == RepeatableRead {
				if err != nil {
					t.Fatalf("REPEATABLE READ commit: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrSerializationRW) {
				t.Fatalf("second commit: got %v, want ErrSerializationRW", err)
			}
			check := s.Begin(ReadCommitted)
			defer check.Rollback()
			if n := onCall(t, check); n != 1 {
				t.Fatalf("%d doctors on call after the failed commit, want 1", n)
			}
		})
	}
}

// A row inserted into a range a SERIALIZABLE transaction scanned, even an
// empty one, is a conflict: the phantom would have changed what it read.
func TestSerializablePhantom(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	a := s.Begin(Serializable)
	if n := onCall(t, a); n != 0 {
		t.Fatalf("%d on call in an empty table", n)
	}
	other := s.Begin(ReadCommitted)
	_ = other.Put(ctx, []byte("doc/7"), []byte("1"))
	mustCommit(t, other)
	_ = a.Put(ctx, []byte("log/1"), []byte("nobody on call"))
	if err := a.Commit(); !errors.Is(err, ErrSerializationRW) {
		t.Fatalf("got %v, want ErrSerializationRW", err)
	}
}

// What a SERIALIZABLE transaction did not read may change freely: a scan
// that stopped early read only up to where it stopped, and a point read
// only its key.
func TestSerializableDisjointCommits(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putDoctors(t, s, 5)
	a := s.Begin(Serializable)
	seen := 0
	_ = a.Scan([]byte("doc/"), []byte("doc0"), func(_, _ []byte) bool {
		seen++
		return seen < 2 // doc/0 and doc/1
	})
	if _, _, err := a.Get([]byte("other")); err != nil {
		t.Fatal(err)
	}
	w := s.Begin(ReadCommitted)
	_ = w.Put(ctx, []byte("doc/3"), []byte("0"))
	_ = w.Put(ctx, []byte("otherwise"), []byte("x"))
	mustCommit(t, w)
	_ = a.Put(ctx, []byte("doc/0"), []byte("0"))
	mustCommit(t, a)

	// A provisional write into the range is no conflict: its writer
	// commits after, or not at all.
	b := s.Begin(Serializable)
	onCall(t, b)
	p := s.Begin(ReadCommitted)
	_ = p.Put(ctx, []byte("doc/9"), []byte("1"))
	_ = b.Put(ctx, []byte("doc/1"), []byte("0"))
	mustCommit(t, b)
	mustCommit(t, p)
}

// A SERIALIZABLE transaction that only reads commits as of its snapshot,
// whatever changed since.
func TestSerializableReadOnlyCommits(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	putDoctors(t, s, 2)
	ro := s.Begin(Serializable)
	onCall(t, ro)
	w := s.Begin(ReadCommitted)
	_ = w.Put(ctx, []byte("doc/0"), []byte("0"))
	mustCommit(t, w)
	mustCommit(t, ro)
}

// Concurrent SERIALIZABLE transactions keep an invariant that each one
// keeps alone, retrying on serialization failures: a doctor goes off call
// only if another is on, so one always is. Each round two doctors decide
// at once, in step, which is what write skew needs; REPEATABLE READ, run
// too to show the check can fail, lets both go.
func TestSerializableKeepsInvariant(t *testing.T) {
	run := func(iso Isolation) (emptyRounds, failures int) {
		s, _ := newMemStore(t, Options{})
		ctx := context.Background()
		const rounds = 50
		for range rounds {
			putDoctors(t, s, 2)
			var decided sync.WaitGroup
			decided.Add(2)
			var fails atomic.Int64
			var wg sync.WaitGroup
			for w := range 2 {
				wg.Go(func() {
					me := []byte("doc/" + strconv.Itoa(w))
					first := true
					for {
						tx := s.Begin(iso)
						next := []byte("1")
						if onCall(t, tx) > 1 {
							next = []byte("0") // someone else is on call: go off
						}
						if first {
							decided.Done()
							decided.Wait()
							first = false
						}
						if err := tx.Put(ctx, me, next); err != nil {
							t.Error(err)
							_ = tx.Rollback()
							return
						}
						err := tx.Commit()
						if errors.Is(err, ErrSerializationRW) {
							fails.Add(1)
							continue
						}
						if err != nil {
							t.Error(err)
						}
						return
					}
				})
			}
			wg.Wait()
			failures += int(fails.Load())
			check := s.Begin(ReadCommitted)
			if onCall(t, check) == 0 {
				emptyRounds++
			}
			_ = check.Rollback()
		}
		return emptyRounds, failures
	}
	if empty, failures := run(Serializable); empty != 0 || failures == 0 {
		t.Fatalf("SERIALIZABLE: %d rounds left no doctor on call, %d serialization failures", empty, failures)
	}
	if empty, _ := run(RepeatableRead); empty == 0 {
		t.Fatal("REPEATABLE READ kept the invariant: the workload does not show write skew")
	}
}

// mergeRanges covers exactly the keys its input covers, with ranges that
// neither overlap nor touch.
func TestMergeRanges(t *testing.T) {
	r := newRand(7)
	in := func(rs []readRange, k []byte) bool {
		for _, x := range rs {
			if bytes.Compare(k, x.start) >= 0 && (x.end == nil || bytes.Compare(k, x.end) < 0) {
				return true
			}
		}
		return false
	}
	for range 500 {
		var rs []readRange
		for range r.IntN(8) {
			a := byte(r.IntN(20))
			var end []byte
			if r.IntN(10) > 0 {
				end = []byte{a + byte(r.IntN(4))}
			}
			rs = append(rs, readRange{start: []byte{a}, end: end})
		}
		orig := slices.Clone(rs)
		merged := mergeRanges(rs)
		for k := range 30 {
			if in(orig, []byte{byte(k)}) != in(merged, []byte{byte(k)}) {
				t.Fatalf("key %d: in %v is %v, in merged %v is %v", k, orig, in(orig, []byte{byte(k)}), merged, in(merged, []byte{byte(k)}))
			}
		}
		for i := 1; i < len(merged); i++ {
			if prev := merged[i-1]; prev.end == nil || bytes.Compare(merged[i].start, prev.end) <= 0 {
				t.Fatalf("ranges %v and %v overlap or touch", prev, merged[i])
			}
		}
	}
}
