package sql

import (
	"context"
	"encoding/binary"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/rowexec"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Ingest tables deduplicate inserts by (producer, sequence) with one number
// per producer; txn/ingest.go has the state machine and the reasoning. This
// file connects it to tables: the WITH (ingest_...) options, the state keys,
// and the admission of each inserted row.

// SQLSTATEs of ingest tables (epochdb's own, in class 55, "object not in
// prerequisite state").
const (
	codeProducerFenced  = "55Q01"
	codeSequenceGap     = "55Q02"
	codeUnknownProducer = "55Q03"
)

const (
	defaultIngestWindow = 64
	defaultIngestTTL    = 7 * 24 * time.Hour
)

// ingestSpec resolves the ingest_* options of a new table, or returns nil
// for an ordinary table.
func ingestSpec(t *catalog.Table) (*catalog.IngestSpec, error) {
	prod, seq := t.Options["ingest_producer"], t.Options["ingest_sequence"]
	if prod == "" && seq == "" {
		for name := range t.Options {
			if strings.HasPrefix(name, "ingest_") {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "%s requires ingest_producer and ingest_sequence", name)
			}
		}
		return nil, nil
	}
	if prod == "" || seq == "" {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "an ingest table needs both ingest_producer and ingest_sequence")
	}
	spec := &catalog.IngestSpec{Epoch: -1, Window: defaultIngestWindow, TTL: defaultIngestTTL.Microseconds()}
	column := func(option, name string, ok func(types.Oid) bool, want string) (int, error) {
		i, c := t.Column(name)
		if c == nil {
			return 0, pgerr.New(pgerr.UndefinedColumn, "%s names column %q, which %q does not have", option, name, t.Name)
		}
		if !ok(c.Type.Oid) {
			return 0, pgerr.New(pgerr.DatatypeMismatch, "%s column %q must be %s, not %s", option, name, want, c.Type)
		}
		if !c.NotNull {
			return 0, pgerr.New(pgerr.InvalidTableDefinition, "%s column %q must be NOT NULL", option, name)
		}
		return i, nil
	}
	isInt := func(o types.Oid) bool { return o == types.OidInt8 || o == types.OidInt4 }
	var err error
	if spec.Producer, err = column("ingest_producer", prod, plan.IsString, "text"); err != nil {
		return nil, err
	}
	if spec.Sequence, err = column("ingest_sequence", seq, isInt, "bigint"); err != nil {
		return nil, err
	}
	if e := t.Options["ingest_epoch"]; e != "" {
		if spec.Epoch, err = column("ingest_epoch", e, isInt, "bigint"); err != nil {
			return nil, err
		}
	}
	if w := t.Options["ingest_window"]; w != "" {
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 || n > txn.MaxWindow {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "ingest_window must be between 1 and %d, not %q", txn.MaxWindow, w)
		}
		spec.Window = n
	}
	if ttl := t.Options["ingest_producer_ttl"]; ttl != "" {
		v, err := types.ParseText(types.IntervalType, ttl, time.UTC)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "ingest_producer_ttl must be an interval, not %q", ttl)
		}
		iv := v.(types.Interval)
		spec.TTL = iv.Micros + int64(iv.Days)*24*3600*1e6 + int64(iv.Months)*30*24*3600*1e6
		if spec.TTL <= 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "ingest_producer_ttl must be positive, not %q", ttl)
		}
	}
	return spec, nil
}

// ingestKey is the key of one producer's state: an ordinary key in the
// system key space, written in the same transaction as the rows.
func ingestKey(tableID uint32, producer string) []byte {
	k := binary.BigEndian.AppendUint32([]byte{catalog.SysPrefix, 'i'}, tableID)
	return append(k, producer...)
}

// ingestBatch admits the rows of one statement into an ingest table. A
// producer's state is read and locked at its first row of the statement
// (written back at once: the provisional version is the row lock that
// serialises concurrent sessions of one producer), kept in memory for the
// rest of the statement, and written once more at its end. A statement that
// fails writes nothing more, and its transaction fails with it.
type ingestBatch struct {
	s      *Session
	x      *plan.ExecCtx
	t      *catalog.Table
	now    uint64
	states map[string]*producerSlot
	dups   int64
}

type producerSlot struct {
	st    *txn.ProducerState
	dirty bool
}

func (s *Session) newIngestBatch(x *plan.ExecCtx, t *catalog.Table) *ingestBatch {
	return &ingestBatch{s: s, x: x, t: t, now: x.Tx.Snapshot(), states: make(map[string]*producerSlot)}
}

