package pgwire

import (
	"time"

	"github.com/epochdb/epochdb/sql/types"
)

// This file is pgwire's only use of the types package's wire encodings.

// decodeParam decodes a Bind parameter in format f (0 text, 1 binary). b
// belongs to the read buffer; the datums the types package returns never
// point into their input.
func decodeParam(t types.T, f int16, b []byte, loc *time.Location) (any, error) {
	if f == 1 {
		return types.DecodeBinary(t, b)
	}
	return types.ParseText(t, string(b), loc)
}

// appendDatum appends the non-NULL datum v of type t in format f. It panics
// if v is not a datum of type t, as the types package's encoders do.
func appendDatum(buf []byte, t types.T, f int16, v any, loc *time.Location) []byte {
	if f == 1 {
		return types.AppendBinary(buf, t, v)
	}
	return types.AppendText(buf, t, v, loc)
}
