package pgwire

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output in testdata/protocol")

// TestProtocol runs the conversations in testdata/protocol/*.test against a
// server over the fake engine. Each file is a sequence of cases:
//
//	# comment
//	send [until=MessageName]
//	<client messages, one a line>
//	----
//	<the server's replies, as render shows them>
//
// send reads replies until the first message named by until, or else until
// the server owes no ReadyForQuery (one per Query and Sync sent, in this
// case or earlier ones), or until the server closes the connection, shown
// as (closed). "connect k=v ..." starts a new connection
// with those startup parameters and shows the replies; send connects on its
// own when there is no connection. Client messages are written as
//
//	Query "SQL"
//	Parse name=s1 query="echo $1" oids=23,25
//	Bind portal=p stmt=s1 formats=0,1 params="42",NULL,x0000002a results=1
//	Describe S s1 | Describe P p
//	Execute portal=p max=2
//	Close S s1 | Close P p
//	Sync | Flush | Terminate | CopyDone | FunctionCall
//	CopyData "bytes" | CopyFail "reason"
//	Bytes x510000... (raw bytes, for malformed messages)
//
// Run with -rewrite to regenerate the expected replies after a deliberate
// change, and review the diff.
func TestProtocol(t *testing.T) {
	files, err := filepath.Glob("testdata/protocol/*.test")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".test"), func(t *testing.T) {
			runProtocolFile(t, file)
		})
	}
}

// protocolCase is one case of a .test file.
type protocolCase struct {
	line      int      // of the directive
	directive string   // "send ..." or "connect ..."
	input     []string // client messages
	want      []string
	lead      []string // comments and blank lines before the directive
}

func parseProtocolFile(t testing.TB, file string) (cases []protocolCase, tail []string) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cur *protocolCase
	var lead []string
	inWant := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && (line == "" || strings.HasPrefix(line, "#")):
			lead = append(lead, line)
		case cur == nil:
			cases = append(cases, protocolCase{line: n, directive: line, lead: lead})
			cur, lead, inWant = &cases[len(cases)-1], nil, false
		case line == "":
			cur = nil
			lead = append(lead, line)
		case line == "----":
			inWant = true
		case inWant:
			cur.want = append(cur.want, line)
		default:
			cur.input = append(cur.input, line)
		}
	}
	return cases, lead
}

