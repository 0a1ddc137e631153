package txn

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cockroachdb/errors"
)

// Ingest deduplication: one number per producer instead of a set of seen
// keys.
//
// A producer numbers its rows 1, 2, 3, ... and the receiver keeps, per
// (table, producer), the high-water mark H (every sequence up to H has
// arrived), a bitmap of the sequences that arrived in (H, H+W], the
// producer's epoch, and when it was last seen. A sequence at or below H, or
// with its bit set, is a repeat; one beyond H+W would leave a gap wider
// than the window, which is a loud error rather than silent loss. The state
// is O(W) bits however many rows arrive. Bumping the epoch fences an older
// incarnation of the producer: its writes carry the old epoch and are
// refused. The sequence space belongs to the producer and survives epoch
// bumps. The state is an ordinary key written in the same transaction as
// the rows, so commit records and recovery make it atomic and durable.

// Sentinel errors of Admit. SQL maps them to SQLSTATEs.
var (
	// ErrProducerFenced: the row's epoch is older than the producer's (55Q01).
	ErrProducerFenced = errors.New("producer fenced")
	// ErrEpochNotIssued: the row's epoch was never issued (22023).
	ErrEpochNotIssued = errors.New("producer epoch was never issued")
	// ErrSequenceGap: the row's sequence is beyond the window (55Q02).
	ErrSequenceGap = errors.New("sequence gap")
	// ErrUnknownProducer: no state, and the sequence is beyond the window
	// that a new producer may start in (55Q03).
	ErrUnknownProducer = errors.New("unknown producer")
	// ErrBadSequence: sequences start at 1 (22023).
	ErrBadSequence = errors.New("sequence numbers start at 1")
)

// MaxWindow bounds a table's ingest window.
const MaxWindow = 4096

// ProducerState is the deduplication state of one (table, producer).
type ProducerState struct {
	Epoch int64
	// High is H: every sequence in [1, High] has arrived.
	High int64
	// pending has bit i set when sequence High+1+i has arrived; it never
	// has bit 0 set (High would have advanced over it).
	pending []uint64
	// LastSeen is the snapshot timestamp of the last transaction that
	// admitted a row or began the producer: a commit timestamp, so that
	// expiry decides the same way after recovery.
	LastSeen uint64
}

// Admission is what Admit decided for one row.
type Admission int

const (
	// Insert: the row is new; the state now records it.
	Insert Admission = iota
	// Duplicate: the row was seen before; skip it.
	Duplicate
)

// NewProducer is the state of a producer that begins at epoch 1 with every
// sequence up to resumeAfter already delivered.
func NewProducer(resumeAfter int64, now uint64) *ProducerState {
	return &ProducerState{Epoch: 1, High: resumeAfter, LastSeen: now}
}

// NoEpoch is the epoch to Admit a row of a table without an epoch column:
// such rows are deduplicated by sequence alone, without fencing.
const NoEpoch = -1

// Admit checks one row, with sequence seq and epoch epoch (NoEpoch when the
// table has no epoch column), against the state and a window of w, in the
// order the semantics require: fencing first, then duplicates, then gaps.
func (st *ProducerState) Admit(seq, epoch int64, w int, now uint64) (Admission, error) {
	if seq < 1 {
		return 0, errors.WithDetailf(ErrBadSequence, "sequence %d", seq)
	}
	if epoch != NoEpoch {
		if epoch < st.Epoch {
			return 0, errors.WithDetailf(ErrProducerFenced,
				"the producer's current epoch is %d; the row carries stale epoch %d", st.Epoch, epoch)
		}
		if epoch > st.Epoch {
			return 0, errors.WithDetailf(ErrEpochNotIssued,
				"the producer's current epoch is %d; epoch %d was never issued", st.Epoch, epoch)
		}
	}
	if seq <= st.High || st.has(seq) {
		return Duplicate, nil
	}
	if seq > st.High+int64(w) {
		return 0, errors.WithDetailf(ErrSequenceGap, "%s", st.missing(seq))
	}
	st.set(seq)
	st.LastSeen = max(st.LastSeen, now)
	return Insert, nil
}

