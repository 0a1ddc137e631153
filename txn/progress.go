package txn

import (
	"log/slog"
	"time"

	"github.com/epochdb/epochdb/wal"
)

// progressEvery is how often recovery logs how far it has come.
const progressEvery = 2 * time.Second

// recoveryProgress logs an open's replay of the log: both passes over the
// segments, as records and bytes with a percentage of the whole, at least
// every progressEvery, and what it took at the end.
type recoveryProgress struct {
	log     *slog.Logger
	before  map[uint64]int64 // bytes in the segments before each one
	total   int64
	start   time.Time
	last    time.Time
	calls   int
	records int64
}

func (s *Store) newProgress(segs []uint64) *recoveryProgress {
	p := &recoveryProgress{log: s.opts.Logger, before: make(map[uint64]int64), start: time.Now()}
	p.last = p.start
	for _, seg := range segs {
		p.before[seg] = p.total
		if fi, err := s.fs.Stat(s.fs.PathJoin(s.walDir, wal.SegmentName(seg))); err == nil {
			p.total += fi.Size()
		}
	}
	if p.log != nil && p.total > 0 {
		p.log.Info("epochdb: recovering", "segments", len(segs), "log_bytes", p.total)
	}
	return p
}

// at notes that pass (1 or 2) has reached pos.
func (p *recoveryProgress) at(pos wal.Pos, pass int) {
	if p.log == nil {
		return
	}
	if p.calls++; p.calls%1024 != 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	done := p.before[pos.Segment] + pos.Offset
	pct := 100 * float64(int64(pass-1)*p.total+done) / float64(2*max(p.total, 1))
	p.log.Info("epochdb: recovering", "pass", pass, "records_replayed", p.records,
		"bytes", done, "of", p.total, "percent", int(pct), "elapsed", now.Sub(p.start).Round(time.Millisecond))
}

// done logs the end of recovery and returns the bytes replayed and the
// time it took.
func (p *recoveryProgress) done() (int64, time.Duration) {
	took := time.Since(p.start)
	if p.log != nil && p.total > 0 {
		p.log.Info("epochdb: recovered", "records_replayed", p.records, "log_bytes", p.total, "took", took.Round(time.Millisecond))
	}
	return p.total, took
}
