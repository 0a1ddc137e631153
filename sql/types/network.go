package types

import (
	"bytes"
	"cmp"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// The network address types: inet and cidr, which share one datum, and
// the MAC addresses macaddr and macaddr8. Their text formats are
// PostgreSQL's, quirks included, because clients and dumps read them back:
// cidr takes abbreviated and classful IPv4 ("10", "192.168.1"), inet does
// not; an IPv6 address is printed with the longest run of zero groups (of
// at least two) as "::", and with a trailing dotted quad for the
// IPv4-compatible and IPv4-mapped forms.

// Inet is an inet or cidr value: an IPv4 or IPv6 address and the length
// of its network prefix. The type it travels with says which it is; a
// cidr has no bits set to the right of its prefix. An IPv4 address takes
// the first four bytes of Addr and leaves the rest zero, so that equal
// values are equal Go values.
type Inet struct {
	IPv6 bool
	Bits uint8
	Addr [16]byte
}

// Macaddr is a macaddr: six bytes.
type Macaddr [6]byte

// Macaddr8 is a macaddr8, an EUI-64 address: eight bytes.
type Macaddr8 [8]byte

// Size is the number of bytes of the address: 4 or 16.
func (a Inet) Size() int {
	if a.IPv6 {
		return 16
	}
	return 4
}

// MaxBits is the length of the address in bits: 32 or 128.
func (a Inet) MaxBits() int { return 8 * a.Size() }

// Family is 4 or 6, as family() reports it.
func (a Inet) Family() int {
	if a.IPv6 {
		return 6
	}
	return 4
}

// Masked is a with the bits right of its prefix cleared: its network.
func (a Inet) Masked() Inet {
	for i := range a.Size() {
		a.Addr[i] &= maskByte(int(a.Bits), i)
	}
	return a
}

// Netmask is the netmask of a's prefix, as an address with a full
// prefix length.
func (a Inet) Netmask() Inet {
	m := Inet{IPv6: a.IPv6, Bits: uint8(a.MaxBits())}
	for i := range a.Size() {
		m.Addr[i] = maskByte(int(a.Bits), i)
	}
	return m
}

// HostBitsZero reports whether a has no bit set right of its prefix, as a
// cidr must not.
func (a Inet) HostBitsZero() bool { return a.Masked() == a }

// maskByte is byte i of the netmask of a prefix of bits bits.
func maskByte(bits, i int) byte {
	switch n := bits - 8*i; {
	case n >= 8:
		return 0xff
	case n <= 0:
		return 0
	default:
		return ^byte(0xff >> n)
	}
}

// CompareInet orders inet and cidr values as PostgreSQL's network_cmp:
// IPv4 before IPv6, then by the bits the two prefixes share, then the
// shorter prefix first, then by the whole address.
func CompareInet(a, b Inet) int {
	if a.IPv6 != b.IPv6 {
		if b.IPv6 {
			return -1
		}
		return 1
	}
	if c := CompareBits(a, b, min(int(a.Bits), int(b.Bits))); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Bits, b.Bits); c != 0 {
		return c
	}
	return bytes.Compare(a.Addr[:a.Size()], b.Addr[:b.Size()])
}

// CompareBits compares the first n bits of two addresses of one family.
func CompareBits(a, b Inet, n int) int {
	for i := 0; n > 0; i, n = i+1, n-8 {
		m := maskByte(n, 0)
		if c := cmp.Compare(a.Addr[i]&m, b.Addr[i]&m); c != 0 {
			return c
		}
	}
	return 0
}

// parseInet is inet_in and cidr_in.
func parseInet(s string, cidr bool) (any, error) {
	var a Inet
	var ok bool
	switch {
	case strings.IndexByte(s, ':') >= 0:
		a, ok = parseIPv6(s)
	case cidr:
		a, ok = parseCidrIPv4(s)
	default:
		a, ok = parseInetIPv4(s)
	}
	typ := "inet"
	if cidr {
		typ = "cidr"
	}
	if !ok {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type %s: "%s"`, typ, s)
	}
	if cidr && !a.HostBitsZero() {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid cidr value: "%s"`, s).
			WithDetail("Value has bits set to right of mask.")
	}
	return a, nil
}

