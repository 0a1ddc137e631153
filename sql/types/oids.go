package types

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// Reg is a datum of the object identifier alias types (regclass, regtype,
// regproc, regprocedure, regnamespace, regrole): an oid that prints as the
// name of the object it identifies. PostgreSQL's output functions look the
// name up in the catalogs; this package has none, so the SQL layer resolves
// the name when it makes the value, and the value carries it. A value made
// from a bare number (a binary parameter, or an oid this package casts)
// prints as the number, as PostgreSQL prints an oid it cannot find.
type Reg struct {
	Oid  Oid
	Name string
}

// IsReg reports whether oid is one of the reg* types.
func IsReg(oid Oid) bool {
	switch oid {
	case OidRegproc, OidRegprocedure, OidRegclass, OidRegtype, OidRegnamespace, OidRegrole:
		return true
	}
	return false
}

// isVector reports whether oid is int2vector or oidvector: arrays whose
// text form is the elements separated by spaces, and whose subscripts
// start at 0.
func isVector(oid Oid) bool { return oid == OidInt2Vector || oid == OidOidVector }

// LowerBound returns the subscript of an array's first element: 0 for the
// vector types, 1 for every other array.
func LowerBound(t T) int {
	if isVector(t.Oid) {
		return 0
	}
	return 1
}

// appendRegText is the output function of the reg* types: the name, or
// "-" for the invalid oid 0, as PostgreSQL prints it.
func appendRegText(buf []byte, r Reg) []byte {
	switch {
	case r.Oid == 0:
		return append(buf, '-')
	case r.Name != "":
		return append(buf, r.Name...)
	}
	return strconv.AppendUint(buf, uint64(r.Oid), 10)
}

// parseReg is the input function of the reg* types for what it can read
// without the catalogs: a number, or "-" for oid 0.
func parseReg(t T, s string) (any, error) {
	str := strings.TrimSpace(s)
	if str == "-" {
		return Reg{}, nil
	}
	if str == "" || !allDigits(str) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot look up %s %q here", t, s).
			WithHint("Cast a text value to %s in a query instead.", t)
	}
	n, err := strconv.ParseUint(str, 10, 32)
	if err != nil {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, `value "%s" is out of range for type oid`, s)
	}
	return Reg{Oid: Oid(n)}, nil
}

func decodeRegBinary(t T, b []byte) (any, error) {
	if len(b) != 4 {
		return nil, errBinaryFormat(t)
	}
	return Reg{Oid: Oid(binary.BigEndian.Uint32(b))}, nil
}

// parseVector is int2vectorin and oidvectorin: elements separated by
// spaces.
func parseVector(t T, s string) (any, error) {
	elem, _ := t.Elem()
	vals := []any{}
	for f := range strings.FieldsSeq(s) {
		v, err := parseText(elem, f, nil)
		if err != nil {
			return nil, err
		}
		if v, err = Coerce(elem, v); err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	return vals, nil
}

func appendVectorText(buf []byte, vals []any) []byte {
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, v.(int64), 10)
	}
	return buf
}
