package catalog

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"strconv"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/txn"
)

// DDL is a DDL transaction's view of the catalog: it locks the catalog
// version (so DDL transactions serialise), writes descriptors through the
// transaction, and keeps a private catalog that the session's later
// statements in the same transaction see.
type DDL struct {
	Tx    *txn.Tx
	Cat   *Catalog
	Store *txn.Store // for what must not roll back with tx (object ids)
}

// BeginDDL locks the catalog for tx and loads the private copy.
func BeginDDL(ctx context.Context, store *txn.Store, tx *txn.Tx) (*DDL, error) {
	err := tx.Mutate(ctx, KeyCatalogVersion, func(cur []byte, _ bool) ([]byte, txn.Op, error) {
		v, _ := strconv.ParseUint(string(cur), 10, 64)
		return strconv.AppendUint(nil, v+1, 10), txn.Put, nil
	})
	if err != nil {
		return nil, err
	}
	// Read the newest committed descriptors, not the statement's snapshot:
	// the version lock means no other DDL is in flight.
	tx.NextStatement()
	cat, err := Load(tx)
	if err != nil {
		return nil, err
	}
	return &DDL{Tx: tx, Cat: cat, Store: store}, nil
}

// NextID hands out an object id. Like PostgreSQL's oids, ids are never
// handed out twice, even if the DDL that took one rolls back: state kept
// outside the DDL's transaction under an id (a sequence's reserved block)
// must not pass to a later object. So the counter moves in a transaction
// of its own.
func (d *DDL) NextID(ctx context.Context) (uint32, error) {
	tx := d.Store.Begin(txn.ReadCommitted)
	var id uint32
	err := tx.Mutate(ctx, KeyNextObjectID, func(cur []byte, ok bool) ([]byte, txn.Op, error) {
		id = FirstObjectID
		if ok {
			n, _ := strconv.ParseUint(string(cur), 10, 32)
			id = uint32(n)
		}
		return strconv.AppendUint(nil, uint64(id)+1, 10), txn.Put, nil
	})
	if err != nil {
		_ = tx.Rollback()
		return 0, err
	}
	return id, tx.Commit()
}

