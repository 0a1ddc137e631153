package catalog

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

const (
	SysPrefix  = 0x00
	DataPrefix = 0x01

	PrimaryIndexID = 1
	// FirstObjectID is PostgreSQL's FirstNormalObjectId: user objects' OIDs
	// start here, clear of the built-in catalog's.
	FirstObjectID = 16384
)

// The keys of the catalog's state.
var (
	KeyCatalogVersion = []byte{SysPrefix, 'v'}
	KeyNextObjectID   = []byte{SysPrefix, 'o'}
)

// DescKey, NameKey and SeqKey are the keys of an object's descriptor, of
// a name, and of a sequence's reserved high-water mark.
func DescKey(id uint32) []byte { return binary.BigEndian.AppendUint32([]byte{SysPrefix, 'd'}, id) }

// A name's key is in its schema's namespace: public's names are the name
// alone (as they were before schemas), another schema's follow a zero byte
// and the schema's oid (no name holds a zero byte), and schema names are in
// namespace 0.
func NameKey(nsp uint32, name string) []byte {
	if nsp == PublicID {
		return append([]byte{SysPrefix, 'n'}, name...)
	}
	b := binary.BigEndian.AppendUint32([]byte{SysPrefix, 'n', 0}, nsp)
	return append(b, name...)
}

func SeqKey(id uint32) []byte { return binary.BigEndian.AppendUint32([]byte{SysPrefix, 's'}, id) }

// IndexPrefix is the key prefix of one index of a table's current data.
func IndexPrefix(dataID uint32, index uint8) []byte {
	return AppendIndexPrefix(make([]byte, 0, 32), dataID, index)
}

// AppendIndexPrefix appends IndexPrefix(dataID, index) to b.
func AppendIndexPrefix(b []byte, dataID uint32, index uint8) []byte {
	b = append(b, DataPrefix)
	b = binary.BigEndian.AppendUint32(b, dataID)
	return append(b, index)
}

// Descriptor is the stored form: exactly one of its fields is set.
type Descriptor struct {
	Schema    *Schema    `json:"schema,omitempty"`
	Table     *Table     `json:"table,omitempty"`
	Sequence  *Sequence  `json:"sequence,omitempty"`
	View      *View      `json:"view,omitempty"`
	Enum      *EnumType  `json:"enum,omitempty"`
	Extension *Extension `json:"extension,omitempty"`
	Function  *Function  `json:"function,omitempty"`
}

// Catalog is an immutable snapshot of the descriptors. The engine replaces
// it after every DDL commit; a DDL transaction works on a private copy.
type Catalog struct {
	Version uint64
	// SchemaByName and SchemaByID are the schemas, the system's among
	// them (see schema.go).
	SchemaByName map[string]*Schema
	SchemaByID   map[uint32]*Schema
	// SchemaChanges counts the changes to the schemas a DDL has made in
	// its copy, which invalidate the search paths resolved against it.
	SchemaChanges  int
	TableByName    map[QName]*Table
	TableByID      map[uint32]*Table
	SequenceByName map[QName]*Sequence
	SequenceByID   map[uint32]*Sequence
	ViewByName     map[QName]*View
	EnumByName     map[QName]*EnumType // see enum.go
	// ExtensionByName are the installed extensions (see extension.go).
	ExtensionByName map[string]*Extension
	// FunctionByName holds each name's overloads, ordered by id (see
	// function.go).
	FunctionByName map[QName][]*Function
	FunctionByID   map[uint32]*Function
	Comments       map[CommentKey]string // see comment.go
	// publicDropped says that DROP SCHEMA dropped public.
	publicDropped bool
	// inbound caches referencing: for each table, the foreign keys that
	// reference it. A DDL's changes to its private copy reset it.
	inbound atomic.Pointer[map[uint32][]FKRef]
}

