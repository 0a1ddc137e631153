package sstable

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// Cache holds decompressed data blocks of many files, keyed by (file
// number, block offset), up to a byte capacity. It is split into shards,
// each with its own lock and an equal share of the capacity, so that
// readers on many cores do not queue behind one mutex. A shard evicts by
// CLOCK (second chance): a hit only sets a flag under the shard's read lock,
// and the eviction sweep, under the write lock, spares a flagged block once.
// A block larger than a shard's share is not cached, so the bytes held never
// exceed the capacity.
//
// A nil *Cache is valid and caches nothing.
type Cache struct {
	shards   []cacheShard
	capacity int64
}

// CacheStats is a snapshot of a cache's counters.
type CacheStats struct {
	Hits, Misses int64
	// Bytes is the memory charged for the blocks held now; it never exceeds
	// Capacity.
	Bytes, Capacity int64
	Blocks          int64
}

type cacheKey struct {
	fileNum, offset uint64
}

type cacheNode struct {
	key        cacheKey
	data       []byte
	charge     int64
	referenced atomic.Bool
	prev, next *cacheNode // the shard's clock ring
}

// cacheNodeOverhead is charged per block on top of its buffer: the node and
// its map entry.
const cacheNodeOverhead = 128

type cacheShard struct {
	// mu guards m, hand, the ring and bytes. Hits take it shared.
	mu       sync.RWMutex
	m        map[cacheKey]*cacheNode
	hand     *cacheNode // the next node the sweep looks at; nil if empty
	bytes    int64
	capacity int64
	hits     atomic.Int64
	misses   atomic.Int64
	_        [64]byte // keep shards on separate cache lines
}

// minShardCapacity keeps a shard big enough to hold a few dozen blocks, so
// that a small cache is not split into shards too small to be useful.
const minShardCapacity = 1 << 20

// NewCache returns a cache that holds at most capacity bytes of blocks.
func NewCache(capacity int64) *Cache {
	n := 4 * runtime.GOMAXPROCS(0)
	n = min(n, int(capacity/minShardCapacity))
	shards := 1
	if n > 1 {
		shards = 1 << (bits.Len(uint(n)) - 1)
	}
	c := &Cache{shards: make([]cacheShard, shards), capacity: capacity}
	for i := range c.shards {
		c.shards[i].m = make(map[cacheKey]*cacheNode)
		c.shards[i].capacity = capacity / int64(shards)
	}
	return c
}

func (c *Cache) shard(k cacheKey) *cacheShard {
	h := k.fileNum*0x9e3779b97f4a7c15 ^ k.offset*0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	return &c.shards[h&uint64(len(c.shards)-1)]
}

func (c *Cache) get(fileNum, offset uint64) []byte {
	if c == nil {
		return nil
	}
	k := cacheKey{fileNum, offset}
	s := c.shard(k)
	s.mu.RLock()
	n := s.m[k]
	var b []byte
	if n != nil {
		b = n.data
		if !n.referenced.Load() {
			n.referenced.Store(true)
		}
	}
	s.mu.RUnlock()
	if b == nil {
		s.misses.Add(1)
	} else {
		s.hits.Add(1)
	}
	return b
}

// set caches block b, charging charge bytes (its allocation) for it.
func (c *Cache) set(fileNum, offset uint64, b []byte, charge int) {
	if c == nil {
		return
	}
	k := cacheKey{fileNum, offset}
	s := c.shard(k)
	size := int64(charge) + cacheNodeOverhead
	if size > s.capacity {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[k] != nil {
		return // another reader of the same block got here first
	}
	for s.bytes+size > s.capacity {
		s.evictOne()
	}
	n := &cacheNode{key: k, data: b, charge: size}
	// Insert just behind the hand: the sweep reaches it last.
	if s.hand == nil {
		n.prev, n.next = n, n
		s.hand = n
	} else {
		n.prev, n.next = s.hand.prev, s.hand
		n.prev.next, s.hand.prev = n, n
	}
	s.m[k] = n
	s.bytes += size
}

// evictOne removes the first unreferenced block at or after the hand,
// clearing the flags it passes. s.mu must be held and the shard non-empty.
func (s *cacheShard) evictOne() {
	for s.hand.referenced.Load() {
		s.hand.referenced.Store(false)
		s.hand = s.hand.next
	}
	s.remove(s.hand)
}

func (s *cacheShard) remove(n *cacheNode) {
	if n.next == n {
		s.hand = nil
	} else {
		n.prev.next, n.next.prev = n.next, n.prev
		if s.hand == n {
			s.hand = n.next
		}
	}
	n.prev, n.next = nil, nil
	delete(s.m, n.key)
	s.bytes -= n.charge
}

// holds reports whether the cache has block (fileNum, offset), counting
// neither a hit nor a miss and leaving its second chance alone.
func (c *Cache) holds(fileNum, offset uint64) bool {
	if c == nil {
		return false
	}
	k := cacheKey{fileNum, offset}
	s := c.shard(k)
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[k] != nil
}

// EvictFile drops every block of one file. It visits every cached block,
// so it is for closing files, not for hot paths.
func (c *Cache) EvictFile(fileNum uint64) {
	if c == nil {
		return
	}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, n := range s.m {
			if k.fileNum == fileNum {
				s.remove(n)
			}
		}
		s.mu.Unlock()
	}
}

// Stats returns the cache's counters; a nil cache has none.
func (c *Cache) Stats() CacheStats {
	var st CacheStats
	if c == nil {
		return st
	}
	st.Capacity = c.capacity
	for i := range c.shards {
		s := &c.shards[i]
		st.Hits += s.hits.Load()
		st.Misses += s.misses.Load()
		s.mu.RLock()
		st.Bytes += s.bytes
		st.Blocks += int64(len(s.m))
		s.mu.RUnlock()
	}
	return st
}
