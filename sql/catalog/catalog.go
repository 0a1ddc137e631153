package catalog

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/epochdb/epochdb/sql/pgerr"
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

func NameKey(name string) []byte { return append([]byte{SysPrefix, 'n'}, name...) }

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

// Descriptor is the stored form: exactly one of the two is set.
type Descriptor struct {
	Table     *Table     `json:"table,omitempty"`
	Sequence  *Sequence  `json:"sequence,omitempty"`
	View      *View      `json:"view,omitempty"`
	Enum      *EnumType  `json:"enum,omitempty"`
	Extension *Extension `json:"extension,omitempty"`
}

// Catalog is an immutable snapshot of the descriptors. The engine replaces
// it after every DDL commit; a DDL transaction works on a private copy.
type Catalog struct {
	Version        uint64
	TableByName    map[string]*Table
	TableByID      map[uint32]*Table
	SequenceByName map[string]*Sequence
	SequenceByID   map[uint32]*Sequence
	ViewByName     map[string]*View
	EnumByName     map[string]*EnumType // see enum.go
	// ExtensionByName are the installed extensions (see extension.go).
	ExtensionByName map[string]*Extension
	Comments        map[CommentKey]string // see comment.go
	// inbound caches referencing: for each table, the foreign keys that
	// reference it. A DDL's changes to its private copy reset it.
	inbound atomic.Pointer[map[uint32][]FKRef]
}

func New() *Catalog {
	return &Catalog{
		TableByName:     make(map[string]*Table),
		TableByID:       make(map[uint32]*Table),
		SequenceByName:  make(map[string]*Sequence),
		SequenceByID:    make(map[uint32]*Sequence),
		ViewByName:      make(map[string]*View),
		EnumByName:      make(map[string]*EnumType),
		ExtensionByName: make(map[string]*Extension),
		Comments:        make(map[CommentKey]string),
	}
}

// Table returns the table called name, or 42P01.
func (c *Catalog) Table(name string) (*Table, error) {
	if t, ok := c.TableByName[name]; ok {
		return t, nil
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// Tables returns every table, ordered by name.
func (c *Catalog) Tables() []*Table {
	ts := make([]*Table, 0, len(c.TableByName))
	for _, t := range c.TableByName {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
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

func sortedByID[T any](m map[string]T, id func(T) uint32) []T {
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
	return c, err
}

func (c *Catalog) add(d *Descriptor) {
	if t := d.Table; t != nil {
		for _, ix := range t.Indexes {
			if ix.OID == 0 {
				ix.OID = LegacyIndexOID(t, ix)
			}
		}
		t.colTypes = t.ColumnTypes()
		c.TableByName[t.Name] = t
		c.TableByID[t.ID] = t
	}
	if s := d.Sequence; s != nil {
		c.SequenceByName[s.Name] = s
		c.SequenceByID[s.ID] = s
	}
	if v := d.View; v != nil {
		c.ViewByName[v.Name] = v
	}
	if e := d.Enum; e != nil {
		c.EnumByName[e.Name] = e
		types.NameEnum(e.Oid(), e.Name)
	}
	if e := d.Extension; e != nil {
		c.ExtensionByName[e.Name] = e
	}
}
