package bench

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/epochdb/epochdb/txn"
)

// The workload of issue 8, the same for both engines.
const (
	lsmKeys      = 1_000_000 // keys in a filled store
	lsmBatch     = 1_000     // keys per durable commit, reads per batch
	lsmScanKeys  = 100_000   // keys per scan
	lsmCacheSize = 256 << 20 // block cache of either engine
	lsmKeyLen    = 16
	lsmValueLen  = 100
	lsmPoolSize  = 4 << 20 // bytes the values are taken from
)

// lsmOrders are the orders the LSM benchmarks visit the key numbers in,
// built once so that building them is never timed: rand is the random
// fill, reads the point reads (another permutation), starts the scans'
// first keys. The sequential fill needs no slice.
type lsmOrders struct {
	rand, reads, starts []uint32
}

var lsmWorkload = sync.OnceValue(func() *lsmOrders {
	rng := rand.New(rand.NewPCG(8, 8))
	perm := func() []uint32 {
		p := make([]uint32, lsmKeys)
		for i := range p {
			p[i] = uint32(i)
		}
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		return p
	}
	o := &lsmOrders{rand: perm(), reads: perm(), starts: make([]uint32, 1024)}
	for i := range o.starts {
		o.starts[i] = uint32(rng.IntN(lsmKeys - lsmScanKeys + 1))
	}
	return o
})

// lsmKV holds the key and value of one key number. They are computed,
// not stored: a harness holding 1M keys and values would add 116 MB to the
// Go heap, which paces the garbage collector of epochdb (whose memory is
// on that heap) and not of Pebble (whose blocks and memtables are not),
// and random reads of it would cost both engines a cache miss per key.
type lsmKV struct {
	key   [lsmKeyLen]byte
	value []byte
}

// lsmPool is random bytes, generated once, that the values are windows of.
// It is much larger than a block, so that no block holds the same bytes
// twice and blocks do not compress, and small enough to stay in the CPU's
// caches as much as the engines let it.
var lsmPool = sync.OnceValue(func() []byte {
	rng := rand.New(rand.NewPCG(8, 100))
	p := make([]byte, lsmPoolSize+lsmValueLen+7)
	for i := 0; i+8 <= len(p); i += 8 {
		binary.LittleEndian.PutUint64(p[i:], rng.Uint64())
	}
	return p[:lsmPoolSize+lsmValueLen]
})

// set makes kv key number i's: the key is "lsm-key:" and the number in 8
// big-endian bytes, so that key order is number order, and the value is
// the 100 bytes at 100·i in the pool (wrapping around). Consecutive keys
// thus have distinct, random values that a scan checks at memory speed.
func (kv *lsmKV) set(i uint32) {
	copy(kv.key[:8], "lsm-key:")
	binary.BigEndian.PutUint64(kv.key[8:], uint64(i))
	off := uint64(i) * lsmValueLen % lsmPoolSize
	kv.value = lsmPool()[off : off+lsmValueLen : off+lsmValueLen]
}

// check reports whether key and value are key number i's, leaving kv
// holding them.
func (kv *lsmKV) check(i uint32, key, value []byte) error {
	kv.set(i)
	if !bytes.Equal(key, kv.key[:]) {
		return fmt.Errorf("key number %d: got key %q", i, key)
	}
	if !bytes.Equal(value, kv.value) {
		return fmt.Errorf("key %q: wrong value (%d bytes)", key, len(value))
	}
	return nil
}

