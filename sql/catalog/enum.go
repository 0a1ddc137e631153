package catalog

import (
	"context"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// EnumType is an enum type.
type EnumType struct {
	ID     uint32      `json:"id"`
	Name   string      `json:"name"`
	Schema uint32      `json:"schema,omitempty"`
	Labels []EnumLabel `json:"labels"` // in sort order
	// OID is the type's oid less types.EnumOidBase, when it is not ID
	// (types.ClaimEnumOid found base+ID taken).
	OID uint32 `json:"oid,omitempty"`
}

// EnumLabel is one of an enum type's values; OID is its pg_enum oid.
type EnumLabel struct {
	Label string  `json:"label"`
	Sort  float32 `json:"sort"`
	OID   uint32  `json:"oid"`
}

// Oid is the type's oid.
func (e *EnumType) Oid() types.Oid {
	if e.OID != 0 {
		return types.EnumOidBase + types.Oid(e.OID)
	}
	return types.EnumOidBase + types.Oid(e.ID)
}

// NewEnumType is a new enum type, with its descriptor id and an oid no
// other type in the process has.
func NewEnumType(id uint32, q QName) *EnumType {
	e := &EnumType{ID: id, Name: q.Name, Schema: q.Schema}
	if oid := types.ClaimEnumOid(e.Oid()); oid != e.Oid() {
		e.OID = uint32(oid - types.EnumOidBase)
	}
	return e
}

// T is the type.
func (e *EnumType) T() types.T { return types.T{Oid: e.Oid(), Mod: -1} }

// Value is the value of label, or 22P02.
func (e *EnumType) Value(label string) (types.Enum, error) {
	for _, l := range e.Labels {
		if l.Label == label {
			return types.Enum{Label: label, Sort: l.Sort}, nil
		}
	}
	return types.Enum{}, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input value for enum %s: %q", e.Name, label)
}

// EnumByOid finds an enum type by its oid.
func (c *Catalog) EnumByOid(oid types.Oid) *EnumType {
	if !types.IsEnum(oid) {
		return nil
	}
	for _, e := range c.EnumByName {
		if e.Oid() == oid {
			return e
		}
	}
	return nil
}

// Resolve makes v, a label or an unresolved value, a value of e.
func (e *EnumType) Resolve(v any) (any, error) {
	switch v := v.(type) {
	case string:
		return e.Value(v)
	case types.Enum:
		if v.Resolved() {
			return v, nil
		}
		return e.Value(v.Label)
	}
	return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %T to %s", v, e.Name)
}

// ResolveArray resolves the elements of an array of e.
func (e *EnumType) ResolveArray(v any) (any, error) {
	elems, ok := v.([]any)
	if !ok {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %T to %s[]", v, e.Name)
	}
	out := make([]any, len(elems))
	for i, el := range elems {
		if el == nil {
			continue
		}
		r, err := e.Resolve(el)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// TypeNameFree fails if name is taken by a type: an enum, an
// extension's type, or a table's or view's row type, as in PostgreSQL.
func (d *DDL) TypeNameFree(q QName) error {
	_, builtin := types.ParseTypeName(q.Name)
	_, ext := d.Cat.ExtensionType(q)
	if d.Cat.EnumByName[q] != nil || d.Cat.TableByName[q] != nil || d.Cat.ViewByName[q] != nil || builtin == nil || ext {
		return pgerr.New(pgerr.DuplicateObject, "type %q already exists", q.Name)
	}
	return nil
}

// PutEnum stores e.
func (d *DDL) PutEnum(ctx context.Context, e *EnumType) error {
	e.Schema = inSchema(e.Schema)
	d.Cat.EnumByName[e.QName()] = e
	types.NameEnum(e.Oid(), e.Name)
	return d.Put(ctx, e.ID, &Descriptor{Enum: e})
}
