package wal

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/cockroachdb/errors"

	"github.com/epochdb/epochdb/internal/vfs"
)

// Fate is what recovery makes of a transaction's entries. It is decided by
// the commit record alone.
type Fate int

// The fates, as wal dump prints them.
const (
	// Uncommitted entries are in the log with no commit record: recovery
	// ignores them.
	Uncommitted Fate = iota
	// Committed entries count.
	Committed
	// RolledBack entries have an abort record and no commit record.
	RolledBack
)

func (f Fate) String() string {
	switch f {
	case Committed:
		return "counts: committed"
	case RolledBack:
		return "ignored: rolled back"
	}
	return "ignored: uncommitted leftover, no commit record"
}

// Fates reads the whole log and returns the fate of every transaction that
// appears in it, exactly as recovery would decide it.
func Fates(fs vfs.FS, dir string) (map[uint64]Fate, ScanResult, error) {
	fates := make(map[uint64]Fate)
	res, err := Scan(fs, dir, func(_ Pos, rec *Record) error {
		switch rec.Kind {
		case KindCommit:
			fates[rec.Txn] = Committed
			for _, sub := range rec.Subtxns {
				fates[sub] = Committed
			}
		case KindAbort:
			if fates[rec.Txn] != Committed {
				fates[rec.Txn] = RolledBack
			}
		case KindEntry:
			if _, ok := fates[rec.Txn]; !ok {
				fates[rec.Txn] = Uncommitted
			}
		}
		return nil
	})
	return fates, res, err
}

// Dump prints every record of the log in dir with its transaction's fate.
// It only reads: a torn tail is reported, not truncated.
func Dump(out io.Writer, fs vfs.FS, dir string) error {
	fates, _, err := Fates(fs, dir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SEGMENT\tOFFSET\tKIND\tTXN\tDETAIL\tFATE")
	counts := make(map[Fate]int)
	res, err := Scan(fs, dir, func(pos Pos, rec *Record) error {
		txn, fate := "-", "-"
		if rec.Kind != KindCheckpoint {
			txn = strconv.FormatUint(rec.Txn, 10)
			fate = fates[rec.Txn].String()
		}
		if rec.Kind == KindEntry {
			counts[fates[rec.Txn]]++
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n",
			SegmentName(pos.Segment), pos.Offset, rec.Kind, txn, detail(rec), fate)
		return nil
	})
	if err != nil {
		tw.Flush()
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case res.Torn && errors.Is(res.TornErr, ErrZeroed):
		fmt.Fprintf(out, "log ends at %s offset %d; the rest is unwritten preallocated space\n",
			SegmentName(res.End.Segment), res.End.Offset)
	case res.Torn:
		fmt.Fprintf(out, "torn tail at %s offset %d (%v): recovery truncates it\n",
			SegmentName(res.End.Segment), res.End.Offset, res.TornErr)
	}
	fmt.Fprintf(out, "entries: %d committed (count), %d rolled back, %d uncommitted (ignored by recovery)\n",
		counts[Committed], counts[RolledBack], counts[Uncommitted])
	return nil
}

func detail(rec *Record) string {
	switch rec.Kind {
	case KindEntry:
		if rec.Tombstone {
			return "key=" + quote(rec.Key) + " tombstone"
		}
		return "key=" + quote(rec.Key) + " value=" + quote(rec.Value)
	case KindCommit:
		d := "ts=" + strconv.FormatUint(rec.CommitTS, 10)
		if len(rec.Subtxns) > 0 {
			d += fmt.Sprintf(" subtxns=%v", rec.Subtxns)
		}
		return d
	case KindCheckpoint:
		return fmt.Sprintf("next_txn=%d last_ts=%d", rec.NextTxn, rec.CommitTS)
	}
	return ""
}

// quote prints a key or value readably, cut to a sensible width.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…(" + strconv.Itoa(len(b)) + " B)"
	}
	return strconv.Quote(string(b))
}
