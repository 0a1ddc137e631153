package sql

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

// The SQL layer keeps everything in txn's one ordered key space:
//
//	0x00 'd' <id u32>                  descriptor of table or sequence id (JSON)
//	0x00 'n' <name>                    name → id; its row lock serialises CREATE of one name
//	0x00 'v'                           catalog version: every DDL transaction bumps it,
//	                                   so DDL transactions run one at a time
//	0x00 'o'                           the next object id
//	0x00 's' <id u32>                  a sequence's reserved high-water mark
//	0x01 <data id u32> <index u8> ...  table data; index 1 is the primary index
//	                                   (value: the row), others are unique indexes
//	                                   (value: the primary key)
//
// Descriptors are read through the DDL transaction that writes them, so DDL
// commits and rolls back with the transaction, and they survive restarts
// because they are ordinary keys.
const (
	sysPrefix  = 0x00
	dataPrefix = 0x01

	primaryIndex = 1
	// firstObjectID is PostgreSQL's FirstNormalObjectId: user objects' OIDs
	// start here, clear of the built-in catalog's.
	firstObjectID = 16384
)

var (
	keyCatalogVersion = []byte{sysPrefix, 'v'}
	keyNextObjectID   = []byte{sysPrefix, 'o'}
)

func descKey(id uint32) []byte   { return binary.BigEndian.AppendUint32([]byte{sysPrefix, 'd'}, id) }
func nameKey(name string) []byte { return append([]byte{sysPrefix, 'n'}, name...) }
func seqKey(id uint32) []byte    { return binary.BigEndian.AppendUint32([]byte{sysPrefix, 's'}, id) }

// indexPrefix is the key prefix of one index of a table's current data.
func indexPrefix(dataID uint32, index uint8) []byte {
	return appendIndexPrefix(make([]byte, 0, 32), dataID, index)
}

func appendIndexPrefix(b []byte, dataID uint32, index uint8) []byte {
	b = append(b, dataPrefix)
	b = binary.BigEndian.AppendUint32(b, dataID)
	return append(b, index)
}

// Table describes a table.
type Table struct {
	ID      uint32         `json:"id"`
	Name    string         `json:"name"`
	Columns []*TableColumn `json:"columns"`
	// Indexes holds the primary key first (if any), then unique
	// constraints. A table without a primary key has a hidden row id.
	Indexes []*Index `json:"indexes"`
	// DataID is the key space of the table's rows; TRUNCATE moves it.
	DataID  uint32            `json:"data_id"`
	Options map[string]string `json:"options,omitempty"`
	// Ingest is set for an ingest table (see ingest.go).
	Ingest *IngestSpec `json:"ingest,omitempty"`
	// RowIDSeq numbers the hidden row ids of a table without primary key.
	RowIDSeq uint32 `json:"rowid_seq,omitempty"`
	NextNum  int16  `json:"next_num"`
	// Checks are the CHECK constraints, in name order (PostgreSQL checks
	// them in that order, and reports the first that fails).
	Checks []*Check `json:"checks,omitempty"`
	// ForeignKeys are the FOREIGN KEY constraints, in the order made.
	ForeignKeys []*ForeignKey `json:"foreign_keys,omitempty"`

	// colTypes caches types() for the row codec, which runs per row. It
	// is set when the table enters a catalog, after which the table is
	// shared and immutable (DDL works on a clone, which drops it).
	colTypes []types.T
}

// TableColumn describes a table column. Num is its attnum: stable, 1-based, never
// reused, so stored rows decode by position even after columns are dropped.
type TableColumn struct {
	Num     int16   `json:"num"`
	Name    string  `json:"name"`
	Type    types.T `json:"type"`
	NotNull bool    `json:"not_null,omitempty"`
	// Default is the default expression as SQL the TiDB parser reads.
	Default string `json:"default,omitempty"`
	Dropped bool   `json:"dropped,omitempty"`
	// Serial names the sequence a serial column's default draws from.
	Serial uint32 `json:"serial,omitempty"`
}

