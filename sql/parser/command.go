package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Begin is BEGIN [WORK | TRANSACTION] [modes] or START TRANSACTION [modes].
type Begin struct {
	Isolation                       string // "", "read committed", "repeatable read", "serializable", "read uncommitted"
	ReadOnly, ReadWrite, Deferrable bool
}

// Commit is COMMIT or END.
type Commit struct{}

// Rollback is ROLLBACK or ABORT.
type Rollback struct{}

// Savepoint is SAVEPOINT name.
type Savepoint struct{ Name string }

// Release is RELEASE [SAVEPOINT] name.
type Release struct{ Name string }

// RollbackTo is ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name.
type RollbackTo struct{ Name string }

// SetTransaction is SET TRANSACTION modes, or with Session set, SET
// SESSION CHARACTERISTICS AS TRANSACTION modes.
type SetTransaction struct {
	Session                         bool
	Isolation                       string
	ReadOnly, ReadWrite, Deferrable bool
}

// Set is SET [SESSION | LOCAL] name {TO | =} {value [, ...] | DEFAULT}, and
// the special forms SET TIME ZONE (Name "timezone"), SET NAMES
// ("client_encoding") and SET SCHEMA ("search_path"). Values hold strings
// without quotes, and numbers and words as written, words folded.
type Set struct {
	Name           string
	Values         []string
	Local, Default bool
	// Interval is SET TIME ZONE INTERVAL '-08:00' HOUR TO MINUTE's value,
	// which the SQL layer reads as an interval of Interval.Type.
	Interval *IntervalValue
}

// IntervalValue is a typed interval literal: INTERVAL(2) '01:00:01.5' has
// Type "interval(2)", INTERVAL '-08:00' HOUR TO MINUTE "interval hour to
// minute".
type IntervalValue struct {
	Text, Type string
}

// Reset is RESET name or RESET ALL.
type Reset struct {
	Name string
	All  bool
}

// Show is SHOW name or SHOW ALL.
type Show struct {
	Name string
	All  bool
}

// Truncate is TRUNCATE [TABLE] [ONLY] name [, ...] [RESTART | CONTINUE
// IDENTITY] [CASCADE | RESTRICT].
type Truncate struct {
	Tables                   []string
	RestartIdentity, Cascade bool
}

// Vacuum is VACUUM [FULL] or ANALYZE.
type Vacuum struct {
	Analyze, Full bool
	Tables        []string
}

// Declare is DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO]
// SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query. Scroll and NoScroll are
// both false when neither was said, and the query's plan decides.
type Declare struct {
	Name                           string
	Query                          *Statement
	Binary, Scroll, NoScroll, Hold bool
	Insensitive, Asensitive        bool
}

// Fetch is FETCH or, with Move set, MOVE. Every direction is one of
// PostgreSQL's four: NEXT is FORWARD 1, PRIOR BACKWARD 1, FIRST ABSOLUTE
// 1, LAST ABSOLUTE -1, a bare count FORWARD count, ALL FORWARD ALL.
type Fetch struct {
	Name  string
	Dir   FetchDir
	Count int64 // FetchAll for ALL
	Move  bool
}

// FetchDir is a direction of FETCH and MOVE.
type FetchDir int

const (
	FetchForward FetchDir = iota
	FetchBackward
	FetchAbsolute
	FetchRelative
)

// FetchAll is the count of FETCH ALL, as PostgreSQL's FETCH_ALL.
const FetchAll = math.MaxInt64

// Close is CLOSE name or CLOSE ALL.
type Close struct {
	Name string
	All  bool
}

// Deallocate is DEALLOCATE [PREPARE] name or DEALLOCATE ALL.
type Deallocate struct {
	Name string
	All  bool
}

// Prepare is PREPARE name [(type, ...)] AS statement: a prepared statement
// at the SQL level, as psql and psycopg2 use them. Types are the parameter
// types as written, lower case.
type Prepare struct {
	Name  string
	Types []string
	Stmt  *Statement
}

// Execute is EXECUTE name [(arg, ...)]. Args is a SELECT of the arguments,
// so that they go through the same rewrite as any expression.
type Execute struct {
	Name string
	Args *Statement
}

