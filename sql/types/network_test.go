package types

import (
	"bytes"
	"testing"
)

// FuzzNetworkText reads arbitrary text as each network type: it must not
// panic, and what it accepts must print as text that reads back as the
// same value, and survive the binary format and the key encoding.
func FuzzNetworkText(f *testing.F) {
	for _, s := range []string{
		"1.2.3.4", "10/8", "10.1.2/24", "0x0a0b/16", "1.2.3.4.", "::", "::ffff:1.2.3.4/120", "1::2:3:4:5:6:7",
		"::1.2.3", "2001:db8::/32", "08:00:2b:01:02:03", "0800.2b01.0203", "08002b0102030405", " +8:0:2b:1:2:3",
		"0x:0:0:0:0:0", "08:00:2b:01:02:03::",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []T{InetType, CidrType, MacaddrType, Macaddr8Type} {
			v, err := ParseText(typ, s, nil)
			if err != nil {
				continue
			}
			text := AppendText(nil, typ, v, nil)
			back, err := ParseText(typ, string(text), nil)
			if err != nil || Compare(typ, v, back) != 0 {
				t.Fatalf("%s %q prints as %q, which reads back as %v, %v", typ, s, text, back, err)
			}
			if back, err := DecodeBinary(typ, AppendBinary(nil, typ, v)); err != nil || Compare(typ, v, back) != 0 {
				t.Fatalf("%s %q comes back from binary as %v, %v", typ, s, back, err)
			}
			key := AppendKey(nil, typ, v, false)
			if back, rest, err := DecodeKey(typ, key, false); err != nil || len(rest) != 0 || !bytes.Equal(AppendKey(nil, typ, back, false), key) {
				t.Fatalf("%s %q: key %x decodes as %v, %v", typ, s, key, back, err)
			}
			if a, ok := v.(Inet); ok && typ.Oid == OidCidr {
				// abbrev(cidr) must not panic on any network.
				AppendCidrAbbrev(nil, a)
			}
		}
	})
}