// Index describes the primary key, a unique constraint, or an index that
// CREATE INDEX made.
//
// A unique index's entry is keyed by its columns alone and holds the row's
// primary-index key, so a second row with the same values finds it taken.
// A non-unique index's entry, and a unique index's entry for a row with a
// NULL in its columns (NULLs are distinct), append the tail of the row's key
// (its primary key values, or hidden row id) to make the entry key unique;
// they hold the row's key too.
type Index struct {
	ID uint8 `json:"id"`
	// OID is the index's pg_class oid, allocated like table ids when the
	// index is made. Descriptors written before indexes had oids get
	// legacyIndexOID when they load.
	OID       uint32 `json:"oid,omitempty"`
	Name      string `json:"name"`
	Columns   []int  `json:"columns"` // positions in Table.Columns
	Primary   bool   `json:"primary,omitempty"`
	NonUnique bool   `json:"non_unique,omitempty"`
	// Standalone is an index CREATE INDEX made: no constraint owns it, so
	// DROP INDEX may drop it and dropping one of its columns drops it.
	Standalone bool `json:"standalone,omitempty"`
	// NullEntries says that rows with a NULL in the index's columns have
	// entries too, so the index can serve a scan bound on a leading part
	// of its columns. Unique indexes written before NULLs had entries lack
	// it, and serve only lookups of their whole key.
	NullEntries bool `json:"null_entries,omitempty"`
}

// nextIndexID is the id a new index of t takes. A dropped index's id may
// come back: DROP INDEX deletes the entries it had.
func (t *Table) nextIndexID() (uint8, error) {
	id := uint8(primaryIndex + 1)
	for _, ix := range t.Indexes {
		if ix.ID == 255 {
			return 0, pgerr.New(pgerr.ProgramLimitExceeded, "too many indexes on table %q", t.Name)
		}
		id = max(id, ix.ID+1)
	}
	return id, nil
}

// legacyIndexOID is the oid of an index whose descriptor has none: a
// function of the table and index ids above 2^31, which the object id
// counter does not reach, so it collides with nothing and stays put until
// the table's next DDL stores it.
func legacyIndexOID(t *Table, ix *Index) uint32 {
	return 1<<31 | t.ID<<8 | uint32(ix.ID)
}

// Sequence describes a sequence.
type Sequence struct {
	ID        uint32 `json:"id"`
	Name      string `json:"name"`
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	// Owner is the table whose serial column (or hidden row id) it feeds;
	// DROP TABLE drops it too.
	Owner uint32 `json:"owner,omitempty"`
	// Block is how many values one durable reservation claims (0: seqBlock).
	Block int64 `json:"block,omitempty"`
	// Storage, when set, is the id its state is kept under instead of ID:
	// TRUNCATE ... RESTART IDENTITY gives a sequence new state in its own
	// transaction, as PostgreSQL gives it a new relfilenode, so that a
	// rollback keeps the old.
	Storage uint32 `json:"storage,omitempty"`
	// First, when set, is where new state starts instead of Start: ALTER
	// SEQUENCE ... RESTART WITH n.
	First *int64 `json:"first,omitempty"`
}

// storage is the id s's state is kept under.
func (s *Sequence) storage() uint32 {
	if s.Storage != 0 {
		return s.Storage
	}
	return s.ID
}

// descriptor is the stored form: exactly one of the two is set.
type descriptor struct {
	Table    *Table    `json:"table,omitempty"`
	Sequence *Sequence `json:"sequence,omitempty"`
	View     *View     `json:"view,omitempty"`
}

// PrimaryKey returns the primary index, or nil for a table keyed by hidden
// row id.
func (t *Table) PrimaryKey() *Index {
	if len(t.Indexes) > 0 && t.Indexes[0].Primary {
		return t.Indexes[0]
	}
	return nil
}

// Column returns the live column called name.
func (t *Table) Column(name string) (int, *TableColumn) {
	for i, c := range t.Columns {
		if !c.Dropped && c.Name == name {
			return i, c
		}
	}
	return -1, nil
}

// types returns the storage types of every column, dropped ones included.
func (t *Table) types() []types.T {
	if t.colTypes != nil {
		return t.colTypes
	}
	ts := make([]types.T, len(t.Columns))
	for i, c := range t.Columns {
		ts[i] = c.Type
	}
	return ts
}

