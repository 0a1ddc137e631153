// Package types is epochdb's SQL type system: PostgreSQL type OIDs, the Go
// values that carry SQL values (datums), their text and binary wire formats,
// comparison, casts, and the encodings rows and index keys are stored in.
//
// # Datums
//
// A datum is a Go value whose meaning is given by the T it travels with:
//
//	SQL NULL                          nil (for every type)
//	bool                              bool
//	int2, int4, int8, oid             int64 (range-checked when assigned)
//	float4, float8                    float64 (float4 rounded to float32 precision)
//	numeric                           *apd.Decimal, never mutated once made; -Exponent is
//	                                  the display scale (1.50 has Exponent -2); NaN, ±Infinity
//	text, varchar(n), char(n), name,  string (char(n) stored blank-padded to n)
//	  citext
//	"char"                            string of at most one byte
//	bytea                             []byte
//	date                              time.Time, midnight UTC of that day
//	time                              int64 microseconds since midnight, 0 to 24:00:00
//	timestamp                         time.Time in UTC holding the wall-clock reading
//	timestamptz                       time.Time in UTC, the instant
//	  'infinity', '-infinity'           TimeInfinity, TimeNegInfinity (all three)
//	interval                          Interval
//	uuid                              UUID
//	json, jsonb                       *JSON: json's keeps its source text, jsonb's is normalized
//	inet, cidr                        Inet
//	macaddr, macaddr8                 Macaddr, Macaddr8
//	arrays (int8[], text[], ...)      []any of the element's datums
//	int2vector, oidvector             []any of int64, as arrays of int2 and oid
//	regclass, regtype, ...            Reg: the oid and the name it prints as
//	record (anonymous composite)      []any of its fields' datums; T.Fields says their types
//
// Keeping one Go type per family keeps expression evaluation simple; the T
// says how to print, compare and check it.
//
// # Files
//
//	names.go    type names: T.String (format_type) and ParseTypeName
//	catalog.go  the built-in pg_type rows: Lookup, All, Elem, ArrayOf
//	text.go     text input and output (PostgreSQL's typinput/typoutput)
//	datetime.go date and timestamp text formats, time zones
//	timeofday.go the time type: its text format, casts and arithmetic
//	interval.go interval text formats
//	numeric.go  numeric rounding and PostgreSQL's numeric limits
//	binary.go   binary send/recv formats
//	coerce.go   assignment to a column: type modifiers and ranges
//	compare.go  ordering of two datums
//	cast.go     explicit casts
//	json.go     json and jsonb values: parsing, output, ordering, containment
//	network.go  inet, cidr, macaddr and macaddr8: their formats and order
//	oids.go     object identifier types: regclass and its kin, int2vector, oidvector
//	record.go   anonymous records: the registry of their shapes, their formats
//	citext.go   the case-insensitive text of the citext extension
//	key.go      order-preserving key encoding
//	row.go      compact row encoding
package types

import (
	"fmt"
	"time"
)

// Oid is a PostgreSQL object id; for types, the pg_type oid.
type Oid uint32

// Built-in type OIDs, as in PostgreSQL's pg_type.
const (
	OidBool        Oid = 16
	OidBytea       Oid = 17
	OidChar        Oid = 18 // "char", one byte; not character(n)
	OidName        Oid = 19
	OidInt8        Oid = 20
	OidInt2        Oid = 21
	OidInt4        Oid = 23
	OidInt2Vector  Oid = 22
	OidRegproc     Oid = 24
	OidText        Oid = 25
	OidOid         Oid = 26
	OidOidVector   Oid = 30
	OidFloat4      Oid = 700
	OidFloat8      Oid = 701
	OidUnknown     Oid = 705
	OidBpchar      Oid = 1042
	OidVarchar     Oid = 1043
	OidDate        Oid = 1082
	OidTime        Oid = 1083
	OidTimestamp   Oid = 1114
	OidTimestamptz Oid = 1184
	OidInterval    Oid = 1186
	OidNumeric     Oid = 1700
	OidUUID        Oid = 2950
	OidJSON        Oid = 114
	OidInet        Oid = 869
	OidCidr        Oid = 650
	OidMacaddr     Oid = 829
	OidMacaddr8    Oid = 774
	OidJSONB       Oid = 3802
	OidVoid        Oid = 2278
	OidRecord      Oid = 2249
	OidTrigger     Oid = 2279

	OidTableAMHandler Oid = 269
	OidIndexAMHandler Oid = 325
	OidCstring        Oid = 2275
	OidAnyArray       Oid = 2277
	OidInternal       Oid = 2281
	OidAnyElement     Oid = 2283

	// Pseudo-types that only the signatures of built-in functions use.
	OidAny                Oid = 2276
	OidAnyNonArray        Oid = 2776
	OidAnyCompatible      Oid = 5077
	OidAnyCompatibleArray Oid = 5078
	OidAnyEnum            Oid = 3500

	OidRegprocedure Oid = 2202
	OidRegclass     Oid = 2205
	OidRegtype      Oid = 2206
	OidRegnamespace Oid = 4089
	OidRegrole      Oid = 4096

	OidBoolArray        Oid = 1000
	OidByteaArray       Oid = 1001
	OidInt2Array        Oid = 1005
	OidInt4Array        Oid = 1007
	OidTextArray        Oid = 1009
	OidBpcharArray      Oid = 1014
	OidVarcharArray     Oid = 1015
	OidInt8Array        Oid = 1016
	OidFloat4Array      Oid = 1021
	OidFloat8Array      Oid = 1022
	OidOidArray         Oid = 1028
	OidNameArray        Oid = 1003
	OidCharArray        Oid = 1002
	OidTimestampArray   Oid = 1115
	OidDateArray        Oid = 1182
	OidTimeArray        Oid = 1183
	OidTimestamptzArray Oid = 1185
	OidIntervalArray    Oid = 1187
	OidNumericArray     Oid = 1231
	OidUUIDArray        Oid = 2951
	OidJSONArray        Oid = 199
	OidJSONBArray       Oid = 3807
	OidInetArray        Oid = 1041
	OidCidrArray        Oid = 651
	OidMacaddrArray     Oid = 1040
	OidMacaddr8Array    Oid = 775
)

