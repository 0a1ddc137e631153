package sql

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/rowexec"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// copyPlan is a planned COPY.
type copyPlan struct {
	cmd      *parser.Copy
	t        *catalog.Table
	targets  []int          // table columns, in data order (COPY table)
	query    plan.QueryPlan // COPY (query) TO
	colTypes []types.T
	delim    byte
	null     string
	quote    byte
	escape   byte
}

func (s *Session) planCopy(p *Prepared, cmd *parser.Copy) error {
	cp := &copyPlan{cmd: cmd, delim: '\t', null: `\N`, quote: '"', escape: '"'}
	switch cmd.Format {
	case "", "text", "binary":
	case "csv":
		cp.delim, cp.null = ',', ""
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "COPY format %q not recognized", cmd.Format)
	}
	if cmd.Delimiter != nil {
		if len(*cmd.Delimiter) != 1 {
			return pgerr.New(pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
		}
		cp.delim = (*cmd.Delimiter)[0]
	}
	if cmd.Null != nil {
		cp.null = *cmd.Null
	}
	if cmd.Quote != nil && len(*cmd.Quote) == 1 {
		cp.quote = (*cmd.Quote)[0]
		cp.escape = cp.quote
	}
	if cmd.Escape != nil && len(*cmd.Escape) == 1 {
		cp.escape = (*cmd.Escape)[0]
	}
	if cmd.Query != nil {
		if cmd.From {
			return pgerr.New(pgerr.SyntaxError, "COPY (query) FROM is not allowed")
		}
		inner := &Prepared{st: cmd.Query, params: p.params}
		if err := s.plan(inner); err != nil {
			return err
		}
		qp, ok := inner.plan.(plan.QueryPlan)
		if !ok {
			return pgerr.New(pgerr.FeatureNotSupported, "COPY query must be a SELECT")
		}
		cp.query = qp
		for _, c := range qp.Columns() {
			cp.colTypes = append(cp.colTypes, c.Type)
		}
	} else {
		op := "copy out"
		if cmd.From {
			op = "copy in"
		}
		q, err := s.lookName(cmd.Table)
		if err != nil {
			return err
		}
		t := s.catalog().TableByName[q]
		if v := s.catalog().ViewByName[q]; v != nil && cmd.From && v.RowTable().HasTrigger("instead", catalog.TriggerInsert, true) {
			t = v.RowTable() // its INSTEAD OF INSERT triggers take the rows
		} else if err := viewMisuse(s.catalog(), q, op); err != nil {
			return err
		}
		if t == nil {
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", cmd.Table)
		}
		cp.t = t
		if !cmd.From {
			s.noteRead(t.ID)
		}
		if len(cmd.Columns) == 0 {
			for i, c := range t.Columns {
				if c.Visible() && c.Generated == "" {
					cp.targets = append(cp.targets, i)
				}
			}
		}
		for _, name := range cmd.Columns {
			i, c := t.Column(name)
			if c == nil {
				return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
			}
			if c.Generated != "" {
				return pgerr.New(pgerr.InvalidColumnReference, "column %q is a generated column", name).
					WithDetail("Generated columns cannot be used in COPY.")
			}
			cp.targets = append(cp.targets, i)
		}
		for _, i := range cp.targets {
			cp.colTypes = append(cp.colTypes, t.Columns[i].Type)
		}
	}
	p.plan = cp
	p.copy = &CopySpec{In: cmd.From, Binary: cmd.Format == "binary", Columns: len(cp.colTypes)}
	return nil
}

// copyReader turns CopyData chunks into a stream.
type copyReader struct {
	src CopySource
	buf []byte
}

