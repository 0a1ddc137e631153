package txn

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/errors"
)

func TestIngestAdmit(t *testing.T) {
	const w = 8
	st := NewProducer(0, 1)
	admit := func(seq int64) (Admission, error) { return st.Admit(seq, 1, w, 2) }
	for _, s := range []int64{1, 2, 4, 3} {
		if a, err := admit(s); err != nil || a != Insert {
			t.Fatalf("seq %d: %v %v", s, a, err)
		}
	}
	if st.High != 4 || len(st.Pending()) != 0 {
		t.Fatalf("H = %d, pending %v; want 4 and none", st.High, st.Pending())
	}
	for _, s := range []int64{1, 3, 4} {
		if a, err := admit(s); err != nil || a != Duplicate {
			t.Fatalf("retry of %d: %v %v, want a duplicate", s, a, err)
		}
	}
	// 5 is lost: 6..12 fit in the window, 13 does not.
	for s := int64(6); s <= 12; s++ {
		if _, err := admit(s); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := admit(9); a != Duplicate || err != nil {
		t.Fatalf("retry of 9 above H: %v %v", a, err)
	}
	_, err := admit(13)
	if !errors.Is(err, ErrSequenceGap) || !strings.Contains(errors.FlattenDetails(err), "missing 5") {
		t.Fatalf("seq 13 with 5 lost: %v (%s)", err, errors.FlattenDetails(err))
	}
	if _, err := admit(30); !strings.Contains(errors.FlattenDetails(err), "missing 5, 13-29") {
		t.Fatalf("detail: %s", errors.FlattenDetails(err))
	}
	if a, err := admit(5); a != Insert || err != nil || st.High != 12 {
		t.Fatalf("the lost 5 arrives: %v %v, H %d; want H 12", a, err, st.High)
	}
	// Fencing and epochs.
	st.Epoch = 3
	if _, err := st.Admit(13, 2, w, 3); !errors.Is(err, ErrProducerFenced) {
		t.Fatalf("stale epoch: %v", err)
	}
	if _, err := st.Admit(13, 4, w, 3); !errors.Is(err, ErrEpochNotIssued) {
		t.Fatalf("future epoch: %v", err)
	}
	if _, err := st.Admit(3, 2, w, 3); !errors.Is(err, ErrProducerFenced) {
		t.Fatal("a stale epoch is fenced even for a duplicate: fencing comes first")
	}
}

// With at most W rows in flight, no order of arrival is a gap, and every
// sequence is admitted exactly once whatever the duplication.
func TestIngestPermutationsWithinWindow(t *testing.T) {
	for seed := range uint64(500) {
		rng := rand.New(rand.NewPCG(seed, 7))
		w := 1 + rng.IntN(200)
		n := int64(1 + rng.IntN(2000))
		st := NewProducer(0, 0)
		// The producer keeps at most w sequences in flight: it sends
		// next only when next - w is acknowledged.
		var inflight []int64
		next, admitted := int64(1), map[int64]bool{}
		for next <= n || len(inflight) > 0 {
			if next <= n && len(inflight) < w && rng.IntN(2) == 0 {
				lowest := next
				for _, s := range inflight {
					lowest = min(lowest, s)
				}
				if next-lowest < int64(w) {
					inflight = append(inflight, next)
					next++
					continue
				}
			}
			if len(inflight) == 0 {
				continue
			}
			i := rng.IntN(len(inflight))
			s := inflight[i]
			a, err := st.Admit(s, NoEpoch, w, 1)
			if err != nil {
				t.Fatalf("seed %d: W=%d seq %d in flight: %v", seed, w, s, err)
			}
			if a == Insert {
				if admitted[s] {
					t.Fatalf("seed %d: %d admitted twice", seed, s)
				}
				admitted[s] = true
			}
			if rng.IntN(3) > 0 { // acknowledged; otherwise it is retried
				inflight = slices.Delete(inflight, i, i+1)
			}
		}
		if int64(len(admitted)) != n || st.High != n {
			t.Fatalf("seed %d: %d admitted, H %d, want %d", seed, len(admitted), st.High, n)
		}
	}
}

// The state is the same size after a million rows as after ten.
func TestIngestStateIsBounded(t *testing.T) {
	st := NewProducer(0, 0)
	sizeAt := map[int64]int{}
	for s := int64(1); s <= 1_000_000; s++ {
		if _, err := st.Admit(s, 1, 64, uint64(s)); err != nil {
			t.Fatal(err)
		}
		if s == 10 || s == 1_000_000 {
			sizeAt[s] = st.Bytes()
		}
	}
	if sizeAt[1_000_000]-sizeAt[10] > 8 {
		t.Fatalf("state grew from %d bytes to %d", sizeAt[10], sizeAt[1_000_000])
	}
	t.Logf("state bytes: %d after 10 rows, %d after 1,000,000", sizeAt[10], sizeAt[1_000_000])
}

func TestIngestStateEncoding(t *testing.T) {
	st := NewProducer(100, 5)
	for _, s := range []int64{101, 103, 170, 230} {
		if _, err := st.Admit(s, 1, 256, 9); err != nil {
			t.Fatal(err)
		}
	}
	got, err := DecodeProducerState(st.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Epoch != st.Epoch || got.High != st.High || got.LastSeen != st.LastSeen || !slices.Equal(got.Pending(), st.Pending()) {
		t.Fatalf("round trip: %+v / %v, want %+v / %v", got, got.Pending(), st, st.Pending())
	}
}
