package sql

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// Enum types: CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy'). A type is
// a descriptor with its labels in order, each with PostgreSQL's float
// sort order (pg_enum.enumsortorder); its oid is types.EnumOidBase plus
// its object id, so that the types package knows an enum by its oid.
// Values carry label and order (types.Enum), so they compare, index and
// print without the catalog; what reads a label without the catalog
// (text and binary input) leaves the order to enumInput and resolveRow,
// which find it here or reject the label with PostgreSQL's 22P02.
//
// ADD VALUE places a label between two others by halving their orders,
// which stored rows and index entries keep; a type whose orders can no
// longer be halved takes no more labels between those two. RENAME VALUE,
// which stored values would not follow, is refused.

// parseTypeName reads a type name as types.ParseTypeName does, and the
// names of the catalog's enum types and of the types installed
// extensions provide.
func (s *Session) parseTypeName(name string) (types.T, error) {
	t, err := types.ParseTypeName(name)
	if err == nil || pgerr.Code(err) != pgerr.UndefinedObject {
		return t, err
	}
	elem, array := strings.CutSuffix(name, "[]")
	found, ok := s.catalogType(elem)
	if !ok {
		return t, err
	}
	if array {
		found, _ = types.ArrayOf(found)
	}
	return found, nil
}

// catalogType is the enum type or extension type that name, qualified or
// not, names on the search path.
func (s *Session) catalogType(name string) (types.T, bool) {
	if e := s.enumNamed(name); e != nil {
		return e.T(), true
	}
	schema, name, err := splitSchema(name)
	if err != nil {
		return types.T{}, false
	}
	q, _ := s.catalog().ResolveType(s.searchPath(), schema, name)
	return s.catalog().ExtensionType(q)
}

// enumNamed is the enum type that name, qualified or not, names on the
// search path, or nil.
func (s *Session) enumNamed(name string) *catalog.EnumType {
	schema, name, err := splitSchema(name)
	if err != nil {
		return nil
	}
	cat := s.catalog()
	q, _ := cat.ResolveType(s.searchPath(), schema, name)
	return cat.EnumByName[q]
}

// resolveRow gives the enum values of a row about to be stored their
// orders: those that input read without the catalog (COPY's, a binary
// parameter's), checking their labels.
func (s *Session) resolveRow(t *catalog.Table, row []any) error {
	for i, col := range t.Columns {
		if !types.HasEnum(col.Type) || row[i] == nil {
			continue
		}
		if elem, array := col.Type.Elem(); array {
			et := s.catalog().EnumByOid(elem.Oid)
			if et == nil {
				return pgerr.New(pgerr.UndefinedObject, "type of column %q does not exist", col.Name)
			}
			v, err := et.ResolveArray(row[i])
			if err != nil {
				return err
			}
			row[i] = v
			continue
		}
		var label string
		switch v := row[i].(type) {
		case types.Enum:
			if v.Resolved() {
				continue
			}
			label = v.Label
		case string:
			label = v
		default:
			continue // types.Coerce reports the mismatch
		}
		et := s.catalog().EnumByOid(col.Type.Oid)
		if et == nil {
			return pgerr.New(pgerr.UndefinedObject, "type of column %q does not exist", col.Name)
		}
		v, err := et.Value(label)
		if err != nil {
			return err
		}
		row[i] = v
	}
	return nil
}

// createEnum runs CREATE TYPE name AS ENUM (...).
func (s *Session) createEnum(ctx context.Context, cmd *parser.CreateEnum) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	q, err := s.createName(ctx, cmd.Name)
	if err != nil {
		return err
	}
	if err := d.TypeNameFree(q); err != nil {
		return err
	}
	id, err := d.NextID(ctx)
	if err != nil {
		return err
	}
	e := catalog.NewEnumType(id, q)
	for i, label := range cmd.Labels {
		if err := checkEnumLabel(label); err != nil {
			return err
		}
		if slices.ContainsFunc(e.Labels, func(l catalog.EnumLabel) bool { return l.Label == label }) {
			// As pg_enum's unique index reports it.
			return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", "pg_enum_typid_label_index").
				WithDetail("Key (enumtypid, enumlabel)=(%d, %s) already exists.", e.Oid(), label)
		}
		oid, err := d.NextID(ctx)
		if err != nil {
			return err
		}
		e.Labels = append(e.Labels, catalog.EnumLabel{Label: label, Sort: float32(i + 1), OID: oid})
	}
	return d.PutEnum(ctx, e)
}

// checkEnumLabel checks a label's length, as PostgreSQL does (NAMEDATALEN).
func checkEnumLabel(label string) error {
	if len(label) > 63 {
		return pgerr.New(pgerr.InvalidName, "invalid enum label %q", label).
			WithDetail("Labels must be 63 bytes or less.")
	}
	return nil
}