func (t *Table) clone() *Table {
	c := *t
	c.colTypes = nil
	c.Columns = make([]*TableColumn, len(t.Columns))
	for i, col := range t.Columns {
		cc := *col
		c.Columns[i] = &cc
	}
	c.Indexes = make([]*Index, len(t.Indexes))
	for i, ix := range t.Indexes {
		cx := *ix
		cx.Columns = append([]int(nil), ix.Columns...)
		c.Indexes[i] = &cx
	}
	c.Checks = make([]*Check, len(t.Checks))
	for i, ck := range t.Checks {
		cc := *ck
		c.Checks[i] = &cc
	}
	c.ForeignKeys = make([]*ForeignKey, len(t.ForeignKeys))
	for i, fk := range t.ForeignKeys {
		cf := *fk
		cf.Columns, cf.RefColumns = slices.Clone(fk.Columns), slices.Clone(fk.RefColumns)
		c.ForeignKeys[i] = &cf
	}
	return &c
}

// Catalog is an immutable snapshot of the descriptors. The engine replaces
// it after every DDL commit; a DDL transaction works on a private copy.
type Catalog struct {
	version   uint64
	tables    map[string]*Table
	byID      map[uint32]*Table
	sequences map[string]*Sequence
	seqByID   map[uint32]*Sequence
	views     map[string]*View
	// inbound caches referencing: for each table, the foreign keys that
	// reference it. A DDL's changes to its private copy reset it.
	inbound atomic.Pointer[map[uint32][]fkRef]
}

func newCatalog() *Catalog {
	return &Catalog{
		tables:    make(map[string]*Table),
		byID:      make(map[uint32]*Table),
		sequences: make(map[string]*Sequence),
		seqByID:   make(map[uint32]*Sequence),
		views:     make(map[string]*View),
	}
}

