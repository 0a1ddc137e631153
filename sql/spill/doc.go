// Package spill is where the executor's rows go when they do not fit in
// work_mem: temporary files of rows, and the encoding of the rows in them.
// The operators that decide when to spill (the external sort, spilling
// hash tables, the row store) are the executor's; this package only keeps
// rows on disk and gives them back, exactly as they went in.
//
// # Files
//
// A statement's temporary files form a Set, made once per statement and
// emptied by RemoveAll when the statement ends, however it ends. Each File
// is written once, from the start, in records, and read back by any number
// of Readers, each from an offset of its own:
//
//	file:   record*
//	record: uvarint(len(payload)) payload
//	payload: a row, below
//
// A File buffers BufSize bytes; a Reader sees what was flushed. The first
// failed write makes the File unusable, and the error is PostgreSQL's:
// disk_full (53100) when the device is full, io_error (58030) otherwise.
// The Set's Stats count files and bytes for pg_stat_database.
//
// # Rows
//
// A row is encoded self-describing (see codec.go): an operator spills
// rows whose columns it has no types for (hidden keys, sort keys, group
// keys beside input rows), and decoding gives back the very Go values the
// executor made, not merely equal ones: 1.50 stays 1.50, json keeps its
// text, a nil []byte stays apart from an empty one. RowSize estimates the
// Go heap a row holds; work_mem is checked against it.
//
// The package depends on sql/types and sql/pgerr only.
package spill
