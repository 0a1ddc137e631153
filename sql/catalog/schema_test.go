package catalog

import (
	"bytes"
	"slices"
	"testing"
)

// A search path resolves to the schemas that exist, in its order, with
// pg_catalog first unless it is placed; names resolve to the first schema
// that holds them; and each schema's names are keys of their own.
func TestSchemaResolution(t *testing.T) {
	c := New()
	c.putSchema(&Schema{ID: 16384, Name: "app"})
	c.addSchemas()
	c.TableByName[QName{16384, "t"}] = &Table{ID: 16390, Name: "t", Schema: 16384}
	c.TableByName[QName{PublicID, "t"}] = &Table{ID: 16391, Name: "t", Schema: PublicID}
	c.TableByName[QName{PublicID, "u"}] = &Table{ID: 16392, Name: "u", Schema: PublicID}

	p := c.ResolvePath([]string{"nosuch", "app", "public"}, "")
	if want := []uint32{PgCatalogID, 16384, PublicID}; !slices.Equal(p.Schemas, want) || p.Create != 16384 || p.Implicit != 1 {
		t.Fatalf("path %+v, want schemas %v creating in app, pg_catalog implicit", p, want)
	}
	if p := c.ResolvePath([]string{"public", "pg_catalog"}, ""); !slices.Equal(p.Schemas, []uint32{PublicID, PgCatalogID}) || p.Implicit != 0 {
		t.Errorf("a path that places pg_catalog: %+v", p)
	}
	if p := c.ResolvePath([]string{"pg_catalog", "nosuch"}, ""); p.Create != 0 {
		t.Errorf("a path of system schemas creates in %d, want none", p.Create)
	}
	for _, tc := range []struct {
		schema, name string
		want         QName
	}{
		{"", "t", QName{16384, "t"}},
		{"public", "t", QName{PublicID, "t"}},
		{"", "u", QName{PublicID, "u"}},
		{"", "nosuch", QName{Name: "nosuch"}},
		{"app", "u", QName{Name: "u"}},
	} {
		got, err := c.Resolve(p, tc.schema, tc.name)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q, %q) = %+v, %v; want %+v", tc.schema, tc.name, got, err, tc.want)
		}
	}
	if _, err := c.Resolve(p, "nosuch", "t"); err == nil {
		t.Error("a schema that does not exist resolved")
	}
	keys := [][]byte{NameKey(PublicID, "t"), NameKey(16384, "t"), NameKey(0, "t"), NameKey(16385, "t")}
	for i := range keys {
		for j := range i {
			if bytes.Equal(keys[i], keys[j]) {
				t.Errorf("name keys %d and %d are the same", i, j)
			}
		}
	}
	if !bytes.Equal(NameKey(PublicID, "t"), []byte{SysPrefix, 'n', 't'}) {
		t.Error("public's name keys are not those written before schemas")
	}
	d := New()
	d.publicDropped = true
	d.addSchemas()
	if d.SchemaNamed("public") != nil {
		t.Error("a catalog whose public was dropped has public")
	}
}
