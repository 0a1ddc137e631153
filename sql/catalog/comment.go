package catalog

import (
	"encoding/binary"

	"github.com/epochdb/epochdb/txn"
)

// CommentKey identifies a commented object as pg_description does.
type CommentKey struct {
	ClassOID, ObjOID uint32
	SubID            int32
}

func (k CommentKey) StoreKey() []byte {
	b := binary.BigEndian.AppendUint32([]byte{SysPrefix, 'c'}, k.ClassOID)
	b = binary.BigEndian.AppendUint32(b, k.ObjOID)
	return binary.BigEndian.AppendUint32(b, uint32(k.SubID))
}

// LoadComments reads the comments into c.
func LoadComments(tx *txn.Tx, c *Catalog) error {
	return tx.Scan([]byte{SysPrefix, 'c'}, []byte{SysPrefix, 'd'}, func(k, v []byte) bool {
		if len(k) == 14 {
			key := CommentKey{binary.BigEndian.Uint32(k[2:]), binary.BigEndian.Uint32(k[6:]), int32(binary.BigEndian.Uint32(k[10:]))}
			c.Comments[key] = string(v)
		}
		return true
	})
}
