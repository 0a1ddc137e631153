package sql

import (
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

// The advisory lock functions: PostgreSQL's locks on keys that only the
// application gives a meaning. txn's lock table holds them for the
// session's owner (s.owner): a session-level lock lasts until it is
// unlocked or the session closes, whatever its transactions do; a
// transaction-level one until the transaction ends. Each function takes a
// bigint key or two int4 keys, two key spaces that never meet, as
// PostgreSQL's lock tags keep them apart (objsubid 1 and 2).

// advisoryFunc is what one of the functions does.
type advisoryFunc struct {
	mode   txn.AdvisoryMode
	xact   bool // a transaction-level lock
	try    bool // report whether it took the lock instead of waiting
	unlock bool
}

var advisoryFuncs = map[string]advisoryFunc{
	"pg_advisory_lock":                 {mode: txn.AdvisoryExclusive},
	"pg_advisory_lock_shared":          {mode: txn.AdvisoryShare},
	"pg_try_advisory_lock":             {mode: txn.AdvisoryExclusive, try: true},
	"pg_try_advisory_lock_shared":      {mode: txn.AdvisoryShare, try: true},
	"pg_advisory_xact_lock":            {mode: txn.AdvisoryExclusive, xact: true},
	"pg_advisory_xact_lock_shared":     {mode: txn.AdvisoryShare, xact: true},
	"pg_try_advisory_xact_lock":        {mode: txn.AdvisoryExclusive, xact: true, try: true},
	"pg_try_advisory_xact_lock_shared": {mode: txn.AdvisoryShare, xact: true, try: true},
	"pg_advisory_unlock":               {mode: txn.AdvisoryExclusive, unlock: true},
	"pg_advisory_unlock_shared":        {mode: txn.AdvisoryShare, unlock: true},
}

var voidType = types.T{Oid: types.OidVoid, Mod: -1}

// advisoryKeys are the two forms of key, the overloads of each function:
// one bigint, and two int4 keys, the first as the high half.
var advisoryKeys = []struct {
	args []types.T
	key  func(a []any) txn.AdvisoryKey
}{
	{[]types.T{types.Int8}, func(a []any) txn.AdvisoryKey {
		return txn.AdvisoryKey{Space: 1, Key: uint64(a[0].(int64))}
	}},
	{[]types.T{types.Int4, types.Int4}, func(a []any) txn.AdvisoryKey {
		return txn.AdvisoryKey{Space: 2, Key: uint64(uint32(a[0].(int64)))<<32 | uint64(uint32(a[1].(int64)))}
	}},
}

func init() {
	for name, f := range advisoryFuncs {
		ret := voidType
		if f.try || f.unlock {
			ret = types.Bool
		}
		var ovs []builtins.Overload
		for _, k := range advisoryKeys {
			ovs = append(ovs, builtins.Overload{Args: k.args, Ret: ret, Volatility: builtins.Volatile,
				Fn: withSession(func(s *Session, e *plan.Env, a []any) (any, error) { return s.advisory(e, f, k.key(a)) })})
		}
		plan.FuncCompilers[name] = plan.Overloaded(ovs)
		plan.MutableFuncs[name] = true
	}
	plan.FuncCompilers["pg_advisory_unlock_all"] = plan.Overloaded([]builtins.Overload{
		{Ret: voidType, Volatility: builtins.Volatile, Fn: withSession(func(s *Session, _ *plan.Env, _ []any) (any, error) {
			s.owner.UnlockAll()
			return "", nil
		})},
	})
	plan.MutableFuncs["pg_advisory_unlock_all"] = true
}

// withSession makes fn an overload's implementation: the planner hands
// its *plan.Env to the functions it resolves, and through it the session.
func withSession(fn func(s *Session, e *plan.Env, a []any) (any, error)) func(builtins.Env, []any) (any, error) {
	return func(env builtins.Env, a []any) (any, error) {
		e := env.(*plan.Env)
		return fn(sessionOf(e.Host), e, a)
	}
}

// advisory runs advisory function f on key.
func (s *Session) advisory(e *plan.Env, f advisoryFunc, key txn.AdvisoryKey) (any, error) {
	switch {
	case f.unlock:
		if !s.owner.Unlock(key, f.mode) {
			s.warning(pgerr.Warning, "you don't own a lock of type %s", f.mode)
			return false, nil
		}
		return true, nil
	case f.try:
		return s.tx.TryLockAdvisory(key, f.mode, f.xact)
	}
	return "", s.tx.LockAdvisory(e.Ctx, key, f.mode, f.xact)
}
