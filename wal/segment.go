package wal

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
)

const segmentSuffix = ".wal"

// SegmentName is the file name of segment n.
func SegmentName(n uint64) string { return fmt.Sprintf("%012d%s", n, segmentSuffix) }

func parseSegmentName(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, segmentSuffix)
	if !ok || len(digits) != 12 {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return n, err == nil
}

// Segments returns the segment numbers in dir, in order. A missing number
// between the first and the last is corruption: a whole segment is gone.
func Segments(fs vfs.FS, dir string) ([]uint64, error) {
	names, err := fs.List(dir)
	if err != nil {
		return nil, err
	}
	var segs []uint64
	for _, name := range names {
		if n, ok := parseSegmentName(name); ok {
			segs = append(segs, n)
		}
	}
	for i := 1; i < len(segs); i++ {
		if segs[i] != segs[i-1]+1 {
			return nil, &CorruptionError{Segment: segs[i-1] + 1,
				Err: errors.Newf("segment missing between %s and %s",
					SegmentName(segs[i-1]), SegmentName(segs[i]))}
		}
	}
	return segs, nil
}

// RemoveSegments deletes the segments numbered below first, and syncs the
// directory. A crash before the sync may keep any subset of the removals,
// so the segments below first may have holes; recovery removes them again
// before it reads the log, which from first on is whole.
func RemoveSegments(fs vfs.FS, dir string, first uint64) (removed int, err error) {
	names, err := fs.List(dir)
	if err != nil {
		return 0, err
	}
	for _, name := range names {
		if n, ok := parseSegmentName(name); !ok || n >= first {
			continue
		}
		if err := fs.Remove(fs.PathJoin(dir, name)); err != nil {
			return removed, err
		}
		removed++
	}
	if removed > 0 {
		err = fs.SyncDir(dir)
	}
	return removed, err
}

// Pos is a position in the log.
type Pos struct {
	Segment uint64
	Offset  int64
}

// ScanResult says where the log ends.
type ScanResult struct {
	// Segments are the segment numbers that were read, in order.
	Segments []uint64
	// End is where the next record would go: the end of the last valid
	// record of the newest segment.
	End Pos
	// Torn reports that the newest segment had a torn tail after End, and
	// TornErr is the sentinel that described it.
	Torn    bool
	TornErr error
}

// Scan calls fn for every valid record in the log, in order, and reports
// where the log ends. An invalid record that is not a torn tail of the newest
// segment stops the scan with a *CorruptionError; fn's errors stop it too.
func Scan(fs vfs.FS, dir string, fn func(pos Pos, rec *Record) error) (ScanResult, error) {
	segs, err := Segments(fs, dir)
	if err != nil {
		return ScanResult{}, err
	}
	res := ScanResult{Segments: segs}
	for i, seg := range segs {
		data, err := readFile(fs, fs.PathJoin(dir, SegmentName(seg)))
		if err != nil {
			return res, err
		}
		r := NewReader(data, seg)
		for {
			pos := Pos{Segment: seg, Offset: r.Offset()}
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				// A batch is all or nothing: a torn tail drops the whole
				// batch, none of which was acknowledged.
				newest := i == len(segs)-1
				batch := r.BatchStart()
				if newest && !syncedBatchAfter(data, seg, batch) {
					res.End, res.Torn, res.TornErr = Pos{Segment: seg, Offset: batch}, true, err
					return res, nil
				}
				return res, &CorruptionError{Segment: seg, Offset: pos.Offset, Err: err}
			}
			if err := fn(pos, rec); err != nil {
				return res, err
			}
		}
		res.End = Pos{Segment: seg, Offset: r.Offset()}
	}
	return res, nil
}

// TruncateTorn cuts a torn tail off the newest segment and syncs it, so that
// the segment reads cleanly once a newer segment follows it.
func TruncateTorn(fs vfs.FS, dir string, res ScanResult) error {
	if !res.Torn {
		return nil
	}
	f, err := fs.OpenReadWrite(fs.PathJoin(dir, SegmentName(res.End.Segment)))
	if err != nil {
		return err
	}
	if err := f.Truncate(res.End.Offset); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func readFile(fs vfs.FS, name string) ([]byte, error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