// admit decides whether a row, which checkRow has passed, is new (insert
// it) or a repeat (skip it).
func (b *ingestBatch) admit(row []any) (bool, error) {
	t, spec := b.t, b.t.Ingest
	producer := row[spec.Producer].(string)
	seq := row[spec.Sequence].(int64)
	epoch := int64(txn.NoEpoch)
	if spec.Epoch >= 0 {
		if epoch = row[spec.Epoch].(int64); epoch < 0 {
			return false, pgerr.New(pgerr.InvalidParameterValue, "producer %q epoch %d: epochs are positive", producer, epoch)
		}
	}
	slot := b.states[producer]
	if slot == nil {
		st, err := b.load(producer, seq, epoch)
		if err != nil {
			return false, err
		}
		slot = &producerSlot{st: st}
		b.states[producer] = slot
	}
	st := slot.st
	a, err := st.Admit(seq, epoch, spec.Window, b.now)
	switch {
	case errors.Is(err, txn.ErrProducerFenced):
		return false, pgerr.New(codeProducerFenced,
			"producer %q is fenced: its current epoch is %d, the row's epoch %d is stale", producer, st.Epoch, epoch)
	case errors.Is(err, txn.ErrEpochNotIssued):
		return false, pgerr.New(pgerr.InvalidParameterValue,
			"producer %q epoch %d was never issued; its current epoch is %d", producer, epoch, st.Epoch)
	case errors.Is(err, txn.ErrSequenceGap):
		return false, pgerr.New(codeSequenceGap,
			"sequence gap for producer %q in table %q: sequence %d is beyond the window above %d", producer, t.Name, seq, st.High).
			WithDetail("%s", errors.FlattenDetails(err))
	case errors.Is(err, txn.ErrBadSequence):
		return false, pgerr.New(pgerr.InvalidParameterValue, "sequence %d of producer %q: sequences start at 1", seq, producer)
	case err != nil:
		return false, err
	}
	if a == txn.Duplicate {
		b.dups++
		return false, nil
	}
	slot.dirty = true
	return true, nil
}

// load locks a producer's state key and reads its state; a producer never
// seen (or expired) starts here, if the row may start it.
func (b *ingestBatch) load(producer string, seq, epoch int64) (*txn.ProducerState, error) {
	t, spec := b.t, b.t.Ingest
	var st, abandoned *txn.ProducerState
	err := b.x.Tx.Mutate(b.x.Ctx, ingestKey(t.ID, producer), func(cur []byte, exists bool) ([]byte, txn.Op, error) {
		st, abandoned = nil, nil
		if exists {
			var err error
			if st, err = txn.DecodeProducerState(cur); err != nil {
				return nil, txn.Keep, err
			}
			if b.s.expired(t, producer, st, b.now) {
				if len(st.Pending()) > 0 {
					abandoned = st
				}
				st = nil // the producer is unknown again
			}
		}
		if st == nil {
			// A producer never seen may start anywhere within the first
			// window, at epoch 1.
			if seq > int64(spec.Window) {
				return nil, txn.Keep, pgerr.New(codeUnknownProducer,
					"unknown producer %q in table %q: sequence %d is beyond the first window (%d)", producer, t.Name, seq, spec.Window).
					WithHint("The producer was never seen, or its state expired. Call epochdb_producer_begin('%s', '%s', resume_after => N) to resume after sequence N.", t.Name, producer)
			}
			if spec.Epoch >= 0 && epoch != 1 {
				if epoch > 1 {
					return nil, txn.Keep, pgerr.New(pgerr.InvalidParameterValue,
						"producer %q epoch %d was never issued; a new producer starts at epoch 1", producer, epoch)
				}
				return nil, txn.Keep, pgerr.New(codeProducerFenced,
					"producer %q is fenced: its current epoch is 1, the row's epoch %d is stale", producer, epoch)
			}
			st = txn.NewProducer(0, b.now)
		}
		return st.Encode(nil), txn.Put, nil
	})
	if err == nil && abandoned != nil {
		// Kept for the view until an operator forgets it, so the gap it
		// leaves is never lost from sight.
		err = b.x.Tx.Put(b.x.Ctx, abandonedKey(t.ID, abandoned.LastSeen, producer), abandoned.Encode(nil))
	}
	return st, err
}

// abandonedKey records the state of a producer that expired with rows
// pending above its high-water mark.
func abandonedKey(tableID uint32, lastSeen uint64, producer string) []byte {
	k := binary.BigEndian.AppendUint32([]byte{catalog.SysPrefix, 'a'}, tableID)
	k = binary.BigEndian.AppendUint64(k, lastSeen)
	return append(k, producer...)
}