// ipv4Reader reads the parts of an IPv4 address from s: its octets, then
// an optional /bits.
type ipv4Reader struct {
	s   string
	i   int
	out [4]byte
	n   int // octets written
}

func (r *ipv4Reader) peek() byte {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// octet reads a decimal octet, leading zeros allowed, and stores it.
func (r *ipv4Reader) octet() bool {
	v := 0
	for isDigit(r.peek()) {
		v = 10*v + int(r.peek()-'0')
		r.i++
		if v > 255 {
			return false
		}
	}
	if r.n == 4 {
		return false
	}
	r.out[r.n] = byte(v)
	r.n++
	return true
}

// prefix reads what follows the address: nothing (bits -1), or / and a
// decimal prefix length of at most 32 that ends the string. It accepts a
// length only after at least one octet.
func (r *ipv4Reader) prefix() (bits int, ok bool) {
	bits = -1
	if r.peek() == '/' && r.i+1 < len(r.s) && isDigit(r.s[r.i+1]) && r.n > 0 {
		r.i++
		bits = 0
		for isDigit(r.peek()) {
			bits = min(10*bits+int(r.peek()-'0'), 1000)
			r.i++
		}
		if r.i < len(r.s) || bits > 32 {
			return 0, false
		}
	}
	return bits, r.i == len(r.s)
}

// parseInetIPv4 reads an IPv4 inet: dotted octets, all four of them
// unless a prefix length is given that the octets cover.
func parseInetIPv4(s string) (Inet, bool) {
	r := ipv4Reader{s: s}
	for isDigit(r.peek()) {
		if !r.octet() {
			return Inet{}, false
		}
		if c := r.peek(); c == 0 || c == '/' {
			break
		}
		if r.peek() != '.' {
			return Inet{}, false
		}
		r.i++
	}
	bits, ok := r.prefix()
	switch {
	case !ok, r.n == 0:
		return Inet{}, false
	case bits < 0 && r.n != 4:
		return Inet{}, false
	case bits < 0:
		bits = 32
	case bits/8 > r.n:
		return Inet{}, false
	}
	a := Inet{Bits: uint8(bits)}
	copy(a.Addr[:], r.out[:])
	return a, true
}

// parseCidrIPv4 reads an IPv4 cidr: dotted octets or 0x and hex digits,
// as few as the network needs, with the prefix length of the address's
// class when none is given.
func parseCidrIPv4(s string) (Inet, bool) {
	r := ipv4Reader{s: s}
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isHex(s[2]):
		r.i = 2
		odd := false
		for isHex(r.peek()) {
			v, _ := unhex(r.peek())
			r.i++
			if !odd && r.n == 4 {
				return Inet{}, false
			}
			if odd {
				r.out[r.n-1] |= v
			} else {
				r.out[r.n] = v << 4
				r.n++
			}
			odd = !odd
		}
	case len(s) > 0 && isDigit(s[0]):
		for {
			if !r.octet() {
				return Inet{}, false
			}
			if c := r.peek(); c == 0 || c == '/' {
				break
			}
			if r.peek() != '.' || r.i+1 >= len(s) || !isDigit(s[r.i+1]) {
				return Inet{}, false
			}
			r.i++
		}
	default:
		return Inet{}, false
	}
	bits, ok := r.prefix()
	if !ok || r.n == 0 {
		return Inet{}, false
	}
	if bits < 0 {
		bits = classfulBits(r.out[0], r.n)
	}
	a := Inet{Bits: uint8(bits)}
	copy(a.Addr[:], r.out[:])
	return a, true
}

