package types

import (
	"math"
	"sync"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// Enum types, which CREATE TYPE ... AS ENUM makes. Their oids lie in a
// range of their own, from EnumOidBase, so that this package knows one
// without the catalogs; the SQL layer gives a type its oid and keeps its
// name and labels. A value carries its label and its sort order
// (pg_enum.enumsortorder), as a Reg carries its name: it compares by the
// order and prints as the label, with no lookup.
//
// Text and binary input, which have no catalog, make an unresolved value:
// the label alone, its order NaN. The SQL layer resolves such values, or
// rejects a label the type does not have, before it compares or stores
// them (ResolveEnum's callers).

// EnumOidBase is the first enum type oid. The array type of enum type t
// (ArrayOf) is t plus enumArrayOffset, up to EnumOidEnd.
const (
	EnumOidBase     Oid = 1 << 30
	enumArrayOffset Oid = 1 << 29
	EnumOidEnd      Oid = 1 << 31
)

// IsEnum reports whether oid is an enum type's.
func IsEnum(oid Oid) bool { return oid >= EnumOidBase && oid < EnumOidBase+enumArrayOffset }

// isEnumArray reports whether oid is the array type of an enum type.
func isEnumArray(oid Oid) bool { return oid >= EnumOidBase+enumArrayOffset && oid < EnumOidEnd }

// HasEnum reports whether t is an enum type or an array of one: values
// that input reads unresolved.
func HasEnum(t T) bool { return IsEnum(t.Oid) || isEnumArray(t.Oid) }

// Enum is a value of an enum type.
type Enum struct {
	Label string
	Sort  float32 // NaN until resolved
}

// enumNames holds the names of the enum types the process's engines have
// loaded, by oid, for String, which error messages print. It serves
// messages only: the catalogs name the types wherever a result holds a
// name (format_type, regtype, information_schema). ClaimEnumOid keeps
// the types that engines create side by side in one process (embedded
// tests) on oids of their own, so that each message names its own
// engine's type; only two stored databases, made by different processes
// and opened in one, can still share an oid.
var enumNames struct {
	sync.Mutex
	m map[Oid]string
}

// NameEnum records the name of the enum type oid, for String.
func NameEnum(oid Oid, name string) {
	enumNames.Lock()
	defer enumNames.Unlock()
	if enumNames.m == nil {
		enumNames.m = make(map[Oid]string)
	}
	enumNames.m[oid] = name
}

// ClaimEnumOid returns the first enum oid from want on that no type in
// the process has, and holds it for the caller's new type.
func ClaimEnumOid(want Oid) Oid {
	enumNames.Lock()
	defer enumNames.Unlock()
	if enumNames.m == nil {
		enumNames.m = make(map[Oid]string)
	}
	oid := max(want, EnumOidBase)
	for {
		if _, taken := enumNames.m[oid]; !taken {
			enumNames.m[oid] = ""
			return oid
		}
		oid++
	}
}

// enumName is the name NameEnum recorded for oid, or "".
func enumName(oid Oid) string {
	enumNames.Lock()
	defer enumNames.Unlock()
	return enumNames.m[oid]
}

// UnresolvedEnum is the value input makes of label, before the SQL layer
// finds its order.
func UnresolvedEnum(label string) Enum { return Enum{Label: label, Sort: float32(math.NaN())} }

// Resolved reports whether e has its sort order.
func (e Enum) Resolved() bool { return !math.IsNaN(float64(e.Sort)) }

// errUnresolvedEnum reports an enum value that reached a comparison or
// the store without the SQL layer resolving it: a bug, reported rather
// than stored.
func errUnresolvedEnum(e Enum) error {
	return pgerr.New(pgerr.InternalError, "enum value %q was not resolved", e.Label)
}