func New() *Catalog {
	return &Catalog{
		SchemaByName:    make(map[string]*Schema),
		SchemaByID:      make(map[uint32]*Schema),
		TableByName:     make(map[QName]*Table),
		TableByID:       make(map[uint32]*Table),
		SequenceByName:  make(map[QName]*Sequence),
		SequenceByID:    make(map[uint32]*Sequence),
		ViewByName:      make(map[QName]*View),
		EnumByName:      make(map[QName]*EnumType),
		ExtensionByName: make(map[string]*Extension),
		FunctionByName:  make(map[QName][]*Function),
		FunctionByID:    make(map[uint32]*Function),
		Comments:        make(map[CommentKey]string),
	}
}

// Tables returns every table, ordered by schema and name.
func (c *Catalog) Tables() []*Table {
	ts := make([]*Table, 0, len(c.TableByName))
	for _, t := range c.TableByName {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Schema != ts[j].Schema {
			return ts[i].Schema < ts[j].Schema
		}
		return ts[i].Name < ts[j].Name
	})
	return ts
}

// Views, Sequences and Enums return the catalog's views, sequences and
// enum types in the order of their ids, which is the order they were made
// in.
func (c *Catalog) Views() []*View {
	return sortedByID(c.ViewByName, func(v *View) uint32 { return v.ID })
}

func (c *Catalog) Sequences() []*Sequence {
	return sortedByID(c.SequenceByName, func(q *Sequence) uint32 { return q.ID })
}

func (c *Catalog) Enums() []*EnumType {
	return sortedByID(c.EnumByName, func(e *EnumType) uint32 { return e.ID })
}

func sortedByID[K comparable, T any](m map[K]T, id func(T) uint32) []T {
	out := make([]T, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(id(a), id(b)) })
	return out
}

// Load reads every descriptor through tx.
func Load(tx *txn.Tx) (c *Catalog, err error) {
	// The catalog decides how rows are read; it is not what a query
	// returns, and DDL elsewhere does not fail a SERIALIZABLE reader.
	err = tx.Untracked(func() error {
		c, err = ReadCatalog(tx)
		return err
	})
	return c, err
}

func ReadCatalog(tx *txn.Tx) (*Catalog, error) {
	c := New()
	if v, ok, err := tx.Get(KeyCatalogVersion); err != nil {
		return nil, err
	} else if ok {
		c.Version, _ = strconv.ParseUint(string(v), 10, 64)
	}
	var derr error
	err := tx.Scan([]byte{SysPrefix, 'd'}, []byte{SysPrefix, 'e'}, func(_, v []byte) bool {
		var d Descriptor
		if derr = json.Unmarshal(v, &d); derr != nil {
			return false
		}
		c.add(&d)
		return true
	})
	if err == nil {
		err = derr
	}
	if err == nil {
		err = LoadComments(tx, c)
	}
	c.addSchemas()
	return c, err
}

func (c *Catalog) add(d *Descriptor) {
	if s := d.Schema; s != nil {
		if s.Dropped {
			c.publicDropped = true
		} else {
			c.putSchema(s)
		}
	}
	if t := d.Table; t != nil {
		t.Schema = inSchema(t.Schema)
		for _, ix := range t.Indexes {
			if ix.OID == 0 {
				ix.OID = LegacyIndexOID(t, ix)
			}
		}
		t.colTypes = t.ColumnTypes()
		c.TableByName[t.QName()] = t
		c.TableByID[t.ID] = t
	}
	if s := d.Sequence; s != nil {
		s.Schema = inSchema(s.Schema)
		c.SequenceByName[s.QName()] = s
		c.SequenceByID[s.ID] = s
	}
	if v := d.View; v != nil {
		v.Schema = inSchema(v.Schema)
		v.rows = v.rowTable()
		c.ViewByName[v.QName()] = v
	}
	if e := d.Enum; e != nil {
		e.Schema = inSchema(e.Schema)
		c.EnumByName[e.QName()] = e
		types.NameEnum(e.Oid(), e.Name)
	}
	if e := d.Extension; e != nil {
		c.ExtensionByName[e.Name] = e
	}
	if f := d.Function; f != nil {
		c.putFunction(f)
	}
}