// classfulBits is the prefix length a cidr written without one gets: its
// class's (A /8, B /16, C /24, D /4, E /32), widened to the n octets
// written.
func classfulBits(first byte, n int) int {
	bits := 8
	switch {
	case first >= 240:
		bits = 32
	case first >= 224:
		bits = 8
	case first >= 192:
		bits = 24
	case first >= 128:
		bits = 16
	}
	bits = max(bits, 8*n)
	if bits == 8 && first == 224 {
		bits = 4
	}
	return bits
}

func isHex(c byte) bool {
	_, ok := unhex(c)
	return ok
}

// parseIPv6 reads an IPv6 address: up to eight groups of one to four hex
// digits, one run of them elided as ::, the last two groups optionally a
// dotted quad, and an optional /bits.
func parseIPv6(s string) (Inet, bool) {
	a := Inet{IPv6: true, Bits: 128}
	addr := a.Addr[:]
	i := 0
	if s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return Inet{}, false
		}
		i = 1
	}
	tp, gap := 0, -1 // bytes written; where :: stands
	tok := i         // start of the current group
	val, digits := 0, 0
	for i < len(s) {
		c := s[i]
		i++
		if v, ok := unhex(c); ok {
			val = val<<4 | int(v)
			if digits++; digits > 4 {
				return Inet{}, false
			}
			continue
		}
		switch {
		case c == ':':
			tok = i
			if digits == 0 {
				if gap >= 0 {
					return Inet{}, false
				}
				gap = tp
				continue
			}
			if i == len(s) || tp+2 > 16 {
				return Inet{}, false
			}
			addr[tp], addr[tp+1] = byte(val>>8), byte(val)
			tp, val, digits = tp+2, 0, 0
			continue
		case c == '.' && tp+4 <= 16:
			bits, ok := parseEmbeddedIPv4(s[tok:], addr[tp:tp+4])
			if !ok {
				return Inet{}, false
			}
			if bits >= 0 {
				a.Bits = uint8(bits)
			}
			tp, digits = tp+4, 0
			i = len(s)
			continue
		case c == '/':
			bits, ok := parsePrefixLen(s[i:], 128)
			if !ok {
				return Inet{}, false
			}
			a.Bits = uint8(bits)
			i = len(s)
			continue
		}
		return Inet{}, false
	}
	if digits > 0 {
		if tp+2 > 16 {
			return Inet{}, false
		}
		addr[tp], addr[tp+1] = byte(val>>8), byte(val)
		tp += 2
	}
	if gap >= 0 {
		if tp == 16 {
			return Inet{}, false
		}
		n := tp - gap
		copy(addr[16-n:], addr[gap:tp])
		clear(addr[gap : 16-n])
		tp = 16
	}
	return a, tp == 16
}

// parseEmbeddedIPv4 reads the dotted quad that ends an IPv6 address into
// dst: up to four octets without leading zeros, then optionally /bits. It
// returns the prefix length, or -1 for none.
func parseEmbeddedIPv4(s string, dst []byte) (int, bool) {
	n, val, digits := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			if digits > 0 && val == 0 {
				return 0, false
			}
			digits++
			if val = 10*val + int(c-'0'); val > 255 {
				return 0, false
			}
			continue
		case c == '.' || c == '/':
			if n == 4 {
				return 0, false
			}
			dst[n] = byte(val)
			n, val, digits = n+1, 0, 0
			if c == '/' {
				return parsePrefixLen(s[i+1:], 128)
			}
			continue
		}
		return 0, false
	}
	if digits == 0 || n == 4 {
		return 0, false
	}
	dst[n] = byte(val)
	return -1, true
}

// parsePrefixLen reads a decimal prefix length of at most max without
// leading zeros, which is all of s.
func parsePrefixLen(s string, max int) (int, bool) {
	v := 0
	for i := range len(s) {
		if !isDigit(s[i]) || i > 0 && v == 0 {
			return 0, false
		}
		if v = 10*v + int(s[i]-'0'); v > max {
			return 0, false
		}
	}
	return v, s != ""
}

