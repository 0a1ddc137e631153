package builtins

import (
	"context"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The current date and time. now() and its synonyms are the transaction's
// start, so every call in a transaction agrees; statement_timestamp is the
// statement's; clock_timestamp is the wall clock at each call. Timestamps
// keep microseconds, as PostgreSQL's do.

// clockFunc is a function of no arguments that reads a time.
func clockFunc(ret types.T, v Volatility, f func(Env) time.Time) []Overload {
	return []Overload{{Ret: ret, Volatility: v, Fn: func(e Env, _ []any) (any, error) {
		return f(e).UTC().Truncate(time.Microsecond), nil
	}}}
}

func transactionTime(e Env) time.Time { return e.TransactionTime() }
func statementTime(e Env) time.Time   { return e.StatementTime() }
func wallClock(Env) time.Time         { return time.Now() }

// currentDate is the transaction's date in the session's time zone.
func currentDate(e Env) time.Time {
	t := e.TransactionTime().In(e.Location())
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// pgSleep waits the seconds given, or until the statement is canceled.
func pgSleep(e Env, a []any) (any, error) {
	d := time.Duration(a[0].(float64) * float64(time.Second))
	select {
	case <-time.After(d):
		return "", nil
	case <-e.Context().Done():
		return nil, pgerr.Convert(context.Cause(e.Context()))
	}
}
