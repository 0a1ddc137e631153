package types

import (
	"cmp"
	"slices"
)

// Info is a type's row in pg_type, as PostgreSQL 15 ships it.
type Info struct {
	Oid       Oid
	Name      string // typname: "int4", "_int4"
	Len       int16  // typlen: bytes, -1 for varlena, -2 for C strings
	ByVal     bool
	Category  byte // typcategory: 'N' numeric, 'S' string, 'A' array, ...
	Preferred bool // typispreferred within its category
	Elem      Oid
	Array     Oid
	Delim     byte
	Input     string // typinput, e.g. "int4in"
	Output    string
	Receive   string
	Send      string
	Type      byte // typtype: 'b' base, 'p' pseudo
	Align     byte // typalign: 'c' char, 's' short, 'i' int, 'd' double
	Storage   byte // typstorage: 'p' plain, 'x' extended, 'm' main
	Collation Oid  // typcollation: 100 (default) for text types, 950 (C) for name
	// Extension, for a type an extension provides (citext.go), names it.
	Extension string
}

// builtins are the base and pseudo types epochdb knows; each base type's
// array row is derived from it in init, because PostgreSQL's array rows differ
// only in name, oid and element.
var builtins = []Info{
	{Oid: OidBool, Name: "bool", Len: 1, ByVal: true, Category: 'B', Preferred: true, Array: OidBoolArray, Input: "boolin", Output: "boolout", Receive: "boolrecv", Send: "boolsend"},
	{Oid: OidBytea, Name: "bytea", Len: -1, Category: 'U', Array: OidByteaArray, Input: "byteain", Output: "byteaout", Receive: "bytearecv", Send: "byteasend"},
	{Oid: OidChar, Name: "char", Len: 1, ByVal: true, Category: 'Z', Array: OidCharArray, Input: "charin", Output: "charout", Receive: "charrecv", Send: "charsend"},
	{Oid: OidName, Name: "name", Len: 64, Category: 'S', Elem: OidChar, Array: OidNameArray, Input: "namein", Output: "nameout", Receive: "namerecv", Send: "namesend"},
	{Oid: OidInt8, Name: "int8", Len: 8, ByVal: true, Category: 'N', Array: OidInt8Array, Input: "int8in", Output: "int8out", Receive: "int8recv", Send: "int8send"},
	{Oid: OidInt2, Name: "int2", Len: 2, ByVal: true, Category: 'N', Array: OidInt2Array, Input: "int2in", Output: "int2out", Receive: "int2recv", Send: "int2send"},
	{Oid: OidInt4, Name: "int4", Len: 4, ByVal: true, Category: 'N', Array: OidInt4Array, Input: "int4in", Output: "int4out", Receive: "int4recv", Send: "int4send"},
	{Oid: OidText, Name: "text", Len: -1, Category: 'S', Preferred: true, Array: OidTextArray, Input: "textin", Output: "textout", Receive: "textrecv", Send: "textsend"},
	{Oid: OidOid, Name: "oid", Len: 4, ByVal: true, Category: 'N', Preferred: true, Array: OidOidArray, Input: "oidin", Output: "oidout", Receive: "oidrecv", Send: "oidsend"},
	{Oid: OidFloat4, Name: "float4", Len: 4, ByVal: true, Category: 'N', Array: OidFloat4Array, Input: "float4in", Output: "float4out", Receive: "float4recv", Send: "float4send"},
	{Oid: OidFloat8, Name: "float8", Len: 8, ByVal: true, Category: 'N', Preferred: true, Array: OidFloat8Array, Input: "float8in", Output: "float8out", Receive: "float8recv", Send: "float8send"},
	{Oid: OidBpchar, Name: "bpchar", Len: -1, Category: 'S', Array: OidBpcharArray, Input: "bpcharin", Output: "bpcharout", Receive: "bpcharrecv", Send: "bpcharsend"},
	{Oid: OidVarchar, Name: "varchar", Len: -1, Category: 'S', Array: OidVarcharArray, Input: "varcharin", Output: "varcharout", Receive: "varcharrecv", Send: "varcharsend"},
	{Oid: OidDate, Name: "date", Len: 4, ByVal: true, Category: 'D', Array: OidDateArray, Input: "date_in", Output: "date_out", Receive: "date_recv", Send: "date_send"},
	{Oid: OidTime, Name: "time", Len: 8, ByVal: true, Category: 'D', Array: OidTimeArray, Input: "time_in", Output: "time_out", Receive: "time_recv", Send: "time_send"},
	{Oid: OidTimestamp, Name: "timestamp", Len: 8, ByVal: true, Category: 'D', Array: OidTimestampArray, Input: "timestamp_in", Output: "timestamp_out", Receive: "timestamp_recv", Send: "timestamp_send"},
	{Oid: OidTimestamptz, Name: "timestamptz", Len: 8, ByVal: true, Category: 'D', Preferred: true, Array: OidTimestamptzArray, Input: "timestamptz_in", Output: "timestamptz_out", Receive: "timestamptz_recv", Send: "timestamptz_send"},
	{Oid: OidInterval, Name: "interval", Len: 16, Category: 'T', Preferred: true, Array: OidIntervalArray, Input: "interval_in", Output: "interval_out", Receive: "interval_recv", Send: "interval_send"},
	{Oid: OidNumeric, Name: "numeric", Len: -1, Category: 'N', Array: OidNumericArray, Input: "numeric_in", Output: "numeric_out", Receive: "numeric_recv", Send: "numeric_send"},
	{Oid: OidUUID, Name: "uuid", Len: 16, Category: 'U', Array: OidUUIDArray, Input: "uuid_in", Output: "uuid_out", Receive: "uuid_recv", Send: "uuid_send"},
	{Oid: OidJSON, Name: "json", Len: -1, Category: 'U', Array: OidJSONArray, Input: "json_in", Output: "json_out", Receive: "json_recv", Send: "json_send"},
	{Oid: OidJSONB, Name: "jsonb", Len: -1, Category: 'U', Array: OidJSONBArray, Input: "jsonb_in", Output: "jsonb_out", Receive: "jsonb_recv", Send: "jsonb_send"},
	{Oid: OidInet, Name: "inet", Len: -1, Category: 'I', Preferred: true, Array: OidInetArray, Input: "inet_in", Output: "inet_out", Receive: "inet_recv", Send: "inet_send"},
	{Oid: OidCidr, Name: "cidr", Len: -1, Category: 'I', Array: OidCidrArray, Input: "cidr_in", Output: "cidr_out", Receive: "cidr_recv", Send: "cidr_send"},
	{Oid: OidMacaddr, Name: "macaddr", Len: 6, Category: 'U', Array: OidMacaddrArray, Input: "macaddr_in", Output: "macaddr_out", Receive: "macaddr_recv", Send: "macaddr_send"},
	{Oid: OidMacaddr8, Name: "macaddr8", Len: 8, Category: 'U', Array: OidMacaddr8Array, Input: "macaddr8_in", Output: "macaddr8_out", Receive: "macaddr8_recv", Send: "macaddr8_send"},

	// The object identifier types the catalogs use. The vectors are
	// arrays of int2 and oid indexed from 0, printed without braces; arrays
	// of them, which PostgreSQL has, would be arrays of arrays here.
	{Oid: OidInt2Vector, Name: "int2vector", Len: -1, Category: 'A', Elem: OidInt2, Input: "int2vectorin", Output: "int2vectorout", Receive: "int2vectorrecv", Send: "int2vectorsend"},
	{Oid: OidOidVector, Name: "oidvector", Len: -1, Category: 'A', Elem: OidOid, Input: "oidvectorin", Output: "oidvectorout", Receive: "oidvectorrecv", Send: "oidvectorsend"},
	{Oid: OidRegproc, Name: "regproc", Len: 4, ByVal: true, Category: 'N', Array: 1008, Input: "regprocin", Output: "regprocout", Receive: "regprocrecv", Send: "regprocsend"},
	{Oid: OidRegprocedure, Name: "regprocedure", Len: 4, ByVal: true, Category: 'N', Array: 2207, Input: "regprocedurein", Output: "regprocedureout", Receive: "regprocedurerecv", Send: "regproceduresend"},
	{Oid: OidRegclass, Name: "regclass", Len: 4, ByVal: true, Category: 'N', Array: 2210, Input: "regclassin", Output: "regclassout", Receive: "regclassrecv", Send: "regclasssend"},
	{Oid: OidRegtype, Name: "regtype", Len: 4, ByVal: true, Category: 'N', Array: 2211, Input: "regtypein", Output: "regtypeout", Receive: "regtyperecv", Send: "regtypesend"},
	{Oid: OidRegnamespace, Name: "regnamespace", Len: 4, ByVal: true, Category: 'N', Array: 4090, Input: "regnamespacein", Output: "regnamespaceout", Receive: "regnamespacerecv", Send: "regnamespacesend"},
	{Oid: OidRegrole, Name: "regrole", Len: 4, ByVal: true, Category: 'N', Array: 4097, Input: "regrolein", Output: "regroleout", Receive: "regrolerecv", Send: "regrolesend"},

	// Pseudo-types that appear in row descriptions (untyped literals,
	// functions returning nothing, and anonymous rows) or in the signatures
	// of the functions pg_proc lists. They have no array rows here because
	// nothing stores them.
	{Oid: OidUnknown, Name: "unknown", Len: -2, Category: 'X', Input: "unknownin", Output: "unknownout", Receive: "unknownrecv", Send: "unknownsend", Type: 'p'},
	{Oid: OidVoid, Name: "void", Len: 4, ByVal: true, Category: 'P', Input: "void_in", Output: "void_out", Receive: "void_recv", Send: "void_send", Type: 'p'},
	{Oid: OidRecord, Name: "record", Len: -1, Category: 'P', Input: "record_in", Output: "record_out", Receive: "record_recv", Send: "record_send", Type: 'p'},
	{Oid: OidTableAMHandler, Name: "table_am_handler", Len: 4, ByVal: true, Category: 'P', Input: "table_am_handler_in", Output: "table_am_handler_out", Type: 'p'},
	{Oid: OidIndexAMHandler, Name: "index_am_handler", Len: 4, ByVal: true, Category: 'P', Input: "index_am_handler_in", Output: "index_am_handler_out", Type: 'p'},
	{Oid: OidCstring, Name: "cstring", Len: -2, Category: 'P', Input: "cstring_in", Output: "cstring_out", Receive: "cstring_recv", Send: "cstring_send", Type: 'p'},
	{Oid: OidAnyArray, Name: "anyarray", Len: -1, Category: 'P', Input: "anyarray_in", Output: "anyarray_out", Receive: "anyarray_recv", Send: "anyarray_send", Type: 'p'},
	{Oid: OidInternal, Name: "internal", Len: 8, ByVal: true, Category: 'P', Input: "internal_in", Output: "internal_out", Type: 'p'},
	{Oid: OidAnyElement, Name: "anyelement", Len: 4, ByVal: true, Category: 'P', Input: "anyelement_in", Output: "anyelement_out", Type: 'p'},
	{Oid: OidTrigger, Name: "trigger", Len: 4, ByVal: true, Category: 'P', Input: "trigger_in", Output: "trigger_out", Type: 'p'},
}

