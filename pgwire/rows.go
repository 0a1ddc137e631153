package pgwire

import (
	"encoding/binary"
	"math"

	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/jackc/pgx/v5/pgproto3"
)

// sendRowDescription describes a result's columns in the given formats
// (nil: all text), or sends NoData for a statement without a result.
func (c *conn) sendRowDescription(cols []sql.Column, formats []int16) {
	if cols == nil {
		c.send(&pgproto3.NoData{})
		return
	}
	// The message is encoded as it is sent, so the connection's scratch
	// description and names serve every result: describing one allocates
	// nothing once they have grown.
	names := c.descNames[:0]
	for _, col := range cols {
		names = append(names, col.Name...)
	}
	c.descNames = names
	fields := c.desc.Fields[:0]
	for i, col := range cols {
		size := int16(-1)
		if info, ok := types.Lookup(col.Type.Oid); ok {
			size = info.Len
		} else if types.IsEnum(col.Type.Oid) {
			size = 4 // as pg_type says of every enum
		}
		name := names[:len(col.Name):len(col.Name)]
		names = names[len(col.Name):]
		fields = append(fields, pgproto3.FieldDescription{
			Name:                 name,
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.AttNum),
			DataTypeOID:          uint32(col.Type.Oid),
			DataTypeSize:         size,
			TypeModifier:         col.Type.Mod,
			Format:               formatOf(formats, i),
		})
	}
	c.desc.Fields = fields
	c.send(&c.desc)
}

func formatOf(formats []int16, i int) int16 {
	if i < len(formats) {
		return formats[i]
	}
	return 0
}

// writeRow is Execute's emit: it encodes a DataRow straight into the output
// buffer, each datum in its column's format, and writes the buffer out once
// it is large. A datum that cannot be encoded is the SQL layer's bug; the
// error (XX000, not a panic) lets the session unwind normally.
func (c *conn) writeRow(cols []sql.Column, formats []int16, row []any) (err error) {
	if c.werr != nil {
		return c.werr
	}
	if len(row) != len(cols) {
		return pgerr.New(pgerr.InternalError, "row has %d values for %d columns", len(row), len(cols))
	}
	start := len(c.out)
	defer func() {
		if r := recover(); r != nil {
			err = c.internalError(r)
		}
		if err != nil {
			c.out = c.out[:start]
		}
	}()
	c.out = append(c.out, 'D', 0, 0, 0, 0)
	c.out = binary.BigEndian.AppendUint16(c.out, uint16(len(row)))
	for i, v := range row {
		if v == nil {
			c.out = binary.BigEndian.AppendUint32(c.out, math.MaxUint32) // -1: NULL
			continue
		}
		at := len(c.out)
		c.out = append(c.out, 0, 0, 0, 0)
		c.out = appendDatum(c.out, cols[i].Type, formatOf(formats, i), v, c.loc)
		binary.BigEndian.PutUint32(c.out[at:], uint32(len(c.out)-at-4))
	}
	if len(c.out)-start-1 > math.MaxInt32 {
		return pgerr.New(pgerr.ProgramLimitExceeded, "row is too large to send")
	}
	binary.BigEndian.PutUint32(c.out[start+1:], uint32(len(c.out)-start-1))
	if len(c.out) >= flushThreshold {
		return c.flush()
	}
	return nil
}
