package builtins

import (
	"crypto/md5"
	"crypto/rand"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"golang.org/x/crypto/blowfish"
)

// pgcrypto's password hashing: crypt(password, salt) and gen_salt(type
// [, rounds]), for the two algorithms applications use, bcrypt ("bf",
// $2a$) and FreeBSD's MD5 crypt ("md5", $1$). crypt of a password with a
// stored hash as the salt gives the hash again when the password is the
// one hashed, which is how a password is checked.

func init() {
	for name, ovs := range map[string][]Overload{
		"crypt": {{Args: []types.T{types.Text, types.Text}, Ret: types.Text, Fn: pgCrypt}},
		"gen_salt": {
			{Args: []types.T{types.Text}, Ret: types.Text, Volatility: Volatile, Fn: genSalt},
			{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Volatility: Volatile, Fn: genSalt},
		},
	} {
		for i := range ovs {
			ovs[i].Extension = "pgcrypto"
		}
		table[name] = ovs
	}
}

// cryptAlphabet is the base-64 alphabet of crypt(3); bcrypt orders the
// same characters differently.
const (
	cryptAlphabet  = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	bcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

func errBadSalt() error { return pgerr.New(pgerr.InvalidParameterValue, "invalid salt") }

func pgCrypt(_ Env, a []any) (any, error) {
	password, salt := a[0].(string), a[1].(string)
	switch {
	case strings.HasPrefix(salt, "$2a$"), strings.HasPrefix(salt, "$2b$"):
		return bcryptHash([]byte(password), salt)
	case strings.HasPrefix(salt, "$1$"):
		return md5Crypt([]byte(password), salt), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "crypt: salt %q is of an algorithm epochdb lacks (it has bf and md5)", salt)
}

func genSalt(_ Env, a []any) (any, error) {
	kind := strings.ToLower(a[0].(string))
	rounds := int64(-1)
	if len(a) > 1 {
		rounds = a[1].(int64)
	}
	switch kind {
	case "bf":
		if rounds == -1 {
			rounds = 6
		}
		if rounds < 4 || rounds > 31 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "gen_salt: Incorrect number of rounds")
		}
		var raw [16]byte
		_, _ = rand.Read(raw[:])
		return "$2a$" + twoDigits(rounds) + "$" + bcryptEncode(raw[:])[:22], nil
	case "md5":
		if rounds != -1 && rounds != 1000 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "gen_salt: Incorrect number of rounds")
		}
		var raw [6]byte
		_, _ = rand.Read(raw[:])
		salt := make([]byte, 0, 8)
		v := uint64(raw[0]) | uint64(raw[1])<<8 | uint64(raw[2])<<16 | uint64(raw[3])<<24 | uint64(raw[4])<<32 | uint64(raw[5])<<40
		for range 8 {
			salt = append(salt, cryptAlphabet[v&0x3f])
			v >>= 6
		}
		return "$1$" + string(salt), nil
	case "des", "xdes":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "gen_salt: %s is not supported (epochdb has bf and md5)", kind)
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "gen_salt: Unknown salt algorithm")
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// bcryptEncode is bcrypt's base 64 of b, without padding.
func bcryptEncode(b []byte) string {
	var out []byte
	for i := 0; i < len(b); i += 3 {
		c1 := uint(b[i])
		out = append(out, bcryptAlphabet[c1>>2])
		c1 = c1 & 0x03 << 4
		if i+1 >= len(b) {
			out = append(out, bcryptAlphabet[c1])
			break
		}
		c2 := uint(b[i+1])
		out = append(out, bcryptAlphabet[c1|c2>>4])
		c1 = c2 & 0x0f << 2
		if i+2 >= len(b) {
			out = append(out, bcryptAlphabet[c1])
			break
		}
		c2 = uint(b[i+2])
		out = append(out, bcryptAlphabet[c1|c2>>6], bcryptAlphabet[c2&0x3f])
	}
	return string(out)
}