// AppendInet appends a's text form: inet_out, which leaves out a full
// prefix length, or with cidr cidr_out, which never does.
func AppendInet(buf []byte, a Inet, cidr bool) []byte {
	buf = AppendHost(buf, a)
	if cidr || int(a.Bits) != a.MaxBits() {
		buf = append(buf, '/')
		buf = strconv.AppendInt(buf, int64(a.Bits), 10)
	}
	return buf
}

// AppendHost appends a's address without its prefix length, as host()
// shows it.
func AppendHost(buf []byte, a Inet) []byte {
	if !a.IPv6 {
		return appendDottedQuad(buf, a.Addr[:4])
	}
	var words [8]int
	for i := range words {
		words[i] = int(a.Addr[2*i])<<8 | int(a.Addr[2*i+1])
	}
	base, n := longestZeroRun(words[:])
	if n < 2 {
		base, n = -1, 0
	}
	for i := 0; i < 8; i++ {
		if base >= 0 && i >= base && i < base+n {
			if i == base {
				buf = append(buf, ':')
			}
			continue
		}
		if i != 0 {
			buf = append(buf, ':')
		}
		// The IPv4-compatible ::a.b.c.d and IPv4-mapped ::ffff:a.b.c.d.
		if i == 6 && base == 0 && (n == 6 || n == 5 && words[5] == 0xffff) {
			return appendDottedQuad(buf, a.Addr[12:16])
		}
		buf = strconv.AppendInt(buf, int64(words[i]), 16)
	}
	if base >= 0 && base+n == 8 {
		buf = append(buf, ':')
	}
	return buf
}

// longestZeroRun is where the first of the longest runs of zero words
// starts, and its length; -1 and 0 if there is none.
func longestZeroRun(words []int) (base, n int) {
	base = -1
	for i := 0; i < len(words); {
		if words[i] != 0 {
			i++
			continue
		}
		j := i
		for j < len(words) && words[j] == 0 {
			j++
		}
		if j-i > n {
			base, n = i, j-i
		}
		i = j
	}
	return base, n
}

func appendDottedQuad(buf []byte, b []byte) []byte {
	for i, o := range b {
		if i > 0 {
			buf = append(buf, '.')
		}
		buf = strconv.AppendInt(buf, int64(o), 10)
	}
	return buf
}

// AppendCidrAbbrev appends abbrev(cidr): the network with only the
// groups its prefix covers. For IPv6 it is PostgreSQL's
// inet_cidr_ntop, whose search for the run of zeros to elide does not
// restart after a shorter run, so that it may elide a nonzero group
// between two runs (0:0:1:0:1:0:0:0/128 is 0:0:1::0/128); abbrev keeps
// that, as clients compare its text.
func AppendCidrAbbrev(buf []byte, a Inet) []byte {
	bits := int(a.Bits)
	m := a.Masked()
	if !a.IPv6 {
		if bits == 0 {
			buf = append(buf, '0')
		}
		buf = appendDottedQuad(buf, m.Addr[:bits/8])
		if bits%8 > 0 {
			if bits >= 8 {
				buf = append(buf, '.')
			}
			buf = strconv.AppendInt(buf, int64(m.Addr[bits/8]), 10)
		}
		buf = append(buf, '/')
		return strconv.AppendInt(buf, int64(bits), 10)
	}
	if bits == 0 {
		return append(buf, "::/0"...)
	}
	s := m.Addr[:]
	words := max((bits+15)/16, 2)
	zeroStart, zeroLen, runStart, runLen := 0, 0, 0, 0
	for p := range words {
		if s[2*p]|s[2*p+1] == 0 {
			if runLen == 0 {
				runStart = p
			}
			runLen++
		} else if runLen > 0 && zeroLen < runLen {
			zeroStart, zeroLen, runLen = runStart, runLen, 0
		}
	}
	if runLen > 0 && zeroLen < runLen {
		zeroStart, zeroLen = runStart, runLen
	}
	ipv4 := zeroLen != words && zeroStart == 0 &&
		(zeroLen == 6 || zeroLen == 5 && s[10] == 0xff && s[11] == 0xff || zeroLen == 7 && s[14] != 0 && s[15] != 1)
	start := len(buf)
	for p := range words {
		if zeroLen > 0 && p >= zeroStart && p < zeroStart+zeroLen {
			if p == zeroStart {
				buf = append(buf, ':')
			}
			if p == words-1 {
				buf = append(buf, ':')
			}
			continue
		}
		if ipv4 && p > 5 {
			if p == 6 {
				buf = append(buf, ':')
			} else {
				buf = append(buf, '.')
			}
			buf = strconv.AppendInt(buf, int64(s[2*p]), 10)
			if p != 7 || bits > 120 {
				buf = append(buf, '.')
				buf = strconv.AppendInt(buf, int64(s[2*p+1]), 10)
			}
			continue
		}
		if len(buf) > start {
			buf = append(buf, ':')
		}
		buf = strconv.AppendInt(buf, int64(s[2*p])<<8|int64(s[2*p+1]), 16)
	}
	buf = append(buf, '/')
	return strconv.AppendInt(buf, int64(bits), 10)
}