// alterEnum runs ALTER TYPE ... ADD VALUE, RENAME TO and RENAME VALUE.
func (s *Session) alterEnum(ctx context.Context, cmd *parser.AlterEnum) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	old := s.enumNamed(cmd.Name)
	if old == nil {
		return pgerr.New(pgerr.UndefinedObject, "type %q does not exist", cmd.Name)
	}
	e := &catalog.EnumType{ID: old.ID, Name: old.Name, Schema: old.Schema, Labels: slices.Clone(old.Labels), OID: old.OID}
	switch {
	case cmd.NewName != "":
		if err := d.TypeNameFree(catalog.QName{Schema: e.Schema, Name: cmd.NewName}); err != nil {
			return err
		}
		delete(d.Cat.EnumByName, e.QName())
		e.Name = cmd.NewName
		return d.PutEnum(ctx, e)
	case cmd.Rename:
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TYPE ... RENAME VALUE is not supported").
			WithDetail("Stored values keep the label they were written with.")
	}
	if err := checkEnumLabel(cmd.Add); err != nil {
		return err
	}
	if slices.ContainsFunc(e.Labels, func(l catalog.EnumLabel) bool { return l.Label == cmd.Add }) {
		if cmd.IfNotExists {
			s.notice(pgerr.DuplicateObject, "enum label %q already exists, skipping", cmd.Add)
			return nil
		}
		return pgerr.New(pgerr.DuplicateObject, "enum label %q already exists", cmd.Add)
	}
	at := len(e.Labels) // the new label's place
	if cmd.Neighbor != "" {
		k := slices.IndexFunc(e.Labels, func(l catalog.EnumLabel) bool { return l.Label == cmd.Neighbor })
		if k < 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "%q is not an existing enum label", cmd.Neighbor)
		}
		at = k
		if !cmd.Before {
			at = k + 1
		}
	}
	var sort float32
	switch {
	case len(e.Labels) == 0:
		sort = 1
	case at == len(e.Labels):
		sort = float32(math.Floor(float64(e.Labels[at-1].Sort))) + 1
	case at == 0:
		sort = float32(math.Ceil(float64(e.Labels[0].Sort))) - 1
	default:
		lo, hi := e.Labels[at-1].Sort, e.Labels[at].Sort
		sort = lo + (hi-lo)/2
		if sort <= lo || sort >= hi {
			return pgerr.New(pgerr.FeatureNotSupported, "no room for enum label %q between %q and %q", cmd.Add, e.Labels[at-1].Label, e.Labels[at].Label).
				WithDetail("Stored values keep their sort order, so epochdb cannot renumber the labels as PostgreSQL does.")
		}
	}
	oid, err := d.NextID(ctx)
	if err != nil {
		return err
	}
	e.Labels = slices.Insert(e.Labels, at, catalog.EnumLabel{Label: cmd.Add, Sort: sort, OID: oid})
	return d.PutEnum(ctx, e)
}

// dropTypes runs DROP TYPE. A column of the type stops it, or with
// CASCADE goes with it, as in PostgreSQL.
func (s *Session) dropTypes(ctx context.Context, cmd *parser.DropType) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	for _, qualified := range cmd.Names {
		q, ok, err := s.foundName(qualified, cmd.IfExists)
		if !ok {
			if err != nil {
				return err
			}
			continue
		}
		name := q.Name
		e := s.enumNamed(qualified)
		if t, ok := s.catalogType(qualified); ok && e == nil {
			// A type of an extension's goes with the extension.
			if elem, array := t.Elem(); array {
				return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop type %s because type %s requires it", t, elem).
					WithHint("You can drop type %s instead.", elem)
			}
			ext, _ := types.Lookup(t.Oid)
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop type %s because extension %s requires it", t, ext.Extension).
				WithHint("You can drop extension %s instead.", ext.Extension)
		}
		if e == nil {
			if cmd.IfExists {
				s.notice(pgerr.SuccessfulCompletion, "type %q does not exist, skipping", name)
				continue
			}
			return pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
		}
		deps := s.typeDependents(d.Cat, enumTypes(e))
		if len(deps) > 0 && !cmd.Cascade {
			return errDependents("type "+e.Name, false, deps)
		}
		if err := s.dropDependents(ctx, d, deps); err != nil {
			return err
		}
		if err := s.dropColumnsOfType(ctx, d, enumTypes(e)); err != nil {
			return err
		}
		delete(d.Cat.EnumByName, e.QName())
		if err := d.Tx.Delete(ctx, catalog.DescKey(e.ID)); err != nil {
			return err
		}
	}
	return nil
}
