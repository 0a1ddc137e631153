package sstable

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/epochdb/epochdb/internal/vfs"
)

// Dump prints the properties and every entry of the sstable at path, each
// with what it means to a reader: fate says, for an entry, whether it
// counts. A file holds unresolved versions of transactions that may never
// commit; they are physically there and count only if the status table,
// which the manifest and the log make durable, says their writer
// committed. Dump is how to see that boundary.
func Dump(out io.Writer, fs vfs.FS, path string, fate func(*Entry) string) error {
	f, err := fs.Open(path)
	if err != nil {
		return err
	}
	num, _ := ParseFileName(filepath.Base(path))
	r, err := Open(f, path, num, nil)
	if err != nil {
		_ = f.Close()
		return err
	}
	defer r.Close()
	p := r.Properties()
	fmt.Fprintf(out, "%s: %d bytes, %d entries (%d values, %d tombstones, %d locks, %d unresolved) in %d blocks\n",
		path, r.Size(), p.NumEntries, p.NumValues, p.NumTombstones, p.NumLocks, p.NumUnresolved, p.NumDataBlocks)
	fmt.Fprintf(out, "keys %s .. %s, seqs %d .. %d, commit ts %d .. %d, unresolved txns %v\n",
		quote(p.SmallestKey), quote(p.LargestKey), p.SmallestSeq, p.LargestSeq, p.MinTS, p.MaxTS, p.UnresolvedTxns)
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSEQ\tKIND\tWRITER\tVALUE\tFATE")
	counts := make(map[string]int)
	var order []string
	it := r.NewIter()
	for ok := it.First(); ok; ok = it.Next() {
		e := it.Entry()
		writer := "ts " + strconv.FormatUint(e.TS, 10)
		if e.Txn != 0 {
			writer = fmt.Sprintf("txn %d cmd %d", e.Txn, e.Cmd)
		}
		value := "-"
		if e.Kind == KindValue {
			value = quote(e.Value)
		}
		fa := fate(e)
		if counts[fa]++; counts[fa] == 1 {
			order = append(order, fa)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", quote(e.Key), e.Seq, e.Kind, writer, value, fa)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, fa := range order {
		fmt.Fprintf(out, "%d entries: %s\n", counts[fa], fa)
	}
	return nil
}

// quote prints a key or value readably, cut to a sensible width.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…(" + strconv.Itoa(len(b)) + " B)"
	}
	return strconv.Quote(string(b))
}