// ClaimName takes the relation name q for id, or fails with 42P07 if it
// is taken.
func (d *DDL) ClaimName(ctx context.Context, q QName, id uint32) error {
	return d.claim(ctx, NameKey(q.Schema, q.Name), id, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", q.Name))
}

// ClaimSchemaName takes the schema name for id, or fails with 42P06.
func (d *DDL) ClaimSchemaName(ctx context.Context, name string, id uint32) error {
	if d.Cat.SchemaByName[name] != nil {
		return errSchemaExists(name)
	}
	return d.claim(ctx, NameKey(0, name), id, errSchemaExists(name))
}

func errSchemaExists(name string) error {
	return pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", name)
}

// ReleaseName gives up the relation name q.
func (d *DDL) ReleaseName(ctx context.Context, q QName) error {
	return d.Tx.Delete(ctx, NameKey(q.Schema, q.Name))
}

func (d *DDL) claim(ctx context.Context, key []byte, id uint32, taken error) error {
	return d.Tx.Mutate(ctx, key, func(_ []byte, exists bool) ([]byte, txn.Op, error) {
		if exists {
			return nil, txn.Keep, taken
		}
		return binary.BigEndian.AppendUint32(nil, id), txn.Put, nil
	})
}

// PutTable stores t, giving its new indexes and checks their oids.
func (d *DDL) PutTable(ctx context.Context, t *Table) error {
	var oids []*uint32
	for _, ix := range t.Indexes {
		oids = append(oids, &ix.OID)
	}
	for _, ck := range t.Checks {
		oids = append(oids, &ck.OID)
	}
	for _, fk := range t.ForeignKeys {
		oids = append(oids, &fk.OID)
	}
	for _, oid := range oids {
		if *oid == 0 {
			id, err := d.NextID(ctx)
			if err != nil {
				return err
			}
			*oid = id
		}
	}
	t.Schema = inSchema(t.Schema)
	t.colTypes = t.ColumnTypes()
	d.Cat.TableByName[t.QName()] = t
	d.Cat.TableByID[t.ID] = t
	d.Cat.inbound.Store(nil)
	return d.Put(ctx, t.ID, &Descriptor{Table: t})
}

// Stage makes t what the DDL's catalog holds for its table before it is
// written, for checks inside the DDL that must see it as it will be.
func (d *DDL) Stage(t *Table) {
	d.Cat.TableByName[t.QName()], d.Cat.TableByID[t.ID] = t, t
	d.Cat.inbound.Store(nil)
}

func (d *DDL) PutView(ctx context.Context, v *View) error {
	v.Schema = inSchema(v.Schema)
	v.rows = v.rowTable()
	d.Cat.ViewByName[v.QName()] = v
	return d.Put(ctx, v.ID, &Descriptor{View: v})
}

func (d *DDL) PutSequence(ctx context.Context, s *Sequence) error {
	s.Schema = inSchema(s.Schema)
	d.Cat.SequenceByName[s.QName()] = s
	d.Cat.SequenceByID[s.ID] = s
	return d.Put(ctx, s.ID, &Descriptor{Sequence: s})
}

func (d *DDL) Put(ctx context.Context, id uint32, desc *Descriptor) error {
	b, err := json.Marshal(desc)
	if err != nil {
		return err
	}
	return d.Tx.Put(ctx, DescKey(id), b)
}

func (d *DDL) DropTable(ctx context.Context, t *Table) error {
	delete(d.Cat.TableByName, t.QName())
	delete(d.Cat.TableByID, t.ID)
	d.Cat.inbound.Store(nil)
	for _, s := range d.Cat.SequenceByName {
		if s.Owner == t.ID {
			if err := d.DropSequence(ctx, s); err != nil {
				return err
			}
		}
	}
	if err := d.Tx.Delete(ctx, DescKey(t.ID)); err != nil {
		return err
	}
	if err := d.ReleaseName(ctx, t.QName()); err != nil {
		return err
	}
	return d.DeleteData(ctx, t.DataID)
}

func (d *DDL) DropSequence(ctx context.Context, s *Sequence) error {
	delete(d.Cat.SequenceByName, s.QName())
	delete(d.Cat.SequenceByID, s.ID)
	for _, k := range [][]byte{DescKey(s.ID), NameKey(s.Schema, s.Name), SeqKey(s.StorageID())} {
		if err := d.Tx.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// DeleteData gives up every row and index entry of a data id, as of the
// DDL's commit: one record, whatever the table's size (txn.DropRange).
// Data ids are never used again, and the committed catalog no longer names
// this one, so no snapshot that sees the commit reads it; older snapshots
// read it as it was until compaction removes it.
func (d *DDL) DeleteData(ctx context.Context, dataID uint32) error {
	prefix := TablePrefix(dataID)
	return d.Tx.DropRange(ctx, prefix, PrefixEnd(prefix))
}

// TablePrefix begins the key of every row and index entry of data id
// dataID.
func TablePrefix(dataID uint32) []byte { return IndexPrefix(dataID, 0)[:5] }

// DeleteRange deletes, in the DDL's transaction, every key that starts
// with prefix.
func (d *DDL) DeleteRange(ctx context.Context, prefix []byte) error {
	return DeleteRange(ctx, d.Tx, prefix)
}

// DeleteRange deletes, in tx, every key that starts with prefix, a batch
// of keys at a time: the scan, at the statement's snapshot, does not see
// the deletions, and resumes after the batch's last key.
func DeleteRange(ctx context.Context, tx *txn.Tx, prefix []byte) error {
	scan := &KVScan{Tx: tx, Start: prefix, End: PrefixEnd(prefix)}
	for {
		e, ok, err := scan.Next()
		if err != nil || !ok {
			return err
		}
		if err := tx.Delete(ctx, bytes.Clone(e.K)); err != nil {
			return err
		}
	}
}

// RestartSequence makes seq start over, at first or else at its START
// value, on new state of its own, which the DDL's catalog names: the
// transaction's nextval calls see the restart, others the old state until
// it commits, and a rollback keeps the old state, as PostgreSQL's new
// relfilenode does.
func (d *DDL) RestartSequence(ctx context.Context, seq *Sequence, first *int64) error {
	restarted := *seq
	restarted.First = first
	var err error
	if restarted.Storage, err = d.NextID(ctx); err != nil {
		return err
	}
	return d.PutSequence(ctx, &restarted)
}

// DropView removes v from the catalog.
func (d *DDL) DropView(ctx context.Context, v *View) error {
	delete(d.Cat.ViewByName, v.QName())
	if err := d.Tx.Delete(ctx, DescKey(v.ID)); err != nil {
		return err
	}
	return d.ReleaseName(ctx, v.QName())
}
