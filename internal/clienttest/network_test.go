package clienttest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The network types through pgx, which sends and reads inet, cidr,
// macaddr and macaddr8 in the binary format by default: a table netaddrs
// with a column of each and an inet[], written with Go's netip and net
// types as parameters and read back in the text and the binary result
// formats, then the wire encodings and COPY byte for byte.
const createNetaddrs = `CREATE TABLE netaddrs (id int4 PRIMARY KEY, a inet, c cidr, m macaddr, m8 macaddr8, arr inet[])`

// netRow is a row of netaddrs as pgx scans it.
type netRow struct {
	ID  int32
	A   *netip.Prefix
	C   *netip.Prefix
	M   net.HardwareAddr
	M8  net.HardwareAddr
	Arr []netip.Prefix
}

func (r netRow) String() string {
	p := func(v *netip.Prefix) string {
		if v == nil {
			return "NULL"
		}
		return v.String()
	}
	return fmt.Sprintf("%d %s %s %v %v %v", r.ID, p(r.A), p(r.C), r.M, r.M8, r.Arr)
}

var (
	mac6 = net.HardwareAddr{0x08, 0x00, 0x2b, 0x01, 0x02, 0x03}
	mac8 = net.HardwareAddr{0x08, 0x00, 0x2b, 0x01, 0x02, 0x03, 0x04, 0x05}
	// mac6as8 is mac6 in a macaddr8 column: an EUI-48 address widened
	// with FF:FE in its middle, as macaddr8_recv stores six bytes.
	mac6as8 = net.HardwareAddr{0x08, 0x00, 0x2b, 0xff, 0xfe, 0x01, 0x02, 0x03}
)

// netRows are what the program writes: row 1 with IPv4 and eight-byte
// values, row 2 with IPv6, a netip.Addr and six bytes for macaddr8, row
// 3 all NULL.
func netRows() [][]any {
	return [][]any{
		{int32(1), netip.MustParsePrefix("192.168.1.5/24"), netip.MustParsePrefix("10.0.0.0/8"), mac6, mac8,
			[]netip.Prefix{netip.MustParsePrefix("1.2.3.4/32"), netip.MustParsePrefix("::1/64")}},
		{int32(2), netip.MustParseAddr("2001:db8::1"), netip.MustParsePrefix("2001:db8::/32"), mac6, mac6, nil},
		{int32(3), nil, nil, nil, nil, nil},
	}
}

// netWant are the rows read back.
func netWant() []netRow {
	pfx := func(s string) *netip.Prefix { p := netip.MustParsePrefix(s); return &p }
	return []netRow{
		{1, pfx("192.168.1.5/24"), pfx("10.0.0.0/8"), mac6, mac8,
			[]netip.Prefix{netip.MustParsePrefix("1.2.3.4/32"), netip.MustParsePrefix("::1/64")}},
		{2, pfx("2001:db8::1/128"), pfx("2001:db8::/32"), mac6, mac6as8, nil},
		{3, nil, nil, nil, nil, nil},
	}
}

// netText is the rows as the server's text output shows them.
var netText = []string{
	"1|192.168.1.5/24|10.0.0.0/8|08:00:2b:01:02:03|08:00:2b:01:02:03:04:05|{1.2.3.4,::1/64}",
	"2|2001:db8::1|2001:db8::/32|08:00:2b:01:02:03|08:00:2b:ff:fe:01:02:03|NULL",
	"3|NULL|NULL|NULL|NULL|NULL",
}

// testPgxNetworkAll is TestPgx's network subtest.
func testPgxNetworkAll(t *testing.T) {
	inEveryPgxMode(t, testPgxNetwork)
	t.Run("formats", func(t *testing.T) {
		t.Parallel()
		testPgxNetworkFormats(t, connectPgx(t, startTarget(t), pgx.QueryExecModeCacheStatement))
	})
	t.Run("copy", func(t *testing.T) {
		t.Parallel()
		testPgxNetworkCopy(t, connectPgx(t, startTarget(t), pgx.QueryExecModeCacheStatement))
	})
}

func readNetRows(t *testing.T, conn *pgx.Conn, what string, options ...any) []netRow {
	t.Helper()
	rows, err := conn.Query(t.Context(), "SELECT id, a, c, m, m8, arr FROM netaddrs ORDER BY id", options...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[netRow])
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return got
}

func checkNetRows(t *testing.T, what string, got, want []netRow) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: read back\n  %v\nwant\n  %v", what, got, want)
	}
}