// finish writes the states the statement changed and reports its
// duplicates.
func (b *ingestBatch) finish() error {
	for producer, slot := range b.states {
		if !slot.dirty {
			continue
		}
		val := slot.st.Encode(nil)
		err := b.x.Tx.Mutate(b.x.Ctx, ingestKey(b.t.ID, producer), func([]byte, bool) ([]byte, txn.Op, error) {
			return val, txn.Put, nil
		})
		if err != nil {
			return err
		}
	}
	b.s.noteDuplicates(b.t, b.dups)
	return nil
}

// expired reports whether an idle producer's state has outlived the
// table's ingest_producer_ttl, by commit timestamps: its last-seen time is
// the snapshot of the transaction that last admitted a row, and now is the
// snapshot of this one, both commit timestamps in the log. An expired
// producer is unknown again, and only a retry within the first window is
// admitted as new: the window bet. A producer with rows still pending above
// its high-water mark never expires silently: the WARNING names the ranges
// it abandons.
func (s *Session) expired(t *catalog.Table, producer string, st *txn.ProducerState, now uint64) bool {
	ttl := uint64(t.Ingest.TTL) * uint64(time.Microsecond)
	if now <= st.LastSeen || now-st.LastSeen <= ttl {
		return false
	}
	if pending := st.Pending(); len(pending) > 0 {
		slog.Warn("epochdb: ingest producer expired with sequences pending above its high-water mark; the gap below them is abandoned",
			"table", t.Name, "producer", producer, "high_water", st.High, "pending", pending)
		s.warning(pgerr.Warning, "producer %q of ingest table %q expired with sequences received above its high-water mark %d: %v; the gap below them is abandoned",
			producer, t.Name, st.High, pending)
	}
	return true
}

// noteDuplicates tells the client how many rows a statement skipped.
func (s *Session) noteDuplicates(t *catalog.Table, n int64) {
	if n > 0 {
		s.notice(pgerr.SuccessfulCompletion, "%d duplicate rows skipped in ingest table %q", n, t.Name)
	}
}

// The view epochdb_ingest_producers: one row per (table, producer), read
// from the state keys through the statement's transaction.
func init() {
	pgcatalog.RegisterView("epochdb_ingest_producers", "table_name name, producer text, epoch int8, high_water int8, "+
		"pending int8[], last_seen timestamptz, expires_at timestamptz, state_bytes int4", ingestProducerRows)
}

// The view shows live producers and, after them, the abandoned states of
// producers that expired with rows pending.
func ingestProducerRows(h pgcatalog.Host) [][]any {
	s := sessionOf(h)
	if s.tx == nil {
		return nil
	}
	cat := s.catalog()
	var rows [][]any
	scan := func(kind byte, producerAt int) {
		start := []byte{catalog.SysPrefix, kind}
		_ = s.tx.Scan(start, catalog.PrefixEnd(start), func(k, v []byte) bool {
			if len(k) < producerAt {
				return true
			}
			t := cat.TableByID[binary.BigEndian.Uint32(k[2:6])]
			st, err := txn.DecodeProducerState(v)
			if t == nil || t.Ingest == nil || err != nil {
				return true
			}
			pending := []any{}
			for _, p := range st.Pending() {
				pending = append(pending, p)
			}
			seen := time.Unix(0, int64(st.LastSeen)).UTC().Truncate(time.Microsecond)
			rows = append(rows, []any{t.Name, string(k[producerAt:]), st.Epoch, st.High, pending, seen,
				seen.Add(time.Duration(t.Ingest.TTL) * time.Microsecond), int64(st.Bytes())})
			return true
		})
	}
	scan('i', 6)
	scan('a', 14)
	return rows
}

// forgetAbandoned is epochdb_ingest_forget(table, producer): an operator's
// acknowledgement that an expired producer's abandoned ranges are dealt
// with. It removes them from the view and returns how many it removed.
func forgetAbandoned(e *plan.Env, args []any) (any, error) {
	t, err := tableNamed(e.Host, args[0].(string))
	if err != nil {
		return nil, err
	}
	if t.Ingest == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not an ingest table", t.Name)
	}
	start := binary.BigEndian.AppendUint32([]byte{catalog.SysPrefix, 'a'}, t.ID)
	var keys [][]byte
	if err := sessionOf(e.Host).tx.Scan(start, catalog.PrefixEnd(start), func(k, _ []byte) bool {
		if string(k[14:]) == args[1].(string) {
			keys = append(keys, append([]byte(nil), k...))
		}
		return true
	}); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := sessionOf(e.Host).tx.Delete(e.Ctx, k); err != nil {
			return nil, err
		}
	}
	return int64(len(keys)), nil
}