// appendInetBinary is inet_send and cidr_send: the family (2 for IPv4, 3
// for IPv6, PostgreSQL's own numbers), the prefix length, whether it is a
// cidr, the address length, and the address.
func appendInetBinary(buf []byte, a Inet, cidr bool) []byte {
	family, isCidr := byte(2), byte(0)
	if a.IPv6 {
		family = 3
	}
	if cidr {
		isCidr = 1
	}
	buf = append(buf, family, a.Bits, isCidr, byte(a.Size()))
	return append(buf, a.Addr[:a.Size()]...)
}

// decodeInetBinary is inet_recv and cidr_recv, which ignore the cidr flag
// but check a cidr's host bits.
func decodeInetBinary(t T, b []byte) (any, error) {
	name := "inet"
	if t.Oid == OidCidr {
		name = "cidr"
	}
	if len(b) < 4 {
		return nil, errBinaryFormat(t)
	}
	var a Inet
	switch b[0] {
	case 2:
	case 3:
		a.IPv6 = true
	default:
		return nil, errBinary(`invalid address family in external "%s" value`, name)
	}
	if int(b[1]) > a.MaxBits() {
		return nil, errBinary(`invalid bits in external "%s" value`, name)
	}
	a.Bits = b[1]
	if int(b[3]) != a.Size() {
		return nil, errBinary(`invalid length in external "%s" value`, name)
	}
	if len(b) != 4+a.Size() {
		return nil, errBinaryFormat(t)
	}
	copy(a.Addr[:], b[4:])
	if t.Oid == OidCidr && !a.HostBitsZero() {
		return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, `invalid external "cidr" value`).
			WithDetail("Value has bits set to right of mask.")
	}
	return a, nil
}

// appendKeyInet writes the family, the network (the address masked to
// its prefix), the prefix length, and the whole address. Two values that
// share their first min(bits) bits have equal masks there, so the masked
// addresses compare as network_cmp compares those bits; when they are
// equal, the prefix lengths decide, then the addresses.
func appendKeyInet(buf []byte, a Inet) []byte {
	m := a.Masked()
	buf = append(buf, byte(a.Family()))
	buf = append(buf, m.Addr[:a.Size()]...)
	buf = append(buf, a.Bits)
	return append(buf, a.Addr[:a.Size()]...)
}