func (r *copyReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		chunk, err := r.src.Next()
		if err != nil {
			return 0, err
		}
		r.buf = chunk
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// CopyFrom runs COPY ... FROM STDIN, reading the data from src.
func (s *Session) CopyFrom(ctx context.Context, pt *Portal, src CopySource) (string, error) {
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	n, err := s.copyFrom(ctx, pt, src)
	if err != nil {
		s.fail()
		return "", pgerr.Convert(err)
	}
	return fmt.Sprintf("COPY %d", n), nil
}

func (s *Session) copyFrom(ctx context.Context, pt *Portal, src CopySource) (int64, error) {
	cp, ok := pt.p.plan.(*copyPlan)
	if !ok || !cp.cmd.From {
		return 0, pgerr.New(pgerr.ProtocolViolation, "portal is not a COPY FROM STDIN")
	}
	s.stmtStart = time.Now()
	if s.failed && s.explicit {
		return 0, pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	if err := s.beginTxn(""); err != nil {
		return 0, err
	}
	s.queried = true // SET TRANSACTION may no longer start the transaction over
	if err := s.lockTables(ctx, pt.p); err != nil {
		return 0, err
	}
	if cp, ok = pt.p.plan.(*copyPlan); !ok || !cp.cmd.From {
		return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "COPY FROM's table changed while it waited")
	}
	s.settleReaders(ctx)
	s.tx.NextStatement()
	t := cp.t
	var params []types.T
	defaults, err := defaults((&plan.Compiler{Host: s.host(), Params: &params}), t)
	if err != nil {
		return 0, err
	}
	named := make(map[int]bool, len(cp.targets))
	for _, i := range cp.targets {
		named[i] = true
	}
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: s.tx, FK: &fkState{}}
	defer x.CloseTemps()
	var count int64
	var ingest *ingestBatch // deduplicates the rows of an ingest table
	if t.Ingest != nil {
		ingest = s.newIngestBatch(x, t)
	}
	// COPY fires INSERT triggers, as PostgreSQL's does.
	var triggers *triggerQueue
	if len(t.Triggers) > 0 {
		if err := s.statementTriggers(x, t, "before", catalog.TriggerInsert, nil); err != nil {
			return 0, err
		}
		triggers = &triggerQueue{}
		defer triggers.close()
		x.Triggers = triggers
	}
	insert := func(vals []any) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		row := make([]any, len(t.Columns)+1)
		for i, ti := range cp.targets {
			row[ti] = vals[i]
		}
		for i, d := range defaults {
			if !named[i] && d != nil {
				v, err := d.Eval(x.Env(nil))
				if err != nil {
					return err
				}
				row[i] = v
			}
		}
		if ingest != nil {
			if err := s.checkRow(t, row); err != nil {
				return err
			}
			if fresh, err := ingest.admit(row); err != nil || !fresh {
				return err
			}
		}
		if t.IsView() {
			if err := s.checkRow(t, row); err != nil {
				return err
			}
			_, skip, err := s.rowTriggers(x, t, "instead", catalog.TriggerInsert, nil, row)
			if err == nil && !skip {
				count++
			}
			return err
		}
		if triggers != nil {
			fired, skip, err := s.beforeRow(x, t, catalog.TriggerInsert, nil, row)
			if err != nil || skip {
				return err
			}
			row = fired
		}
		if ingest == nil || triggers != nil {
			if err := s.checkRow(t, row); err != nil {
				return err
			}
		}
		count++
		if err := s.writeRow(x, t, row); err != nil {
			return err
		}
		if triggers != nil {
			return afterRow(x, t, catalog.TriggerInsert, nil, row)
		}
		return nil
	}
	in := bufio.NewReaderSize(&copyReader{src: src}, 64<<10)
	switch cp.cmd.Format {
	case "binary":
		err = cp.readBinary(in, insert)
	case "csv":
		err = cp.readCSV(in, s, insert)
	default:
		err = cp.readText(in, s, insert)
	}
	if err == io.EOF {
		err = nil
	}
	if err != nil {
		// Drain the rest so the protocol stays in step.
		for {
			if _, e := src.Next(); e != nil {
				break
			}
		}
		return 0, err
	}
	if ingest != nil {
		if err := ingest.finish(); err != nil {
			return 0, err
		}
	}
	if triggers != nil {
		if err := s.endTriggers(x, t, triggers, catalog.TriggerInsert); err != nil {
			return 0, err
		}
	}
	if err := flushFK(x); err != nil {
		return 0, err
	}
	return count, nil
}