// TestLSMKV checks the workload's promises: key order is number order,
// and values, even of neighbouring keys, do not compress.
func TestLSMKV(t *testing.T) {
	var a, b lsmKV
	var raw bytes.Buffer
	for i := range uint32(10_000) {
		a.set(i)
		b.set(i + 1)
		if bytes.Compare(a.key[:], b.key[:]) >= 0 {
			t.Fatalf("key %q is not below key %q", a.key, b.key)
		}
		raw.Write(a.key[:])
		raw.Write(a.value[:])
	}
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(raw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The keys, 16 of every 116 bytes, compress; the values must not.
	if min := raw.Len() * lsmValueLen / (lsmKeyLen + lsmValueLen); z.Len() < min {
		t.Errorf("%d bytes of keys and values deflate to %d, below the %d of the values alone", raw.Len(), z.Len(), min)
	}
}

// lsmEngine is one side of the comparison, open on a directory of its own.
// kv is the caller's scratch space; a goroutine has one of its own.
type lsmEngine interface {
	// commit writes key numbers nums, with their values, in one durable
	// commit.
	commit(kv *lsmKV, nums []uint32) error
	// flush writes everything in memory to sstables and returns once
	// they are on disk.
	flush() error
	// compact compacts the whole key range.
	compact() error
	// read gets each key of nums and checks its value. An engine with
	// transactions reads perTxn keys per read-only transaction.
	read(kv *lsmKV, nums []uint32, perTxn int) error
	// scan reads n consecutive keys from key number from and checks each.
	scan(kv *lsmKV, from uint32, n int) error
	close() error
}

var lsmEngines = []struct {
	name string
	open func(dir string) (lsmEngine, error)
}{
	{"epochdb", openEpochLSM},
	{"pebble", openPebbleLSM},
}

// BenchmarkLSM compares the storage engines as issue 8 asks: fill 1M keys
// with 100-byte values in sequential and random order, 1,000 keys per
// durable commit, until they are in sstables; then, on a store filled in
// random order, flushed and compacted, random point reads of existing keys
// from 1 and 2 goroutines and scans of 100,000 consecutive keys. The
// engines alternate case by case. Fills run once per iteration and are
// meant for -benchtime=1x; reads and scans loop b.N. Every case checks
// what it read (and each fill its whole store, untimed), so that a broken
// engine cannot look fast.
func BenchmarkLSM(b *testing.B) {
	o := lsmWorkload()
	for _, fill := range []struct {
		name  string
		order func(i int) uint32
	}{
		{"fill-seq", func(i int) uint32 { return uint32(i) }},
		{"fill-rand", func(i int) uint32 { return o.rand[i] }},
	} {
		for _, e := range lsmEngines {
			b.Run(fill.name+"/engine="+e.name, func(b *testing.B) {
				benchFill(b, fill.order, e.open)
			})
		}
	}

	// The read cases share one filled store per engine, made on first use
	// so that a -bench selecting only fills does not pay for it. Its
	// directory is not a sub-benchmark's TempDir, which goes when that
	// sub-benchmark ends.
	filled := map[string]lsmEngine{}
	var dirs []string
	defer func() {
		for _, eng := range filled {
			if err := eng.close(); err != nil {
				b.Error(err)
			}
		}
		for _, dir := range dirs {
			if err := os.RemoveAll(dir); err != nil {
				b.Error(err)
			}
		}
	}()
	store := func(b *testing.B, name string, open func(string) (lsmEngine, error)) lsmEngine {
		if eng := filled[name]; eng != nil {
			return eng
		}
		dir, err := os.MkdirTemp("", "BenchmarkLSM-"+name+"-")
		if err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, dir)
		eng, err := fillForReads(dir, o, open)
		if err != nil {
			b.Fatal(err)
		}
		filled[name] = eng
		return eng
	}
	for _, perTxn := range []int{lsmBatch, 1} {
		for _, g := range []int{1, 2} {
			for _, e := range lsmEngines {
				b.Run(fmt.Sprintf("read/txn-reads=%d/goroutines=%d/engine=%s", perTxn, g, e.name), func(b *testing.B) {
					benchRead(b, o, store(b, e.name, e.open), g, perTxn)
				})
			}
		}
	}
	for _, e := range lsmEngines {
		b.Run("scan/engine="+e.name, func(b *testing.B) {
			benchScan(b, o, store(b, e.name, e.open))
		})
	}
}

// BenchmarkLSMCheck measures what BenchmarkLSM's harness costs per key
// without an engine: computing a key and its value and comparing them
// with a copy, as a scan does for each key it returns. Read the scan's
// keys/s with it in mind.
func BenchmarkLSMCheck(b *testing.B) {
	const n = 1024
	var kv lsmKV
	copies := make([][]byte, n)
	for i := range copies {
		kv.set(uint32(i))
		copies[i] = append(kv.key[:], kv.value...)
	}
	for i := 0; b.Loop(); i++ {
		c := copies[i%n]
		if err := kv.check(uint32(i%n), c[:lsmKeyLen], c[lsmKeyLen:]); err != nil {
			b.Fatal(err)
		}
	}
}

