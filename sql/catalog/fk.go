package catalog

// ForeignKey is a FOREIGN KEY constraint of a (child) table: each row whose
// key columns are all non-NULL (or, MATCH FULL, not all NULL) must match a
// row of the parent table in a primary key or unique index.
//
// A child row's check takes a KEY SHARE lock on the parent's index entry,
// so the parent row cannot be deleted or its key changed until the child's
// transaction ends; a parent's delete or key change finds the children
// that reference the old key by their newest committed versions, and
// applies the constraint's action to them. Checks of NO ACTION and of the
// child side run when the statement ends, as PostgreSQL's constraint
// triggers do, so that a statement may insert a parent and its children in
// any order; RESTRICT and the referential actions run at once.
type ForeignKey struct {
	Name string `json:"name"`
	// OID is the constraint's pg_constraint oid, allocated like a check's.
	OID     uint32 `json:"oid,omitempty"`
	Columns []int  `json:"columns"` // positions in the child's Columns
	// RefTable is the parent, RefIndex its primary key or unique index the
	// key is looked up in, and RefColumns the referenced columns,
	// positions in the parent's Columns in the order of Columns.
	RefTable   uint32 `json:"ref_table"`
	RefIndex   uint8  `json:"ref_index"`
	RefColumns []int  `json:"ref_columns"`
	// OnDelete and OnUpdate are PostgreSQL's confdeltype and confupdtype:
	// a (NO ACTION), r (RESTRICT), c (CASCADE), n (SET NULL) or d (SET
	// DEFAULT). Match is confmatchtype: s (SIMPLE) or f (FULL).
	OnDelete byte `json:"on_delete"`
	OnUpdate byte `json:"on_update"`
	Match    byte `json:"match"`
	// Deferrable constraints may be checked at commit instead of at the
	// end of each statement (see package sql's deferred.go); InitiallyDeferred ones are
	// unless SET CONSTRAINTS says otherwise.
	Deferrable        bool `json:"deferrable,omitempty"`
	InitiallyDeferred bool `json:"initially_deferred,omitempty"`
}

// FKRef is one foreign key that references a table.
type FKRef struct {
	Child *Table
	FK    *ForeignKey
}

// Referencing lists the foreign keys that reference table id.
func (c *Catalog) Referencing(id uint32) []FKRef {
	if m := c.inbound.Load(); m != nil {
		return (*m)[id]
	}
	m := map[uint32][]FKRef{}
	for _, t := range c.Tables() {
		for _, fk := range t.ForeignKeys {
			m[fk.RefTable] = append(m[fk.RefTable], FKRef{t, fk})
		}
	}
	c.inbound.Store(&m)
	return m[id]
}

// ParentOf returns fk's parent table, and the index of it the key is
// found in.
func (c *Catalog) ParentOf(fk *ForeignKey) (*Table, *Index) {
	parent := c.TableByID[fk.RefTable]
	if parent == nil {
		return nil, nil
	}
	for _, ix := range parent.Indexes {
		if ix.ID == fk.RefIndex {
			return parent, ix
		}
	}
	return parent, nil
}

// FKByOID finds the foreign key whose pg_constraint oid is oid, and its
// table.
func (c *Catalog) FKByOID(oid uint32) (*Table, *ForeignKey) {
	for _, t := range c.TableByName {
		for _, fk := range t.ForeignKeys {
			if fk.OID == oid {
				return t, fk
			}
		}
	}
	return nil, nil
}

// CheckByOID finds the CHECK constraint whose pg_constraint oid is oid,
// and its table.
func (c *Catalog) CheckByOID(oid uint32) (*Table, *Check) {
	for _, t := range c.TableByName {
		for _, ck := range t.Checks {
			if ck.OID == oid {
				return t, ck
			}
		}
	}
	return nil, nil
}
