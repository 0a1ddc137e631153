package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/epochdb/epochdb/sql/types"
)

// TestFusedPipeRaisesPanic checks that a panic on the aggregating
// goroutine neither leaves the scan blocked handing it batches nor gets
// lost: finish raises it on the scan's goroutine, which the session
// reports as an internal error.
func TestFusedPipeRaisesPanic(t *testing.T) {
	ts := []types.T{types.Int8}
	f := &fusedAgg{picker: types.NewRowPicker(ts, []int{0}), slots: 1}
	f.where = func(r *types.Picked) (bool, bool, error) { panic("kernel failed") }
	f.calls = []fusedCall{{st: &aggState{acc: &countAcc{}}, countStar: true}}
	row := types.EncodeRow(nil, ts, []any{int64(1)})
	raised := make(chan any, 1)
	go func() {
		defer func() { raised <- recover() }()
		p := f.startPipe(nil)
		batch := make([][]byte, 0, fusedBatch)
		for range 5 {
			for len(batch) < fusedBatch {
				batch = append(batch, row)
			}
			var err error
			if batch, err = p.hand(batch); err != nil {
				break
			}
		}
		_ = p.finish(batch, false)
	}()
	select {
	case r := <-raised:
		if s, _ := r.(string); !strings.Contains(s, "kernel failed") {
			t.Fatalf("finish raised %v, want the aggregating goroutine's panic", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the scan blocked after the aggregating goroutine panicked")
	}
}

// TestFusedPipeAbandoned checks that a scan that panics itself, never
// reaching finish, still ends the aggregating goroutine.
func TestFusedPipeAbandoned(t *testing.T) {
	f := &fusedAgg{picker: types.NewRowPicker([]types.T{types.Int8}, []int{0}), slots: 1}
	f.calls = []fusedCall{{st: &aggState{acc: &countAcc{}}, countStar: true}}
	p := f.startPipe(nil)
	ended := make(chan struct{})
	go func() { p.abandon(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("abandon did not end the aggregating goroutine")
	}
}

type countAcc struct{ n int64 }

func (a *countAcc) Add([]any) error      { a.n++; return nil }
func (a *countAcc) Result() (any, error) { return a.n, nil }