var (
	catalog = map[Oid]Info{} // the built-in types and the extensions'
	all     []Info           // the built-in types, ordered by oid, as pg_type scans list them
	// arrayElem maps an array type's oid to its element's; 0 for any other
	// oid. Elem and IsArray run for every value written and read, so the
	// oids below denseOids are looked up in a slice, not a map.
	arrayElem      = map[Oid]Oid{}
	arrayElemDense [denseOids]Oid
)

// denseOids bounds the built-in oids arrayElemDense holds.
const denseOids = 1 << 13

// elemOf is arrayElem[oid].
func elemOf(oid Oid) Oid {
	if oid < denseOids {
		return arrayElemDense[oid]
	}
	return arrayElem[oid]
}

func init() {
	for _, b := range builtins {
		all = append(all, register(b)...)
	}
	for _, b := range extensionTypes {
		register(b)
	}
	for _, in := range catalog {
		if in.Category == 'A' {
			arrayElem[in.Oid] = in.Elem
			if in.Oid < denseOids {
				arrayElemDense[in.Oid] = in.Elem
			}
		}
	}
	slices.SortFunc(all, func(a, b Info) int { return cmp.Compare(a.Oid, b.Oid) })
}

// register completes b's row and enters it, and its array row if it has
// one, in catalog, returning both.
func register(b Info) []Info {
	b.Delim = ','
	if b.Type == 0 {
		b.Type = 'b'
	}
	b.Align, b.Storage = layout(b)
	switch b.Oid {
	case OidText, OidVarchar, OidBpchar:
		b.Collation = 100
	case OidName:
		b.Collation = 950
	}
	catalog[b.Oid] = b
	if b.Array == 0 {
		return []Info{b}
	}
	align := byte('i')
	if b.Align == 'd' {
		align = 'd'
	}
	a := Info{
		Oid: b.Array, Name: "_" + b.Name, Len: -1, Category: 'A', Elem: b.Oid, Delim: ',',
		Input: "array_in", Output: "array_out", Receive: "array_recv", Send: "array_send", Type: 'b',
		Align: align, Storage: 'x', Collation: b.Collation, Extension: b.Extension,
	}
	catalog[a.Oid] = a
	return []Info{b, a}
}