// commitAll writes key numbers order(0)...order(lsmKeys-1), lsmBatch per
// commit.
func commitAll(eng lsmEngine, order func(i int) uint32) error {
	var kv lsmKV
	nums := make([]uint32, lsmBatch)
	for i := 0; i < lsmKeys; i += lsmBatch {
		for j := range nums {
			nums[j] = order(i + j)
		}
		if err := eng.commit(&kv, nums); err != nil {
			return err
		}
	}
	return nil
}

// benchFill fills a fresh store in the given order, b.N times, and reports
// keys/s. The timed region ends once flush has put every key in an sstable.
func benchFill(b *testing.B, order func(i int) uint32, open func(string) (lsmEngine, error)) {
	b.StopTimer()
	for range b.N {
		eng, err := open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := commitAll(eng, order); err != nil {
			b.Fatal(err)
		}
		if err := eng.flush(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := eng.scan(new(lsmKV), 0, lsmKeys); err != nil {
			b.Fatal(err)
		}
		if err := eng.close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*lsmKeys/b.Elapsed().Seconds(), "keys/s")
}

// fillForReads makes the store the read cases share: filled in random
// order as fill-rand does, flushed, compacted, and checked by one full
// scan, which also leaves its blocks in the cache as much as they fit.
func fillForReads(dir string, o *lsmOrders, open func(string) (lsmEngine, error)) (lsmEngine, error) {
	eng, err := open(dir)
	if err != nil {
		return nil, err
	}
	err = commitAll(eng, func(i int) uint32 { return o.rand[i] })
	if err == nil {
		err = eng.flush()
	}
	if err == nil {
		err = eng.compact()
	}
	if err == nil {
		err = eng.scan(new(lsmKV), 0, lsmKeys)
	}
	if err != nil {
		return nil, errors.Join(err, eng.close())
	}
	return eng, nil
}

// benchRead does b.N random point reads of existing keys from g
// goroutines, each with a share of b.N and a stretch of the read order of
// its own, in batches of lsmBatch reads, and reports reads/s.
func benchRead(b *testing.B, o *lsmOrders, eng lsmEngine, g, perTxn int) {
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := range g {
		n := b.N/g + btoi(w < b.N%g)
		pos := w * lsmKeys / g
		wg.Go(func() {
			var kv lsmKV
			for n > 0 {
				k := min(n, lsmBatch, lsmKeys-pos)
				if err := eng.read(&kv, o.reads[pos:pos+k], perTxn); err != nil {
					b.Error(err)
					return
				}
				n -= k
				if pos += k; pos == lsmKeys {
					pos = 0
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
}

// benchScan does b.N scans of lsmScanKeys consecutive keys, each from a
// random start, and reports keys/s.
func benchScan(b *testing.B, o *lsmOrders, eng lsmEngine) {
	var kv lsmKV
	b.ResetTimer()
	for i := range b.N {
		if err := eng.scan(&kv, o.starts[i%len(o.starts)], lsmScanKeys); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)*lsmScanKeys/b.Elapsed().Seconds(), "keys/s")
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// epochLSM is epochdb's side: a txn.Store with default options (64 MiB
// memtable, 256 MiB block cache, synced log).
type epochLSM struct{ s *txn.Store }

func openEpochLSM(dir string) (lsmEngine, error) {
	s, err := txn.Open(dir, txn.Options{})
	if err != nil {
		return nil, err
	}
	return &epochLSM{s}, nil
}

func (e *epochLSM) commit(kv *lsmKV, nums []uint32) error {
	ctx := context.Background()
	tx := e.s.Begin(txn.ReadCommitted)
	for _, i := range nums {
		kv.set(i)
		if err := tx.Put(ctx, kv.key[:], kv.value); err != nil {
			return errors.Join(err, tx.Rollback())
		}
	}
	return tx.Commit()
}

func (e *epochLSM) flush() error {
	if err := e.s.Flush(); err != nil {
		return err
	}
	if st := e.s.Stats(); st.MemtableRows != 0 || st.FrozenMemtables != 0 {
		return fmt.Errorf("after Flush: %d rows in the memtable, %d frozen memtables", st.MemtableRows, st.FrozenMemtables)
	}
	return nil
}

func (e *epochLSM) compact() error { return e.s.Compact() }

func (e *epochLSM) read(kv *lsmKV, nums []uint32, perTxn int) error {
	var tx *txn.Tx
	for j, i := range nums {
		if j%perTxn == 0 {
			if tx != nil {
				if err := tx.Rollback(); err != nil {
					return err
				}
			}
			tx = e.s.Begin(txn.RepeatableRead)
		}
		kv.set(i)
		v, ok, err := tx.Get(kv.key[:])
		if err == nil && !ok {
			err = fmt.Errorf("key %q not found", kv.key[:])
		}
		if err == nil && !bytes.Equal(v, kv.value) {
			err = fmt.Errorf("key %q: wrong value (%d bytes)", kv.key[:], len(v))
		}
		if err != nil {
			return errors.Join(err, tx.Rollback())
		}
	}
	if tx == nil {
		return nil
	}
	return tx.Rollback()
}

func (e *epochLSM) scan(kv *lsmKV, from uint32, n int) error {
	tx := e.s.Begin(txn.RepeatableRead)
	i := from
	var bad error
	kv.set(from)
	start := kv.key // kv changes as the scan goes
	err := tx.Scan(start[:], nil, func(key, value []byte) bool {
		if bad = kv.check(i, key, value); bad != nil {
			return false
		}
		i++
		return int(i-from) < n
	})
	err = errors.Join(bad, err, tx.Rollback())
	if err == nil && int(i-from) != n {
		err = fmt.Errorf("scan from key number %d: %d keys, want %d", from, i-from, n)
	}
	return err
}

func (e *epochLSM) close() error { return e.s.Close() }

// pebbleLSM is Pebble's side: default options but for a 256 MiB block
// cache, as epochdb's.
type pebbleLSM struct{ db *pebble.DB }

func openPebbleLSM(dir string) (lsmEngine, error) {
	db, err := pebble.Open(dir, &pebble.Options{
		CacheSize: lsmCacheSize,
		Logger:    quietLogger{pebble.DefaultLogger},
	})
	if err != nil {
		return nil, err
	}
	return &pebbleLSM{db}, nil
}

func (p *pebbleLSM) commit(kv *lsmKV, nums []uint32) error {
	wb := p.db.NewBatch()
	for _, i := range nums {
		kv.set(i)
		if err := wb.Set(kv.key[:], kv.value, nil); err != nil {
			return errors.Join(err, wb.Close())
		}
	}
	return errors.Join(wb.Commit(pebble.Sync), wb.Close())
}

func (p *pebbleLSM) flush() error { return p.db.Flush() }

func (p *pebbleLSM) compact() error {
	var first lsmKV
	first.set(0)
	return p.db.Compact(context.Background(), first.key[:], []byte{0xff}, true)
}

func (p *pebbleLSM) read(kv *lsmKV, nums []uint32, _ int) error {
	for _, i := range nums {
		kv.set(i)
		v, closer, err := p.db.Get(kv.key[:])
		if err != nil {
			return fmt.Errorf("key %q: %w", kv.key[:], err)
		}
		if !bytes.Equal(v, kv.value) {
			err = fmt.Errorf("key %q: wrong value (%d bytes)", kv.key[:], len(v))
		}
		if err := errors.Join(err, closer.Close()); err != nil {
			return err
		}
	}
	return nil
}

func (p *pebbleLSM) scan(kv *lsmKV, from uint32, n int) error {
	it, err := p.db.NewIter(nil)
	if err != nil {
		return err
	}
	i := from
	kv.set(from)
	start := kv.key // kv changes as the scan goes
	for ok := it.SeekGE(start[:]); ok && int(i-from) < n; ok = it.Next() {
		if err = kv.check(i, it.Key(), it.Value()); err != nil {
			break
		}
		i++
	}
	err = errors.Join(err, it.Error(), it.Close())
	if err == nil && int(i-from) != n {
		err = fmt.Errorf("scan from key number %d: %d keys, want %d", from, i-from, n)
	}
	return err
}

func (p *pebbleLSM) close() error { return p.db.Close() }