func testPgxNetwork(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := t.Context()
	mustExec(t, conn, createNetaddrs)
	// Without a Describe (exec and simple_protocol) pgx sends a
	// net.HardwareAddr as the bytea it is; the program passes text.
	mac := func(m net.HardwareAddr) any {
		if m != nil && (mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol) {
			return m.String()
		}
		return m
	}
	for _, r := range netRows() {
		if m, ok := r[3].(net.HardwareAddr); ok {
			r[3], r[4] = mac(m), mac(r[4].(net.HardwareAddr))
		}
		mustExec(t, conn, "INSERT INTO netaddrs VALUES ($1, $2, $3, $4, $5, $6)", r...)
	}

	// pgx asks for the results in binary, except in the simple protocol.
	rows, err := conn.Query(ctx, "SELECT a, c, m, m8 FROM netaddrs WHERE id = $1", 1)
	if err != nil {
		t.Fatal(err)
	}
	wantOIDs := []uint32{pgtype.InetOID, pgtype.CIDROID, pgtype.MacaddrOID, pgtype.Macaddr8OID}
	for i, fd := range rows.FieldDescriptions() {
		wantFormat := int16(pgx.BinaryFormatCode)
		if mode == pgx.QueryExecModeSimpleProtocol || mode == pgx.QueryExecModeExec {
			wantFormat = fd.Format // exec asks before knowing the types
		}
		if fd.DataTypeOID != wantOIDs[i] || fd.Format != wantFormat {
			t.Errorf("column %s: type %d format %d, want type %d format %d", fd.Name, fd.DataTypeOID, fd.Format, wantOIDs[i], wantFormat)
		}
	}
	rows.Close()

	checkNetRows(t, "default result formats", readNetRows(t, conn, "default"), netWant())
	if mode != pgx.QueryExecModeSimpleProtocol {
		for _, f := range []pgx.QueryResultFormats{{pgx.TextFormatCode}, {pgx.BinaryFormatCode}} {
			checkNetRows(t, fmt.Sprintf("result formats %v", f), readNetRows(t, conn, "formats", f), netWant())
		}
	}
	var text []string
	rows, err = conn.Query(ctx, "SELECT concat_ws('|', id, coalesce(a::text, 'NULL'), coalesce(c::text, 'NULL'), coalesce(m::text, 'NULL'), coalesce(m8::text, 'NULL'), coalesce(arr::text, 'NULL')) FROM netaddrs ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		text = append(text, s)
	}
	// a::text is text(inet), which always shows the prefix length.
	want := slicesReplace(netText, "2|2001:db8::1|", "2|2001:db8::1/128|")
	if err := rows.Err(); err != nil || !reflect.DeepEqual(text, want) {
		t.Errorf("as text: %q, %v, want %q", text, err, want)
	}

	// Parameters of the operators, whose types the server infers.
	for _, c := range []struct {
		sql  string
		arg  any
		want []int32
	}{
		{"SELECT id FROM netaddrs WHERE a <<= $1 ORDER BY id", netip.MustParsePrefix("192.168.0.0/16"), []int32{1}},
		{"SELECT id FROM netaddrs WHERE c >> $1 ORDER BY id", netip.MustParseAddr("2001:db8::42"), []int32{2}},
		{"SELECT id FROM netaddrs WHERE a && $1 ORDER BY id", netip.MustParsePrefix("::/0"), []int32{2}},
		{"SELECT id FROM netaddrs WHERE m = $1 ORDER BY id", mac(mac6), []int32{1, 2}},
		{"SELECT id FROM netaddrs WHERE m8 = $1 ORDER BY id", mac(mac8), []int32{1}},
		{"SELECT id FROM netaddrs WHERE family(a) = $1 ORDER BY id", 6, []int32{2}},
		{"SELECT id FROM netaddrs WHERE a = ANY($1) ORDER BY id", []netip.Prefix{netip.MustParsePrefix("192.168.1.5/24")}, []int32{1}},
	} {
		if got := queryIDs(t, conn, c.sql, c.arg); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s with %v: %v, want %v", c.sql, c.arg, got, c.want)
		}
	}
	var next netip.Prefix
	var diff int64
	if err := conn.QueryRow(ctx, "SELECT a + $1, a - $2::inet FROM netaddrs WHERE id = 1", 300, netip.MustParseAddr("192.168.1.0")).Scan(&next, &diff); err != nil ||
		next != netip.MustParsePrefix("192.168.2.49/24") || diff != 5 {
		t.Errorf("a + 300, a - 192.168.1.0: %v, %d, %v, want 192.168.2.49/24, 5", next, diff, err)
	}
	if mode != pgx.QueryExecModeSimpleProtocol && mode != pgx.QueryExecModeExec {
		const q = "SELECT id FROM netaddrs WHERE a <<= $1 OR c >> $2 OR m = $3 OR m8 = $4"
		sd, err := conn.Prepare(ctx, "netop", q)
		if err != nil {
			t.Fatal(err)
		}
		if want := []uint32{pgtype.InetOID, pgtype.InetOID, pgtype.MacaddrOID, pgtype.Macaddr8OID}; !reflect.DeepEqual(sd.ParamOIDs, want) {
			t.Errorf("parameter types of %s: %v, want %v", q, sd.ParamOIDs, want)
		}
	}

	// A cidr with bits right of its mask is refused, in either format.
	_, err = conn.Exec(ctx, "INSERT INTO netaddrs (id, c) VALUES ($1, $2)", 4, netip.MustParsePrefix("10.1.2.3/8"))
	if code := sqlState(err); code != "22P02" && code != "22P03" {
		t.Errorf("cidr 10.1.2.3/8: %v, want 22P02 or 22P03", err)
	}
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("after the error: %v", err)
	}
}

