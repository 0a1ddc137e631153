package txn

// fileSet is the store's sstables, by level.
type fileSet struct{}

func (f *fileSet) mayContain(key []byte) bool               { return false }
func (f *fileSet) get(key []byte, buf []ver) ([]ver, error) { return buf, nil }

type diskScan struct{}

func (f *fileSet) scan(start, end []byte) *diskScan { return nil }
func (d *diskScan) key() []byte                     { return nil }
func (d *diskScan) collect(buf []ver) []ver         { return buf }
func (d *diskScan) err() error                      { return nil }
func (d *diskScan) close()                          {}
