package reclaim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// advanceTo calls Advance until the epoch is e.
func advanceTo(t testing.TB, m *Manager, e Epoch) {
	t.Helper()
	if m.Current() > e {
		t.Fatalf("advanceTo(%d): already at epoch %d", e, m.Current())
	}
	for m.Current() < e {
		m.Advance()
	}
}

// tracked is a retired item whose free callback records that it ran.
type tracked struct{ freed atomic.Int32 }

func (it *tracked) free()         { it.freed.Add(1) }
func (it *tracked) isFreed() bool { return it.freed.Load() > 0 }

// retireAt advances to epoch died and retires an item born at born there.
func retireAt(t *testing.T, m *Manager, born, died Epoch, bytes int64) *tracked {
	t.Helper()
	advanceTo(t, m, died)
	it := new(tracked)
	m.RetireSpan(born, bytes, it.free)
	return it
}

// checkHeld asserts what each live guard holds, in pin order.
func checkHeld(t *testing.T, m *Manager, want map[string]int64) {
	t.Helper()
	s := m.Stats()
	got := make(map[string]int64)
	for _, p := range s.Pins {
		got[p.Owner] = p.HeldBytes
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("held bytes by owner = %v, want %v", got, want)
	}
}

func TestHeldUntilUnpin(t *testing.T) {
	for _, tc := range []struct {
		name string
		// pinEpoch is where the guard pins; the item dies at epoch 3.
		pinEpoch Epoch
		sealed   bool
	}{
		{name: "pinned before death", pinEpoch: 1},
		{name: "pinned in the death epoch", pinEpoch: 3},
		{name: "sealed before death", pinEpoch: 2, sealed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Options{AdvanceEvery: -1})
			var g *Guard
			var it *tracked
			if tc.pinEpoch < 3 {
				advanceTo(t, m, tc.pinEpoch)
				g = m.Pin("reader")
				if tc.sealed {
					g.Seal()
				}
				it = retireAt(t, m, 0, 3, 100)
			} else {
				it = retireAt(t, m, 0, 3, 100)
				g = m.Pin("reader")
			}
			for range 100 {
				m.Advance()
			}
			if it.isFreed() {
				t.Fatal("item freed while a guard that could see it is pinned")
			}
			s := m.Stats()
			if s.RetiredCount != 1 || s.RetiredBytes != 100 || s.FreedBytes != 0 {
				t.Fatalf("before Unpin: %+v", s)
			}
			checkHeld(t, m, map[string]int64{"reader": 100})

			// Parked items are re-examined by Unpin itself; no Advance needed.
			g.Unpin()
			if !it.isFreed() {
				t.Fatal("item not freed by Unpin of the only guard holding it")
			}
			s = m.Stats()
			if s.RetiredCount != 0 || s.RetiredBytes != 0 || s.FreedCount != 1 ||
				s.FreedBytes != 100 || len(s.Pins) != 0 || s.OldestPinned != 0 {
				t.Fatalf("after Unpin: %+v", s)
			}
		})
	}
}

func TestFreedByAdvanceAfterUnpin(t *testing.T) {
	m := New(Options{AdvanceEvery: -1})
	g := m.Pin("reader")
	it := retireAt(t, m, 0, 1, 100)
	g.Unpin()
	// died == Current(): a pin taken now could still see the item.
	if it.isFreed() {
		t.Fatal("item freed before the epoch moved past its death")
	}
	m.Advance()
	if !it.isFreed() {
		t.Fatal("item not freed by the first Advance after its guard unpinned")
	}
}

func TestFreesBetweenReaders(t *testing.T) {
	m := New(Options{AdvanceEvery: -1})
	advanceTo(t, m, 2)
	a := m.Pin("A")
	a.Seal()

	var between []*tracked
	for _, span := range [][2]Epoch{{5, 5}, {6, 8}, {5, 9}, {9, 9}} {
		between = append(between, retireAt(t, m, span[0], span[1], 1))
	}
	x := retireAt(t, m, 1, 10, 10)
	advanceTo(t, m, 12)
	b := m.Pin("B")
	b.Seal()
	z := retireAt(t, m, 11, 13, 1000)
	advanceTo(t, m, 20)

	for i, it := range between {
		if !it.isFreed() {
			t.Errorf("item %d between A and B not freed while both are pinned", i)
		}
	}
	if x.isFreed() || z.isFreed() {
		t.Fatalf("freed an item a live guard can see: x=%v z=%v", x.isFreed(), z.isFreed())
	}
	checkHeld(t, m, map[string]int64{"A": 10, "B": 1000})
	if s := m.Stats(); s.RetiredBytes != 1010 || s.FreedBytes != 4 {
		t.Fatalf("stats = %+v", s)
	}

	// x lies wholly before B, so A's Unpin frees it; z stays with B.
	a.Unpin()
	if !x.isFreed() || z.isFreed() {
		t.Fatalf("after A unpins: x=%v z=%v, want x freed and z held", x.isFreed(), z.isFreed())
	}
	checkHeld(t, m, map[string]int64{"B": 1000})
	b.Unpin()
	if !z.isFreed() {
		t.Fatal("z not freed after B unpinned")
	}
}

