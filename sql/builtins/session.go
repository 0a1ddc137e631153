package builtins

import "github.com/epochdb/epochdb/sql/types"

// The session's functions: who and where it is (current_user,
// current_database, pg_backend_pid, version()), and its run-time
// parameters (current_setting, set_config). They are stable: a statement
// sees one answer.

// sessionFunc is a function of no arguments that reads the session.
func sessionFunc(ret types.T, f func(Session) any) []Overload {
	return []Overload{{Ret: ret, Volatility: Stable, Fn: func(e Env, _ []any) (any, error) { return f(e.Session()), nil }}}
}

func currentSetting(e Env, a []any) (any, error) { return e.Setting(a[0].(string)) }

// setConfig is set_config(name, value, is_local): SET, returning the new
// value.
func setConfig(e Env, a []any) (any, error) {
	if err := e.SetSetting(a[0].(string), a[1].(string), a[2].(bool)); err != nil {
		return nil, err
	}
	return e.Setting(a[0].(string))
}