// producerBegin is epochdb_producer_begin(table, producer [, resume_after])
// in FROM: it (re)starts a producer and returns one row (epoch, high_water,
// pending).
type producerBegin struct {
	args []plan.Expr // table name, producer, and resume_after or nil
}

func (p *producerBegin) Describe(e *plan.Explainer) *plan.Node {
	return &plan.Node{Type: "Function Scan", Label: "Function Scan on epochdb_producer_begin"}
}

// producerBeginLockWait bounds the wait for a producer's state key: a
// session that already wrote rows of the producer in its open transaction
// holds it, and would otherwise wait for itself.
const producerBeginLockWait = 5 * time.Second

func planProducerBegin(c *plan.Compiler, n *ast.TableSource, call *ast.FuncCallExpr) (plan.Source, *plan.Scope, error) {
	if len(call.Args) < 2 || len(call.Args) > 3 {
		return nil, nil, plan.ArgCountErr(call, nil)
	}
	in := c.WithScope(&plan.Scope{})
	want := []types.T{types.Text, types.Text, types.Int8}
	p := &producerBegin{}
	for i, a := range call.Args {
		// resume_after may also be given by name.
		if name, value, ok := plan.NamedArg(a); ok {
			if i != 2 || name != "resume_after" {
				return nil, nil, pgerr.New(pgerr.UndefinedFunction,
					"function epochdb_producer_begin has no argument %q here; it takes (table, producer [, resume_after])", name)
			}
			a = value
		}
		e, err := in.CompileAs(a, want[i])
		if err != nil {
			return nil, nil, err
		}
		p.args = append(p.args, e)
	}
	alias := n.AsName.O
	return p, &plan.Scope{Cols: []plan.ScopeCol{
		{Table: alias, Name: "epoch", T: types.Int8},
		{Table: alias, Name: "high_water", T: types.Int8},
		{Table: alias, Name: "pending", T: types.Int8Array},
	}}, nil
}

// Open begins the producer in a short transaction of its own, committed
// (and so durable) before the row is returned: an epoch handed to a
// producer is never handed out again, whatever happens to the caller's
// transaction or the server.
func (p *producerBegin) Open(x *plan.ExecCtx) (rowexec.RowIter, error) {
	vals := make([]any, len(p.args))
	for i, a := range p.args {
		v, err := a.Eval(x.Env(nil))
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, pgerr.New(pgerr.NullValueNotAllowed, "epochdb_producer_begin: arguments must not be NULL")
		}
		vals[i] = v
	}
	t, err := tableNamed(x.Host, vals[0].(string))
	if err != nil {
		return nil, err
	}
	if t.Ingest == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not an ingest table", t.Name)
	}
	producer := vals[1].(string)
	var resumeAfter int64
	if len(vals) == 3 {
		if resumeAfter = vals[2].(int64); resumeAfter < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "resume_after must not be negative")
		}
	}
	ctx, cancel := context.WithTimeout(x.Ctx, producerBeginLockWait)
	defer cancel()
	tx := sessionOf(x.Host).e.store.Begin(txn.ReadCommitted)
	now := tx.Snapshot()
	var st *txn.ProducerState
	err = tx.Mutate(ctx, ingestKey(t.ID, producer), func(cur []byte, exists bool) ([]byte, txn.Op, error) {
		if !exists {
			st = txn.NewProducer(resumeAfter, now)
		} else {
			var err error
			if st, err = txn.DecodeProducerState(cur); err != nil {
				return nil, txn.Keep, err
			}
			st.Epoch++
			st.LastSeen = max(st.LastSeen, now)
		}
		return st.Encode(nil), txn.Put, nil
	})
	if err == nil {
		err = tx.Commit()
	} else {
		_ = tx.Rollback()
	}
	if errors.Is(err, context.DeadlineExceeded) && x.Ctx.Err() == nil {
		return nil, pgerr.New(pgerr.LockNotAvailable, "could not lock the state of producer %q", producer).
			WithHint("Call epochdb_producer_begin outside a transaction that has written rows of this producer.")
	}
	if err != nil {
		return nil, err
	}
	pending := []any{}
	for _, s := range st.Pending() {
		pending = append(pending, s)
	}
	return &rowexec.SliceIter{Rows: [][]any{{st.Epoch, st.High, pending}}}, nil
}

func init() {
	plan.FromPlanners["epochdb_producer_begin"] = planProducerBegin
	plan.FuncCompilers["epochdb_ingest_forget"] = plan.Fixed(types.Int8, []types.T{types.Text, types.Text}, forgetAbandoned)
}