func TestUnsealedGuardHoldsLaterBirths(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sealed=%v", sealed), func(t *testing.T) {
			m := New(Options{AdvanceEvery: -1})
			advanceTo(t, m, 3)
			g := m.Pin("reader")
			if sealed {
				g.Seal()
			}
			it := retireAt(t, m, 5, 7, 100)
			advanceTo(t, m, 50)
			// Unsealed, the reader may have taken its snapshot at any time
			// and could see an item born at 5; sealed at 3, it cannot.
			if it.isFreed() != sealed {
				t.Fatalf("freed = %v, want %v", it.isFreed(), sealed)
			}
			g.Unpin()
			m.Advance()
			if !it.isFreed() {
				t.Fatal("item not freed after the guard unpinned")
			}
		})
	}
}

func TestStatsNameTheHolder(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	m := New(Options{AdvanceEvery: -1, Now: func() time.Time { return now }})

	report := m.Pin("nightly report")
	report.Seal()
	m.Advance()
	now = t0.Add(time.Hour)
	oltp := m.Pin("oltp session")
	oltp.Seal()
	m.Advance()
	m.Retire(300, func() {})      // both can see it: charged to the oldest
	m.RetireSpan(3, 5, func() {}) // born after both sealed: freed
	m.Advance()

	s := m.Stats()
	if len(s.Pins) != 2 || s.OldestPinned != 1 || s.Epoch != 4 {
		t.Fatalf("stats = %+v", s)
	}
	want := []PinInfo{
		{Owner: "nightly report", Epoch: 1, Since: t0, HeldCount: 1, HeldBytes: 300},
		{Owner: "oltp session", Epoch: 2, Since: t0.Add(time.Hour)},
	}
	for i := range want {
		if s.Pins[i] != want[i] {
			t.Errorf("Pins[%d] = %+v, want %+v", i, s.Pins[i], want[i])
		}
	}

	// The item moves to the next guard that can see it, and so does the blame.
	report.Unpin()
	s = m.Stats()
	if len(s.Pins) != 1 || s.OldestPinned != 2 || s.Pins[0].HeldBytes != 300 || s.RetiredBytes != 300 {
		t.Fatalf("after the report unpins: %+v", s)
	}
	oltp.Unpin()
	s = m.Stats()
	if s.RetiredBytes != 0 || s.FreedBytes != 305 || s.PeakRetiredBytes != 305 || len(s.Pins) != 0 {
		t.Fatalf("after all unpin: %+v", s)
	}
}

func TestAdvanceEvery(t *testing.T) {
	m := New(Options{AdvanceEvery: 10})
	var freed atomic.Int64
	for range 9 {
		m.Retire(1, func() { freed.Add(1) })
	}
	if m.Current() != 1 || freed.Load() != 0 {
		t.Fatalf("after 9 retirements: epoch %d, freed %d", m.Current(), freed.Load())
	}
	m.Retire(1, func() { freed.Add(1) })
	if m.Current() != 2 || freed.Load() != 10 {
		t.Fatalf("after 10 retirements: epoch %d, freed %d; want 2, 10", m.Current(), freed.Load())
	}

	m = New(Options{AdvanceEvery: -1})
	for range 1000 {
		m.Retire(1, func() { t.Fatal("freed with automatic advancing disabled") })
	}
	if m.Current() != 1 {
		t.Fatalf("epoch = %d with automatic advancing disabled", m.Current())
	}
}

// TestFreeOutsideLock has free callbacks re-enter the manager, which deadlocks
// if Advance, Unpin or Retire runs them with its mutex held.
func TestFreeOutsideLock(t *testing.T) {
	m := New(Options{AdvanceEvery: 3})
	var ran atomic.Int32
	free := func() {
		_ = m.Stats()
		m.Retire(1, func() {})
		ran.Add(1)
	}
	var g *Guard
	steps := []struct {
		name string
		do   func()
	}{
		{"Advance", func() { m.Retire(1, free); m.Advance() }},
		{"Unpin", func() { g = m.Pin("r"); m.Retire(1, free); m.Advance(); g.Unpin() }},
		// The callback above retired one item; this is the third since Advance.
		{"Retire", func() { m.Retire(1, free); m.Retire(1, func() {}) }},
	}
	for i, step := range steps {
		done := make(chan struct{})
		go func() {
			defer close(done)
			step.do()
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s deadlocked: it ran a free callback with the mutex held", step.name)
		}
		// Each step's callback must have run before the call that freed it
		// returned, on its goroutine.
		if got := ran.Load(); got != int32(i+1) {
			t.Fatalf("after %s: %d callbacks ran, want %d", step.name, got, i+1)
		}
	}
}

func TestMisusePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(m *Manager)
		want error
	}{
		{"double Unpin", func(m *Manager) { g := m.Pin("r"); g.Unpin(); g.Unpin() }, ErrUnpinned},
		{"Seal after Unpin", func(m *Manager) { g := m.Pin("r"); g.Unpin(); g.Seal() }, ErrUnpinned},
		{"double Seal", func(m *Manager) { g := m.Pin("r"); g.Seal(); g.Seal() }, ErrSealed},
		{"birth in the future", func(m *Manager) { m.RetireSpan(9, 1, func() {}) }, nil},
		{"nil callback", func(m *Manager) { m.Retire(1, nil) }, nil},
		{"negative bytes", func(m *Manager) { m.Retire(-1, func() {}) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Options{})
			func() {
				defer func() {
					r := recover()
					if r == nil {
						t.Fatal("no panic")
					}
					if err, _ := r.(error); tc.want != nil && !errors.Is(err, tc.want) {
						t.Fatalf("panic %v, want %v", r, tc.want)
					}
				}()
				tc.do(m)
			}()
			// The panic must not leave the mutex locked.
			_ = m.Stats()
			m.Pin("after").Unpin()
		})
	}
}

// TestConcurrentSafety runs pins, seals, unpins, retirements and advances from
// many goroutines. Every free callback checks, against the test's own record
// of live guards, that no guard which could see the item is still pinned, and
// a checker asserts that the epoch and the horizon never move backward.
func TestConcurrentSafety(t *testing.T) {
	const workers = 8
	iters := 20000
	if testing.Short() {
		iters = 2000
	}
	m := New(Options{AdvanceEvery: 8})

	// testGuard is the test's conservative view of a guard's interval: its
	// phi is never above the real Φ, so any overlap found here is real.
	type testGuard struct {
		g   *Guard
		p   Epoch
		phi Epoch
	}
	var (
		liveMu  sync.Mutex
		live    = make(map[*testGuard]struct{})
		retired atomic.Int64
		freed   atomic.Int64
	)
	retire := func(born Epoch) {
		diedLo := m.Current() // the real death epoch is at least this
		var calls atomic.Int32
		retired.Add(1)
		m.RetireSpan(born, 10, func() {
			if calls.Add(1) != 1 {
				t.Error("free callback ran twice")
			}
			freed.Add(1)
			liveMu.Lock()
			defer liveMu.Unlock()
			for tg := range live {
				if tg.p <= diedLo && born <= tg.phi {
					t.Errorf("freed [%d, >=%d] while guard [%d, %d] is pinned", born, diedLo, tg.p, tg.phi)
				}
			}
		})
	}

	stop := make(chan struct{})
	checkerDone := make(chan struct{})
	go func() {
		defer close(checkerDone)
		var lastEpoch, lastHorizon Epoch
		for {
			select {
			case <-stop:
				return
			default:
			}
			s := m.Stats()
			horizon := s.Epoch
			if s.OldestPinned != 0 {
				horizon = s.OldestPinned
			}
			if s.Epoch < lastEpoch || horizon < lastHorizon {
				t.Errorf("moved backward: epoch %d -> %d, horizon %d -> %d", lastEpoch, s.Epoch, lastHorizon, horizon)
			}
			lastEpoch, lastHorizon = s.Epoch, horizon
			var held int64
			for i, p := range s.Pins {
				held += p.HeldBytes
				if i > 0 && p.Epoch < s.Pins[i-1].Epoch {
					t.Errorf("Pins not sorted by epoch: %+v", s.Pins)
				}
			}
			if held > s.RetiredBytes || s.RetiredBytes > s.PeakRetiredBytes {
				t.Errorf("inconsistent stats: held %d, %+v", held, s)
			}
		}
	}()

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			var mine []*testGuard
			var seen Epoch // an epoch observed earlier: a plausible birth
			for range iters {
				switch r := rng.IntN(100); {
				case r < 20 && len(mine) < 4:
					g := m.Pin(fmt.Sprintf("worker %d", w))
					tg := &testGuard{g: g, p: g.Epoch(), phi: unsealed}
					liveMu.Lock()
					live[tg] = struct{}{}
					liveMu.Unlock()
					if rng.IntN(2) == 0 {
						// Record a lower bound of Φ before Seal can set it.
						liveMu.Lock()
						tg.phi = m.Current()
						liveMu.Unlock()
						g.Seal()
					}
					mine = append(mine, tg)
				case r < 40 && len(mine) > 0:
					i := rng.IntN(len(mine))
					tg := mine[i]
					mine = append(mine[:i], mine[i+1:]...)
					// Forget the guard before Unpin, which may free what it held.
					liveMu.Lock()
					delete(live, tg)
					liveMu.Unlock()
					tg.g.Unpin()
				case r < 45:
					m.Advance()
				case r < 70:
					retire(0)
				default:
					retire(seen)
				}
				if rng.IntN(4) == 0 {
					seen = m.Current()
				}
			}
			for _, tg := range mine {
				liveMu.Lock()
				delete(live, tg)
				liveMu.Unlock()
				tg.g.Unpin()
			}
		})
	}
	wg.Wait()
	close(stop)
	<-checkerDone

	m.Advance()
	s := m.Stats()
	if freed.Load() != retired.Load() || s.FreedCount != retired.Load() ||
		s.RetiredCount != 0 || s.RetiredBytes != 0 || len(s.Pins) != 0 {
		t.Fatalf("after all unpinned: retired %d, freed %d, stats %+v", retired.Load(), freed.Load(), s)
	}
}

