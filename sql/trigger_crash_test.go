package sql

import "testing"

// A trigger's writes are atomic with the statement that fired it, across
// a crash: after the file system crashes (losing all unsynced data, or
// keeping a random share), each committed statement's rows are there with
// their audit rows, an uncommitted statement's are there with neither,
// and the triggers themselves are as committed: made, disabled, dropped.
func TestTriggerWritesAtomicAcrossCrash(t *testing.T) {
	crashScenario(t, 9, []string{
		`CREATE TABLE acct (id int PRIMARY KEY, balance int, version int DEFAULT 0)`,
		`CREATE TABLE acct_log (id int, balance int)`,
		`CREATE FUNCTION acct_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.version := OLD.version + 1; RETURN NEW; END $$`,
		`CREATE FUNCTION acct_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO acct_log VALUES (NEW.id, NEW.balance); RETURN NULL; END $$`,
		`CREATE TRIGGER bump BEFORE UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION acct_bump()`,
		`CREATE TRIGGER audit AFTER INSERT OR UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION acct_audit()`,
		`CREATE TRIGGER gone AFTER INSERT ON acct FOR EACH ROW EXECUTE FUNCTION acct_audit()`,
		`DROP TRIGGER gone ON acct`,
		`INSERT INTO acct (id, balance) VALUES (1, 100), (2, 200)`,
		`UPDATE acct SET balance = balance + 1`,
	}, []string{`BEGIN`, `INSERT INTO acct (id, balance) VALUES (3, 300)`, `UPDATE acct SET balance = 0 WHERE id = 1`, `ALTER TABLE acct DISABLE TRIGGER audit`}, []crashCheck{
		{`SELECT string_agg(id || ':' || balance || ':' || version, ',' ORDER BY id) FROM acct`, "1:101:1,2:201:1"},
		{`SELECT string_agg(id || ':' || balance, ',' ORDER BY id, balance) FROM acct_log`, "1:100,1:101,2:200,2:201"},
		{`SELECT string_agg(tgname || ':' || tgenabled, ',' ORDER BY tgname) FROM pg_trigger`, "audit:O,bump:O"},
		// The triggers still fire after the crash.
		{`UPDATE acct SET balance = 5 WHERE id = 2 RETURNING version::text`, "2"},
		{`SELECT count(*)::text FROM acct_log`, "5"},
	})
}
