package txn

import (
	"math"
	"sync"
	"time"
)

// # Choosing the checkpoint interval
//
// A flush is a checkpoint: the log before it need never be replayed. The
// seed prices an interval I between checkpoints at
//
//	cost(I) = C/I + R(I)/(2·MTBF)
//
// per unit of time, where C is the cost of one flush and R(I) the work
// redone after a crash that lands, on average, halfway through an
// interval. Here R is measured as what it is, replay time: the log an
// interval leaves behind is I·w bytes at the store's write rate w, and
// replaying it takes I·w/v at the replay speed v measured when the store
// last opened. With ρ = w/v, cost(I) = C/I + ρ·I/(2·MTBF), least at
//
//	I* = √(2·C·MTBF/ρ)
//
// A fast flush, a rare failure or a quiet store stretch the interval; a
// busy log, whose replay would take long, shortens it. The size threshold
// still flushes a full memtable whatever the interval says.

// Bounds on the interval in force: a computed interval outside them is
// clamped (a quiet store would otherwise never flush on time).
const (
	minCheckpointInterval     = time.Second
	maxCheckpointInterval     = time.Hour
	defaultCheckpointInterval = 5 * time.Minute
	// defaultReplaySpeed stands in for a measured replay speed until an
	// open has replayed enough log to measure one.
	defaultReplaySpeed = 100 << 20 // bytes per second
)

// checkpointer keeps the measurements and chooses the interval.
type checkpointer struct {
	mu   sync.Mutex // guards everything below
	set  time.Duration
	mtbf time.Duration

	flushCost   time.Duration // C: the last flush's wall time
	flushBytes  int64         // the last flush's file size
	flushedSum  int64         // every flush's
	flushes     int64
	lastFlush   time.Time
	replaySpeed float64 // v, bytes per second
	measured    bool    // replaySpeed was measured, not assumed
	writeRate   float64 // w, bytes per second, smoothed
	lastBytes   uint64
	lastAt      time.Time
	logBytes    func() uint64 // bytes the log has written
}

func newCheckpointer(set, mtbf time.Duration, logBytes func() uint64) *checkpointer {
	return &checkpointer{set: set, mtbf: mtbf, replaySpeed: defaultReplaySpeed, logBytes: logBytes, lastAt: time.Now()}
}

// replayed records an open's replay of n bytes in d.
func (c *checkpointer) replayed(n int64, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n >= 4<<20 && d > 0 {
		c.replaySpeed, c.measured = float64(n)/d.Seconds(), true
	}
}

// flushed records one flush that took d and wrote a file of n bytes.
func (c *checkpointer) flushed(d time.Duration, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushCost, c.flushBytes, c.lastFlush = d, n, time.Now()
	c.flushes++
	c.flushedSum += n
}

// sampleLocked updates the smoothed write rate.
func (c *checkpointer) sampleLocked() {
	now := time.Now()
	b := c.logBytes()
	if dt := now.Sub(c.lastAt).Seconds(); dt >= 1 {
		rate := float64(b-c.lastBytes) / dt
		if c.writeRate == 0 {
			c.writeRate = rate
		} else {
			c.writeRate = 0.5*c.writeRate + 0.5*rate
		}
		c.lastBytes, c.lastAt = b, now
	}
}

// recommendedLocked is I*, or 0 without an MTBF or a flush to price.
func (c *checkpointer) recommendedLocked() time.Duration {
	if c.mtbf <= 0 || c.flushes == 0 {
		return 0
	}
	rho := c.writeRate / c.replaySpeed
	if rho <= 0 {
		return maxCheckpointInterval
	}
	i := math.Sqrt(2 * c.flushCost.Seconds() * c.mtbf.Seconds() / rho)
	if i > maxCheckpointInterval.Seconds() {
		return maxCheckpointInterval
	}
	return max(time.Duration(i*float64(time.Second)), time.Millisecond)
}

// interval is the interval in force: the operator's, else I* clamped, else
// the default.
func (c *checkpointer) interval() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sampleLocked()
	if c.set > 0 {
		return c.set
	}
	if r := c.recommendedLocked(); r > 0 {
		return min(max(r, minCheckpointInterval), maxCheckpointInterval)
	}
	return defaultCheckpointInterval
}

// CheckpointStats describe the checkpoint interval and what it is chosen
// from.
type CheckpointStats struct {
	// LastFlushCost is the wall time of the last flush (C), and
	// LastFlushBytes the size of the file it wrote.
	LastFlushCost  time.Duration
	LastFlushBytes int64
	LastFlush      time.Time
	Flushes        int64
	FlushedBytes   int64
	// WriteRate is the log's recent write rate, bytes per second (w), and
	// ReplaySpeed the replay speed (v), Measured at the last open or
	// assumed.
	WriteRate         float64
	ReplaySpeed       float64
	ReplayMeasured    bool
	MTBF              time.Duration
	Recommended       time.Duration // I*, 0 without an MTBF or a flush yet
	Configured        time.Duration // the operator's interval, 0 if none
	InForce           time.Duration
	LogBytesToReplay  int64         // log a crash now would replay
	ExpectedReplay    time.Duration // LogBytesToReplay / ReplaySpeed
	StallCount        int64         // writer waits for a flush or compaction
	StallTime         time.Duration
	FrozenMemtables   int
	MemtableThreshold int64
}

func (c *checkpointer) stats() CheckpointStats {
	in := c.interval()
	c.mu.Lock()
	defer c.mu.Unlock()
	return CheckpointStats{
		LastFlushCost: c.flushCost, LastFlushBytes: c.flushBytes, LastFlush: c.lastFlush, Flushes: c.flushes, FlushedBytes: c.flushedSum,
		WriteRate: c.writeRate, ReplaySpeed: c.replaySpeed, ReplayMeasured: c.measured,
		MTBF: c.mtbf, Recommended: c.recommendedLocked(), Configured: c.set, InForce: in,
	}
}
