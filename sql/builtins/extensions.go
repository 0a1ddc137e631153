package builtins

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"hash"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The functions of the extensions epochdb builds in, which resolve only
// while CREATE EXTENSION has installed them (Overload.Extension):
//
//	uuid-ossp  uuid_generate_v1, v1mc, v3, v4 and v5, uuid_nil and the
//	           namespace constants uuid_ns_dns, _url, _oid and _x500
//	pgcrypto   digest, hmac, gen_random_bytes, and crypt and gen_salt
//	           (crypt.go); gen_random_uuid is PostgreSQL's own since 13,
//	           and so always here
//	citext     its overloads of the string functions (citext.go)
//	pg_trgm    trigram similarity, its operators and thresholds (trgm.go)

func init() {
	for name, ovs := range map[string][]Overload{
		"uuid_generate_v1":   {{Ret: types.UUIDType, Volatility: Volatile, Fn: uuidV1(false)}},
		"uuid_generate_v1mc": {{Ret: types.UUIDType, Volatility: Volatile, Fn: uuidV1(true)}},
		"uuid_generate_v3":   {{Args: []types.T{types.UUIDType, types.Text}, Ret: types.UUIDType, Fn: uuidNamed(md5.New, 3)}},
		"uuid_generate_v4":   {{Ret: types.UUIDType, Volatility: Volatile, Fn: genRandomUUID}},
		"uuid_generate_v5":   {{Args: []types.T{types.UUIDType, types.Text}, Ret: types.UUIDType, Fn: uuidNamed(sha1.New, 5)}},
		"uuid_nil":           {{Ret: types.UUIDType, Fn: uuidConst(types.UUID{})}},
		"uuid_ns_dns":        {{Ret: types.UUIDType, Fn: uuidConst(uuidNamespace(0))}},
		"uuid_ns_url":        {{Ret: types.UUIDType, Fn: uuidConst(uuidNamespace(1))}},
		"uuid_ns_oid":        {{Ret: types.UUIDType, Fn: uuidConst(uuidNamespace(2))}},
		"uuid_ns_x500":       {{Ret: types.UUIDType, Fn: uuidConst(uuidNamespace(4))}},
	} {
		for i := range ovs {
			ovs[i].Extension = "uuid-ossp"
		}
		table[name] = ovs
	}
	for name, ovs := range map[string][]Overload{
		"digest": {
			{Args: []types.T{types.Text, types.Text}, Ret: types.Bytea, Fn: pgDigest},
			{Args: []types.T{types.Bytea, types.Text}, Ret: types.Bytea, Fn: pgDigest},
		},
		"hmac": {
			{Args: []types.T{types.Text, types.Text, types.Text}, Ret: types.Bytea, Fn: pgHMAC},
			{Args: []types.T{types.Bytea, types.Bytea, types.Text}, Ret: types.Bytea, Fn: pgHMAC},
		},
		"gen_random_bytes": {{Args: []types.T{types.Int4}, Ret: types.Bytea, Volatility: Volatile, Fn: genRandomBytes}},
	} {
		for i := range ovs {
			ovs[i].Extension = "pgcrypto"
		}
		table[name] = ovs
	}
}