func runProtocolFile(t *testing.T, file string) {
	cases, tail := parseProtocolFile(t, file)
	ts := startServer(t, nil)
	var c *client
	pending := 0     // ReadyForQuery messages owed for the Queries and Syncs sent
	copying := false // in copy-in mode, where Sync is ignored
	failed := false
	for i := range cases {
		pc := &cases[i]
		cmd, args := parseLine(t, pc.directive)
		var got []string
		switch cmd {
		case "connect":
			params := map[string]string{"user": "test", "database": "epochdb"}
			for k, v := range args {
				params[k] = string(v[0].b)
			}
			c = dial(t, ts.addr)
			got = c.startup(params)
		case "send":
			if c == nil {
				c, pending, copying = connect(t, ts.addr), 0, false
			}
			for _, in := range pc.input {
				msg, raw := parseMessage(t, in)
				switch msg.(type) {
				case *pgproto3.Query, *pgproto3.FunctionCall:
					pending++
				case *pgproto3.Sync:
					if !copying { // ignored in copy-in mode
						pending++
					}
				case *pgproto3.CopyDone, *pgproto3.CopyFail:
					copying = false
				}
				if msg != nil {
					c.fe.Send(msg)
				} else {
					if err := c.fe.Flush(); err != nil {
						t.Fatal(err)
					}
					c.write(raw)
				}
			}
			if err := c.fe.Flush(); err != nil {
				t.Fatal(err)
			}
			until := ""
			if v := args["until"]; v != nil {
				until = string(v[0].b)
			}
			for {
				m := c.receive()
				got = append(got, m)
				if strings.HasPrefix(m, "ReadyForQuery") {
					pending--
				}
				if strings.HasPrefix(m, "CopyInResponse") {
					copying = true
				}
				if m == "(closed)" || m == "(timeout)" ||
					until != "" && strings.HasPrefix(m, until) ||
					until == "" && pending == 0 && strings.HasPrefix(m, "ReadyForQuery") {
					break
				}
			}
		default:
			t.Fatalf("%s:%d: unknown directive %q", file, pc.line, cmd)
		}
		if len(got) > 0 && got[len(got)-1] == "(closed)" {
			c = nil
		}
		if *rewrite {
			pc.want = got
		} else if strings.Join(got, "\n") != strings.Join(pc.want, "\n") {
			failed = true
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", file, pc.line, pc.directive,
				strings.Join(pc.input, "\n"), strings.Join(got, "\n"), strings.Join(pc.want, "\n"))
		}
	}
	if *rewrite && !failed {
		var b strings.Builder
		for _, pc := range cases {
			for _, l := range pc.lead {
				b.WriteString(l + "\n")
			}
			b.WriteString(pc.directive + "\n")
			for _, l := range pc.input {
				b.WriteString(l + "\n")
			}
			b.WriteString("----\n")
			for _, l := range pc.want {
				b.WriteString(l + "\n")
			}
		}
		for _, l := range tail {
			b.WriteString(l + "\n")
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// value is one element of an argument: a string, bytes or NULL.
type value struct {
	b    []byte
	null bool
}

// parseLine splits `Name positional key=v1,v2 ...` into the name and its
// arguments; positional arguments are keyed by their index ("0", "1").
// Values are bare words, Go-quoted strings, x-prefixed hex or NULL.
func parseLine(t testing.TB, line string) (string, map[string][]value) {
	t.Helper()
	var tokens []string
	for rest := strings.TrimSpace(line); rest != ""; rest = strings.TrimSpace(rest) {
		end := 0
		for end < len(rest) && rest[end] != ' ' {
			if rest[end] == '"' {
				q, err := strconv.QuotedPrefix(rest[end:])
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				end += len(q)
				continue
			}
			end++
		}
		tokens = append(tokens, rest[:end])
		rest = rest[end:]
	}
	args := map[string][]value{}
	for i, tok := range tokens[1:] {
		key := strconv.Itoa(i)
		if k, v, ok := strings.Cut(tok, "="); ok && !strings.HasPrefix(tok, `"`) {
			key, tok = k, v
		}
		args[key] = parseValues(t, tok)
	}
	return tokens[0], args
}

func parseValues(t testing.TB, s string) []value {
	var vals []value
	for s != "" {
		var v value
		switch {
		case s[0] == '"':
			q, _ := strconv.QuotedPrefix(s)
			u, err := strconv.Unquote(q)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			v.b, s = []byte(u), strings.TrimPrefix(s[len(q):], ",")
		default:
			var word string
			word, s, _ = strings.Cut(s, ",")
			switch {
			case word == "NULL":
				v.null = true
			case strings.HasPrefix(word, "x"):
				b, err := hex.DecodeString(word[1:])
				if err != nil {
					t.Fatalf("%s: %v", word, err)
				}
				v.b = b
			default:
				v.b = []byte(word)
			}
		}
		vals = append(vals, v)
	}
	if vals == nil {
		vals = []value{{b: []byte{}}}
	}
	return vals
}

// parseMessage reads a client message written as TestProtocol describes;
// Bytes gives raw bytes instead.
func parseMessage(t testing.TB, line string) (pgproto3.FrontendMessage, []byte) {
	t.Helper()
	name, args := parseLine(t, line)
	str := func(key string) string {
		if v := args[key]; v != nil {
			return string(v[0].b)
		}
		return ""
	}
	ints := func(key string) []int64 {
		var out []int64
		for _, v := range args[key] {
			n, err := strconv.ParseInt(string(v.b), 10, 64)
			if err != nil {
				t.Fatalf("%q: %s: %v", line, key, err)
			}
			out = append(out, n)
		}
		return out
	}
	switch name {
	case "Query":
		return &pgproto3.Query{String: str("0")}, nil
	case "Parse":
		m := &pgproto3.Parse{Name: str("name"), Query: str("query")}
		for _, n := range ints("oids") {
			m.ParameterOIDs = append(m.ParameterOIDs, uint32(n))
		}
		return m, nil
	case "Bind":
		m := &pgproto3.Bind{DestinationPortal: str("portal"), PreparedStatement: str("stmt")}
		for _, n := range ints("formats") {
			m.ParameterFormatCodes = append(m.ParameterFormatCodes, int16(n))
		}
		for _, v := range args["params"] {
			if v.null {
				m.Parameters = append(m.Parameters, nil)
			} else {
				m.Parameters = append(m.Parameters, v.b)
			}
		}
		for _, n := range ints("results") {
			m.ResultFormatCodes = append(m.ResultFormatCodes, int16(n))
		}
		return m, nil
	case "Describe":
		return &pgproto3.Describe{ObjectType: str("0")[0], Name: str("1")}, nil
	case "Close":
		return &pgproto3.Close{ObjectType: str("0")[0], Name: str("1")}, nil
	case "Execute":
		var max uint32
		if n := ints("max"); n != nil {
			max = uint32(n[0])
		}
		return &pgproto3.Execute{Portal: str("portal"), MaxRows: max}, nil
	case "Sync":
		return &pgproto3.Sync{}, nil
	case "Flush":
		return &pgproto3.Flush{}, nil
	case "Terminate":
		return &pgproto3.Terminate{}, nil
	case "CopyData":
		return &pgproto3.CopyData{Data: args["0"][0].b}, nil
	case "CopyDone":
		return &pgproto3.CopyDone{}, nil
	case "CopyFail":
		return &pgproto3.CopyFail{Message: str("0")}, nil
	case "FunctionCall":
		return &pgproto3.FunctionCall{Function: 1}, nil
	case "Bytes":
		return nil, args["0"][0].b
	}
	t.Fatalf("unknown message %q", line)
	panic("unreachable")
}

// frontendBytes encodes the client messages of a case, for the fuzzer's
// seed corpus.
func frontendBytes(t testing.TB, input []string) []byte {
	var buf []byte
	for _, in := range input {
		msg, raw := parseMessage(t, in)
		if msg == nil {
			buf = append(buf, raw...)
			continue
		}
		var err error
		if buf, err = msg.Encode(buf); err != nil {
			t.Fatal(fmt.Errorf("%s: %w", in, err))
		}
	}
	return buf
}