// slicesReplace is ss with old replaced by new in each string.
func slicesReplace(ss []string, old, new string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Replace(s, old, new, 1)
	}
	return out
}

// netEncodings are the values of row 1 as PostgreSQL 15 sends them, in
// the text and the binary format: inet's family (2, IPv4), prefix
// length, cidr flag, address length and address.
var netEncodings = []struct {
	oid          uint32
	text, binHex string
}{
	{pgtype.InetOID, "192.168.1.5/24", "02180004c0a80105"},
	{pgtype.CIDROID, "10.0.0.0/8", "020801040a000000"},
	{pgtype.MacaddrOID, "08:00:2b:01:02:03", "08002b010203"},
	{pgtype.Macaddr8OID, "08:00:2b:01:02:03:04:05", "08002b0102030405"},
	{pgtype.InetArrayOID, "{1.2.3.4,::1/64}", "0000000100000000000003650000000200000001000000080220000401020304000000140340001000000000000000000000000000000001"},
}

// testPgxNetworkFormats checks the encodings byte for byte, as parameters
// in both formats and as results in both, and what binary input is
// refused.
func testPgxNetworkFormats(t *testing.T, conn *pgx.Conn) {
	ctx := t.Context()
	pc := conn.PgConn()
	mustExec(t, conn, createNetaddrs)
	oids := []uint32{pgtype.Int4OID}
	for _, e := range netEncodings {
		oids = append(oids, e.oid)
	}
	const insert = "INSERT INTO netaddrs VALUES ($1, $2, $3, $4, $5, $6)"
	for id, format := range []int16{pgx.TextFormatCode, pgx.BinaryFormatCode} {
		params := [][]byte{[]byte(fmt.Sprint(id + 1))}
		formats := []int16{pgx.TextFormatCode}
		for _, e := range netEncodings {
			v := []byte(e.text)
			if format == pgx.BinaryFormatCode {
				v = must(hex.DecodeString(e.binHex))
			}
			params, formats = append(params, v), append(formats, format)
		}
		if _, err := pc.ExecParams(ctx, insert, params, oids, formats, nil).Close(); err != nil {
			t.Fatalf("insert with parameters in format %d: %v", format, err)
		}
	}
	for _, id := range []string{"1", "2"} {
		for _, format := range []int16{pgx.TextFormatCode, pgx.BinaryFormatCode} {
			rr := pc.ExecParams(ctx, "SELECT a, c, m, m8, arr FROM netaddrs WHERE id = $1", [][]byte{[]byte(id)}, nil, nil, []int16{format})
			n := 0
			for rr.NextRow() {
				n++
				for i, fd := range rr.FieldDescriptions() {
					e := netEncodings[i]
					want := []byte(e.text)
					if format == pgx.BinaryFormatCode {
						want = must(hex.DecodeString(e.binHex))
					}
					if got := rr.Values()[i]; fd.DataTypeOID != e.oid || fd.Format != format || !bytes.Equal(got, want) {
						t.Errorf("row %s, %s in format %d: type %d format %d %x, want type %d %x", id, fd.Name, format, fd.DataTypeOID, fd.Format, got, e.oid, want)
					}
				}
			}
			if _, err := rr.Close(); err != nil || n != 1 {
				t.Errorf("select %s: %d rows, %v", id, n, err)
			}
		}
	}

	// macaddr8 takes six bytes too, and widens them.
	res := pc.ExecParams(ctx, "SELECT $1::text", [][]byte{mac6}, []uint32{pgtype.Macaddr8OID}, []int16{pgx.BinaryFormatCode}, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "08:00:2b:ff:fe:01:02:03" {
		t.Errorf("six bytes as macaddr8: %q, %v", res.Rows, res.Err)
	}

	// Bad binary input fails its statement with 22P03. A value cut
	// short is 08P01 to PostgreSQL, whose receive functions read past the
	// end of the message; epochdb says 22P03 of every type.
	for _, c := range []struct {
		what  string
		oid   uint32
		hex   string
		short bool
	}{
		{"inet family 1", pgtype.InetOID, "01200004c0a80105", false},
		{"inet of 33 bits", pgtype.InetOID, "02210004c0a80105", false},
		{"IPv6 of 4 bytes", pgtype.InetOID, "03400004c0a80105", false},
		{"cidr with host bits", pgtype.CIDROID, "020801040a000001", false},
		{"inet cut short", pgtype.InetOID, "02180004c0a801", true},
		{"macaddr of 5 bytes", pgtype.MacaddrOID, "08002b0102", true},
		{"macaddr8 of 7 bytes", pgtype.Macaddr8OID, "08002b01020304", true},
	} {
		_, err := pc.ExecParams(ctx, "SELECT $1", [][]byte{must(hex.DecodeString(c.hex))}, []uint32{c.oid}, []int16{pgx.BinaryFormatCode}, nil).Close()
		if code := sqlState(err); code != "22P03" && !(c.short && code == "08P01") {
			t.Errorf("%s: %v, want SQLSTATE 22P03", c.what, err)
		}
	}
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("after the errors: %v", err)
	}
}