func (cp *copyPlan) parseField(s *Session, col int, text string, null bool, line int64) (any, error) {
	if null {
		return nil, nil
	}
	v, err := types.ParseText(cp.colTypes[col], text, s.loc())
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok && pe.Detail == "" {
			pe.Detail = fmt.Sprintf("COPY %s, line %d, column %s", cp.t.Name, line, cp.t.Columns[cp.targets[col]].Name)
		}
		return nil, err
	}
	return v, nil
}

// readText reads PostgreSQL's text format: one row per line, delimited
// fields, backslash escapes, \N for NULL, and an optional \. end marker.
func (cp *copyPlan) readText(in *bufio.Reader, s *Session, insert func([]any) error) error {
	var line int64
	for {
		raw, err := in.ReadString('\n')
		if err != nil && (err != io.EOF || raw == "") {
			return err
		}
		line++
		raw = strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
		if raw == `\.` {
			return nil
		}
		fields := splitUnescaped(raw, cp.delim)
		if len(fields) != len(cp.targets) {
			return pgerr.New(pgerr.BadCopyFileFormat, "%s", copyColumnsMsg(len(fields), len(cp.targets))).
				WithDetail("COPY %s, line %d", cp.t.Name, line)
		}
		vals := make([]any, len(fields))
		for i, f := range fields {
			isNull := f == cp.null
			if vals[i], err = cp.parseField(s, i, unescapeCopy(f), isNull, line); err != nil {
				return err
			}
		}
		if err := insert(vals); err != nil {
			return err
		}
	}
}

func copyColumnsMsg(got, want int) string {
	if got > want {
		return "extra data after last expected column"
	}
	return "missing data for column"
}