// Pending lists the sequences received above High, in order.
func (st *ProducerState) Pending() []int64 {
	var out []int64
	for wi, word := range st.pending {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, st.High+1+int64(wi*64+b))
			word &^= 1 << b
		}
	}
	return out
}

func (st *ProducerState) has(seq int64) bool {
	i := seq - st.High - 1
	if i < 0 || i >= int64(len(st.pending))*64 {
		return false
	}
	return st.pending[i/64]&(1<<(i%64)) != 0
}

// set records seq (in (High, High+w]) and advances High over every
// contiguous arrival.
func (st *ProducerState) set(seq int64) {
	i := int(seq - st.High - 1)
	for len(st.pending)*64 <= i {
		st.pending = append(st.pending, 0)
	}
	st.pending[i/64] |= 1 << (i % 64)
	// Advance over the run of set bits from bit 0.
	run := 0
	for _, word := range st.pending {
		n := bits.TrailingZeros64(^word)
		run += n
		if n < 64 {
			break
		}
	}
	if run > 0 {
		st.High += int64(run)
		st.shift(run)
	}
}

// shift drops the low n bits of the pending bitmap.
func (st *ProducerState) shift(n int) {
	words, b := n/64, uint(n%64)
	p := st.pending
	if words >= len(p) {
		st.pending = p[:0]
		return
	}
	p = p[words:]
	if b > 0 {
		for i := range p {
			p[i] >>= b
			if i+1 < len(p) {
				p[i] |= p[i+1] << (64 - b)
			}
		}
	}
	for len(p) > 0 && p[len(p)-1] == 0 {
		p = p[:len(p)-1]
	}
	st.pending = append(st.pending[:0], p...)
}

// missing describes the sequences that would be skipped if seq were
// admitted, "missing 813-814, 816", for the gap error's detail. Bits exist
// only inside the window, so past it the rest is one run, however long.
func (st *ProducerState) missing(seq int64) string {
	var parts []string
	add := func(lo, hi int64) {
		if lo == hi {
			parts = append(parts, strconv.FormatInt(lo, 10))
		} else {
			parts = append(parts, strconv.FormatInt(lo, 10)+"-"+strconv.FormatInt(hi, 10))
		}
	}
	limit := min(seq-1, st.High+int64(len(st.pending))*64)
	var run int64 // start of the current run of missing sequences, or 0
	for s := st.High + 1; s <= limit; s++ {
		switch {
		case st.has(s) && run != 0:
			add(run, s-1)
			run = 0
		case !st.has(s) && run == 0:
			run = s
		}
	}
	if run == 0 && limit < seq-1 {
		run = limit + 1
	}
	if run != 0 {
		add(run, seq-1)
	}
	return "missing " + strings.Join(parts, ", ")
}

// Bytes is the size of the encoded state: what state_bytes reports.
func (st *ProducerState) Bytes() int { return len(st.Encode(nil)) }

// Encode appends the state's stored form: epoch, H, last seen, then the
// pending bitmap without its trailing zero bytes.
func (st *ProducerState) Encode(buf []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(st.Epoch))
	buf = binary.AppendUvarint(buf, uint64(st.High))
	buf = binary.AppendUvarint(buf, st.LastSeen)
	var bm []byte
	for _, w := range st.pending {
		bm = binary.LittleEndian.AppendUint64(bm, w)
	}
	for len(bm) > 0 && bm[len(bm)-1] == 0 {
		bm = bm[:len(bm)-1]
	}
	return append(buf, bm...)
}

// DecodeProducerState reads what Encode wrote.
func DecodeProducerState(b []byte) (*ProducerState, error) {
	st := &ProducerState{}
	var vals [3]uint64
	for i := range vals {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("txn: malformed producer state")
		}
		vals[i], b = v, b[n:]
	}
	st.Epoch, st.High, st.LastSeen = int64(vals[0]), int64(vals[1]), vals[2]
	for len(b) > 0 {
		var w [8]byte
		n := copy(w[:], b)
		st.pending = append(st.pending, binary.LittleEndian.Uint64(w[:]))
		b = b[n:]
	}
	return st, nil
}