// Lock is LOCK [TABLE] [ONLY] name [*] [, ...] [IN mode MODE] [NOWAIT].
// Mode is the lock mode in lower case, "access exclusive" by default.
type Lock struct {
	Tables []string
	Mode   string
	NoWait bool
}

// Discard is DISCARD ALL, PLANS, SEQUENCES or TEMP[ORARY]; What is "all",
// "plans", "sequences" or "temp".
type Discard struct{ What string }

// Checkpoint is CHECKPOINT.
type Checkpoint struct{}

// command returns the parser of the statement that starts with word, for
// the statements TiDB cannot parse, or nil.
func command(word string) func(c *cursor) (any, error) {
	switch word {
	case "begin":
		return parseBegin
	case "start":
		return parseStart
	case "commit", "end":
		return parseCommit
	case "rollback", "abort":
		return parseRollback
	case "savepoint":
		return parseSavepoint
	case "release":
		return parseRelease
	case "set":
		return parseSet
	case "reset":
		return parseReset
	case "show":
		return parseShow
	case "copy":
		return parseCopy
	case "truncate":
		return parseTruncate
	case "refresh":
		return parseRefresh
	case "lock":
		return parseLock
	case "vacuum":
		return parseVacuum
	case "analyze", "analyse":
		return parseAnalyze
	case "declare":
		return parseDeclare
	case "fetch", "move":
		return parseFetch
	case "close":
		return parseClose
	case "deallocate":
		return parseDeallocate
	case "prepare":
		return parsePrepare
	case "execute":
		return parseExecute
	case "comment":
		return parseComment
	case "listen":
		return parseListen
	case "unlisten":
		return parseUnlisten
	case "notify":
		return parseNotify
	case "discard":
		return parseDiscard
	case "call":
		return parseCall
	case "do":
		return parseDo
	case "checkpoint":
		return func(c *cursor) (any, error) { return &Checkpoint{}, c.end() }
	}
	return nil
}

// cursor walks the tokens of a command.
type cursor struct {
	p    *stmtParser
	toks []token
	i    int
}

func (c *cursor) peek() *token {
	if c.i < len(c.toks) {
		return &c.toks[c.i]
	}
	return nil
}

func (c *cursor) prev() *token { return &c.toks[c.i-1] }

// is reports whether the next token is one of the words.
func (c *cursor) is(words ...string) bool { return isWord(c.peek(), words...) }

// accept consumes the next token if it is one of the words.
func (c *cursor) accept(words ...string) bool {
	if c.is(words...) {
		c.i++
		return true
	}
	return false
}

// acceptSeq consumes the words if the next tokens are exactly them.
func (c *cursor) acceptSeq(words ...string) bool {
	for j, w := range words {
		if c.i+j >= len(c.toks) || !isWord(&c.toks[c.i+j], w) {
			return false
		}
	}
	c.i += len(words)
	return true
}

func (c *cursor) punct(p string) bool {
	if isPunct(c.peek(), p) {
		c.i++
		return true
	}
	return false
}

// fail reports a syntax error at the next token.
func (c *cursor) fail() error {
	if t := c.peek(); t != nil {
		return c.p.syntaxError(t)
	}
	return c.p.syntaxErrorAtEnd()
}

func (c *cursor) expect(words ...string) error {
	if c.accept(words...) {
		return nil
	}
	return c.fail()
}

// end checks that the command has no more tokens.
func (c *cursor) end() error {
	if c.i < len(c.toks) {
		return c.fail()
	}
	return nil
}

// name reads an identifier: a quoted identifier or a non-reserved word.
func (c *cursor) name() (string, error) {
	t := c.peek()
	if !isName(t) {
		return "", c.fail()
	}
	c.i++
	return t.val, nil
}

// qualifiedName reads a possibly qualified name and returns its parts
// joined by dots. A part holding a dot or a quote is quoted, so that the
// joined name can be split again.
func (c *cursor) qualifiedName() (string, error) {
	var b strings.Builder
	for {
		part, err := c.name()
		if err != nil {
			return "", err
		}
		if strings.ContainsAny(part, `."`) {
			part = quoteIdent(part)
		}
		b.WriteString(part)
		if !isPunct(c.peek(), ".") {
			return b.String(), nil
		}
		b.WriteByte('.')
		c.i++
	}
}