// splitUnescaped splits on delim, except where a backslash escapes it.
func splitUnescaped(s string, delim byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case delim:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func unescapeCopy(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v*16 + hexVal(s[i])
				n++
			}
			if n == 0 {
				b.WriteByte('x')
			} else {
				b.WriteByte(byte(v))
			}
		default:
			if c >= '0' && c <= '7' {
				v := int(c - '0')
				for n := 1; n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; n++ {
					i++
					v = v*8 + int(s[i]-'0')
				}
				b.WriteByte(byte(v))
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// readCSV reads CSV: quoted fields may hold delimiters, quotes (doubled or
// escaped) and newlines; an unquoted field equal to the NULL string is NULL,
// a quoted one never is.
func (cp *copyPlan) readCSV(in *bufio.Reader, s *Session, insert func([]any) error) error {
	var line int64
	for first := true; ; first = false {
		fields, quoted, err := cp.csvRecord(in)
		if err != nil {
			return err
		}
		line++
		if len(fields) == 1 && !quoted[0] && fields[0] == `\.` {
			return nil
		}
		if first && cp.cmd.Header {
			continue
		}
		if len(fields) != len(cp.targets) {
			return pgerr.New(pgerr.BadCopyFileFormat, "%s", copyColumnsMsg(len(fields), len(cp.targets))).
				WithDetail("COPY %s, line %d", cp.t.Name, line)
		}
		vals := make([]any, len(fields))
		for i, f := range fields {
			if vals[i], err = cp.parseField(s, i, f, !quoted[i] && f == cp.null, line); err != nil {
				return err
			}
		}
		if err := insert(vals); err != nil {
			return err
		}
	}
}

func (cp *copyPlan) csvRecord(in *bufio.Reader) ([]string, []bool, error) {
	var fields []string
	var quoted []bool
	var cur bytes.Buffer
	inQuotes, wasQuoted, any := false, false, false
	for {
		c, err := in.ReadByte()
		if err != nil {
			if err == io.EOF && any {
				if inQuotes {
					return nil, nil, pgerr.New(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
				}
				return append(fields, cur.String()), append(quoted, wasQuoted), nil
			}
			return nil, nil, err
		}
		any = true
		switch {
		case inQuotes && c == cp.escape && cp.escape != cp.quote:
			n, err := in.ReadByte()
			if err != nil {
				return nil, nil, pgerr.New(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
			}
			cur.WriteByte(n)
		case inQuotes && c == cp.quote:
			if n, err := in.ReadByte(); err == nil && n == cp.quote && cp.escape == cp.quote {
				cur.WriteByte(cp.quote)
			} else {
				if err == nil {
					_ = in.UnreadByte()
				}
				inQuotes = false
			}
		case inQuotes:
			cur.WriteByte(c)
		case c == cp.quote:
			inQuotes, wasQuoted = true, true
		case c == cp.delim:
			fields, quoted = append(fields, cur.String()), append(quoted, wasQuoted)
			cur.Reset()
			wasQuoted = false
		case c == '\n':
			s := strings.TrimSuffix(cur.String(), "\r")
			return append(fields, s), append(quoted, wasQuoted), nil
		default:
			cur.WriteByte(c)
		}
	}
}

var binarySignature = []byte("PGCOPY\n\xff\r\n\x00")

// readBinary reads PostgreSQL's binary COPY format (pgx CopyFrom sends it).
func (cp *copyPlan) readBinary(in *bufio.Reader, insert func([]any) error) error {
	hdr := make([]byte, len(binarySignature)+8)
	if _, err := io.ReadFull(in, hdr); err != nil || !bytes.Equal(hdr[:len(binarySignature)], binarySignature) {
		return pgerr.New(pgerr.BadCopyFileFormat, "COPY file signature not recognized")
	}
	if ext := binary.BigEndian.Uint32(hdr[len(binarySignature)+4:]); ext > 0 {
		if _, err := in.Discard(int(ext)); err != nil {
			return pgerr.New(pgerr.BadCopyFileFormat, "invalid COPY file header (missing extension)")
		}
	}
	var b4 [4]byte
	for {
		var b2 [2]byte
		if _, err := io.ReadFull(in, b2[:]); err == io.EOF {
			return nil // the end of data at a row boundary ends it, trailer or not
		} else if err != nil {
			return pgerr.New(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
		}
		n := int16(binary.BigEndian.Uint16(b2[:]))
		if n == -1 {
			return nil
		}
		if int(n) != len(cp.targets) {
			return pgerr.New(pgerr.BadCopyFileFormat, "row field count is %d, expected %d", n, len(cp.targets))
		}
		vals := make([]any, n)
		for i := range vals {
			if _, err := io.ReadFull(in, b4[:]); err != nil {
				return pgerr.New(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
			}
			l := int32(binary.BigEndian.Uint32(b4[:]))
			if l == -1 {
				continue
			}
			if l < 0 || l > 1<<30 {
				return pgerr.New(pgerr.BadCopyFileFormat, "invalid field size")
			}
			data := make([]byte, l)
			if _, err := io.ReadFull(in, data); err != nil {
				return pgerr.New(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
			}
			v, err := types.DecodeBinary(cp.colTypes[i], data)
			if err != nil {
				return err
			}
			vals[i] = v
		}
		if err := insert(vals); err != nil {
			return err
		}
	}
}

// CopyTo runs COPY ... TO STDOUT, emitting one CopyData per row.
func (s *Session) CopyTo(ctx context.Context, pt *Portal, emit func(data []byte) error) (string, error) {
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	n, err := s.copyTo(ctx, pt, emit)
	if err != nil {
		s.fail()
		return "", pgerr.Convert(err)
	}
	return fmt.Sprintf("COPY %d", n), nil
}

func (s *Session) copyTo(ctx context.Context, pt *Portal, emit func([]byte) error) (int64, error) {
	cp, ok := pt.p.plan.(*copyPlan)
	if !ok || cp.cmd.From {
		return 0, pgerr.New(pgerr.ProtocolViolation, "portal is not a COPY TO STDOUT")
	}
	s.stmtStart = time.Now()
	if s.failed && s.explicit {
		return 0, pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	if err := s.beginTxn(""); err != nil {
		return 0, err
	}
	s.queried = true
	if err := s.lockTables(ctx, pt.p); err != nil {
		return 0, err
	}
	if cp, ok = pt.p.plan.(*copyPlan); !ok || cp.cmd.From {
		return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "COPY TO's table changed while it waited")
	}
	s.settleReaders(ctx)
	s.tx.NextStatement()
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: s.tx, Params: pt.params}
	defer x.CloseTemps()
	var it rowexec.RowIter
	var err error
	switch {
	case cp.query != nil && pt.p.dml != nil:
		it, err = s.runWritingQuery(x, cp.query, pt.p.dml)
	case cp.query != nil:
		it, err = cp.query.Open(x)
	default:
		var src rowexec.RowIter
		src, err = (&plan.TableScan{Table: cp.t, Access: plan.Access{Kind: "seq"}}).Open(x)
		if err == nil {
			cols := make([]plan.Expr, len(cp.targets))
			for i, ti := range cp.targets {
				cols[i] = &plan.ColExpr{T: cp.t.Columns[ti].Type, Index: ti}
			}
			it = &plan.ProjectIter{In: src, X: x, Exprs: cols}
		}
	}
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if cp.cmd.Format == "binary" {
		return cp.writeBinary(it, emit)
	}
	var n int64
	if cp.cmd.Format == "csv" && cp.cmd.Header {
		var names []string
		if cp.query != nil {
			for _, c := range cp.query.Columns() {
				names = append(names, c.Name)
			}
		} else {
			for _, ti := range cp.targets {
				names = append(names, cp.t.Columns[ti].Name)
			}
		}
		if err := emit([]byte(strings.Join(names, string(cp.delim)) + "\n")); err != nil {
			return 0, err
		}
	}
	for {
		row, err := it.Next()
		if err != nil {
			return 0, err
		}
		if row == nil {
			return n, nil
		}
		var line []byte
		for i, v := range row {
			if i > 0 {
				line = append(line, cp.delim)
			}
			line = cp.appendField(line, i, v, s)
		}
		if err := emit(append(line, '\n')); err != nil {
			return 0, err
		}
		n++
	}
}

// writeBinary writes PostgreSQL's binary COPY format: the signature, flags
// and header extension length, then per row its field count and each
// field as a length (-1 for NULL) and the type's binary encoding, then a
// field count of -1.
func (cp *copyPlan) writeBinary(it rowexec.RowIter, emit func([]byte) error) (int64, error) {
	if err := emit(binary.BigEndian.AppendUint64(append([]byte(nil), binarySignature...), 0)); err != nil {
		return 0, err
	}
	var n int64
	var buf []byte
	for {
		row, err := it.Next()
		if err != nil {
			return 0, err
		}
		if row == nil {
			return n, emit([]byte{0xff, 0xff})
		}
		buf = binary.BigEndian.AppendUint16(buf[:0], uint16(len(row)))
		for i, v := range row {
			if v == nil {
				buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
				continue
			}
			at := len(buf)
			buf = types.AppendBinary(append(buf, 0, 0, 0, 0), cp.colTypes[i], v)
			binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
		}
		if err := emit(buf); err != nil {
			return 0, err
		}
		n++
	}
}

func (cp *copyPlan) appendField(line []byte, col int, v any, s *Session) []byte {
	if v == nil {
		return append(line, cp.null...)
	}
	text := types.AppendText(nil, cp.colTypes[col], v, s.loc())
	if cp.cmd.Format == "csv" {
		if bytes.IndexByte(text, cp.delim) >= 0 || bytes.IndexByte(text, cp.quote) >= 0 ||
			bytes.ContainsAny(text, "\r\n") || string(text) == cp.null || cp.cmd.ForceQuoteAll {
			line = append(line, cp.quote)
			for _, c := range text {
				if c == cp.quote || c == cp.escape {
					line = append(line, cp.escape)
				}
				line = append(line, c)
			}
			return append(line, cp.quote)
		}
		return append(line, text...)
	}
	for _, c := range text {
		switch c {
		case '\\':
			line = append(line, '\\', '\\')
		case '\n':
			line = append(line, '\\', 'n')
		case '\r':
			line = append(line, '\\', 'r')
		case '\t':
			line = append(line, '\\', 't')
		default:
			if c == cp.delim {
				line = append(line, '\\')
			}
			line = append(line, c)
		}
	}
	return line
}
