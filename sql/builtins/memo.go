package builtins

import "sync/atomic"

// A memo keeps what a function makes of a string argument (a compiled
// pattern, a parsed template) for the whole process, since the argument
// is nearly always a constant: a few slots, each holding the last key
// whose hash chose it, as PostgreSQL keeps its caches for the whole
// backend. Every session shares the values, so they never change once
// made. A lookup runs per row and allocates nothing.
type memo[K comparable, V any] struct {
	slots [32]atomic.Pointer[memoEntry[K, V]]
}

type memoEntry[K comparable, V any] struct {
	key K
	val V
}

// get returns the value of key, whose hash is hash, making it with make
// if its slot holds another key.
func (m *memo[K, V]) get(key K, hash uint32, make func() V) V {
	slot := &m.slots[hash%uint32(len(m.slots))]
	if e := slot.Load(); e != nil && e.key == key {
		return e.val
	}
	v := make()
	slot.Store(&memoEntry[K, V]{key: key, val: v})
	return v
}

// hashStrings is FNV-1a over two strings, the first followed by a zero
// byte.
func hashStrings(a, b string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(a); i++ {
		h = (h ^ uint32(a[i])) * 16777619
	}
	h = (h ^ 0) * 16777619
	for i := 0; i < len(b); i++ {
		h = (h ^ uint32(b[i])) * 16777619
	}
	return h
}