// SplitName splits a name qualifiedName joined into its parts, as they
// were written: the parts are not case-folded again.
func SplitName(joined string) []string {
	var parts []string
	for {
		var part string
		if strings.HasPrefix(joined, `"`) {
			var b strings.Builder
			i := 1
			for i < len(joined) {
				if joined[i] == '"' {
					if i+1 < len(joined) && joined[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(joined[i])
				i++
			}
			part, joined = b.String(), joined[i:]
		} else if j := strings.IndexByte(joined, '.'); j >= 0 {
			part, joined = joined[:j], joined[j:]
		} else {
			part, joined = joined, ""
		}
		parts = append(parts, part)
		if !strings.HasPrefix(joined, ".") {
			return parts
		}
		joined = joined[1:]
	}
}

// txModes reads transaction modes (gram.y's transaction_mode_list).
func (c *cursor) txModes() (isolation string, readOnly, readWrite, deferrable bool, err error) {
	seen := map[string]bool{}
	conflict := func(kind string) error {
		if seen[kind] {
			return c.p.syntaxMsg(c.prev(), "conflicting or redundant options")
		}
		seen[kind] = true
		return nil
	}
	for first := true; c.i < len(c.toks); first = false {
		if !first {
			c.punct(",")
		}
		switch {
		case c.acceptSeq("isolation", "level"):
			if err := conflict("isolation"); err != nil {
				return "", false, false, false, err
			}
			switch {
			case c.accept("serializable"):
				isolation = "serializable"
			case c.acceptSeq("repeatable", "read"):
				isolation = "repeatable read"
			case c.acceptSeq("read", "committed"):
				isolation = "read committed"
			case c.acceptSeq("read", "uncommitted"):
				isolation = "read uncommitted"
			default:
				return "", false, false, false, c.fail()
			}
		case c.acceptSeq("read", "only"), c.acceptSeq("read", "write"):
			if err := conflict("read"); err != nil {
				return "", false, false, false, err
			}
			readOnly = c.prev().val == "only"
			readWrite = !readOnly
		case c.accept("deferrable"), c.acceptSeq("not", "deferrable"):
			if err := conflict("deferrable"); err != nil {
				return "", false, false, false, err
			}
			deferrable = c.toks[c.i-2].val != "not"
		default:
			return "", false, false, false, c.fail()
		}
	}
	return isolation, readOnly, readWrite, deferrable, nil
}

func parseBegin(c *cursor) (any, error) {
	c.accept("work", "transaction")
	b := &Begin{}
	var err error
	b.Isolation, b.ReadOnly, b.ReadWrite, b.Deferrable, err = c.txModes()
	return b, err
}

func parseStart(c *cursor) (any, error) {
	if err := c.expect("transaction"); err != nil {
		return nil, err
	}
	b := &Begin{}
	var err error
	b.Isolation, b.ReadOnly, b.ReadWrite, b.Deferrable, err = c.txModes()
	return b, err
}

// chain reads [AND [NO] CHAIN] after COMMIT or ROLLBACK.
func (c *cursor) chain() error {
	switch {
	case c.acceptSeq("and", "no", "chain"):
	case c.is("and"):
		return c.p.unsupported(c.peek(), "AND CHAIN is not supported")
	}
	return c.end()
}

func parseCommit(c *cursor) (any, error) {
	if c.is("prepared") && c.toks[0].val == "commit" {
		return nil, c.p.unsupported(c.peek(), "COMMIT PREPARED is not supported")
	}
	c.accept("work", "transaction")
	return &Commit{}, c.chain()
}

func parseRollback(c *cursor) (any, error) {
	if c.is("prepared") && c.toks[0].val == "rollback" {
		return nil, c.p.unsupported(c.peek(), "ROLLBACK PREPARED is not supported")
	}
	c.accept("work", "transaction")
	if c.toks[0].val == "rollback" && c.accept("to") {
		c.accept("savepoint")
		name, err := c.name()
		if err != nil {
			return nil, err
		}
		return &RollbackTo{Name: name}, c.end()
	}
	return &Rollback{}, c.chain()
}

func parseSavepoint(c *cursor) (any, error) {
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	return &Savepoint{Name: name}, c.end()
}

func parseRelease(c *cursor) (any, error) {
	c.accept("savepoint")
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	return &Release{Name: name}, c.end()
}

func parseSet(c *cursor) (any, error) {
	s := &Set{}
	switch {
	case c.acceptSeq("session", "characteristics", "as", "transaction"):
		st := &SetTransaction{Session: true}
		var err error
		st.Isolation, st.ReadOnly, st.ReadWrite, st.Deferrable, err = c.txModes()
		return st, err
	case c.accept("local"):
		s.Local = true
	case c.is("session") && !isWord(at2(c.toks, c.i+1), "authorization"):
		c.i++
	}
	switch {
	case c.is("transaction") && isWord(at2(c.toks, c.i+1), "snapshot"):
		return nil, c.p.unsupported(c.peek(), "SET TRANSACTION SNAPSHOT is not supported")
	case c.accept("transaction"):
		st := &SetTransaction{}
		var err error
		st.Isolation, st.ReadOnly, st.ReadWrite, st.Deferrable, err = c.txModes()
		return st, err
	case c.acceptSeq("time", "zone"):
		s.Name = "timezone"
		if c.accept("local", "default") {
			s.Default = true
			return s, c.end()
		}
		if c.accept("interval") {
			iv, err := c.intervalLiteral()
			if err != nil {
				return nil, err
			}
			s.Interval = iv
			return s, c.end()
		}
		v, err := c.value()
		if err != nil {
			return nil, err
		}
		s.Values = []string{v}
		return s, c.end()
	case c.accept("names"):
		s.Name = "client_encoding"
		if c.accept("default") {
			s.Default = true
			return s, c.end()
		}
		return s, c.values(s)
	case c.is("schema") && at2(c.toks, c.i+1) != nil && at2(c.toks, c.i+1).kind == tkString:
		c.i++
		s.Name = "search_path"
		return s, c.values(s)
	case c.accept("constraints") && !s.Local:
		return parseSetConstraints(c)
	case c.is("role", "constraints", "xml"):
		return nil, c.p.unsupported(c.peek(), "SET %s is not supported", upper(c.peek().val))
	case c.is("session"):
		return nil, c.p.unsupported(c.peek(), "SET SESSION AUTHORIZATION is not supported")
	}
	name, err := c.varName()
	if err != nil {
		return nil, err
	}
	s.Name = name
	if !c.accept("to") && !c.punctOp("=") {
		return nil, c.fail()
	}
	if c.accept("default") {
		s.Default = true
		return s, c.end()
	}
	return s, c.values(s)
}

// intervalLiteral reads the rest of INTERVAL [(p)] 'text' [fields], the
// INTERVAL word read.
func (c *cursor) intervalLiteral() (*IntervalValue, error) {
	typ := "interval"
	if c.punct("(") {
		t := c.peek()
		if t == nil || t.kind != tkNumber {
			return nil, c.fail()
		}
		c.i++
		if !c.punct(")") {
			return nil, c.fail()
		}
		typ += "(" + t.val + ")"
	}
	t := c.peek()
	if t == nil || t.kind != tkString {
		return nil, c.fail()
	}
	c.i++
	field := func() error {
		typ += " " + c.peek().val
		c.i++
		if c.prev().val == "second" && c.punct("(") {
			p := c.peek()
			if p == nil || p.kind != tkNumber {
				return c.fail()
			}
			c.i++
			if !c.punct(")") {
				return c.fail()
			}
			typ += "(" + p.val + ")"
		}
		return nil
	}
	if c.is(intervalFieldWords...) {
		if err := field(); err != nil {
			return nil, err
		}
		if c.is("to") && isWord(at2(c.toks, c.i+1), intervalFieldWords...) {
			typ += " to"
			c.i++
			if err := field(); err != nil {
				return nil, err
			}
		}
	}
	return &IntervalValue{Text: t.val, Type: typ}, nil
}

func at2(toks []token, i int) *token {
	if i < len(toks) {
		return &toks[i]
	}
	return nil
}

// punctOp consumes the operator op.
func (c *cursor) punctOp(op string) bool {
	if isOp(c.peek(), op) {
		c.i++
		return true
	}
	return false
}

// varName reads a configuration parameter name, possibly dotted.
func (c *cursor) varName() (string, error) {
	var b strings.Builder
	for {
		t := c.peek()
		if t == nil || t.kind != tkWord && t.kind != tkQIdent {
			return "", c.fail()
		}
		c.i++
		b.WriteString(t.val)
		if !c.punct(".") {
			return b.String(), nil
		}
		b.WriteByte('.')
	}
}

// values reads a comma-separated list of values to the end of the command.
func (c *cursor) values(s *Set) error {
	for {
		v, err := c.value()
		if err != nil {
			return err
		}
		s.Values = append(s.Values, v)
		if !c.punct(",") {
			return c.end()
		}
	}
}

// value reads a string, a signed number or a word.
func (c *cursor) value() (string, error) {
	sign := ""
	if isOp(c.peek(), "-") || isOp(c.peek(), "+") {
		sign = c.peek().val
		c.i++
		if t := c.peek(); t == nil || t.kind != tkNumber {
			return "", c.fail()
		}
	}
	t := c.peek()
	if t == nil {
		return "", c.fail()
	}
	switch t.kind {
	case tkNumber:
		c.i++
		return sign + c.p.q[t.pos:t.end], nil
	case tkString, tkWord, tkQIdent:
		c.i++
		return t.val, nil
	}
	return "", c.fail()
}

// specialVar reads the multi-word parameter names of SHOW and RESET.
func (c *cursor) specialVar() (string, bool) {
	switch {
	case c.acceptSeq("time", "zone"):
		return "timezone", true
	case c.acceptSeq("transaction", "isolation", "level"):
		return "transaction_isolation", true
	case c.acceptSeq("session", "authorization"):
		return "session_authorization", true
	}
	return "", false
}

func parseReset(c *cursor) (any, error) {
	if c.accept("all") {
		return &Reset{All: true}, c.end()
	}
	if name, ok := c.specialVar(); ok {
		return &Reset{Name: name}, c.end()
	}
	name, err := c.varName()
	if err != nil {
		return nil, err
	}
	return &Reset{Name: name}, c.end()
}

func parseShow(c *cursor) (any, error) {
	if c.accept("all") {
		return &Show{All: true}, c.end()
	}
	if name, ok := c.specialVar(); ok {
		return &Show{Name: name}, c.end()
	}
	name, err := c.varName()
	if err != nil {
		return nil, err
	}
	return &Show{Name: name}, c.end()
}

func parseTruncate(c *cursor) (any, error) {
	t := &Truncate{}
	c.accept("table")
	for {
		c.accept("only")
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		t.Tables = append(t.Tables, name)
		c.punctOp("*")
		if !c.punct(",") {
			break
		}
	}
	switch {
	case c.acceptSeq("restart", "identity"):
		t.RestartIdentity = true
	case c.acceptSeq("continue", "identity"):
	}
	switch {
	case c.accept("cascade"):
		t.Cascade = true
	case c.accept("restrict"):
	}
	return t, c.end()
}

func parseLock(c *cursor) (any, error) {
	l := &Lock{Mode: "access exclusive"}
	c.accept("table")
	for {
		c.accept("only")
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		l.Tables = append(l.Tables, name)
		c.punctOp("*")
		if !c.punct(",") {
			break
		}
	}
	if c.accept("in") {
		switch {
		case c.acceptSeq("access", "share"):
			l.Mode = "access share"
		case c.acceptSeq("access", "exclusive"):
			l.Mode = "access exclusive"
		case c.acceptSeq("row", "share"):
			l.Mode = "row share"
		case c.acceptSeq("row", "exclusive"):
			l.Mode = "row exclusive"
		case c.acceptSeq("share", "update", "exclusive"):
			l.Mode = "share update exclusive"
		case c.acceptSeq("share", "row", "exclusive"):
			l.Mode = "share row exclusive"
		case c.accept("share"):
			l.Mode = "share"
		case c.accept("exclusive"):
			l.Mode = "exclusive"
		default:
			return nil, c.fail()
		}
		if err := c.expect("mode"); err != nil {
			return nil, err
		}
	}
	l.NoWait = c.accept("nowait")
	return l, c.end()
}

func parseVacuum(c *cursor) (any, error) {
	v := &Vacuum{}
	if isPunct(c.peek(), "(") {
		if err := c.vacuumOptions(v); err != nil {
			return nil, err
		}
	} else {
		v.Full = c.accept("full")
		c.accept("freeze")
		c.accept("verbose")
		v.Analyze = c.accept("analyze", "analyse")
	}
	return v, c.vacuumTables(v)
}

func parseAnalyze(c *cursor) (any, error) {
	v := &Vacuum{Analyze: true}
	if isPunct(c.peek(), "(") {
		if err := c.vacuumOptions(v); err != nil {
			return nil, err
		}
		v.Analyze = true
	} else {
		c.accept("verbose")
	}
	return v, c.vacuumTables(v)
}

// vacuumOptions reads VACUUM's (option [value], ...).
func (c *cursor) vacuumOptions(v *Vacuum) error {
	c.i++
	for {
		t := c.peek()
		if t == nil || t.kind != tkWord {
			return c.fail()
		}
		c.i++
		value := "true"
		if !isPunct(c.peek(), ",") && !isPunct(c.peek(), ")") {
			var err error
			if value, err = c.value(); err != nil {
				return err
			}
		}
		if t.val == "analyze" || t.val == "analyse" || t.val == "full" {
			b, ok := parseBool(value)
			if !ok {
				return c.p.invalidParam(t, "%s requires a Boolean value", t.val)
			}
			if t.val == "full" {
				v.Full = b
			} else {
				v.Analyze = b
			}
		}
		if c.punct(")") {
			return nil
		}
		if !c.punct(",") {
			return c.fail()
		}
	}
}

// vacuumTables reads table [(columns)] [, ...].
func (c *cursor) vacuumTables(v *Vacuum) error {
	for c.i < len(c.toks) {
		name, err := c.qualifiedName()
		if err != nil {
			return err
		}
		v.Tables = append(v.Tables, name)
		if c.punct("(") {
			for {
				if _, err := c.name(); err != nil {
					return err
				}
				if c.punct(")") {
					break
				}
				if !c.punct(",") {
					return c.fail()
				}
			}
		}
		if !c.punct(",") {
			break
		}
	}
	return c.end()
}

func parseDeclare(c *cursor) (any, error) {
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	d := &Declare{Name: name}
	for !c.is("cursor") {
		switch {
		case c.accept("binary"):
			d.Binary = true
		case c.accept("scroll"):
			d.Scroll = true
		case c.acceptSeq("no", "scroll"):
			d.NoScroll = true
		case c.accept("insensitive"):
			d.Insensitive = true
		case c.accept("asensitive"):
			d.Asensitive = true
		default:
			return nil, c.fail()
		}
	}
	switch {
	case d.Scroll && d.NoScroll:
		return nil, pgerr.New(pgerr.InvalidCursorDefinition, "cannot specify both SCROLL and NO SCROLL")
	case d.Asensitive && d.Insensitive:
		return nil, pgerr.New(pgerr.InvalidCursorDefinition, "cannot specify both ASENSITIVE and INSENSITIVE")
	}
	c.i++
	switch {
	case c.acceptSeq("with", "hold"):
		d.Hold = true
	case c.acceptSeq("without", "hold"):
	}
	if err := c.expect("for"); err != nil {
		return nil, err
	}
	if d.Query, err = c.nested(c.toks[c.i:], c.p.after, isQuery); err != nil {
		return nil, err
	}
	if d.Query.WithDML != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR must not contain data-modifying statements in WITH")
	}
	return d, nil
}

// nested parses the statement inside a command, such as DECLARE's query,
// through the same rewrite as a statement of its own.
func (c *cursor) nested(toks []token, after *token, kind stmtKind) (*Statement, error) {
	if len(toks) == 0 {
		return nil, c.fail()
	}
	if !isWord(&toks[0], "select", "values", "table", "with", "insert", "update", "delete") && !isPunct(&toks[0], "(") {
		return nil, c.p.syntaxError(&toks[0])
	}
	sub := &stmtParser{q: c.p.q, toks: toks, after: after}
	if err := sub.parse(); err != nil {
		return nil, err
	}
	if !kind(sub.st.AST) {
		return nil, c.p.syntaxError(&toks[0])
	}
	return sub.st, nil
}

func parseFetch(c *cursor) (any, error) {
	f := &Fetch{Dir: FetchForward, Count: 1, Move: c.toks[0].val == "move"}
	counted := func() bool {
		t := c.peek()
		return t != nil && (t.kind == tkNumber || isOp(t, "-") || isOp(t, "+"))
	}
	var err error
	switch {
	case c.i+1 == len(c.toks):
		// A direction word alone is the cursor's name.
	case c.accept("next"):
	case c.accept("prior"):
		f.Dir = FetchBackward
	case c.accept("first"):
		f.Dir = FetchAbsolute
	case c.accept("last"):
		f.Dir, f.Count = FetchAbsolute, -1
	case c.accept("absolute"):
		f.Dir = FetchAbsolute
		f.Count, err = c.count()
	case c.accept("relative"):
		f.Dir = FetchRelative
		f.Count, err = c.count()
	case c.accept("all"):
		f.Count = FetchAll
	case c.accept("forward", "backward"):
		if c.toks[c.i-1].val == "backward" {
			f.Dir = FetchBackward
		}
		switch {
		case c.accept("all"):
			f.Count = FetchAll
		case counted():
			f.Count, err = c.count()
		}
	case counted():
		f.Count, err = c.count()
	}
	if err != nil {
		return nil, err
	}
	c.accept("from", "in")
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	f.Name = name
	return f, c.end()
}

// count reads FETCH's signed integer count, an int4 as in PostgreSQL's
// grammar.
func (c *cursor) count() (int64, error) {
	sign := ""
	if t := c.peek(); isOp(t, "-") || isOp(t, "+") {
		sign = t.val
		c.i++
	}
	t := c.peek()
	if t == nil || t.kind != tkNumber {
		return 0, c.fail()
	}
	n, err := strconv.ParseInt(sign+t.val, 10, 32)
	if err != nil {
		return 0, c.p.syntaxError(t)
	}
	c.i++
	return n, nil
}

func parseClose(c *cursor) (any, error) {
	if c.accept("all") {
		return &Close{All: true}, c.end()
	}
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	return &Close{Name: name}, c.end()
}

func parsePrepare(c *cursor) (any, error) {
	if c.is("transaction") {
		return nil, c.p.unsupported(c.peek(), "PREPARE TRANSACTION is not supported")
	}
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	p := &Prepare{Name: name}
	if c.punct("(") {
		depth, start, closed := 0, c.i, false
		for ; c.i < len(c.toks) && !closed; c.i++ {
			t := &c.toks[c.i]
			switch {
			case isPunct(t, "("):
				depth++
			case isPunct(t, ")") && depth > 0:
				depth--
			case (isPunct(t, ",") || isPunct(t, ")")) && depth == 0:
				if start == c.i {
					return nil, c.p.syntaxError(t)
				}
				p.Types = append(p.Types, strings.ToLower(c.p.q[c.toks[start].pos:c.toks[c.i-1].end]))
				start, closed = c.i+1, isPunct(t, ")")
			}
		}
		if !closed {
			return nil, c.fail()
		}
	}
	if err := c.expect("as"); err != nil {
		return nil, err
	}
	p.Stmt, err = c.nested(c.toks[c.i:], c.p.after, func(ast.StmtNode) bool { return true })
	return p, err
}

func parseExecute(c *cursor) (any, error) {
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	e := &Execute{Name: name}
	if c.i == len(c.toks) {
		return e, nil
	}
	open := c.peek()
	last := &c.toks[len(c.toks)-1]
	if !isPunct(open, "(") || !isPunct(last, ")") || open == last {
		return nil, c.fail()
	}
	args := c.p.q[open.end:last.pos]
	stmts, err := Parse("SELECT " + args)
	if err != nil || len(stmts) != 1 {
		return nil, c.p.syntaxError(open)
	}
	e.Args = stmts[0]
	return e, nil
}

func parseDeallocate(c *cursor) (any, error) {
	c.accept("prepare")
	if c.accept("all") {
		return &Deallocate{All: true}, c.end()
	}
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	return &Deallocate{Name: name}, c.end()
}

func parseDiscard(c *cursor) (any, error) {
	d := &Discard{}
	switch {
	case c.accept("all"), c.accept("plans"), c.accept("sequences"), c.accept("temp"):
		d.What = c.prev().val
	case c.accept("temporary"):
		d.What = "temp"
	default:
		return nil, c.fail()
	}
	return d, c.end()
}

// Listen is LISTEN channel.
type Listen struct{ Channel string }

// Unlisten is UNLISTEN channel, or UNLISTEN * (Channel empty).
type Unlisten struct{ Channel string }

// Notify is NOTIFY channel [, 'payload'].
type Notify struct{ Channel, Payload string }

func parseListen(c *cursor) (any, error) {
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	return &Listen{Channel: name}, c.end()
}

func parseUnlisten(c *cursor) (any, error) {
	if c.punctOp("*") {
		return &Unlisten{}, c.end()
	}
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	return &Unlisten{Channel: name}, c.end()
}

func parseNotify(c *cursor) (any, error) {
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	n := &Notify{Channel: name}
	if c.punct(",") {
		t := c.peek()
		if t == nil || t.kind != tkString {
			return nil, c.fail()
		}
		n.Payload = t.val
		c.i++
	}
	return n, c.end()
}

// SetConstraints is SET CONSTRAINTS { ALL | name, ... } { DEFERRED |
// IMMEDIATE }.
type SetConstraints struct {
	All      bool
	Names    []string
	Deferred bool
}

func parseSetConstraints(c *cursor) (any, error) {
	sc := &SetConstraints{All: c.accept("all")}
	for !sc.All {
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		sc.Names = append(sc.Names, strings.TrimPrefix(name, "public."))
		if !c.punct(",") {
			break
		}
	}
	switch {
	case c.accept("deferred"):
		sc.Deferred = true
	case c.accept("immediate"):
	default:
		return nil, c.fail()
	}
	return sc, c.end()
}

// Comment is COMMENT ON { TABLE | VIEW | SEQUENCE | INDEX } name, COMMENT ON
// COLUMN table.name or COMMENT ON CONSTRAINT name ON table, IS 'text' or
// NULL (Text nil). Kind is the object's kind in lower case.
type Comment struct {
	Kind, Name, Table string
	Text              *string
	// Func is the routine COMMENT ON FUNCTION, PROCEDURE or ROUTINE names.
	Func *FuncRef
}

func parseComment(c *cursor) (any, error) {
	if err := c.expect("on"); err != nil {
		return nil, err
	}
	cm := &Comment{}
	switch {
	case c.accept("table", "view", "sequence", "index", "column", "constraint", "extension", "schema"):
		cm.Kind = c.prev().val
	case c.accept("function", "procedure", "routine"):
		cm.Kind = c.prev().val
		end := c.i
		for end < len(c.toks) && !isWord(&c.toks[end], "is") {
			end++
		}
		seq, err := c.p.buildTree(c.toks[c.i:end])
		if err != nil {
			return nil, err
		}
		refs, next, err := c.p.funcRefs(seq, 0, false)
		if err != nil {
			return nil, err
		}
		if next != len(seq) {
			return nil, c.p.errorAt(seq, next)
		}
		cm.Func, cm.Name, c.i = &refs[0], refs[0].Name, end
		return cm, commentText(c, cm)
	case c.peek() != nil && c.peek().kind == tkWord:
		return nil, c.p.unsupported(c.peek(), "COMMENT ON %s is not supported", upper(c.peek().val))
	default:
		return nil, c.fail()
	}
	name, err := c.qualifiedName()
	if err != nil {
		return nil, err
	}
	cm.Name = name
	switch cm.Kind {
	case "column":
		// [schema.]table.column: the last part is the column.
		dot := strings.LastIndexByte(name, '.')
		if dot < 0 {
			return nil, c.p.syntaxMsg(c.prev(), "column name must be qualified")
		}
		cm.Table, cm.Name = name[:dot], name[dot+1:]
	case "constraint":
		if err := c.expect("on"); err != nil {
			return nil, err
		}
		if cm.Table, err = c.qualifiedName(); err != nil {
			return nil, err
		}
	}
	return cm, commentText(c, cm)
}

// commentText reads IS 'text' or IS NULL, ending the statement.
func commentText(c *cursor, cm *Comment) error {
	if err := c.expect("is"); err != nil {
		return err
	}
	switch t := c.peek(); {
	case c.accept("null"):
	case t != nil && t.kind == tkString:
		text := t.val
		cm.Text = &text
		c.i++
	default:
		return c.fail()
	}
	return c.end()
}
