package catalog

import "context"

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