// layout is how PostgreSQL stores a value of the type: its alignment and
// its TOAST strategy.
func layout(in Info) (align, storage byte) {
	switch {
	case in.Oid == OidNumeric, in.Oid == OidInet, in.Oid == OidCidr:
		return 'i', 'm'
	case in.Oid == OidMacaddr8:
		return 'i', 'p' // eight bytes, but not aligned as a double
	case in.Oid == OidUUID, in.Oid == OidName, in.Len == -2:
		return 'c', 'p'
	case in.Oid == OidInterval:
		return 'd', 'p'
	case in.Oid == OidRecord, in.Oid == OidAnyArray:
		return 'd', 'x'
	case in.Len == 1:
		return 'c', 'p'
	case in.Len == 2:
		return 's', 'p'
	case in.Len == 8:
		return 'd', 'p'
	case in.Len > 0, isVector(in.Oid):
		return 'i', 'p'
	}
	return 'i', 'x'
}

// Lookup returns the pg_type row of a built-in type or an extension's.
func Lookup(oid Oid) (Info, bool) {
	in, ok := catalog[oid]
	return in, ok
}

// All returns every built-in type, arrays included, ordered by oid. The
// caller may keep but not modify the slice.
func All() []Info { return all }

// IsArray reports whether t is an array type.
func (t T) IsArray() bool { return elemOf(t.Oid) != 0 || isEnumArray(t.Oid) }

// Elem returns the element type of an array type, carrying the array's
// modifier as PostgreSQL does (varchar(10)[] has atttypmod 14).
func (t T) Elem() (T, bool) {
	elem := elemOf(t.Oid)
	if elem == 0 {
		if isEnumArray(t.Oid) {
			return T{t.Oid - enumArrayOffset, t.Mod}, true
		}
		return T{}, false
	}
	return T{elem, t.Mod}, true
}

// ArrayOf returns the array type whose elements are t. There are no arrays
// of arrays: a PostgreSQL array type covers every dimension.
func ArrayOf(t T) (T, bool) {
	if IsEnum(t.Oid) {
		return T{t.Oid + enumArrayOffset, t.Mod}, true
	}
	in, ok := catalog[t.Oid]
	if !ok || in.Array == 0 {
		return T{}, false
	}
	return T{in.Array, t.Mod}, true
}