// bcryptDecode reads n bytes of bcrypt's base 64 from s.
func bcryptDecode(s string, n int) ([]byte, bool) {
	val := func(c byte) (uint, bool) {
		i := strings.IndexByte(bcryptAlphabet, c)
		return uint(i), i >= 0
	}
	var out []byte
	for i := 0; len(out) < n; i += 4 {
		if i+1 >= len(s) {
			return nil, false
		}
		c1, ok1 := val(s[i])
		c2, ok2 := val(s[i+1])
		if !ok1 || !ok2 {
			return nil, false
		}
		out = append(out, byte(c1<<2|(c2&0x30)>>4))
		if len(out) == n || i+2 >= len(s) {
			break
		}
		c3, ok := val(s[i+2])
		if !ok {
			return nil, false
		}
		out = append(out, byte((c2&0x0f)<<4|(c3&0x3c)>>2))
		if len(out) == n || i+3 >= len(s) {
			break
		}
		c4, ok := val(s[i+3])
		if !ok {
			return nil, false
		}
		out = append(out, byte((c3&0x03)<<6|c4))
	}
	return out, len(out) == n
}

// bcryptHash is crypt with a bcrypt salt, "$2a$NN$" and 22 characters of
// salt (a whole hash may follow; it is ignored): the password, up to 72
// bytes with its terminating NUL, keys Blowfish's expensive schedule 2^NN
// times with the salt, and the schedule encrypts "OrpheanBeholderScryDoubt"
// 64 times.
func bcryptHash(password []byte, salt string) (any, error) {
	if len(salt) < 29 || salt[6] != '$' {
		return nil, errBadSalt()
	}
	cost, err := strconv.Atoi(salt[4:6])
	if err != nil || cost < 4 || cost > 31 {
		return nil, errBadSalt()
	}
	csalt, ok := bcryptDecode(salt[7:29], 16)
	if !ok {
		return nil, errBadSalt()
	}
	key := append(append([]byte(nil), password...), 0)
	if len(key) > 72 {
		key = key[:72]
	}
	c, err := blowfish.NewSaltedCipher(key, csalt)
	if err != nil {
		return nil, errBadSalt()
	}
	for i := uint64(0); i < 1<<uint(cost); i++ {
		blowfish.ExpandKey(key, c)
		blowfish.ExpandKey(csalt, c)
	}
	ctext := []byte("OrpheanBeholderScryDoubt")
	for range 64 {
		for j := 0; j < len(ctext); j += 8 {
			c.Encrypt(ctext[j:j+8], ctext[j:j+8])
		}
	}
	// The salt goes out as the bytes read from it, in bcrypt's base 64:
	// the last character's low bits, which hold no salt, come out as 0.
	return salt[:7] + bcryptEncode(csalt) + bcryptEncode(ctext[:23]), nil
}

// md5Crypt is crypt with an MD5 salt, "$1$" and up to 8 characters, as
// FreeBSD's crypt-md5 computes it.
func md5Crypt(password []byte, salt string) string {
	const magic = "$1$"
	s := salt[len(magic):]
	if i := strings.IndexByte(s, '$'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 8 {
		s = s[:8]
	}
	alt := md5.Sum([]byte(string(password) + s + string(password)))
	ctx := md5.New()
	ctx.Write(password)
	ctx.Write([]byte(magic + s))
	for pl := len(password); pl > 0; pl -= 16 {
		ctx.Write(alt[:min(pl, 16)])
	}
	for i := len(password); i > 0; i >>= 1 {
		if i&1 != 0 {
			ctx.Write([]byte{0})
		} else {
			ctx.Write(password[:1])
		}
	}
	final := ctx.Sum(nil)
	for i := range 1000 {
		c := md5.New()
		if i&1 != 0 {
			c.Write(password)
		} else {
			c.Write(final)
		}
		if i%3 != 0 {
			c.Write([]byte(s))
		}
		if i%7 != 0 {
			c.Write(password)
		}
		if i&1 != 0 {
			c.Write(final)
		} else {
			c.Write(password)
		}
		final = c.Sum(nil)
	}
	out := []byte(magic + s + "$")
	to64 := func(v uint32, n int) {
		for range n {
			out = append(out, cryptAlphabet[v&0x3f])
			v >>= 6
		}
	}
	f := final
	to64(uint32(f[0])<<16|uint32(f[6])<<8|uint32(f[12]), 4)
	to64(uint32(f[1])<<16|uint32(f[7])<<8|uint32(f[13]), 4)
	to64(uint32(f[2])<<16|uint32(f[8])<<8|uint32(f[14]), 4)
	to64(uint32(f[3])<<16|uint32(f[9])<<8|uint32(f[15]), 4)
	to64(uint32(f[4])<<16|uint32(f[10])<<8|uint32(f[5]), 4)
	to64(uint32(f[11]), 2)
	return string(out)
}
