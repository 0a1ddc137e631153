package types

import (
	"cmp"
	"encoding/binary"
	"github.com/cockroachdb/apd/v3"
	"math"
	"strings"
	"sync"
	"time"
)

// Records are anonymous composite values, such as a function returning
// several columns makes. As in PostgreSQL, an anonymous record type is
// record with a typmod that indexes a registry of record shapes, so that a
// T alone says what fields its values have. The registry only grows, and a
// shape registered twice keeps its first typmod. A record datum is a []any
// of its fields' datums.

// Field is one field of a record type.
type Field struct {
	Name string
	T    T
}

var records struct {
	mu     sync.Mutex
	shapes [][]Field
	byKey  map[string]int32
}

// RecordOf returns the record type with the given fields.
func RecordOf(fields []Field) T {
	var key strings.Builder
	for _, f := range fields {
		key.WriteString(f.Name)
		key.WriteByte(0)
		key.Write(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(f.T.Oid)), uint32(f.T.Mod)))
	}
	records.mu.Lock()
	defer records.mu.Unlock()
	if mod, ok := records.byKey[key.String()]; ok {
		return T{OidRecord, mod}
	}
	if records.byKey == nil {
		records.byKey = make(map[string]int32)
	}
	mod := int32(len(records.shapes))
	records.shapes = append(records.shapes, append([]Field(nil), fields...))
	records.byKey[key.String()] = mod
	return T{OidRecord, mod}
}

// Fields returns the fields of a record type made by RecordOf.
func (t T) Fields() ([]Field, bool) {
	if t.Oid != OidRecord || t.Mod < 0 {
		return nil, false
	}
	records.mu.Lock()
	defer records.mu.Unlock()
	if int(t.Mod) >= len(records.shapes) {
		return nil, false
	}
	return records.shapes[t.Mod], true
}

// appendRecordText is record_out: (a,b) with NULL fields empty and fields
// quoted where they hold a delimiter, a quote, a backslash or space, or
// nothing at all.
func appendRecordText(buf []byte, fields []Field, vals []any, loc *time.Location) []byte {
	buf = append(buf, '(')
	var scratch []byte
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		if v == nil {
			continue
		}
		scratch = AppendText(scratch[:0], fieldType(fields, i, v), v, loc)
		if len(scratch) > 0 && !strings.ContainsAny(string(scratch), "\",()\\ \t\n\r\v\f") {
			buf = append(buf, scratch...)
			continue
		}
		buf = append(buf, '"')
		for _, c := range scratch {
			if c == '"' || c == '\\' {
				buf = append(buf, c)
			}
			buf = append(buf, c)
		}
		buf = append(buf, '"')
	}
	return append(buf, ')')
}

// fieldType is the type of a record's field i, whose value is v. A record
// whose type lost its shape (a VALUES column of rows of different field
// types is plain record) still has values: each tells its own type, as a
// PostgreSQL record datum carries its.
func fieldType(fields []Field, i int, v any) T {
	if i < len(fields) {
		return fields[i].T
	}
	switch v.(type) {
	case bool:
		return Bool
	case int64:
		return Int8
	case float64:
		return Float8
	case *apd.Decimal:
		return Numeric
	case []byte:
		return Bytea
	case time.Time:
		return Timestamptz
	case Interval:
		return IntervalType
	case UUID:
		return UUIDType
	case Inet:
		return InetType
	case Macaddr:
		return MacaddrType
	case Macaddr8:
		return Macaddr8Type
	case *JSON:
		return JSONBType
	case []any:
		return T{OidRecord, -1}
	}
	return Text
}

// appendRecordBinary is record_send: the field count, then each field's
// type oid, length (-1 for NULL) and binary value.
func appendRecordBinary(buf []byte, fields []Field, vals []any) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(vals)))
	for i, v := range vals {
		t := fieldType(fields, i, v)
		buf = binary.BigEndian.AppendUint32(buf, uint32(t.Oid))
		if v == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		buf = AppendBinary(buf, t, v)
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf
}

// compareRecords orders records field by field, a NULL field after any
// other, as record comparison does.
func compareRecords(fields []Field, a, b []any) int {
	for i := range min(len(a), len(b), len(fields)) {
		x, y := a[i], b[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := Compare(fields[i].T, x, y); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