func (r *keyReader) inet(t T) (any, error) {
	family, ok := r.byte()
	if !ok || family != 4 && family != 6 {
		return nil, errKey(t)
	}
	a := Inet{IPv6: family == 6}
	n := a.Size()
	if len(r.b) < 2*n+1 {
		return nil, errKey(t)
	}
	for range n {
		r.byte() // the masked address, which the whole one repeats
	}
	a.Bits, _ = r.byte()
	for i := range n {
		a.Addr[i], _ = r.byte()
	}
	if int(a.Bits) > a.MaxBits() {
		return nil, errKey(t)
	}
	return a, nil
}

// appendRowInet writes the family, the prefix length and the address.
func appendRowInet(buf []byte, a Inet) []byte {
	buf = append(buf, byte(a.Family()), a.Bits)
	return append(buf, a.Addr[:a.Size()]...)
}

func (r *rowReader) inet() (any, bool) {
	h, ok := r.next(2)
	if !ok || h[0] != 4 && h[0] != 6 {
		return nil, false
	}
	a := Inet{IPv6: h[0] == 6, Bits: h[1]}
	addr, ok := r.next(uint64(a.Size()))
	if !ok || int(a.Bits) > a.MaxBits() {
		return nil, false
	}
	copy(a.Addr[:], addr)
	return a, true
}

// parseMacaddr is macaddr_in, which tries seven sscanf patterns in
// turn: six groups of hex digits separated by : or -, or of two digits
// in the forms 08002b:010203, 08002b-010203, 0800.2b01.0203,
// 0800-2b01-0203 and 08002b010203. sscanf's %x lets a group have leading
// space, a sign and a 0x prefix; a group past 255 is out of range.
func parseMacaddr(s string) (any, error) {
	var m Macaddr
	for _, pattern := range macaddrPatterns {
		vals, ok := scanHexGroups(s, pattern)
		if !ok {
			continue
		}
		for i, v := range vals {
			if v < 0 || v > 255 {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, `invalid octet value in "macaddr" value: "%s"`, s)
			}
			m[i] = byte(v)
		}
		return m, nil
	}
	return nil, pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type macaddr: "%s"`, s)
}

// macaddrPatterns are macaddr_in's sscanf formats: x is %x, 2 is %2x,
// and any other byte must appear as it is.
var macaddrPatterns = []string{"x:x:x:x:x:x", "x-x-x-x-x-x", "222:222", "222-222", "22.22.22", "22-22-22", "222222"}

// scanHexGroups matches s against pattern as sscanf matches its format
// followed by %1s: every group converted and nothing but space after
// them.
func scanHexGroups(s, pattern string) ([6]int64, bool) {
	var vals [6]int64
	i, n := 0, 0
	for p := range len(pattern) {
		switch c := pattern[p]; c {
		case 'x', '2':
			width := 0
			if c == '2' {
				width = 2
			}
			v, next, ok := scanHex(s, i, width)
			if !ok {
				return vals, false
			}
			vals[n], i, n = v, next, n+1
		default:
			if i >= len(s) || s[i] != c {
				return vals, false
			}
			i++
		}
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return vals, i == len(s)
}

// scanHex is sscanf's %x with a maximum field width (0 for none): space
// skipped, then an optional sign and 0x prefix and hex digits, which
// together fill at most width bytes. The value is what glibc stores in an
// int: the digits saturated to 64 bits, negated for a minus sign, and cut
// to 32 bits.
func scanHex(s string, i, width int) (int64, int, bool) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	end := len(s)
	if width > 0 {
		end = min(end, i+width)
	}
	neg := false
	if i < end && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digits := false
	if i+1 < end && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
		digits = true // the 0 counts, even with no digit after the x
	}
	var v uint64
	for i < end && isHex(s[i]) {
		d, _ := unhex(s[i])
		if v > (1<<64-1-uint64(d))/16 {
			v = 1<<64 - 1
		} else {
			v = 16*v + uint64(d)
		}
		i++
		digits = true
	}
	if !digits {
		return 0, i, false
	}
	if neg {
		v = -v
	}
	return int64(int32(uint32(v))), i, true
}

// macBytes is the bytes of a macaddr or macaddr8 datum.
func macBytes(v any) []byte {
	if m, ok := v.(Macaddr); ok {
		return m[:]
	}
	m := v.(Macaddr8)
	return m[:]
}

func appendMac(buf []byte, b []byte) []byte {
	for i, o := range b {
		if i > 0 {
			buf = append(buf, ':')
		}
		buf = append(buf, hexDigits[o>>4], hexDigits[o&0xf])
	}
	return buf
}

const hexDigits = "0123456789abcdef"

// parseMacaddr8 is macaddr8_in: after leading space, six or eight pairs
// of hex digits, with one separator (: - or .) used throughout between
// any of them, and then only space. Six bytes are an EUI-48 address,
// stored with FF:FE in its middle. Like PostgreSQL it reads pairs only
// while two bytes are left, so a lone trailing character or separator is
// ignored.
func parseMacaddr8(s string) (any, error) {
	bad := func() error {
		return pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type macaddr8: "%s"`, s)
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	var b [8]byte
	n := 0
	var sep byte
	for i+1 < len(s) {
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if n == 8 || !ok1 || !ok2 {
			return nil, bad()
		}
		b[n] = hi<<4 | lo
		n++
		i += 2
		if i < len(s) && (s[i] == ':' || s[i] == '-' || s[i] == '.') {
			if sep == 0 {
				sep = s[i]
			} else if sep != s[i] {
				return nil, bad()
			}
			i++
		}
		if (n == 6 || n == 8) && i < len(s) && isSpace(s[i]) {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i < len(s) {
				return nil, bad()
			}
		}
	}
	switch n {
	case 6:
		return Macaddr8{b[0], b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]}, nil
	case 8:
		return Macaddr8(b), nil
	}
	return nil, bad()
}

