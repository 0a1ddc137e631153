package catalog

import (
	"context"

	"github.com/epochdb/epochdb/sql/types"
)

// Extension is an installed extension (pg_extension): CREATE EXTENSION
// records it, and the functions it provides resolve while it is there.
// Its ID is its pg_extension oid.
type Extension struct {
	ID      uint32 `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version"`
	// Schema is the oid of the schema its objects are in.
	Schema uint32 `json:"schema"`
}

// Extensions returns the installed extensions in the order they were
// installed.
func (c *Catalog) Extensions() []*Extension {
	return sortedByID(c.ExtensionByName, func(e *Extension) uint32 { return e.ID })
}

// PutExtension stores e.
func (d *DDL) PutExtension(ctx context.Context, e *Extension) error {
	d.Cat.ExtensionByName[e.Name] = e
	return d.Put(ctx, e.ID, &Descriptor{Extension: e})
}

// DropExtension removes e.
func (d *DDL) DropExtension(ctx context.Context, e *Extension) error {
	delete(d.Cat.ExtensionByName, e.Name)
	return d.Tx.Delete(ctx, DescKey(e.ID))
}

// ExtensionType is the type called q.Name that an installed extension
// provides in schema q.Schema (types.ExtensionTypes), if there is one.
func (c *Catalog) ExtensionType(q QName) (types.T, bool) {
	for _, e := range c.ExtensionByName {
		if e.Schema != q.Schema {
			continue
		}
		for _, in := range types.ExtensionTypes(e.Name) {
			if in.Name == q.Name {
				return types.T{Oid: in.Oid, Mod: -1}, true
			}
		}
	}
	return types.T{}, false
}

// TypeExtension is the installed extension that provides the type oid,
// or nil.
func (c *Catalog) TypeExtension(oid types.Oid) *Extension {
	in, ok := types.Lookup(oid)
	if !ok || in.Extension == "" {
		return nil
	}
	return c.ExtensionByName[in.Extension]
}

// TypeQName is the name of type oid if the catalog defines it: an enum
// type, or a type an installed extension provides.
func (c *Catalog) TypeQName(oid types.Oid) (QName, bool) {
	if et := c.EnumByOid(oid); et != nil {
		return et.QName(), true
	}
	if e := c.TypeExtension(oid); e != nil {
		return QName{Schema: e.Schema, Name: types.T{Oid: oid, Mod: -1}.String()}, true
	}
	return QName{}, false
}