// netCopyBinary is PostgreSQL 15's COPY netaddrs TO STDOUT (FORMAT binary)
// of row 1 and an all-NULL row 2.
const netCopyBinary = "5047434f50590aff0d0a000000000000000000000600000004000000010000000802180004c0a8010500000008020801" +
	"040a0000000000000608002b0102030000000808002b01020304050000003800000001000000000000036500000002000000010000" +
	"00080220000401020304000000140340001000000000000000000000000000000001000600000004000000" +
	"02ffffffffffffffffffffffffffffffffffffffffffff"

// testPgxNetworkCopy writes the rows with pgx's CopyFrom, which sends
// COPY's binary format, reads them back, and checks COPY TO STDOUT in
// text and binary, and COPY FROM STDIN of the binary.
func testPgxNetworkCopy(t *testing.T, conn *pgx.Conn) {
	ctx := t.Context()
	mustExec(t, conn, createNetaddrs)
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"netaddrs"}, []string{"id", "a", "c", "m", "m8", "arr"}, pgx.CopyFromRows(netRows()))
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	checkNetRows(t, "after CopyFrom", readNetRows(t, conn, "after CopyFrom"), netWant())

	var out strings.Builder
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY netaddrs TO STDOUT"); err != nil {
		t.Fatal(err)
	}
	wantText := strings.ReplaceAll(strings.Join(netText, "\n")+"\n", "|", "\t")
	if got := strings.ReplaceAll(out.String(), `\N`, "NULL"); got != wantText {
		t.Errorf("COPY TO STDOUT:\n%q\nwant\n%q", got, wantText)
	}

	mustExec(t, conn, "DELETE FROM netaddrs WHERE id > 1")
	mustExec(t, conn, "INSERT INTO netaddrs (id) VALUES (2)")
	out.Reset()
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY netaddrs TO STDOUT (FORMAT binary)"); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString([]byte(out.String())); got != netCopyBinary {
		t.Errorf("COPY TO STDOUT (FORMAT binary):\n%s\nwant\n%s", got, netCopyBinary)
	}
	mustExec(t, conn, "DELETE FROM netaddrs")
	tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(string(must(hex.DecodeString(netCopyBinary)))), "COPY netaddrs FROM STDIN (FORMAT binary)")
	if err != nil || tag.String() != "COPY 2" {
		t.Fatalf("COPY FROM STDIN (FORMAT binary): %v, %v", tag, err)
	}
	want := netWant()[:1]
	want = append(want, netRow{ID: 2})
	checkNetRows(t, "after COPY FROM binary", readNetRows(t, conn, "after COPY FROM"), want)
}