// T is a SQL type: its OID and its type modifier, as PostgreSQL keeps them
// (atttypmod): -1 for none; n+4 for varchar(n) and char(n);
// ((precision<<16)|(scale&0x7ff))+4 for numeric(p,s), the scale being an
// 11-bit signed field; p for time(p), timestamp(p) and timestamptz(p);
// (0x7fff<<16)|p for interval(p) (all fields allowed, precision p). An
// array type carries its element's modifier, as atttypmod does.
type T struct {
	Oid Oid
	Mod int32
}

// Common types without modifiers.
var (
	Bool         = T{OidBool, -1}
	Bytea        = T{OidBytea, -1}
	Int2         = T{OidInt2, -1}
	Int4         = T{OidInt4, -1}
	Int8         = T{OidInt8, -1}
	Float4       = T{OidFloat4, -1}
	Float8       = T{OidFloat8, -1}
	Numeric      = T{OidNumeric, -1}
	Text         = T{OidText, -1}
	Varchar      = T{OidVarchar, -1}
	Bpchar       = T{OidBpchar, -1}
	Name         = T{OidName, -1}
	Date         = T{OidDate, -1}
	TimeType     = T{OidTime, -1}
	Timestamp    = T{OidTimestamp, -1}
	Timestamptz  = T{OidTimestamptz, -1}
	IntervalType = T{OidInterval, -1}
	UUIDType     = T{OidUUID, -1}
	JSONType     = T{OidJSON, -1}
	JSONBType    = T{OidJSONB, -1}
	InetType     = T{OidInet, -1}
	CidrType     = T{OidCidr, -1}
	MacaddrType  = T{OidMacaddr, -1}
	Macaddr8Type = T{OidMacaddr8, -1}
	OidType      = T{OidOid, -1}
	Unknown      = T{OidUnknown, -1}
	Char         = T{OidChar, -1}
	Int8Array    = T{OidInt8Array, -1}
	TextArray    = T{OidTextArray, -1}
	NameArray    = T{OidNameArray, -1}
	Int2Array    = T{OidInt2Array, -1}
	OidArray     = T{OidOidArray, -1}
	CharArray    = T{OidCharArray, -1}
	Int2Vector   = T{OidInt2Vector, -1}
	OidVector    = T{OidOidVector, -1}
	Regclass     = T{OidRegclass, -1}
	Regtype      = T{OidRegtype, -1}
	Regproc      = T{OidRegproc, -1}
	Regnamespace = T{OidRegnamespace, -1}
	Regrole      = T{OidRegrole, -1}
)

// Interval is a PostgreSQL interval: months, days and microseconds are kept
// apart because their lengths vary.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

// UUID is a 16-byte uuid.
type UUID [16]byte

// TimeInfinity and TimeNegInfinity are the datums of 'infinity' and
// '-infinity' for date, timestamp and timestamptz. They lie beyond the
// range of every finite date (4714 BC to 5874897 AD) and timestamp, so they
// sort as PostgreSQL's infinities do; the encodings map them to
// PostgreSQL's representation, the extreme int32 or int64.
var (
	TimeInfinity    = time.Date(10_000_000, time.January, 1, 0, 0, 0, 0, time.UTC)
	TimeNegInfinity = time.Date(-10_000_000, time.January, 1, 0, 0, 0, 0, time.UTC)
)

// pgEpochUnix is 2000-01-01 00:00:00 UTC, PostgreSQL's epoch for dates and
// timestamps, in Unix seconds.
const pgEpochUnix = 946684800

func (t T) GoString() string { return fmt.Sprintf("types.T{%d, %d}", t.Oid, t.Mod) }