// MacaddrTo8 is the cast macaddr → macaddr8: FF:FE in the middle.
func MacaddrTo8(m Macaddr) Macaddr8 {
	return Macaddr8{m[0], m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]}
}

// Macaddr8To6 is the cast macaddr8 → macaddr, which only an address with
// FF:FE in its middle has.
func Macaddr8To6(m Macaddr8) (Macaddr, error) {
	if m[3] != 0xff || m[4] != 0xfe {
		return Macaddr{}, pgerr.New(pgerr.NumericValueOutOfRange, "macaddr8 data out of range to convert to macaddr").
			WithHint("Only addresses that have FF and FE as values in the 4th and 5th bytes from the left, for example xx:xx:xx:ff:fe:xx:xx:xx, are eligible to be converted from macaddr8 to macaddr.")
	}
	return Macaddr{m[0], m[1], m[2], m[5], m[6], m[7]}, nil
}

// isNetwork reports whether oid is one of the network address types.
func isNetwork(oid Oid) bool {
	return oid == OidInet || oid == OidCidr || oid == OidMacaddr || oid == OidMacaddr8
}

// castNetwork casts between the network types and from them to the
// string types. inet and cidr go to text, varchar and char(n) through
// text(), which always shows the prefix length, and to the other string
// types through their output function.
func castNetwork(v any, from, to T) (any, error) {
	switch {
	case (from.Oid == OidInet || from.Oid == OidCidr) && (to.Oid == OidText || to.Oid == OidVarchar || to.Oid == OidBpchar):
		return string(AppendInet(nil, v.(Inet), true)), nil
	case isStringType(to.Oid):
		return string(AppendText(nil, from, v, nil)), nil
	case from.Oid == OidCidr && to.Oid == OidInet:
		return v, nil
	case from.Oid == OidInet && to.Oid == OidCidr:
		return v.(Inet).Masked(), nil
	case from.Oid == OidMacaddr && to.Oid == OidMacaddr8:
		return MacaddrTo8(v.(Macaddr)), nil
	case from.Oid == OidMacaddr8 && to.Oid == OidMacaddr:
		return Macaddr8To6(v.(Macaddr8))
	}
	return nil, errCannotCast(from, to)
}
