package types

import (
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// Limits of the type modifiers, from PostgreSQL.
const (
	maxCharLength     = 10485760 // MaxAttrSize for varchar(n) and char(n)
	maxNumericPrec    = 1000
	maxTimePrecision  = 6
	intervalFullRange = intervalAllFields << 16 // INTERVAL_FULL_RANGE in the typmod's high half
)

// String returns the type's name as PostgreSQL's format_type(oid, typmod)
// prints it, so that error messages and catalog views read the same.
func (t T) String() string {
	if elem, ok := t.Elem(); ok && !isVector(t.Oid) {
		return elem.String() + "[]"
	}
	switch t.Oid {
	case OidBool:
		return "boolean"
	case OidChar:
		return `"char"`
	case OidInt2:
		return "smallint"
	case OidInt4:
		return "integer"
	case OidInt8:
		return "bigint"
	case OidFloat4:
		return "real"
	case OidFloat8:
		return "double precision"
	case OidBpchar:
		// bpchar without a length is not character, which means character(1).
		if t.Mod < 0 {
			return "bpchar"
		}
		return "character(" + strconv.Itoa(int(t.Mod-4)) + ")"
	case OidVarchar:
		if t.Mod < 0 {
			return "character varying"
		}
		return "character varying(" + strconv.Itoa(int(t.Mod-4)) + ")"
	case OidNumeric:
		if t.Mod < 0 {
			return "numeric"
		}
		p, s := numericMod(t.Mod)
		return "numeric(" + strconv.Itoa(p) + "," + strconv.Itoa(s) + ")"
	case OidTime:
		if t.Mod < 0 {
			return "time without time zone"
		}
		return "time(" + strconv.Itoa(int(t.Mod)) + ") without time zone"
	case OidTimestamp:
		if t.Mod < 0 {
			return "timestamp without time zone"
		}
		return "timestamp(" + strconv.Itoa(int(t.Mod)) + ") without time zone"
	case OidTimestamptz:
		if t.Mod < 0 {
			return "timestamp with time zone"
		}
		return "timestamp(" + strconv.Itoa(int(t.Mod)) + ") with time zone"
	case OidInterval:
		name := "interval"
		if rng := intervalRange(t); rng != intervalAllFields {
			name += " " + intervalRangeName(rng)
		}
		if p := timePrecision(t); p >= 0 && p != intervalAnyPrec {
			name += "(" + strconv.Itoa(p) + ")"
		}
		return name
	}
	if in, ok := catalog[t.Oid]; ok {
		return in.Name
	}
	if name := enumName(t.Oid); name != "" {
		return name
	}
	// format_type's answer for an oid it does not know.
	return "???"
}

// numericMod splits a numeric typmod into precision and scale. The scale is
// an 11-bit two's-complement field, since PostgreSQL 15 allows negative
// scales.
func numericMod(mod int32) (prec, scale int) {
	m := mod - 4
	return int(m >> 16 & 0xffff), int((m&0x7ff ^ 0x400) - 0x400)
}

// charLen returns n of varchar(n) or char(n), or -1.
func charLen(t T) int {
	if t.Mod < 4 {
		return -1
	}
	return int(t.Mod - 4)
}

// timePrecision returns p of time(p), timestamp(p), timestamptz(p) or
// interval(p), or -1.
func timePrecision(t T) int {
	if t.Mod < 0 {
		return -1
	}
	return int(t.Mod & 0xffff)
}

// typeAliases maps the SQL grammar's names for types to their oids, where
// they differ from pg_type's typname (which ParseTypeName also accepts).
var typeAliases = map[string]Oid{
	"int":                         OidInt4,
	"integer":                     OidInt4,
	"smallint":                    OidInt2,
	"bigint":                      OidInt8,
	"real":                        OidFloat4,
	"double precision":            OidFloat8,
	"float":                       OidFloat8,
	"decimal":                     OidNumeric,
	"dec":                         OidNumeric,
	"boolean":                     OidBool,
	"char":                        OidBpchar,
	"character":                   OidBpchar,
	"national character":          OidBpchar,
	"nchar":                       OidBpchar,
	"character varying":           OidVarchar,
	"char varying":                OidVarchar,
	"national character varying":  OidVarchar,
	"time without time zone":      OidTime,
	"timestamp without time zone": OidTimestamp,
	"timestamp with time zone":    OidTimestamptz,
}

// typeNames maps typname to oid for every built-in type, arrays included.
var typeNames = func() map[string]Oid {
	m := map[string]Oid{}
	for _, in := range builtins {
		m[in.Name] = in.Oid
		if in.Array != 0 {
			m["_"+in.Name] = in.Array
		}
	}
	return m
}()

// IsTypeName reports whether name is a built-in type's pg_type name, as a
// function-style cast names it.
func IsTypeName(name string) bool {
	_, ok := typeNames[name]
	return ok
}

// unsupportedTypes are PostgreSQL types epochdb does not have, so that
// using one says so instead of claiming the type does not exist.
var unsupportedTypes = map[string]bool{
	"timetz": true, "time with time zone": true,
	"xml": true, "money": true, "bit": true, "varbit": true, "bit varying": true,
	"tsvector": true, "tsquery": true,
	"point": true, "line": true, "lseg": true, "box": true, "path": true, "polygon": true, "circle": true,
	"int4range": true, "int8range": true, "numrange": true, "tsrange": true, "tstzrange": true, "daterange": true,
	"regoper": true, "regoperator": true, "regconfig": true, "regdictionary": true, "regcollation": true,
	"jsonpath": true, "pg_lsn": true, "txid_snapshot": true, "pg_snapshot": true, "xid": true, "cid": true, "tid": true,
}

// ParseTypeName parses a type name as it appears in CREATE TABLE or CAST:
// the SQL spellings and pg_type names, case-insensitive, with a modifier in
// parentheses and array brackets. serial and bigserial are column defaults,
// not types, and are the catalog's business.
func ParseTypeName(s string) (T, error) {
	quoted, rest, err := quotedTypeName(s)
	if err != nil {
		return T{}, err
	}
	if quoted == "" {
		rest = s
	}
	name := strings.Join(strings.Fields(strings.ToLower(rest)), " ")
	name = strings.ReplaceAll(name, " (", "(")
	name = strings.ReplaceAll(name, "( ", "(")
	name = strings.ReplaceAll(name, " )", ")")
	name = strings.ReplaceAll(name, " [", "[")
	name = strings.TrimPrefix(name, "pg_catalog.")

	array := false
	for {
		if strings.HasSuffix(name, "]") {
			i := strings.LastIndexByte(name, '[')
			if i < 0 || !allDigits(name[i+1:len(name)-1]) {
				return T{}, syntaxErrorAt(s)
			}
			name, array = strings.TrimSpace(name[:i]), true
			continue
		}
		if n, ok := strings.CutSuffix(name, " array"); ok {
			name, array = n, true
			continue
		}
		break
	}

	var mods []int
	var modText string
	if i := strings.IndexByte(name, '('); i >= 0 {
		j := strings.IndexByte(name, ')')
		if j < i {
			return T{}, syntaxErrorAt(s)
		}
		modText = name[i+1 : j]
		for f := range strings.SplitSeq(modText, ",") {
			f = strings.TrimSpace(f)
			if strings.HasPrefix(f, "-") {
				f = f[1:]
				n, err := strconv.Atoi(f)
				if err != nil || !allDigits(f) {
					return T{}, syntaxErrorAt(s)
				}
				mods = append(mods, -n)
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil || !allDigits(f) {
				return T{}, syntaxErrorAt(s)
			}
			mods = append(mods, n)
		}
		name = strings.Join(strings.Fields(name[:i]+" "+name[j+1:]), " ")
	}

	if quoted != "" {
		if name != "" {
			return T{}, syntaxErrorAt(s)
		}
		return quotedType(quoted, mods, modText != "", array)
	}
	oid, ok := typeAliases[name]
	if !ok {
		oid, ok = typeNames[name]
	}
	if !ok {
		if rng, ok := intervalRanges[strings.TrimPrefix(name, "interval ")]; ok && !array {
			return intervalType(rng, mods, modText != "")
		}
		if unsupportedTypes[name] {
			return T{}, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported", name)
		}
		if array {
			name += "[]"
		}
		return T{}, pgerr.New(pgerr.UndefinedObject, `type "%s" does not exist`, name)
	}
	t, err := applyTypeModifiers(oid, name, mods, modText != "")
	if err != nil {
		return T{}, err
	}
	if array {
		if a, ok := ArrayOf(t); ok {
			return a, nil
		}
		if t.IsArray() {
			return t, nil
		}
		return T{}, pgerr.New(pgerr.UndefinedObject, `type "%s[]" does not exist`, name)
	}
	return t, nil
}

// quotedTypeName reads the dotted name that starts s when one of its parts
// is quoted, as in "pg_catalog"."int4"(10)[], and returns it and what
// follows it. A quoted part keeps its case, an unquoted one folds to lower
// case, and the name is a pg_type typname in pg_catalog. It returns "" for
// a name without quotes, and 42704 for one in another schema, which only
// the catalog can resolve.
func quotedTypeName(s string) (name, rest string, err error) {
	rest = strings.TrimLeft(s, " \t\n")
	var parts []string
	anyQuoted := false
	for {
		var part string
		if strings.HasPrefix(rest, `"`) {
			anyQuoted = true
			var ok bool
			if part, rest, ok = QuotedIdent(rest); !ok {
				return "", "", syntaxErrorAt(s)
			}
			if part == "" {
				return "", "", pgerr.New(pgerr.SyntaxError, "zero-length delimited identifier")
			}
		} else {
			j := 0
			for j < len(rest) && (rest[j] == '_' || rest[j] >= '0' && rest[j] <= '9' || rest[j] >= 'a' && rest[j] <= 'z' || rest[j] >= 'A' && rest[j] <= 'Z' || rest[j] >= 0x80) {
				j++
			}
			if j == 0 {
				return "", "", nil
			}
			part, rest = strings.ToLower(rest[:j]), rest[j:]
		}
		parts = append(parts, part)
		if !strings.HasPrefix(rest, ".") {
			break
		}
		rest = rest[1:]
	}
	switch {
	case !anyQuoted || len(parts) > 2:
		return "", "", nil
	case len(parts) == 2 && parts[0] != "pg_catalog":
		return "", "", pgerr.New(pgerr.UndefinedObject, `type "%s.%s" does not exist`, parts[0], parts[1])
	}
	return parts[len(parts)-1], rest, nil
}

// QuotedIdent reads the double-quoted identifier that starts s, in which
// "" is a quote, and returns it and the rest of s; ok is false unless s
// starts with a quote that a later one ends.
func QuotedIdent(s string) (ident, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	var sb strings.Builder
	i := 1
	for {
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			return "", s, false
		}
		sb.WriteString(s[i : i+j])
		i += j + 1
		if i < len(s) && s[i] == '"' {
			sb.WriteByte('"')
			i++
			continue
		}
		return sb.String(), s[i:], true
	}
}

// quotedType is the built-in type whose typname a quoted name gives, with
// its modifiers: the SQL spellings (integer, character varying) are
// keywords, which quoting turns into names no type has.
func quotedType(name string, mods []int, given, array bool) (T, error) {
	oid, ok := typeNames[name]
	if !ok {
		if unsupportedTypes[name] {
			return T{}, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported", name)
		}
		if array {
			name += "[]"
		}
		return T{}, pgerr.New(pgerr.UndefinedObject, `type "%s" does not exist`, name)
	}
	t, err := applyTypeModifiers(oid, `"`+name+`"`, mods, given)
	if err != nil || !array {
		return t, err
	}
	if a, ok := ArrayOf(t); ok {
		return a, nil
	}
	if t.IsArray() {
		return t, nil
	}
	return T{}, pgerr.New(pgerr.UndefinedObject, `type "%s[]" does not exist`, name)
}

// applyTypeModifiers turns the numbers in a type name's parentheses into a
// typmod, with PostgreSQL's typmodin checks.
// intervalType is the interval type of a field range, such as INTERVAL DAY
// TO SECOND(3): only a range ending in SECOND takes a precision.
func intervalType(rng int, mods []int, given bool) (T, error) {
	prec := intervalAnyPrec
	if given {
		if len(mods) != 1 || rng&intervalSecond == 0 {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "invalid type modifier")
		}
		if mods[0] < 0 {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", mods[0])
		}
		prec = min(mods[0], maxTimePrecision)
	}
	return T{OidInterval, int32(rng<<16 | prec)}, nil
}

