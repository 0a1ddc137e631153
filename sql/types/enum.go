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

// enumNames holds the names of the enum types the SQL layer has loaded,
// by oid, for String, which error messages print. It serves messages
// only: the catalogs name the types wherever a name matters.
var enumNames sync.Map

// NameEnum records the name of the enum type oid, for String.
func NameEnum(oid Oid, name string) { enumNames.Store(oid, name) }

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