// TestBoundedGarbage retires a million items under a stream of short pins and
// checks that retired-but-unfreed bytes stay within a small multiple of
// AdvanceEvery items.
func TestBoundedGarbage(t *testing.T) {
	const (
		n    = 1_000_000
		size = 100
		// Up to AdvanceEvery items wait for the next Advance, and a short pin
		// holds at most those plus its own retirements.
		bound = 4 * defaultAdvanceEvery * size
	)
	m := New(Options{})
	var freed int64
	free := func() { freed++ }
	var g *Guard
	for i := range n {
		switch i % 16 {
		case 0:
			g = m.Pin("short")
			g.Seal()
		case 8:
			g.Unpin()
		}
		m.Retire(size, free)
	}
	m.Advance()

	s := m.Stats()
	if s.PeakRetiredBytes >= bound {
		t.Fatalf("PeakRetiredBytes = %d, want < %d", s.PeakRetiredBytes, bound)
	}
	if freed != n || s.FreedCount != n || s.RetiredBytes != 0 {
		t.Fatalf("freed %d of %d, stats %+v", freed, n, s)
	}
}

func BenchmarkPinSealUnpin(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		m := New(Options{})
		for b.Loop() {
			g := m.Pin("bench")
			g.Seal()
			g.Unpin()
		}
	})
	b.Run("parallel", func(b *testing.B) {
		m := New(Options{})
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				g := m.Pin("bench")
				g.Seal()
				g.Unpin()
			}
		})
	})
}

func BenchmarkRetire(b *testing.B) {
	b.Run("no readers", func(b *testing.B) {
		m := New(Options{})
		free := func() {}
		for b.Loop() {
			m.Retire(100, free)
		}
	})
	// A long reader parks what it can see; Advance must not rescan it. The
	// reader is replaced every 1<<20 retirements so memory stays bounded, and
	// the cost of freeing what it held is part of the result.
	b.Run("long reader", func(b *testing.B) {
		m := New(Options{})
		free := func() {}
		g := m.Pin("long")
		i := 0
		for b.Loop() {
			m.Retire(100, free)
			if i++; i%(1<<20) == 0 {
				g.Unpin()
				g = m.Pin("long")
			}
		}
		g.Unpin()
	})
}

// OldestTS is the oldest snapshot a pinned reader may read at: a guard's
// floor until it seals, then its snapshot; plain pins do not count.
func TestOldestTS(t *testing.T) {
	m := New(Options{})
	if got := m.OldestTS(50); got != 50 {
		t.Fatalf("OldestTS with no guards = %d, want now (50)", got)
	}
	plain := m.Pin("plain")
	a := m.PinAt(1, 10)
	b := m.PinAt(2, 30)
	if got := m.OldestTS(50); got != 10 {
		t.Fatalf("OldestTS = %d, want a's floor 10", got)
	}
	var names []string
	for _, p := range m.Stats().Pins {
		names = append(names, fmt.Sprintf("%s/%d", p.Owner, p.Txn))
	}
	if got := strings.Join(names, " "); got != "plain/0 txn 1/1 txn 2/2" {
		t.Fatalf("the pins are named %q, want %q", got, "plain/0 txn 1/1 txn 2/2")
	}
	a.SealAt(20)
	if got := m.OldestTS(50); got != 20 {
		t.Fatalf("OldestTS after a sealed at 20 = %d, want 20", got)
	}
	a.Unpin()
	b.SealAt(35)
	if got := m.OldestTS(50); got != 35 {
		t.Fatalf("OldestTS after a unpinned = %d, want b's 35", got)
	}
	b.Unpin()
	plain.Unpin()
	if got := m.OldestTS(50); got != 50 {
		t.Fatalf("OldestTS after every unpin = %d, want 50", got)
	}
}
