package sql

import (
	"slices"
	"sync"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// LISTEN, UNLISTEN and NOTIFY. Both sides are transactional, as in
// PostgreSQL: a transaction's notifications are delivered when it commits,
// to every session listening then (itself included), in commit order, and
// a rolled-back transaction sends none; its LISTEN and UNLISTEN take
// effect at commit too. A transaction sends a notification with the same
// channel and payload once. Delivery goes through SessionParams.Notify,
// which pgwire turns into NotificationResponse messages.

// Notification is one NOTIFY as its listeners receive it.
type Notification struct {
	PID     int32 // the notifying session's
	Channel string
	Payload string
}

// maxNotifyPayload is PostgreSQL's limit on a payload, in bytes.
const maxNotifyPayload = 7999

// notifyHub knows which sessions listen on which channels.
type notifyHub struct {
	mu        sync.Mutex // guards channels, and orders deliveries
	listeners map[string]map[*Session]struct{}
}

func newNotifyHub() *notifyHub {
	return &notifyHub{listeners: map[string]map[*Session]struct{}{}}
}

// listenOp is a LISTEN (channel set), an UNLISTEN (off) or an UNLISTEN *
// (off, channel empty) waiting for its transaction to commit.
type listenOp struct {
	channel string
	off     bool
}

// apply makes s's committed LISTEN and UNLISTEN operations take effect.
func (h *notifyHub) apply(s *Session, ops []listenOp) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, op := range ops {
		switch {
		case !op.off:
			if h.listeners[op.channel] == nil {
				h.listeners[op.channel] = map[*Session]struct{}{}
			}
			h.listeners[op.channel][s] = struct{}{}
		case op.channel != "":
			h.drop(s, op.channel)
		default:
			for ch := range h.listeners {
				h.drop(s, ch)
			}
		}
	}
}

// drop stops s listening on channel. h.mu is held.
func (h *notifyHub) drop(s *Session, channel string) {
	delete(h.listeners[channel], s)
	if len(h.listeners[channel]) == 0 {
		delete(h.listeners, channel)
	}
}

// deliver hands a committed transaction's notifications to the sessions
// listening on their channels. Holding the hub's lock while doing so keeps
// deliveries in commit order.
func (h *notifyHub) deliver(ns []Notification) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range ns {
		for s := range h.listeners[n.Channel] {
			if s.notifyFn != nil {
				s.notifyFn(n)
			}
		}
	}
}

// channelsOf lists the channels s listens on, for pg_listening_channels.
func (h *notifyHub) channelsOf(s *Session) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for ch, ss := range h.listeners {
		if _, ok := ss[s]; ok {
			out = append(out, ch)
		}
	}
	slices.Sort(out)
	return out
}

// queueNotify adds a NOTIFY to the session's transaction, or delivers it
// at once outside one.
func (s *Session) queueNotify(channel, payload string) error {
	switch {
	case channel == "":
		return pgerr.New(pgerr.InvalidParameterValue, "channel name cannot be empty")
	case len(channel) > 63:
		return pgerr.New(pgerr.InvalidParameterValue, "channel name too long")
	case len(payload) > maxNotifyPayload:
		return pgerr.New(pgerr.InvalidParameterValue, "payload string too long")
	}
	n := Notification{PID: s.pid, Channel: channel, Payload: payload}
	if s.tx == nil {
		s.e.notify.deliver([]Notification{n})
		return nil
	}
	if !slices.Contains(s.notifies, n) {
		s.notifies = append(s.notifies, n)
	}
	return nil
}

// queueListen adds a LISTEN or UNLISTEN to the session's transaction, or
// applies it at once outside one.
func (s *Session) queueListen(op listenOp) {
	if s.tx == nil {
		s.e.notify.apply(s, []listenOp{op})
		return
	}
	s.listenOps = append(s.listenOps, op)
}

// endNotify settles the transaction's LISTEN, UNLISTEN and NOTIFY once it
// has ended: committed, they take effect; rolled back, they are dropped.
func (s *Session) endNotify(committed bool) {
	ops, ns := s.listenOps, s.notifies
	s.listenOps, s.notifies = nil, nil
	if !committed {
		return
	}
	if len(ops) > 0 {
		s.e.notify.apply(s, ops)
	}
	if len(ns) > 0 {
		s.e.notify.deliver(ns)
	}
}

// runNotifyCmd runs LISTEN, UNLISTEN and NOTIFY.
func (s *Session) runNotifyCmd(cmd any) (string, error) {
	switch cmd := cmd.(type) {
	case *parser.Listen:
		s.queueListen(listenOp{channel: cmd.Channel})
		return "LISTEN", nil
	case *parser.Unlisten:
		s.queueListen(listenOp{channel: cmd.Channel, off: true})
		return "UNLISTEN", nil
	case *parser.Notify:
		return "NOTIFY", s.queueNotify(cmd.Channel, cmd.Payload)
	}
	return "", nil
}

func init() {
	plan.FuncCompilers["pg_notify"] = compilePgNotify
	plan.FuncCompilers["pg_listening_channels"] = plan.CompileSRFRef
	plan.TableFuncs["pg_listening_channels"] = listeningChannels
}

// compilePgNotify is pg_notify(channel, payload), NOTIFY as a function.
func compilePgNotify(c *plan.Compiler, n *ast.FuncCallExpr) (plan.Expr, error) {
	if len(n.Args) != 2 {
		return nil, plan.ArgCountErr(n, nil)
	}
	args, err := plan.CompileArgs(c, n)
	if err != nil {
		return nil, err
	}
	for i := range args {
		if err := c.CoerceArg("pg_notify", args, i, types.Text); err != nil {
			return nil, err
		}
	}
	return &plan.FuncExpr{Name: "pg_notify", T: types.T{Oid: types.OidVoid, Mod: -1}, Args: args, Fn: func(e *plan.Env, a []any) (any, error) {
		channel, _ := a[0].(string)
		payload, _ := a[1].(string)
		return "", sessionOf(e.Host).queueNotify(channel, payload)
	}}, nil
}

// listeningChannels is pg_listening_channels(): the channels the session
// listens on.
func listeningChannels(c *plan.Compiler, n *ast.FuncCallExpr) (*plan.TableFunc, error) {
	if len(n.Args) != 0 {
		return nil, plan.ArgCountErr(n, nil)
	}
	s := sessionOf(c.Host)
	return &plan.TableFunc{Name: "pg_listening_channels", T: types.Text, Rows: func([]any) ([]any, error) {
		var out []any
		for _, ch := range s.e.notify.channelsOf(s) {
			out = append(out, ch)
		}
		return out, nil
	}}, nil
}