// Table returns the table called name, or 42P01.
func (c *Catalog) Table(name string) (*Table, error) {
	if t, ok := c.tables[name]; ok {
		return t, nil
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// Tables returns every table, ordered by name.
func (c *Catalog) Tables() []*Table {
	ts := make([]*Table, 0, len(c.tables))
	for _, t := range c.tables {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts
}

// loadCatalog reads every descriptor through tx.
func loadCatalog(tx *txn.Tx) (*Catalog, error) {
	c := newCatalog()
	if v, ok, err := tx.Get(keyCatalogVersion); err != nil {
		return nil, err
	} else if ok {
		c.version, _ = strconv.ParseUint(string(v), 10, 64)
	}
	var derr error
	err := tx.Scan([]byte{sysPrefix, 'd'}, []byte{sysPrefix, 'e'}, func(_, v []byte) bool {
		var d descriptor
		if derr = json.Unmarshal(v, &d); derr != nil {
			return false
		}
		c.add(&d)
		return true
	})
	if err == nil {
		err = derr
	}
	return c, err
}

func (c *Catalog) add(d *descriptor) {
	if t := d.Table; t != nil {
		for _, ix := range t.Indexes {
			if ix.OID == 0 {
				ix.OID = legacyIndexOID(t, ix)
			}
		}
		t.colTypes = t.types()
		c.tables[t.Name] = t
		c.byID[t.ID] = t
	}
	if s := d.Sequence; s != nil {
		c.sequences[s.Name] = s
		c.seqByID[s.ID] = s
	}
	if v := d.View; v != nil {
		c.views[v.Name] = v
	}
}

// ddl is a DDL transaction's view of the catalog: it locks the catalog
// version (so DDL transactions serialise), writes descriptors through the
// transaction, and keeps a private catalog that the session's later
// statements in the same transaction see.
type ddl struct {
	tx    *txn.Tx
	cat   *Catalog
	store *txn.Store // for what must not roll back with tx (object ids)
}

// beginDDL locks the catalog for tx and loads the private copy.
func beginDDL(ctx context.Context, store *txn.Store, tx *txn.Tx) (*ddl, error) {
	err := tx.Mutate(ctx, keyCatalogVersion, func(cur []byte, _ bool) ([]byte, txn.Op, error) {
		v, _ := strconv.ParseUint(string(cur), 10, 64)
		return strconv.AppendUint(nil, v+1, 10), txn.Put, nil
	})
	if err != nil {
		return nil, err
	}
	// Read the newest committed descriptors, not the statement's snapshot:
	// the version lock means no other DDL is in flight.
	tx.NextStatement()
	cat, err := loadCatalog(tx)
	if err != nil {
		return nil, err
	}
	return &ddl{tx: tx, cat: cat, store: store}, nil
}

// nextID hands out an object id. Like PostgreSQL's oids, ids are never
// handed out twice, even if the DDL that took one rolls back: state kept
// outside the DDL's transaction under an id (a sequence's reserved block)
// must not pass to a later object. So the counter moves in a transaction
// of its own.
func (d *ddl) nextID(ctx context.Context) (uint32, error) {
	tx := d.store.Begin(txn.ReadCommitted)
	var id uint32
	err := tx.Mutate(ctx, keyNextObjectID, func(cur []byte, ok bool) ([]byte, txn.Op, error) {
		id = firstObjectID
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

// claimName takes name for id, or fails with 42P07 if it is taken.
func (d *ddl) claimName(ctx context.Context, name string, id uint32) error {
	return d.tx.Mutate(ctx, nameKey(name), func(_ []byte, exists bool) ([]byte, txn.Op, error) {
		if exists {
			return nil, txn.Keep, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
		}
		return binary.BigEndian.AppendUint32(nil, id), txn.Put, nil
	})
}

// putTable stores t, giving its new indexes and checks their oids.
func (d *ddl) putTable(ctx context.Context, t *Table) error {
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
			id, err := d.nextID(ctx)
			if err != nil {
				return err
			}
			*oid = id
		}
	}
	t.colTypes = t.types()
	d.cat.tables[t.Name] = t
	d.cat.byID[t.ID] = t
	d.cat.inbound.Store(nil)
	return d.put(ctx, t.ID, &descriptor{Table: t})
}

func (d *ddl) putView(ctx context.Context, v *View) error {
	d.cat.views[v.Name] = v
	return d.put(ctx, v.ID, &descriptor{View: v})
}

func (d *ddl) putSequence(ctx context.Context, s *Sequence) error {
	d.cat.sequences[s.Name] = s
	d.cat.seqByID[s.ID] = s
	return d.put(ctx, s.ID, &descriptor{Sequence: s})
}

func (d *ddl) put(ctx context.Context, id uint32, desc *descriptor) error {
	b, err := json.Marshal(desc)
	if err != nil {
		return err
	}
	return d.tx.Put(ctx, descKey(id), b)
}

func (d *ddl) dropTable(ctx context.Context, t *Table) error {
	delete(d.cat.tables, t.Name)
	delete(d.cat.byID, t.ID)
	d.cat.inbound.Store(nil)
	for _, s := range d.cat.sequences {
		if s.Owner == t.ID {
			if err := d.dropSequence(ctx, s); err != nil {
				return err
			}
		}
	}
	if err := d.tx.Delete(ctx, descKey(t.ID)); err != nil {
		return err
	}
	if err := d.tx.Delete(ctx, nameKey(t.Name)); err != nil {
		return err
	}
	return d.deleteData(ctx, t.DataID)
}

func (d *ddl) dropSequence(ctx context.Context, s *Sequence) error {
	delete(d.cat.sequences, s.Name)
	delete(d.cat.seqByID, s.ID)
	for _, k := range [][]byte{descKey(s.ID), nameKey(s.Name), seqKey(s.storage())} {
		if err := d.tx.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// deleteData deletes every row and index entry of a data id.
func (d *ddl) deleteData(ctx context.Context, dataID uint32) error {
	return d.deleteRange(ctx, indexPrefix(dataID, 0)[:5])
}

// deleteRange deletes every key that starts with prefix.
func (d *ddl) deleteRange(ctx context.Context, prefix []byte) error {
	start, end := prefix, prefixEnd(prefix)
	var keys [][]byte
	if err := d.tx.Scan(start, end, func(k, _ []byte) bool {
		keys = append(keys, append([]byte(nil), k...))
		return true
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := d.tx.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// sequences hands out sequence values. PostgreSQL's nextval is not
// transactional: a value once handed out is never handed out again, even if
// the transaction that took it rolls back. So values come from blocks
// reserved by short transactions of their own (one fsync per block of
// seqBlock values), and a crash skips the rest of a block, as PostgreSQL's
// sequences skip up to 32 values.
type sequences struct {
	store *txn.Store
	mu    sync.Mutex
	state map[uint32]*seqState
}

type seqState struct {
	mu          sync.Mutex // serialises one sequence's users, and its reservations
	next, limit int64      // values [next, limit) are reserved and unused
	// uncalled is set while next is a setval(next, false) no nextval has
	// taken yet, which reads back as last_value next, is_called false.
	uncalled bool
}

const seqBlock = 32

// rowIDBlock is the block size of the hidden row-id sequences of tables
// without a primary key. Their values are never shown, so a crash may skip
// many, and a reservation (one fsync) per 32 rows would throttle inserts.
const rowIDBlock = 1 << 16

// blockSize is how many values one reservation of s claims.
func blockSize(s *Sequence) int64 {
	if s.Block > 0 {
		return s.Block
	}
	return seqBlock
}

// nextval returns the next value of s.
func (sq *sequences) nextval(ctx context.Context, s *Sequence) (int64, error) {
	st := sq.stateOf(s.storage())
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.next == st.limit {
		if err := sq.reserve(ctx, s, st); err != nil {
			return 0, err
		}
	}
	v := st.next
	st.next += s.Increment
	st.uncalled = false
	return v, nil
}

// stateOf returns a sequence's state. The map's lock is held only to find
// it: a reservation that waits (for the fsync, or for a transaction that
// holds the sequence's key) stops the users of that sequence alone.
func (sq *sequences) stateOf(id uint32) *seqState {
	sq.mu.Lock()
	defer sq.mu.Unlock()
	st := sq.state[id]
	if st == nil {
		st = &seqState{}
		sq.state[id] = st
	}
	return st
}

// reserve durably claims the next block of values.
func (sq *sequences) reserve(ctx context.Context, s *Sequence, st *seqState) error {
	tx := sq.store.Begin(txn.ReadCommitted)
	var from, to int64
	err := tx.Mutate(ctx, seqKey(s.storage()), func(cur []byte, ok bool) ([]byte, txn.Op, error) {
		from = s.Start
		if s.First != nil {
			from = *s.First
		}
		if ok {
			from, _ = strconv.ParseInt(string(cur), 10, 64)
		}
		if (s.Increment > 0 && from > s.Max) || (s.Increment < 0 && from < s.Min) {
			return nil, txn.Keep, pgerr.New(pgerr.ObjectNotInPrerequisiteState,
				"nextval: reached maximum value of sequence %q (%d)", s.Name, s.Max)
		}
		to = from + blockSize(s)*s.Increment
		if s.Increment > 0 && (to > s.Max || to < from) {
			to = s.Max + 1
		}
		if s.Increment < 0 && (to < s.Min || to > from) {
			to = s.Min - 1
		}
		return strconv.AppendInt(nil, to, 10), txn.Put, nil
	})
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	st.next, st.limit = from, to
	return nil
}

// setval makes next the value the sequence's next nextval returns. Like
// nextval, it takes effect at once and outlives a rollback.
func (sq *sequences) setval(ctx context.Context, s *Sequence, next int64, called bool) error {
	st := sq.stateOf(s.storage())
	st.mu.Lock()
	defer st.mu.Unlock()
	tx := sq.store.Begin(txn.ReadCommitted)
	err := tx.Mutate(ctx, seqKey(s.storage()), func([]byte, bool) ([]byte, txn.Op, error) {
		return strconv.AppendInt(nil, next, 10), txn.Put, nil
	})
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	st.next, st.limit, st.uncalled = next, next, !called
	return nil
}

// forget drops cached state, after DROP or TRUNCATE ... RESTART IDENTITY.
func (sq *sequences) forget(id uint32) {
	sq.mu.Lock()
	delete(sq.state, id)
	sq.mu.Unlock()
}