// uuidNamespace is RFC 4122's namespace n: 6ba7b81n-9dad-11d1-80b4-00c04fd430c8.
func uuidNamespace(n byte) types.UUID {
	return types.UUID{0x6b, 0xa7, 0xb8, 0x10 + n, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
}

func uuidConst(u types.UUID) func(Env, []any) (any, error) {
	return func(Env, []any) (any, error) { return u, nil }
}

// uuidNamed is a name-based UUID of version 3 (MD5) or 5 (SHA-1): the hash
// of the namespace's bytes and the name's.
func uuidNamed(h func() hash.Hash, version byte) func(Env, []any) (any, error) {
	return func(_ Env, a []any) (any, error) {
		ns := a[0].(types.UUID)
		d := h()
		d.Write(ns[:])
		d.Write([]byte(a[1].(string)))
		var u types.UUID
		copy(u[:], d.Sum(nil))
		u[6] = u[6]&0x0f | version<<4
		u[8] = u[8]&0x3f | 0x80
		return u, nil
	}
}

// uuidClock is the state of the time-based UUIDs: the last timestamp
// given, and the clock sequence, which RFC 4122 starts at random.
var uuidClock struct {
	sync.Mutex
	last uint64
	seq  uint16
	node [6]byte // the host's MAC address, or random with the multicast bit
	init bool
}

// uuidV1 is a version 1 UUID: the time in 100 ns steps since the
// Gregorian calendar began, a clock sequence, and a node: the host's MAC
// address, or with multicast (v1mc) a random one with the multicast bit
// set, as uuid-ossp does.
func uuidV1(multicast bool) func(Env, []any) (any, error) {
	return func(Env, []any) (any, error) {
		const gregorianOffset = 0x01B21DD213814000 // 1582-10-15 to 1970-01-01 in 100 ns
		c := &uuidClock
		c.Lock()
		if !c.init {
			var b [2]byte
			_, _ = rand.Read(b[:])
			c.seq = binary.BigEndian.Uint16(b[:]) & 0x3fff
			c.node = hostNode()
			c.init = true
		}
		now := uint64(time.Now().UnixNano()/100) + gregorianOffset
		if now <= c.last {
			now = c.last + 1 // two in one step, or the clock went back
		}
		c.last = now
		seq, node := c.seq, c.node
		c.Unlock()
		if multicast {
			_, _ = rand.Read(node[:])
			node[0] |= 0x01
		}
		var u types.UUID
		binary.BigEndian.PutUint32(u[0:], uint32(now))
		binary.BigEndian.PutUint16(u[4:], uint16(now>>32))
		binary.BigEndian.PutUint16(u[6:], uint16(now>>48)&0x0fff|0x1000)
		binary.BigEndian.PutUint16(u[8:], seq|0x8000)
		copy(u[10:], node[:])
		return u, nil
	}
}

// hostNode is the MAC address of the first network interface that has
// one, or a random node with the multicast bit set, which no MAC address
// has.
func hostNode() [6]byte {
	var node [6]byte
	if ifs, err := net.Interfaces(); err == nil {
		for _, ifc := range ifs {
			if len(ifc.HardwareAddr) == 6 && ifc.Flags&net.FlagLoopback == 0 {
				copy(node[:], ifc.HardwareAddr)
				return node
			}
		}
	}
	_, _ = rand.Read(node[:])
	node[0] |= 0x01
	return node
}

// pgcryptoHash is pgcrypto's hash by name, case-insensitive.
func pgcryptoHash(name string) (func() hash.Hash, error) {
	switch strings.ToLower(name) {
	case "md5":
		return md5.New, nil
	case "sha1":
		return sha1.New, nil
	case "sha224":
		return sha256.New224, nil
	case "sha256":
		return sha256.New, nil
	case "sha384":
		return sha512.New384, nil
	case "sha512":
		return sha512.New, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "Cannot use %q: No such hash algorithm", name)
}

// bytesOf is a text or bytea argument's bytes.
func bytesOf(v any) []byte {
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	return v.([]byte)
}

// pgDigest is digest(data, type): the hash of data.
func pgDigest(_ Env, a []any) (any, error) {
	h, err := pgcryptoHash(a[1].(string))
	if err != nil {
		return nil, err
	}
	d := h()
	d.Write(bytesOf(a[0]))
	return d.Sum(nil), nil
}

// pgHMAC is hmac(data, key, type).
func pgHMAC(_ Env, a []any) (any, error) {
	h, err := pgcryptoHash(a[2].(string))
	if err != nil {
		return nil, err
	}
	m := hmac.New(h, bytesOf(a[1]))
	m.Write(bytesOf(a[0]))
	return m.Sum(nil), nil
}

// genRandomBytes is gen_random_bytes(n): n bytes, at most 1024, from the
// system's cryptographic source.
func genRandomBytes(_ Env, a []any) (any, error) {
	n := a[0].(int64)
	if n < 1 || n > 1024 {
		return nil, pgerr.New(pgerr.ExternalRoutineInvocation, "Length not in range")
	}
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, pgerr.New(pgerr.ExternalRoutineInvocation, "Random generator error")
	}
	return b, nil
}
