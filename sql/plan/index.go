package plan

import (
	"strconv"

	"github.com/epochdb/epochdb/sql/catalog"
)

// indexReady reports whether the statement's snapshot may read ix's
// entries: whether the index is in the catalog the snapshot sees. If the
// DDL that made it committed after the snapshot, rows the snapshot sees
// may lack entries; if DDL dropped it before the snapshot, its entries are
// gone. The plan was made from the newest catalog, and the snapshot's may
// differ, under REPEATABLE READ or when DDL commits between planning and
// the statement's start.
func (x *ExecCtx) indexReady(t *catalog.Table, ix *catalog.Index) (bool, error) {
	var v []byte
	var ok bool
	err := x.Tx.Untracked(func() (err error) {
		v, ok, err = x.Tx.Get(catalog.KeyCatalogVersion)
		return err
	})
	if err != nil {
		return false, err
	}
	var version uint64
	if ok {
		version, _ = strconv.ParseUint(string(v), 10, 64)
	}
	cat := x.Host.Catalog()
	if cat.Version != version {
		// Rare: load the catalog the snapshot sees.
		if cat, err = catalog.Load(x.Tx); err != nil {
			return false, err
		}
	}
	if now := cat.TableByID[t.ID]; now != nil && now.DataID == t.DataID {
		for _, other := range now.Indexes {
			if other.OID == ix.OID && other.ID == ix.ID {
				return true, nil
			}
		}
	}
	return false, nil
}
