package parser

import "strings"

// parseType reads a PostgreSQL type name (gram.y's Typename) at seq[i:] and
// returns it normalized: lower case, single-spaced, modifiers without spaces,
// for example "varchar(10)", "timestamp(3) with time zone", "int8[]".
// ok is false if seq[i:] does not start with a type name.
func parseType(seq []item, i int) (typ string, next int, ok bool) {
	t := tokOf(at(seq, i))
	if t == nil || t.kind != tkWord && t.kind != tkQIdent {
		return "", i, false
	}
	var b strings.Builder
	j := i + 1
	if t.kind == tkQIdent {
		b.WriteString(typeNamePart(t))
		j = genericTail(seq, j, &b)
	} else {
		switch w := t.val; w {
		case "double":
			if !isWord(at(seq, j), "precision") {
				return "", i, false
			}
			b.WriteString("double precision")
			j++
		case "national", "character", "char", "nchar", "varchar", "bit":
			b.WriteString(w)
			if w == "national" {
				if !isWord(at(seq, j), "character", "char") {
					return "", i, false
				}
				b.WriteString(" " + tokOf(seq[j]).val)
				j++
			}
			if w != "varchar" && isWord(at(seq, j), "varying") {
				b.WriteString(" varying")
				j++
			}
			j = typeMods(seq, j, &b)
		case "timestamp", "time":
			b.WriteString(w)
			j = typeMods(seq, j, &b)
			switch {
			case wordsAt(seq, j, "with", "time", "zone"):
				b.WriteString(" with time zone")
				j += 3
			case wordsAt(seq, j, "without", "time", "zone"):
				b.WriteString(" without time zone")
				j += 3
			}
		case "interval":
			b.WriteString(w)
			if parenGroup(at(seq, j)) != nil {
				j = typeMods(seq, j, &b)
			} else {
				var fields string
				fields, j = intervalFields(seq, j)
				b.WriteString(fields)
			}
		case "numeric", "decimal", "dec", "float":
			b.WriteString(w)
			j = typeMods(seq, j, &b)
		case "int", "integer", "smallint", "bigint", "real", "boolean", "json":
			b.WriteString(w)
		default:
			if c := pgKeywords[w]; c == reserved || c == colName {
				return "", i, false
			}
			b.WriteString(typeNamePart(t))
			j = genericTail(seq, j, &b)
		}
	}
	if j < 0 {
		return "", i, false
	}
	// Array bounds: [] or [n], any number of times, or the SQL-standard ARRAY.
	for {
		if g, ok := at(seq, j).(*group); ok && g.open.val == "[" {
			switch {
			case len(g.kids) == 0:
				b.WriteString("[]")
			case len(g.kids) == 1 && tokOf(g.kids[0]) != nil && tokOf(g.kids[0]).kind == tkNumber:
				b.WriteString("[" + tokOf(g.kids[0]).val + "]")
			default:
				return "", i, false
			}
			j++
			continue
		}
		if isWord(at(seq, j), "array") {
			b.WriteString("[]")
			j++
			if g, ok := at(seq, j).(*group); ok && g.open.val == "[" {
				j++
			}
		}
		break
	}
	return b.String(), j, true
}

// at returns seq[i], or nil past the end.
func at(seq []item, i int) item {
	if i >= 0 && i < len(seq) {
		return seq[i]
	}
	return nil
}

// typeNamePart renders one part of a type name. A quoted name keeps its
// quotes unless it reads the same unquoted, so that "char" stays distinct
// from char.
func typeNamePart(t *token) string {
	if t.kind == tkQIdent && !(plainIdent(t.val) && pgKeywords[t.val] == notKeyword) {
		return quoteIdent(t.val)
	}
	return t.val
}

// genericTail reads the rest of a generic type name: more dotted parts and
// modifiers. It returns -1 if a part is missing.
func genericTail(seq []item, j int, b *strings.Builder) int {
	for isPunct(at(seq, j), ".") {
		t := tokOf(at(seq, j+1))
		if t == nil || t.kind != tkWord && t.kind != tkQIdent {
			return -1
		}
		b.WriteString("." + typeNamePart(t))
		j += 2
	}
	return typeMods(seq, j, b)
}

// typeMods reads an optional parenthesized modifier list such as (10,2).
// It returns -1 if the parentheses hold something else.
func typeMods(seq []item, j int, b *strings.Builder) int {
	if j < 0 {
		return j
	}
	g := parenGroup(at(seq, j))
	if g == nil {
		return j
	}
	var mods []string
	for _, m := range splitCommas(g.kids) {
		var s string
		switch {
		case len(m) == 1 && tokOf(m[0]) != nil && tokOf(m[0]).kind == tkNumber:
			s = tokOf(m[0]).val
		case len(m) == 2 && isOp(m[0], "-") && tokOf(m[1]) != nil && tokOf(m[1]).kind == tkNumber:
			s = "-" + tokOf(m[1]).val
		case len(m) == 1 && tokOf(m[0]) != nil && tokOf(m[0]).kind == tkWord:
			s = tokOf(m[0]).val
		case len(m) == 1 && tokOf(m[0]) != nil && tokOf(m[0]).kind == tkString:
			s = quoteString(tokOf(m[0]).val)
		default:
			return -1
		}
		mods = append(mods, s)
	}
	b.WriteString("(" + strings.Join(mods, ",") + ")")
	return j + 1
}

var intervalFieldWords = []string{"year", "month", "day", "hour", "minute", "second"}

// intervalFields reads an optional interval qualifier such as " day to
// second(3)", returning it with a leading space.
func intervalFields(seq []item, j int) (string, int) {
	if !isWord(at(seq, j), intervalFieldWords...) {
		return "", j
	}
	var b strings.Builder
	field := func() {
		w := tokOf(seq[j]).val
		b.WriteString(" " + w)
		j++
		if w == "second" {
			j = typeMods(seq, j, &b)
		}
	}
	field()
	if j >= 0 && isWord(at(seq, j), "to") && isWord(at(seq, j+1), intervalFieldWords...) {
		b.WriteString(" to")
		j++
		field()
	}
	if j < 0 {
		return "", -1
	}
	return b.String(), j
}