func applyTypeModifiers(oid Oid, name string, mods []int, given bool) (T, error) {
	t := T{oid, -1}
	if !given {
		switch name {
		case "char", "character", "national character", "nchar":
			t.Mod = 1 + 4 // SQL: character means character(1)
		}
		return t, nil
	}
	switch oid {
	case OidBpchar, OidVarchar:
		typ := "varchar"
		if oid == OidBpchar {
			typ = "char"
		}
		if len(mods) != 1 {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "invalid type modifier")
		}
		if mods[0] < 1 {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "length for type %s must be at least 1", typ)
		}
		if mods[0] > maxCharLength {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "length for type %s cannot exceed %d", typ, maxCharLength)
		}
		t.Mod = int32(mods[0] + 4)
	case OidNumeric:
		if len(mods) < 1 || len(mods) > 2 {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "invalid NUMERIC type modifier")
		}
		p, s := mods[0], 0
		if len(mods) == 2 {
			s = mods[1]
		}
		if p < 1 || p > maxNumericPrec {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and %d", p, maxNumericPrec)
		}
		if s < -maxNumericPrec || s > maxNumericPrec {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between -%d and %d", s, maxNumericPrec, maxNumericPrec)
		}
		t.Mod = int32(p<<16|s&0x7ff) + 4
	case OidTime, OidTimestamp, OidTimestamptz, OidInterval:
		if len(mods) != 1 {
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "invalid type modifier")
		}
		p := mods[0]
		if p < 0 {
			typ := "TIMESTAMP"
			switch oid {
			case OidInterval:
				typ = "INTERVAL"
			case OidTime:
				typ = "TIME"
			}
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "%s(%d) precision must not be negative", typ, p)
		}
		// PostgreSQL warns and lowers the precision to the maximum.
		t.Mod = int32(min(p, maxTimePrecision))
		if oid == OidInterval {
			t.Mod |= intervalFullRange
		}
	case OidFloat8:
		if name != "float" || len(mods) != 1 {
			return T{}, pgerr.New(pgerr.SyntaxError, `type modifier is not allowed for type "%s"`, name)
		}
		switch p := mods[0]; {
		case p < 1:
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "precision for type float must be at least 1 bit")
		case p > 53:
			return T{}, pgerr.New(pgerr.InvalidParameterValue, "precision for type float must be less than 54 bits")
		case p <= 24:
			return Float4, nil
		}
	default:
		return T{}, pgerr.New(pgerr.SyntaxError, `type modifier is not allowed for type "%s"`, name)
	}
	return t, nil
}

func syntaxErrorAt(s string) error {
	return pgerr.New(pgerr.SyntaxError, `syntax error in type name "%s"`, s)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
