package types

import "strings"

// citext, the case-insensitive text of PostgreSQL's citext extension. A
// value is a string kept as it was written; it compares, and so sorts,
// groups and keys an index, by its lower-case form, as citext_cmp
// compares str_tolower's results, bytewise under epochdb's C collation.
//
// The type is built in, but it is no built-in type of pg_catalog: All
// leaves it out and ParseTypeName does not know its name. It exists in a
// database while CREATE EXTENSION citext has installed it, in the schema
// the extension went to, which the SQL layer decides (ExtensionTypes).
// Its oids are fixed, just below the enum range and clear of the built-in
// ones, so that values compare and encode without the catalogs.

// The oids of citext and citext[].
const (
	OidCitext      Oid = EnumOidBase - 2
	OidCitextArray Oid = EnumOidBase - 1
)

// Citext is the citext type.
var Citext = T{OidCitext, -1}

// extensionTypes are the pg_type rows of the types extensions provide,
// each naming its extension; their array rows are derived as the
// built-in types' are.
var extensionTypes = []Info{
	{Oid: OidCitext, Name: "citext", Len: -1, Category: 'S', Array: OidCitextArray, Input: "citextin",
		Output: "citextout", Receive: "citextrecv", Send: "citextsend", Collation: 100, Extension: "citext"},
}

// ExtensionTypes are the pg_type rows of the types extension ext
// provides, arrays included, ordered by oid.
func ExtensionTypes(ext string) []Info {
	var out []Info
	for _, in := range extensionTypes {
		if in.Extension == ext {
			out = append(out, catalog[in.Oid])
			if in.Array != 0 {
				out = append(out, catalog[in.Array])
			}
		}
	}
	return out
}

// FoldCase is a citext value as it compares: lower-cased, as lower() does.
func FoldCase(s string) string { return strings.ToLower(s) }
