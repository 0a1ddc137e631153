package catalog

import (
	"encoding/json"
	"testing"

	"github.com/epochdb/epochdb/sql/types"
)

// TestLegacyIndexOID: a descriptor written before indexes had oids loads
// with each index at its legacy oid, stable across loads and clear of the
// oids the object id counter hands out.
func TestLegacyIndexOID(t *testing.T) {
	old := &Table{ID: FirstObjectID + 3, Name: "old", DataID: FirstObjectID + 3, NextNum: 2,
		Columns: []*TableColumn{{Num: 1, Name: "id", Type: types.Int4}, {Num: 2, Name: "code", Type: types.Text}},
		Indexes: []*Index{{ID: PrimaryIndexID, Name: "old_pkey", Columns: []int{0}, Primary: true},
			{ID: 2, Name: "old_code_key", Columns: []int{1}}}}
	b, err := json.Marshal(&Descriptor{Table: old})
	if err != nil {
		t.Fatal(err)
	}
	load := func() *Table {
		var d Descriptor
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		c := New()
		c.add(&d)
		return c.TableByName[QName{PublicID, "old"}]
	}
	first, second := load(), load()
	seen := map[uint32]bool{}
	for i, ix := range first.Indexes {
		if ix.OID < 1<<31 || seen[ix.OID] {
			t.Errorf("index %s: oid %d, want a distinct oid of 2^31 or more", ix.Name, ix.OID)
		}
		seen[ix.OID] = true
		if second.Indexes[i].OID != ix.OID {
			t.Errorf("index %s: oid %d, then %d on the next load", ix.Name, ix.OID, second.Indexes[i].OID)
		}
	}
}
